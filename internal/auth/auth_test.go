package auth

import (
	"errors"
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
