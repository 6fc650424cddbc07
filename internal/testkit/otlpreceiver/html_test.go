package otlpreceiver

import (
	"strings"
	"testing"
	"time"
)

// The HTML waterfall nests a child under its parent, places bars on the trace's
// time scale, shows the chosen attributes and escapes names.
func TestHTML(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)
	spans := []Span{
		{TraceID: "t", SpanID: "a", Name: "turn", Start: t0, End: t0.Add(time.Second)},
		{TraceID: "t", SpanID: "b", ParentID: "a", Name: "execute_tool <write>", Start: t0.Add(500 * time.Millisecond), End: t0.Add(time.Second),
			Attrs: map[string]string{"rtcagent.wait": "human", "other": "x"}, Error: true, StatusMessage: "denied"},
	}
	page := HTML("one turn", spans, "rtcagent.wait")
	for _, want := range []string{`padding-left:6px"><b>turn</b>`, `padding-left:24px"><b>execute_tool &lt;write&gt;</b>`,
		`rtcagent.wait=human  status=ERROR denied`, `class="bar" style="left:0.00%;width:100.00%"`,
		`class="bar err" style="left:50.00%;width:50.00%"`, "2 spans"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "other=x") {
		t.Error("an attribute not asked for is shown")
	}
}
