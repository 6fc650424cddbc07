package store

import (
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// TableCounts are the statements this process sent to its store, by what they
// do to which table ("insert updates", "select audit", "update rtcs"), over
// every Store it opened: what a round trip costs table by table is the
// difference of two TableCounts divided by the round trips in between. Both
// stores count each statement they send (CountStatement); a statement that
// touches several tables (a join, a CTE) counts once for each.
type TableCounts map[string]int64

// Sub returns c minus old, without the entries that did not change.
func (c TableCounts) Sub(old TableCounts) TableCounts {
	out := TableCounts{}
	for k, v := range c {
		if d := v - old[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

// Keys returns the entries' names in order.
func (c TableCounts) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

var tableCounts sync.Map // "verb table" → *atomic.Int64

// ReadTableCounts returns the process's counts so far.
func ReadTableCounts() TableCounts {
	out := TableCounts{}
	tableCounts.Range(func(k, v any) bool {
		out[k.(string)] = v.(*atomic.Int64).Load()
		return true
	})
	return out
}

var (
	sqlInsert = regexp.MustCompile(`(?i)\bINSERT\s+INTO\s+(\w+)`)
	sqlUpdate = regexp.MustCompile(`(?i)\bUPDATE\s+(\w+)(?:\s+AS\s+\w+)?\s+SET\b`)
	sqlDelete = regexp.MustCompile(`(?i)\bDELETE\s+FROM\s+(\w+)`)
	sqlRead   = regexp.MustCompile(`(?i)\b(DELETE\s+)?(?:FROM|JOIN)\s+(\w+)`)
	sqlCTE    = regexp.MustCompile(`(?i)(?:\bWITH|,)\s*(\w+)\s+AS\s*\(`)
	sqlCache  sync.Map // query text → []string, the statement's entries
)

// CountStatement counts one statement sent to the store.
func CountStatement(query string) {
	for _, k := range StatementTables(query) {
		count(k)
	}
}

// countAuditRead counts a read of audit records as "select audit": they are
// RTC rows (Audit), so their statements count as "select rtcs".
func countAuditRead() { count("select audit") }

func count(k string) {
	n, ok := tableCounts.Load(k)
	if !ok {
		n, _ = tableCounts.LoadOrStore(k, new(atomic.Int64))
	}
	n.(*atomic.Int64).Add(1)
}

// StatementTables names what query does to which tables: "select t",
// "insert t", "update t", "delete t".
func StatementTables(query string) []string {
	keys, ok := sqlCache.Load(query)
	if !ok {
		keys, _ = sqlCache.LoadOrStore(query, classify(query))
	}
	return keys.([]string)
}

// classify names what query does to which tables.
// A table counts once per statement and verb; a CTE's name is not a table.
func classify(query string) []string {
	var out []string
	skip := map[string]bool{}
	for _, m := range sqlCTE.FindAllStringSubmatch(query, -1) {
		skip["select "+strings.ToLower(m[1])] = true
	}
	add := func(verb string, re *regexp.Regexp, group int) {
		for _, m := range re.FindAllStringSubmatch(query, -1) {
			if verb == "select" && (m[1] != "" || strings.EqualFold(m[2], "lateral")) {
				continue // DELETE FROM is a delete; JOIN LATERAL (…) names no table
			}
			k := verb + " " + strings.ToLower(m[group])
			if !skip[k] {
				skip[k] = true
				out = append(out, k)
			}
		}
	}
	add("insert", sqlInsert, 1)
	add("update", sqlUpdate, 1)
	add("delete", sqlDelete, 1)
	add("select", sqlRead, 2)
	return out
}
