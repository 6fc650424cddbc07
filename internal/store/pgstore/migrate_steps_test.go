package pgstore

import (
	"encoding/json"
	"testing"
)

// withAuditState adds a record's state to a call's data as it is, and leaves
// alone data that carries a state already or that is not a JSON object
// (careless rows of an earlier release are skipped, not failed).
func TestWithAuditState(t *testing.T) {
	rec := []byte(`{"rtc_id":"r","work_mode":"auto","arguments":{"a":1},"decision":{"outcome":"allowed","by":"work_mode"}}`)
	for _, c := range []struct {
		data, want string
		ok         bool
	}{
		{`{"id":"r","arguments":{"z":1.50,"a":"\u0000"}}`, `{"id":"r","arguments":{"z":1.50,"a":"\u0000"},"audit_state":`, true},
		{` {} `, `{"audit_state":`, true},
		{`{"id":"r","audit_state":{"work_mode":"edit"}}`, "", false},
		{`["not", "an object"]`, "", false},
		{`{"id":`, "", false},
		{`"text"`, "", false},
	} {
		got, ok := withAuditState([]byte(c.data), rec)
		if ok != c.ok || (ok && string(got[:len(c.want)]) != c.want) {
			t.Errorf("%s: %s %v, want %s… %v", c.data, got, ok, c.want, c.ok)
			continue
		}
		if !ok {
			continue
		}
		var v struct {
			State struct {
				WorkMode string `json:"work_mode"`
			} `json:"audit_state"`
		}
		if err := json.Unmarshal(got, &v); err != nil || v.State.WorkMode != "auto" {
			t.Errorf("%s: %s does not read back with the record's state: %v", c.data, got, err)
		}
	}
	if _, ok := withAuditState([]byte(`{"id":"r"}`), []byte(`not json`)); ok {
		t.Error("a record that is not JSON gave a state")
	}
}
