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
	copierOf(reflect.TypeFor[T]())(reflect.ValueOf(out).Elem(), reflect.ValueOf(v).Elem(), false)
	return out
}

// CloneAsDecoded is a deep copy of the value v holds (a pointer's pointee is
// copied) as decoding its encoding/json encoding would give it, for the
// fields that encoding carries: raw JSON compacted with HTML characters
// escaped, invalid UTF-8 bytes of strings replaced by U+FFFD, times without
// their monotonic reading and at UTC when their offset is zero. Fields it
// does not carry are copied the same way, so an entity's copy is also what
// its stored JSON decodes to (an RTC's audit state, a turn's checkpoint).
func CloneAsDecoded[T any](v T) T {
	var out T
	copierOf(reflect.TypeFor[T]())(reflect.ValueOf(&out).Elem(), reflect.ValueOf(&v).Elem(), true)
	return out
}

var (
	timeType = reflect.TypeFor[time.Time]()
	rawType  = reflect.TypeFor[json.RawMessage]()
)

// copyFunc copies src into dst, both of the type it was made for; asDecoded
// is CloneAsDecoded's mode.
type copyFunc func(dst, src reflect.Value, asDecoded bool)

// copiers caches copierOf by type: a type's copy is worked out once, so a
// copy does no type comparisons or field lookups of its own.
var copiers sync.Map

// copierOf returns the copy of type t. While t's copy is being worked out,
// the types inside it that refer back to t (and other goroutines) get a
// stand-in that waits for it.
func copierOf(t reflect.Type) copyFunc {
	if f, ok := copiers.Load(t); ok {
		return f.(copyFunc)
	}
	var built copyFunc
	ready := make(chan struct{})
	standIn := copyFunc(func(dst, src reflect.Value, dec bool) {
		<-ready
		built(dst, src, dec)
	})
	if f, loaded := copiers.LoadOrStore(t, standIn); loaded {
		return f.(copyFunc)
	}
	built = buildCopier(t)
	close(ready)
	copiers.Store(t, built)
	return built
}

func buildCopier(t reflect.Type) copyFunc {
	switch {
	case t == timeType:
		return func(dst, src reflect.Value, dec bool) {
			dst.Set(src)
			if !dec {
				return
			}
			at := dst.Addr().Interface().(*time.Time) // dst is a new value's: addressable
			*at = at.Round(0)
			if _, off := at.Zone(); off == 0 {
				*at = at.UTC()
			}
		}
	case t == rawType:
		return func(dst, src reflect.Value, dec bool) {
			if src.IsNil() {
				dst.SetZero()
				return
			}
			if dec && !compactEscaped(src.Bytes()) {
				var b bytes.Buffer
				if json.Compact(&b, src.Bytes()) == nil {
					var e bytes.Buffer
					json.HTMLEscape(&e, b.Bytes())
					dst.SetBytes(e.Bytes())
					return
				}
			}
			dst.SetBytes(bytes.Clone(src.Bytes()))
		}
	}
	switch t.Kind() {
	case reflect.String:
		return func(dst, src reflect.Value, dec bool) {
			if s := src.String(); dec && !utf8.ValidString(s) {
				dst.SetString(validUTF8(s))
				return
			}
			dst.Set(src)
		}
	case reflect.Pointer:
		et, elem := t.Elem(), copierOf(t.Elem())
		return func(dst, src reflect.Value, dec bool) {
			if src.IsNil() {
				dst.SetZero()
				return
			}
			p := reflect.New(et)
			elem(p.Elem(), src.Elem(), dec)
			dst.Set(p)
		}
	case reflect.Slice:
		ek := t.Elem().Kind()
		flat := ek <= reflect.Complex128 // no pointers, nothing to check
		var elem copyFunc
		if !flat {
			elem = copierOf(t.Elem())
		}
		return func(dst, src reflect.Value, dec bool) {
			if src.IsNil() {
				dst.SetZero()
				return
			}
			n := src.Len()
			s := reflect.MakeSlice(t, n, n)
			if flat || ek == reflect.String && !dec {
				reflect.Copy(s, src)
			} else {
				for i := range n {
					elem(s.Index(i), src.Index(i), dec)
				}
			}
			dst.Set(s)
		}
	case reflect.Array:
		elem := copierOf(t.Elem())
		return func(dst, src reflect.Value, dec bool) {
			for i := range src.Len() {
				elem(dst.Index(i), src.Index(i), dec)
			}
		}
	case reflect.Map:
		key, elem := copierOf(t.Key()), copierOf(t.Elem())
		return func(dst, src reflect.Value, dec bool) {
			if src.IsNil() {
				dst.SetZero()
				return
			}
			m := reflect.MakeMapWithSize(t, src.Len())
			for it := src.MapRange(); it.Next(); {
				k := reflect.New(t.Key()).Elem()
				key(k, it.Key(), dec)
				e := reflect.New(t.Elem()).Elem()
				elem(e, it.Value(), dec)
				m.SetMapIndex(k, e)
			}
			dst.Set(m)
		}
	case reflect.Interface:
		return func(dst, src reflect.Value, dec bool) {
			if src.IsNil() {
				dst.SetZero()
				return
			}
			e := reflect.New(src.Elem().Type()).Elem()
			copierOf(e.Type())(e, src.Elem(), dec)
			dst.Set(e)
		}
	case reflect.Struct:
		return structCopier(t)
	}
	return func(dst, src reflect.Value, _ bool) { dst.Set(src) }
}

