package pgstore

import (
	"hash/maphash"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rtcagent/rtcagent/internal/store"
)

// Statements that wait in tx.pending (pipeline.go) travel to the server as
// few statements as their meaning allows: a run of them that touch different
// tables is sent as one statement of common table expressions. PostgreSQL
// runs every data-modifying CTE of a statement exactly once, all on one
// snapshot; for statements of which none writes a table another one reads or
// writes, that is what running them one after another would do. Each member
// keeps its own result: the fused statement returns one row holding, for each
// member that returns rows, a marker column and its first row's columns.
//
// A run ends where the next statement would change that meaning:
//   - it writes a table an earlier member touches, or touches one an earlier
//     member writes;
//   - the earlier member locks rows (FOR UPDATE, FOR SHARE): a statement after
//     a lock must take its snapshot after the lock was granted, to see what
//     the lock waited for;
//   - it is not a plain SELECT, INSERT, UPDATE, DELETE or WITH statement
//     (BEGIN, COMMIT), or its command tag is judged, or it reads many rows.
//
// Member statements are written as usual; the fuser renames each one's CTEs
// and renumbers its parameters. What it cannot take apart it sends alone.

// shape is a statement taken apart: its CTEs and final statement as written,
// and what it touches.
type shape struct {
	ok        bool
	names     []string // CTE names
	ctes      []string // "name AS (…)" texts
	final     string
	selects   bool // the final statement is a SELECT
	returning bool // the final statement (a write) has RETURNING
	locks     bool
	reads     map[string]bool
	writes    map[string]bool
}

var (
	shapes   cache // sql → *shape
	sqlLocks = regexp.MustCompile(`(?i)\bFOR\s+(NO\s+KEY\s+UPDATE|UPDATE|KEY\s+SHARE|SHARE)\b`)
)

// cache keeps what was worked out from statement texts. The store writes its
// statements as constants, so there are few; past maxCached (a statement
// built from input, which there should not be) it stops keeping more.
type cache struct {
	m sync.Map
	n atomic.Int64
}

const maxCached = 4096

func (c *cache) load(k any) (any, bool) { return c.m.Load(k) }

func (c *cache) store(k, v any) {
	if c.n.Load() < maxCached {
		if _, loaded := c.m.LoadOrStore(k, v); !loaded {
			c.n.Add(1)
		}
	}
}

func shapeOf(sql string) *shape {
	if s, ok := shapes.load(sql); ok {
		return s.(*shape)
	}
	s := parseShape(sql)
	shapes.store(sql, s)
	return s
}

// token is a piece of SQL: a word (keyword or identifier), a parameter ($n), a
// quoted string or identifier, a comment, space, or a single character.
type token struct {
	kind       byte // 'w' word, 'p' parameter, 'q' quoted, 'c' comment, 's' space, 'x' other
	start, end int
}

func tokens(sql string) []token {
	var out []token
	word := func(c byte) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	for i := 0; i < len(sql); {
		c, j := sql[i], i+1
		kind := byte('x')
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			for j < len(sql) && strings.IndexByte(" \t\n\r", sql[j]) >= 0 {
				j++
			}
			kind = 's'
		case c == '-' && j < len(sql) && sql[j] == '-':
			for j < len(sql) && sql[j] != '\n' {
				j++
			}
			kind = 'c'
		case c == '\'' || c == '"':
			for j < len(sql) {
				if sql[j] == c {
					if j+1 < len(sql) && sql[j+1] == c { // doubled quote
						j += 2
						continue
					}
					j++
					break
				}
				j++
			}
			kind = 'q'
		case c == '$':
			for j < len(sql) && sql[j] >= '0' && sql[j] <= '9' {
				j++
			}
			kind = 'p'
		case word(c):
			for j < len(sql) && (word(sql[j]) || sql[j] == '$') {
				j++
			}
			kind = 'w'
		}
		out = append(out, token{kind, i, j})
		i = j
	}
	return out
}

// parseShape takes sql apart; ok is false when it is not a statement the
// fuser knows how to combine.
func parseShape(sql string) *shape {
	s := &shape{reads: map[string]bool{}, writes: map[string]bool{}}
	toks := tokens(sql)
	var ws []token // words and punctuation, no space or comments
	for _, t := range toks {
		if t.kind == 'c' || t.kind == 's' {
			continue
		}
		if t.kind == 'q' && sql[t.start] == '"' || t.kind == 'x' && strings.ContainsAny(sql[t.start:t.end], ";/") {
			return s // quoted identifiers, several statements or block comments: not taken apart
		}
		ws = append(ws, t)
	}
	text := func(i int) string {
		if i < 0 || i >= len(ws) {
			return ""
		}
		return strings.ToUpper(sql[ws[i].start:ws[i].end])
	}
	i := 0
	if text(0) == "WITH" {
		i = 1
		for {
			if i >= len(ws) || ws[i].kind != 'w' || text(i+1) != "AS" || text(i+2) != "(" {
				return s // RECURSIVE, MATERIALIZED, column lists
			}
			start, depth := ws[i].start, 0
			j := i + 2
			for ; j < len(ws); j++ {
				switch text(j) {
				case "(":
					depth++
				case ")":
					depth--
				}
				if depth == 0 {
					break
				}
			}
			if j == len(ws) {
				return s
			}
			s.names = append(s.names, strings.ToLower(sql[ws[i].start:ws[i].end]))
			s.ctes = append(s.ctes, sql[start:ws[j].end])
			i = j + 1
			if text(i) != "," {
				break
			}
			i++
		}
	}
	if i >= len(ws) {
		return s
	}
	switch text(i) {
	case "SELECT":
		s.selects = true
	case "INSERT", "UPDATE", "DELETE":
	default:
		return s
	}
	s.final = sql[ws[i].start:ws[len(ws)-1].end] // without a trailing comment
	for _, k := range store.StatementTables(sql) {
		verb, table, _ := strings.Cut(k, " ")
		if verb == "select" {
			s.reads[table] = true
		} else {
			s.writes[table] = true
		}
	}
	s.locks = sqlLocks.MatchString(sql)
	depth := 0
	for k := i; k < len(ws); k++ {
		switch text(k) {
		case "(":
			depth++
		case ")":
			depth--
		case "RETURNING":
			s.returning = s.returning || depth == 0
		}
	}
	s.ok = true
	return s
}

