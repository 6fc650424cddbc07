package server_test

import (
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	_ "github.com/rtcagent/rtcagent/internal/server" // registers every metric the server exposes
)

// Every metric that docs/grafana-dashboard.json queries is one the server
// registers: a probe of the same name is refused by the default registry.
func TestDashboardNamesRegisteredMetrics(t *testing.T) {
	data, err := os.ReadFile("../../docs/grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatal(err)
	}
	metricName := regexp.MustCompile(`\brtcagent_[a-z0-9_]+`)
	seen := map[string]bool{}
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			names := metricName.FindAllString(tg.Expr, -1)
			if len(names) == 0 {
				t.Errorf("panel %q: query %q names no rtcagent metric", p.Title, tg.Expr)
			}
			for _, n := range names {
				for _, suffix := range []string{"_bucket", "_sum", "_count"} { // a histogram's series
					n = strings.TrimSuffix(n, suffix)
				}
				seen[n] = true
			}
		}
	}
	if len(seen) < 5 {
		t.Fatalf("the dashboard names only %v", seen)
	}
	for name := range seen {
		probe := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: "probe"})
		err := prometheus.DefaultRegisterer.Register(probe)
		if err == nil {
			prometheus.DefaultRegisterer.Unregister(probe)
			t.Errorf("the dashboard queries %s, which the server does not register", name)
			continue
		}
		var already prometheus.AlreadyRegisteredError
		if !errors.As(err, &already) && !strings.Contains(err.Error(), "previously registered descriptor with the same fully-qualified name") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
