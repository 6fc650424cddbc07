package store

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Clone returns a deep copy of *v: nothing reachable from the copy through a
// pointer, slice, map or interface is shared with v, so either may change
// without the other seeing it. It is for the plain data of entities (no
// channels or functions; unexported fields other than time.Time's are
// copied as they are).
func Clone[T any](v *T) *T {
	out := new(T)
	copier{}.copy(reflect.ValueOf(out).Elem(), reflect.ValueOf(v).Elem())
	return out
}

// CloneAsDecoded is a deep copy of the value v holds (a pointer's pointee is
// copied) as decoding its encoding/json encoding would give it, for the
// fields that encoding carries: raw JSON compacted with HTML characters
// escaped, invalid UTF-8 bytes of strings replaced by U+FFFD, times without
// their monotonic reading and at UTC when their offset is zero.
func CloneAsDecoded[T any](v T) T {
	var out T
	c := copier{asDecoded: true}
	c.copy(reflect.ValueOf(&out).Elem(), reflect.ValueOf(&v).Elem())
	return out
}

var (
	timeType = reflect.TypeFor[time.Time]()
	rawType  = reflect.TypeFor[json.RawMessage]()
)

type copier struct{ asDecoded bool }

func (c copier) copy(dst, src reflect.Value) {
	if c.asDecoded {
		switch {
		case src.Type() == rawType && !src.IsNil():
			var b bytes.Buffer
			if json.Compact(&b, src.Bytes()) == nil {
				var e bytes.Buffer
				json.HTMLEscape(&e, b.Bytes())
				dst.SetBytes(e.Bytes())
				return
			}
		case src.Kind() == reflect.String && !utf8.ValidString(src.String()):
			dst.SetString(validUTF8(src.String()))
			return
		case src.Type() == timeType:
			t := src.Interface().(time.Time).Round(0)
			if _, off := t.Zone(); off == 0 {
				t = t.UTC()
			}
			dst.Set(reflect.ValueOf(t))
			return
		}
	}
	switch src.Kind() {
	case reflect.Pointer:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		p := reflect.New(src.Type().Elem())
		c.copy(p.Elem(), src.Elem())
		dst.Set(p)
	case reflect.Slice:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		s := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		if k := src.Type().Elem().Kind(); k <= reflect.Complex128 || (k == reflect.String && !c.asDecoded) {
			reflect.Copy(s, src)
		} else {
			for i := range src.Len() {
				c.copy(s.Index(i), src.Index(i))
			}
		}
		dst.Set(s)
	case reflect.Array:
		for i := range src.Len() {
			c.copy(dst.Index(i), src.Index(i))
		}
	case reflect.Map:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		m := reflect.MakeMapWithSize(src.Type(), src.Len())
		for it := src.MapRange(); it.Next(); {
			k := reflect.New(src.Type().Key()).Elem()
			c.copy(k, it.Key())
			e := reflect.New(src.Type().Elem()).Elem()
			c.copy(e, it.Value())
			m.SetMapIndex(k, e)
		}
		dst.Set(m)
	case reflect.Interface:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		e := reflect.New(src.Elem().Type()).Elem()
		c.copy(e, src.Elem())
		dst.Set(e)
	case reflect.Struct:
		dst.Set(src)
		if src.Type() == timeType {
			return
		}
		for _, f := range fieldsOf(src.Type()) {
			if !f.deep && !(f.str && c.asDecoded) {
				continue // copied with the struct
			}
			df, sf := dst.Field(f.i), src.Field(f.i)
			if c.asDecoded && f.encoded && c.decodedAs(df, sf, f.omitEmpty) {
				continue
			}
			c.copy(df, sf)
		}
	default:
		dst.Set(src)
	}
}

// decodedAs sets dst to what decoding gives for an encoded field whose
// encoding the field's own value does not give back: raw JSON left out
// (null), and an empty list left out by omitempty (none). It reports whether
// it did.
func (c copier) decodedAs(dst, src reflect.Value, omitEmpty bool) bool {
	switch {
	case src.Type() == rawType && src.IsNil() && !omitEmpty:
		dst.SetBytes([]byte("null"))
	case omitEmpty && (src.Kind() == reflect.Slice || src.Kind() == reflect.Map) && src.Len() == 0:
		dst.SetZero()
	default:
		return false
	}
	return true
}

// field is what copy needs of a struct's exported field: its index, what
// its json tag says, and whether copying the struct left anything to do.
type field struct {
	i         int
	encoded   bool // its tag is not "-"
	omitEmpty bool
	str       bool // a string: copied with the struct, checked as decoded
	deep      bool // neither a number, a bool nor a string: copied into
}

// fields caches fieldsOf by struct type.
var fields sync.Map

// fieldsOf returns the exported fields of struct type t (the ones copy can
// set), read once per type.
func fieldsOf(t reflect.Type) []field {
	if f, ok := fields.Load(t); ok {
		return f.([]field)
	}
	var out []field
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		_, opts, _ := strings.Cut(tag, ",")
		k := sf.Type.Kind()
		out = append(out, field{i: i, encoded: tag != "-", omitEmpty: strings.Contains(","+opts+",", ",omitempty,"),
			str: k == reflect.String, deep: k > reflect.Complex128 && k != reflect.String})
	}
	fields.Store(t, out)
	return out
}

// validUTF8 is s with each byte that is not part of valid UTF-8 replaced by
// U+FFFD, as encoding/json writes it.
func validUTF8(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