// conflicts reports whether a and b cannot be run as one statement.
func (a *shape) conflicts(b *shape) bool {
	for n := range a.writes {
		if b.reads[n] || b.writes[n] {
			return true
		}
	}
	for n := range b.writes {
		if a.reads[n] {
			return true
		}
	}
	return false
}

// rename rewrites a piece of a statement (a CTE or its final statement) for
// member k of a fused statement: the statement's CTE names get the suffix _k
// and its parameters move up by shift.
func rename(sql string, names []string, k, shift int) string {
	cte := map[string]bool{}
	for _, n := range names {
		cte[n] = true
	}
	suffix := "_" + strconv.Itoa(k)
	var b strings.Builder
	for _, t := range tokens(sql) {
		piece := sql[t.start:t.end]
		switch {
		case t.kind == 'w' && cte[strings.ToLower(piece)]:
			b.WriteString(piece + suffix)
		case t.kind == 'p' && len(piece) > 1:
			n, _ := strconv.Atoi(piece[1:])
			b.WriteString("$" + strconv.Itoa(n+shift))
		default:
			b.WriteString(piece)
		}
	}
	return b.String()
}

// fusable reports whether d can be a member of a fused statement.
func fusable(d deferred) bool {
	s := shapeOf(d.sql)
	return s.ok && d.check == nil && d.rows == nil && (d.row == nil || s.selects || s.returning)
}

// fusedSQL is the statement that runs members as one; parts[i] says whether
// member i has a part in its result row: a marker column (NULL when the
// member returned no row), then the columns of the member's first row.
type fusedSQL struct {
	sql     string
	parts   []bool
	members []string // as built: the members' SQL, and whether each was read
	read    []bool
}

var (
	fusedCache cache // a hash of the members' SQL, and whether each is read → *fusedSQL
	fuseSeed   = maphash.MakeSeed()
)

// same reports whether f was built for members.
func (f *fusedSQL) same(members []deferred) bool {
	if len(f.members) != len(members) {
		return false
	}
	for i, d := range members {
		if d.sql != f.members[i] || (d.row != nil) != f.read[i] {
			return false
		}
	}
	return true
}

// fuse builds the statement that runs members (each fusable) as one. It runs
// with every transaction's pipeline: a built statement is found by a hash of
// its members, without copying their SQL.
func fuse(members []deferred) *fusedSQL {
	var h maphash.Hash
	h.SetSeed(fuseSeed)
	for _, d := range members {
		h.WriteString(d.sql)
		h.WriteByte(0)
		if d.row != nil {
			h.WriteByte(1)
		}
	}
	key := h.Sum64()
	if f, ok := fusedCache.load(key); ok && f.(*fusedSQL).same(members) {
		return f.(*fusedSQL)
	}
	f := &fusedSQL{parts: make([]bool, len(members)), members: make([]string, len(members)), read: make([]bool, len(members))}
	for i, d := range members {
		f.members[i], f.read[i] = d.sql, d.row != nil
	}
	var ctes, cols, joins []string
	shift := 0
	for k, d := range members {
		n := strconv.Itoa(k)
		s := shapeOf(d.sql)
		for _, c := range s.ctes {
			ctes = append(ctes, rename(c, s.names, k, shift))
		}
		final := rename(s.final, s.names, k, shift)
		shift += len(d.args)
		from := "(" + final + ")"
		if !s.selects {
			ctes = append(ctes, "w_"+n+" AS ("+final+")")
			from = "w_" + n
		}
		// A SELECT runs only when its rows are asked for; a write always runs.
		if s.selects || d.row != nil {
			f.parts[k] = true
			cols = append(cols, "p_"+n+".*")
			joins = append(joins, "LEFT JOIN (SELECT true AS rtcagent_row, x.* FROM "+from+" x LIMIT 1) p_"+n+" ON true")
		}
	}
	if len(ctes) > 0 {
		f.sql = "WITH " + strings.Join(ctes, ",\n") + "\n"
	}
	if len(cols) == 0 {
		f.sql += "SELECT true"
	} else {
		f.sql += "SELECT " + strings.Join(cols, ", ") + " FROM (SELECT 1) AS z\n" + strings.Join(joins, "\n")
	}
	fusedMembers.store(f.sql, f.members)
	fusedCache.store(key, f)
	return f
}

// fusedMembers maps a fused statement to its members' SQL: the per-table
// counts (store.CountStatement) count each member.
var fusedMembers cache
