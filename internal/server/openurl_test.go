package server

import (
	"net"
	"testing"
)

// The ready line names an address a person can open: localhost for a server
// listening on every interface or on loopback.
func TestOpenURL(t *testing.T) {
	for addr, want := range map[string]string{"[::]:8080": "http://localhost:8080", "0.0.0.0:18400": "http://localhost:18400",
		"127.0.0.1:9": "http://localhost:9", "192.0.2.7:8080": "http://192.0.2.7:8080"} {
		a, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := openURL(a); got != want {
			t.Errorf("%s: %s, want %s", addr, got, want)
		}
	}
}
