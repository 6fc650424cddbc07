package store

import (
	"reflect"
	"testing"
)

func TestClassify(t *testing.T) {
	for q, want := range map[string][]string{
		`SELECT data FROM rtcs WHERE turn_id = $1 AND open ORDER BY seq`:                                                               {"select rtcs"},
		`WITH bump AS (UPDATE user_streams SET top = $2 WHERE user_id = $1) INSERT INTO updates (a) VALUES ($1)`:                       {"insert updates", "update user_streams"},
		`INSERT INTO leases AS l (session_id) VALUES ($1) ON CONFLICT (session_id) DO UPDATE SET holder = excluded.holder`:             {"insert leases"},
		`UPDATE leases AS l SET holder = $2 FROM (SELECT session_id FROM leases WHERE session_id = $1 FOR UPDATE SKIP LOCKED) AS free`: {"update leases", "select leases"},
		`DELETE FROM inbox WHERE id = $1`: {"delete inbox"},
		`WITH gone AS (DELETE FROM inbox WHERE id = $1), more AS (SELECT EXISTS (SELECT 1 FROM inbox WHERE id > $1) OR EXISTS (SELECT 1 FROM inbox WHERE id < $1) AS found), release AS (UPDATE leases SET expires_at = 0 WHERE NOT (SELECT found FROM more)) SELECT NOT found FROM more`: {"update leases", "delete inbox", "select inbox"},
		`SELECT s.data FROM sessions s JOIN user_streams us ON us.user_id = s.user_id WHERE s.id = $1 FOR UPDATE OF us`:                                                                                                                                                                   {"select sessions", "select user_streams"},
		`SELECT t.id FROM rtcs r JOIN turns t ON t.id = r.turn_id LEFT JOIN LATERAL (SELECT array_agg(id) FROM rtcs WHERE open) o ON true`:                                                                                                                                                {"select rtcs", "select turns"},
	} {
		if got := classify(q); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v", q, got, want)
		}
	}
}
