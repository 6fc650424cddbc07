// Package auth verifies and issues the connection tokens of RTC Agent: HS256 JWTs
// whose sub is the user id. The user id of every request comes from here, never from
// a payload.
package auth

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// MaxTokenBytes bounds a token before it is parsed.
const MaxTokenBytes = 4096

// ErrExpired marks a token whose exp has passed (the client should refresh it).
var ErrExpired = errors.New("token expired")

// Claims are what a valid token says.
type Claims struct {
	UserID    string
	ExpiresAt time.Time // zero when the token has no exp
	// Modes are the work modes the token allows the user to choose (its
	// "modes" claim); nil allows every mode.
	Modes []string
}

// tokenClaims are the claims a token is parsed into.
type tokenClaims struct {
	jwt.RegisteredClaims
	Modes []string `json:"modes,omitempty"`
}

// Verifier checks tokens signed with one HS256 secret.
type Verifier struct {
	secret []byte
	opt    Options
}

// Options are the optional claims a token must carry.
type Options struct {
	// Audience, when set, must be one of the token's aud values.
	Audience string
	// Issuer, when set, must be the token's iss.
	Issuer string
}

// NewVerifier returns a Verifier without audience or issuer checks; the secret
// must be at least 16 bytes.
func NewVerifier(secret []byte) (*Verifier, error) { return New(secret, Options{}) }

// New returns a Verifier that also checks the audience and issuer that opt sets.
func New(secret []byte, opt Options) (*Verifier, error) {
	if len(secret) < 16 {
		return nil, errors.New("token secret must be at least 16 bytes")
	}
	return &Verifier{secret: secret, opt: opt}, nil
}

// Verify parses and checks a token: signature, algorithm, exp, a non-empty sub
// of at most 128 bytes, and the audience and issuer when configured.
func (v *Verifier) Verify(token string) (Claims, error) {
	if token == "" {
		return Claims{}, errors.New("no token")
	}
	if len(token) > MaxTokenBytes {
		return Claims{}, errors.New("token too long")
	}
	opts := []jwt.ParserOption{jwt.WithValidMethods([]string{"HS256"}), jwt.WithExpirationRequired()}
	if v.opt.Audience != "" {
		opts = append(opts, jwt.WithAudience(v.opt.Audience))
	}
	if v.opt.Issuer != "" {
		opts = append(opts, jwt.WithIssuer(v.opt.Issuer))
	}
	var tc tokenClaims
	_, err := jwt.ParseWithClaims(token, &tc, func(*jwt.Token) (any, error) { return v.secret, nil }, opts...)
	rc := tc.RegisteredClaims
	if errors.Is(err, jwt.ErrTokenExpired) {
		return Claims{}, ErrExpired
	}
	if err != nil {
		return Claims{}, fmt.Errorf("invalid token: %w", err)
	}
	if rc.Subject == "" || len(rc.Subject) > 128 {
		return Claims{}, errors.New("invalid token: sub must name the user (1-128 bytes)")
	}
	c := Claims{UserID: rc.Subject}
	if rc.ExpiresAt != nil {
		c.ExpiresAt = rc.ExpiresAt.Time
	}
	if tc.Modes != nil {
		if err := CheckModes(tc.Modes); err != nil {
			return Claims{}, fmt.Errorf("invalid token: %w", err)
		}
		c.Modes = tc.Modes
	}
	return c, nil
}

// CheckModes accepts a "modes" claim of one to four distinct work modes.
func CheckModes(modes []string) error {
	if len(modes) == 0 || len(modes) > 4 {
		return errors.New(`modes must name 1-4 work modes (manual, edit, plan, bypass)`)
	}
	for i, m := range modes {
		if !protocol.ValidWorkMode(m) || slices.Contains(modes[:i], m) {
			return fmt.Errorf("modes[%d] %q: a work mode (manual, edit, plan, bypass), each once", i, m)
		}
	}
	return nil
}

// Issue signs a token for userID valid for ttl, with the configured audience and
// issuer. The server uses it only for the development token endpoint and tests;
// production sites issue their own.
func (v *Verifier) Issue(userID string, ttl time.Duration) (string, time.Time, error) {
	return v.IssueWithModes(userID, ttl, nil)
}

// IssueWithModes is Issue for a token that allows only the given work modes
// (nil: all).
func (v *Verifier) IssueWithModes(userID string, ttl time.Duration, modes []string) (string, time.Time, error) {
	exp := time.Now().Add(ttl).Truncate(time.Second)
	rc := jwt.RegisteredClaims{Subject: userID, ExpiresAt: jwt.NewNumericDate(exp), IssuedAt: jwt.NewNumericDate(time.Now()), Issuer: v.opt.Issuer}
	if v.opt.Audience != "" {
		rc.Audience = jwt.ClaimStrings{v.opt.Audience}
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, tokenClaims{RegisteredClaims: rc, Modes: modes})
	s, err := tok.SignedString(v.secret)
	return s, exp, err
}
