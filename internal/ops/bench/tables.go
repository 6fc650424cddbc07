package bench

import (
	"fmt"
	"strings"

	"github.com/rtcagent/rtcagent/internal/store"
)

// tripTables is a window's statements by table, divided by its round trips:
// counts that do not depend on how busy the machine is.
type tripTables struct {
	c store.TableCounts
	n float64
}

func perTrip(c store.TableCounts, roundTrips int) tripTables {
	return tripTables{c: c, n: float64(max(roundTrips, 1))}
}

func (t tripTables) of(keys ...string) float64 {
	var sum int64
	for _, k := range keys {
		sum += t.c[k]
	}
	return float64(sum) / t.n
}

// topic is the Topic rows inserted, the audit records written (each in its
// RTC's row: the RTC's writes) and the audit reads of a round trip.
func (t tripTables) topic() string {
	return fmt.Sprintf("%.2f / %.2f / %.2f", t.of("insert updates"), t.of("insert rtcs", "update rtcs"), t.of("select audit"))
}

// String lists the statements of a round trip by table, in name order.
func (t tripTables) String() string {
	parts := make([]string, 0, len(t.c))
	for _, k := range t.c.Keys() {
		if v := t.of(k); v >= 0.005 {
			parts = append(parts, fmt.Sprintf("%s %.2f", k, v))
		}
	}
	return strings.Join(parts, ", ")
}
