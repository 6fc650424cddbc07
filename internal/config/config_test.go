package config

import "testing"

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// The long-session settings: flags, environment, defaults and their checks.
func TestLongSessionSettings(t *testing.T) {
	c, err := Parse([]string{"-dev", "-compact-keep", "500", "-system-prompt-file", "/etc/prompt.txt"},
		env(map[string]string{"RTCAGENT_COMPACT_THRESHOLD": "4000", "RTCAGENT_PRICES": "/etc/prices.json"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.CompactAt != 4000 || c.CompactKeep != 500 || c.Prices != "/etc/prices.json" || c.SysFile != "/etc/prompt.txt" {
		t.Fatalf("parsed %+v", c)
	}
	if d := Default(); d.CompactAt != 100000 || d.CompactKeep != 0 {
		t.Fatalf("defaults %d %d", d.CompactAt, d.CompactKeep)
	}
	bad := [][]string{
		{"-dev", "-compact-threshold", "1000", "-compact-keep", "1000"},
		{"-dev", "-compact-threshold", "-1"},
		{"-dev", "-system-prompt", "x", "-system-prompt-file", "/p"},
	}
	for _, args := range bad {
		if _, err := Parse(args, env(nil)); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
	if _, err := Parse([]string{"-dev", "-compact-threshold", "0", "-compact-keep", "10"}, env(nil)); err != nil {
		t.Errorf("compaction off with a keep: %v", err)
	}
}
