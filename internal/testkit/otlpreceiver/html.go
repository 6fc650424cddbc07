package otlpreceiver

import (
	"fmt"
	"html"
	"strings"
)

// HTML renders a trace as a self-contained HTML page: a waterfall with one row per
// span, indented under its parent, its bar on the trace's time scale, and the
// attributes named in show under its name. title heads the page.
func HTML(title string, spans []Span, show ...string) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><meta charset="utf-8"><title>` + html.EscapeString(title) + `</title><style>
body{font:13px system-ui,sans-serif;margin:16px;color:#222}
h1{font-size:16px;margin:0 0 4px} .sub{color:#666;margin-bottom:10px}
table{border-collapse:collapse;width:100%} td{padding:3px 6px;border-top:1px solid #eee;vertical-align:top}
td.name{width:38%;white-space:nowrap} td.dur{width:7%;text-align:right;color:#555;font-variant-numeric:tabular-nums}
.attrs{color:#777;font-size:11px;white-space:normal}
.lane{position:relative;height:16px;background:#fafafa}
.bar{position:absolute;top:2px;height:12px;min-width:2px;border-radius:2px;background:#4e8fd8}
.bar.chat{background:#8a63d2}.bar.tool{background:#2a9d8f}.bar.human{background:#e9a03b}.bar.err{background:#d9534f}
th{text-align:left;font-weight:600;color:#555;padding:3px 6px}
</style></head><body>`)
	if len(spans) == 0 {
		b.WriteString("<p>(no spans)</p></body></html>")
		return b.String()
	}
	start, total, roots, children := tree(spans)
	fmt.Fprintf(&b, `<h1>%s</h1><div class="sub">trace %s · %d spans · %s</div>`, html.EscapeString(title), spans[0].TraceID, len(spans), ms(total))
	b.WriteString(`<table><tr><th>span</th><th>duration</th><th>timeline</th></tr>`)
	var walk func(s Span, depth int)
	walk = func(s Span, depth int) {
		left := 100 * float64(s.Start.Sub(start)) / float64(total)
		width := 100 * float64(s.End.Sub(s.Start)) / float64(total)
		class := "bar"
		switch {
		case s.Error:
			class += " err"
		case s.Attrs["rtcagent.wait"] == "human":
			class += " human"
		case strings.HasPrefix(s.Name, "chat "):
			class += " chat"
		case strings.HasPrefix(s.Name, "execute_tool ") || strings.HasPrefix(s.Name, "rtc."):
			class += " tool"
		}
		var attrs []string
		for _, k := range show {
			if v, ok := s.Attrs[k]; ok {
				attrs = append(attrs, k+"="+v)
			}
		}
		if s.Error {
			attrs = append(attrs, "status=ERROR "+s.StatusMessage)
		}
		fmt.Fprintf(&b, `<tr><td class="name" style="padding-left:%dpx"><b>%s</b><div class="attrs">%s</div></td><td class="dur">%s</td>`+
			`<td><div class="lane"><div class="%s" style="left:%.2f%%;width:%.2f%%"></div></div></td></tr>`,
			6+18*depth, html.EscapeString(s.Name), html.EscapeString(strings.Join(attrs, "  ")), ms(s.End.Sub(s.Start)), class, left, width)
		for _, c := range children[s.SpanID] {
			walk(c, depth+1)
		}
	}
	for _, r := range roots {
		walk(r, 0)
	}
	b.WriteString("</table></body></html>\n")
	return b.String()
}
