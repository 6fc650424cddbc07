package config

import (
	"strings"
	"testing"
	"time"
)

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

// TestDevRefusedInDeployment: -dev serves a token for any user, so it is refused
// together with the settings of a deployment, with a message that says why.
func TestDevRefusedInDeployment(t *testing.T) {
	for _, args := range [][]string{
		{"-dev", "-database-url", "postgres://db/rtc"},
		{"-dev", "-redis-url", "redis://cache:6379/0"},
	} {
		_, err := Parse(args, env(nil))
		if err == nil || !strings.Contains(err.Error(), "-dev") || !strings.Contains(err.Error(), "refused") {
			t.Errorf("%v: err %v, want -dev refused", args, err)
		}
	}
	if _, err := Parse(nil, env(map[string]string{"RTCAGENT_DEV": "1", "RTCAGENT_DATABASE_URL": "postgres://db/rtc"})); err == nil {
		t.Error("RTCAGENT_DEV with RTCAGENT_DATABASE_URL accepted")
	}
	c := Default()
	c.Dev, c.DBURL, c.Provider = true, "postgres://db/rtc", "scripted"
	if c.Validate() == nil {
		t.Error("Validate accepted Dev with a database URL")
	}
	secret := "0123456789abcdef"
	if _, err := Parse([]string{"-database-url", "postgres://db/rtc", "-redis-url", "redis://cache:6379/0", "-token-secret", secret}, env(nil)); err != nil {
		t.Errorf("deployment without -dev: %v", err)
	}
	if _, err := Parse([]string{"-dev"}, env(nil)); err != nil {
		t.Errorf("-dev alone: %v", err)
	}
}

// TestDevRefusedWithASecret: with -dev the server hands a token signed with its
// secret to anyone who asks, so a real secret (one other services also sign
// with) would turn the dev endpoint into a mint of real tokens. The combination
// is refused, from flags and from the environment alike.
func TestDevRefusedWithASecret(t *testing.T) {
	secret := "0123456789abcdef"
	for _, tc := range []struct {
		args []string
		env  map[string]string
	}{
		{[]string{"-dev", "-token-secret", secret}, nil},
		{[]string{"-token-secret", secret, "-dev"}, nil},
		{[]string{"-dev"}, map[string]string{"RTCAGENT_TOKEN_SECRET": secret}},
		{[]string{"-token-secret", secret}, map[string]string{"RTCAGENT_DEV": "1"}},
		{nil, map[string]string{"RTCAGENT_DEV": "true", "RTCAGENT_TOKEN_SECRET": secret}},
	} {
		_, err := Parse(tc.args, env(tc.env))
		if err == nil || !strings.Contains(err.Error(), "-dev") || !strings.Contains(err.Error(), "-token-secret") || !strings.Contains(err.Error(), "refused") {
			t.Errorf("%v %v: err %v, want -dev with -token-secret refused", tc.args, tc.env, err)
		}
	}
	c := Default()
	c.Dev, c.Secret, c.Provider = true, secret, "scripted"
	if c.Validate() == nil {
		t.Error("Validate accepted Dev with a secret")
	}
	if _, err := Parse([]string{"-token-secret", secret}, env(nil)); err != nil {
		t.Errorf("-token-secret alone: %v", err)
	}
}

// TestModelDeadlinesAndTokenClaims: flags, environment and defaults.
func TestModelDeadlinesAndTokenClaims(t *testing.T) {
	d := Default()
	if d.ModelIdle != time.Minute || d.ModelStep != 10*time.Minute || d.TokenAud != "" || d.TokenIss != "" {
		t.Fatalf("defaults: idle %v step %v aud %q iss %q", d.ModelIdle, d.ModelStep, d.TokenAud, d.TokenIss)
	}
	c, err := Parse([]string{"-dev", "-model-idle-timeout", "15s", "-token-audience", "rtc"},
		env(map[string]string{"RTCAGENT_MODEL_STEP_TIMEOUT": "2m", "RTCAGENT_TOKEN_ISSUER": "https://shop.example"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.ModelIdle != 15*time.Second || c.ModelStep != 2*time.Minute || c.TokenAud != "rtc" || c.TokenIss != "https://shop.example" {
		t.Fatalf("parsed %+v", c)
	}
	for _, args := range [][]string{{"-dev", "-model-idle-timeout", "0s"}, {"-dev", "-model-step-timeout", "-1s"}} {
		if _, err := Parse(args, env(nil)); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}

func TestActiveSessions(t *testing.T) {
	if d := Default(); d.Active != 256 {
		t.Fatalf("default active sessions %d", d.Active)
	}
	c, err := Parse([]string{"-dev", "-active-sessions", "1000"}, env(nil))
	if err != nil || c.Active != 1000 {
		t.Fatalf("parsed %d, %v", c.Active, err)
	}
	c, err = Parse([]string{"-dev"}, env(map[string]string{"RTCAGENT_ACTIVE_SESSIONS": "32"}))
	if err != nil || c.Active != 32 {
		t.Fatalf("from the environment: %d, %v", c.Active, err)
	}
	for _, n := range []string{"0", "-1", "100001"} {
		if _, err := Parse([]string{"-dev", "-active-sessions", n}, env(nil)); err == nil || !strings.Contains(err.Error(), "active sessions") {
			t.Errorf("-active-sessions %s: %v", n, err)
		}
	}
}
