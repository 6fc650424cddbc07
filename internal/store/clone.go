package store

import (
	"reflect"
	"time"
)

// Clone returns a deep copy of *v: nothing reachable from the copy through a
// pointer, slice, map or interface is shared with v, so either may change
// without the other seeing it. It is for the plain data of entities (no
// channels or functions; unexported fields other than time.Time's are
// copied as they are).
func Clone[T any](v *T) *T {
	out := new(T)
	deepCopy(reflect.ValueOf(out).Elem(), reflect.ValueOf(v).Elem())
	return out
}

// CloneAny is Clone of the value v holds (a pointer's pointee is copied), as
// the same type.
func CloneAny[T any](v T) T {
	var out T
	deepCopy(reflect.ValueOf(&out).Elem(), reflect.ValueOf(&v).Elem())
	return out
}

var timeType = reflect.TypeFor[time.Time]()

func deepCopy(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Pointer:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		p := reflect.New(src.Type().Elem())
		deepCopy(p.Elem(), src.Elem())
		dst.Set(p)
	case reflect.Slice:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		s := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		if k := src.Type().Elem().Kind(); k <= reflect.Complex128 || k == reflect.String {
			reflect.Copy(s, src)
		} else {
			for i := range src.Len() {
				deepCopy(s.Index(i), src.Index(i))
			}
		}
		dst.Set(s)
	case reflect.Array:
		for i := range src.Len() {
			deepCopy(dst.Index(i), src.Index(i))
		}
	case reflect.Map:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		m := reflect.MakeMapWithSize(src.Type(), src.Len())
		for it := src.MapRange(); it.Next(); {
			k := reflect.New(src.Type().Key()).Elem()
			deepCopy(k, it.Key())
			e := reflect.New(src.Type().Elem()).Elem()
			deepCopy(e, it.Value())
			m.SetMapIndex(k, e)
		}
		dst.Set(m)
	case reflect.Interface:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		e := reflect.New(src.Elem().Type()).Elem()
		deepCopy(e, src.Elem())
		dst.Set(e)
	case reflect.Struct:
		dst.Set(src)
		if src.Type() == timeType {
			return
		}
		for i := range src.NumField() {
			if f := dst.Field(i); f.CanSet() {
				deepCopy(f, src.Field(i))
			}
		}
	default:
		dst.Set(src)
	}
}