// structField is what a struct's copy does with one exported field after
// copying the struct whole: copy into it (deep), check it as decoded (str),
// or set it as decoding its encoding would (encoded, omitEmpty).
type structField struct {
	i         int
	copy      copyFunc
	encoded   bool // its tag is not "-"
	omitEmpty bool
	raw       bool // json.RawMessage
	list      bool // a slice or map
	str       bool // a string: copied with the struct, checked as decoded
	deep      bool // neither a number, a bool nor a string: copied into
}

func structCopier(t reflect.Type) copyFunc {
	var fields []structField
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		k := sf.Type.Kind()
		f := structField{i: i, str: k == reflect.String, deep: k > reflect.Complex128 && k != reflect.String}
		if !f.str && !f.deep {
			continue // copied with the struct
		}
		tag := sf.Tag.Get("json")
		_, opts, _ := strings.Cut(tag, ",")
		f.encoded, f.omitEmpty = tag != "-", strings.Contains(","+opts+",", ",omitempty,")
		f.raw, f.list = sf.Type == rawType, k == reflect.Slice || k == reflect.Map
		f.copy = copierOf(sf.Type)
		fields = append(fields, f)
	}
	return func(dst, src reflect.Value, dec bool) {
		dst.Set(src)
		for i := range fields {
			f := &fields[i]
			if f.str && !dec {
				continue // copied with the struct
			}
			df, sf := dst.Field(f.i), src.Field(f.i)
			if dec && f.encoded {
				switch {
				case f.raw && sf.IsNil() && !f.omitEmpty:
					df.SetBytes([]byte("null")) // decoding gives back null
					continue
				case f.omitEmpty && f.list && sf.Len() == 0:
					df.SetZero() // left out by omitempty: decoding gives none
					continue
				}
			}
			f.copy(df, sf, dec)
		}
	}
}

// compactEscaped reports whether compacting b and escaping its HTML
// characters would give b back: it holds none of the bytes either changes
// (whitespace, which only compacting outside strings removes, counts too).
// Raw JSON this process encoded is so, and its copy is a copy.
func compactEscaped(b []byte) bool {
	return !bytes.ContainsAny(b, " \t\r\n<>&") && !bytes.Contains(b, []byte("\u2028")) && !bytes.Contains(b, []byte("\u2029"))
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
