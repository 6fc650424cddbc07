package llmwire_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/rtcagent/rtcagent/internal/llm/llmwire"
)

func TestPrepare(t *testing.T) {
	for _, c := range []llmwire.Config{{}, {Model: "m", MaxTokens: -1}, {Model: "m", MaxRetries: -1}} {
		if _, err := c.Prepare("fake", "https://fake"); err == nil || !strings.HasPrefix(err.Error(), "fake: ") {
			t.Errorf("%+v: err = %v, want one naming the provider", c, err)
		}
	}
	c, err := llmwire.Config{Model: "m"}.Prepare("fake", "https://fake")
	if err != nil || c.BaseURL != "https://fake" || c.HTTPClient == nil || c.MaxTokens != 0 {
		t.Fatalf("Prepare = %+v, %v", c, err)
	}
	if tr, ok := c.HTTPClient.Transport.(*http.Transport); !ok || tr.ResponseHeaderTimeout == 0 || c.HTTPClient.Timeout != 0 {
		t.Fatalf("default client %+v: want a header timeout and no body timeout", c.HTTPClient)
	}
	own := &http.Client{}
	c, _ = llmwire.Config{Model: "m", BaseURL: "http://local/v1", HTTPClient: own}.Prepare("fake", "https://fake")
	if c.BaseURL != "http://local/v1" || c.HTTPClient != own {
		t.Fatalf("Prepare replaced what was set: %+v", c)
	}
}

func TestOptionsFor(t *testing.T) {
	options := llmwire.Options[string]{
		BaseURL:    func(s string) string { return "base " + s },
		MaxRetries: func(n int) string { return fmt.Sprint("retries ", n) },
		HTTPClient: func(*http.Client) string { return "client" },
		APIKey:     func(s string) string { return "key " + s },
	}
	c := llmwire.Config{BaseURL: "u", MaxRetries: 2}
	if got := fmt.Sprint(options.For(c)); got != "[base u retries 2 client]" {
		t.Fatalf("without a key: %s", got)
	}
	c.APIKey = "k"
	if got := fmt.Sprint(options.For(c)); got != "[base u retries 2 client key k]" {
		t.Fatalf("with a key: %s", got)
	}
}
