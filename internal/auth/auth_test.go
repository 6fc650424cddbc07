package auth

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

var secret = []byte("0123456789abcdef0123")

func TestVerify(t *testing.T) {
	v, _ := NewVerifier(secret)
	good, _, _ := v.Issue("alice", time.Minute)
	if c, err := v.Verify(good); err != nil || c.UserID != "alice" {
		t.Fatalf("good token: %+v %v", c, err)
	}
	other, _ := NewVerifier([]byte("another-secret-0123456"))
	forged, _, _ := other.Issue("alice", time.Minute)
	expired := sign(t, jwt.SigningMethodHS256, jwt.MapClaims{"sub": "alice", "exp": time.Now().Add(-time.Minute).Unix()})
	noExp := sign(t, jwt.SigningMethodHS256, jwt.MapClaims{"sub": "alice"})
	noSub := sign(t, jwt.SigningMethodHS256, jwt.MapClaims{"exp": time.Now().Add(time.Minute).Unix()})
	hs512 := sign(t, jwt.SigningMethodHS512, jwt.MapClaims{"sub": "alice", "exp": time.Now().Add(time.Minute).Unix()})
	none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{"sub": "alice", "exp": time.Now().Add(time.Minute).Unix()}).SignedString(jwt.UnsafeAllowNoneSignatureType)
	for name, tok := range map[string]string{"forged": forged, "expired": expired, "no exp": noExp, "no sub": noSub,
		"hs512": hs512, "alg none": none, "empty": "", "long": strings.Repeat("a", MaxTokenBytes+1)} {
		if _, err := v.Verify(tok); err == nil {
			t.Errorf("%s token accepted", name)
		}
	}
	if _, err := v.Verify(expired); !errors.Is(err, ErrExpired) {
		t.Errorf("expired: %v", err)
	}
	if _, err := NewVerifier([]byte("short")); err == nil {
		t.Error("short secret accepted")
	}
}

func sign(t *testing.T, m jwt.SigningMethod, c jwt.MapClaims) string {
	s, err := jwt.NewWithClaims(m, c).SignedString(secret)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// FuzzVerify: no input panics, and nothing but a token signed with the secret
// is accepted.
func FuzzVerify(f *testing.F) {
	v, _ := NewVerifier(secret)
	good, _, _ := v.Issue("alice", time.Hour)
	for _, s := range []string{good, "", "a.b.c", good[:len(good)-2], strings.Replace(good, ".", "..", 1), "eyJhbGciOiJub25lIn0.e30."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		c, err := v.Verify(tok)
		if err == nil && tok != good && c.UserID == "" {
			t.Fatalf("accepted %q without a user", tok)
		}
	})
}

// TestAudienceIssuer: with an audience and an issuer configured, a token must
// carry both; without them, neither is checked.
func TestAudienceIssuer(t *testing.T) {
	v, err := New(secret, Options{Audience: "rtcagent", Issuer: "https://shop.example"})
	if err != nil {
		t.Fatal(err)
	}
	exp := time.Now().Add(time.Minute).Unix()
	claims := func(extra jwt.MapClaims) jwt.MapClaims {
		c := jwt.MapClaims{"sub": "alice", "exp": exp}
		for k, x := range extra {
			c[k] = x
		}
		return c
	}
	good := map[string]string{
		"both":             sign(t, jwt.SigningMethodHS256, claims(jwt.MapClaims{"aud": "rtcagent", "iss": "https://shop.example"})),
		"audience in list": sign(t, jwt.SigningMethodHS256, claims(jwt.MapClaims{"aud": []string{"other", "rtcagent"}, "iss": "https://shop.example"})),
	}
	issued, _, _ := v.Issue("alice", time.Minute)
	good["issued"] = issued
	for name, tok := range good {
		if c, err := v.Verify(tok); err != nil || c.UserID != "alice" {
			t.Errorf("%s: %+v %v", name, c, err)
		}
	}
	bad := map[string]string{
		"no aud":    sign(t, jwt.SigningMethodHS256, claims(jwt.MapClaims{"iss": "https://shop.example"})),
		"wrong aud": sign(t, jwt.SigningMethodHS256, claims(jwt.MapClaims{"aud": "other", "iss": "https://shop.example"})),
		"no iss":    sign(t, jwt.SigningMethodHS256, claims(jwt.MapClaims{"aud": "rtcagent"})),
		"wrong iss": sign(t, jwt.SigningMethodHS256, claims(jwt.MapClaims{"aud": "rtcagent", "iss": "https://evil.example"})),
	}
	for name, tok := range bad {
		if _, err := v.Verify(tok); err == nil || errors.Is(err, ErrExpired) {
			t.Errorf("%s token: err %v, want invalid", name, err)
		}
	}
	plain, _ := NewVerifier(secret)
	for name, tok := range bad {
		if _, err := plain.Verify(tok); err != nil {
			t.Errorf("without checks, %s token refused: %v", name, err)
		}
	}
}

// A "modes" claim names the work modes the user may choose; a claim that
// names none, an unknown mode or one twice makes the token invalid.
func TestModesClaim(t *testing.T) {
	v, _ := NewVerifier(secret)
	tok, _, _ := v.IssueWithModes("alice", time.Minute, []string{"manual", "edit"})
	if c, err := v.Verify(tok); err != nil || !reflect.DeepEqual(c.Modes, []string{"manual", "edit"}) {
		t.Fatalf("modes claim: %+v %v", c, err)
	}
	all, _, _ := v.Issue("alice", time.Minute)
	if c, err := v.Verify(all); err != nil || c.Modes != nil {
		t.Fatalf("no modes claim allows every mode: %+v %v", c, err)
	}
	exp := time.Now().Add(time.Minute).Unix()
	for name, modes := range map[string]any{"none": []string{}, "unknown": []string{"edit", "yolo"}, "twice": []string{"edit", "edit"},
		"not a list": "edit", "five": []string{"manual", "edit", "plan", "bypass", "edit"}} {
		tok := sign(t, jwt.SigningMethodHS256, jwt.MapClaims{"sub": "alice", "exp": exp, "modes": modes})
		if c, err := v.Verify(tok); err == nil {
			t.Errorf("modes %s accepted: %+v", name, c)
		}
	}
}
