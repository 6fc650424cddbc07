package otlpreceiver

import (
	"compress/gzip"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Span is a received span, its ids in hex.
type Span struct {
	TraceID, SpanID, ParentID string
	Name                      string
	Start, End                time.Time
	Attrs                     map[string]string // values as text
	Error                     bool              // status code error
	StatusMessage             string
}

// Receiver collects spans. Serve it with net/http (httptest.NewServer).
type Receiver struct {
	mu    sync.Mutex
	spans []Span
}

// maxBody bounds one export request.
const maxBody = 16 << 20

func (rc *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" {
		http.NotFound(w, r)
		return
	}
	var body io.Reader = http.MaxBytesReader(w, r.Body, maxBody)
	if r.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		defer gz.Close()
		body = gz
	}
	data, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req coltrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(data, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var got []Span
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				got = append(got, convert(s))
			}
		}
	}
	rc.mu.Lock()
	rc.spans = append(rc.spans, got...)
	rc.mu.Unlock()
	out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func convert(s *tracepb.Span) Span {
	sp := Span{TraceID: hex.EncodeToString(s.TraceId), SpanID: hex.EncodeToString(s.SpanId), ParentID: hex.EncodeToString(s.ParentSpanId),
		Name: s.Name, Start: time.Unix(0, int64(s.StartTimeUnixNano)).UTC(), End: time.Unix(0, int64(s.EndTimeUnixNano)).UTC(),
		Attrs: map[string]string{}}
	for _, kv := range s.Attributes {
		sp.Attrs[kv.Key] = valueText(kv.Value)
	}
	if st := s.Status; st != nil && st.Code == tracepb.Status_STATUS_CODE_ERROR {
		sp.Error, sp.StatusMessage = true, st.Message
	}
	return sp
}

func valueText(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return fmt.Sprint(x.IntValue)
	case *commonpb.AnyValue_BoolValue:
		return fmt.Sprint(x.BoolValue)
	case *commonpb.AnyValue_DoubleValue:
		return fmt.Sprint(x.DoubleValue)
	case *commonpb.AnyValue_ArrayValue:
		var parts []string
		for _, e := range x.ArrayValue.Values {
			parts = append(parts, valueText(e))
		}
		return strings.Join(parts, ",")
	}
	return ""
}

// Spans returns the spans received so far, in arrival order.
func (rc *Receiver) Spans() []Span {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]Span(nil), rc.spans...)
}

// Trace returns the spans of one trace, by start time.
func (rc *Receiver) Trace(traceID string) []Span {
	var out []Span
	for _, s := range rc.Spans() {
		if s.TraceID == traceID {
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	return out
}

// tree gives a trace's start and length (at least 1 ns), its root spans (no
// parent among spans) and each span's children, in start order.
func tree(spans []Span) (start time.Time, total time.Duration, roots []Span, children map[string][]Span) {
	start, end := spans[0].Start, spans[0].End
	ids := map[string]bool{}
	for _, s := range spans {
		ids[s.SpanID] = true
		if s.Start.Before(start) {
			start = s.Start
		}
		if s.End.After(end) {
			end = s.End
		}
	}
	children = map[string][]Span{}
	for _, s := range spans {
		if s.ParentID == "" || s.ParentID == "0000000000000000" || !ids[s.ParentID] {
			roots = append(roots, s)
		} else {
			children[s.ParentID] = append(children[s.ParentID], s)
		}
	}
	for _, c := range children {
		sort.SliceStable(c, func(i, j int) bool { return c[i].Start.Before(c[j].Start) })
	}
	total = end.Sub(start)
	if total <= 0 {
		total = time.Nanosecond
	}
	return start, total, roots, children
}

// Waterfall renders a trace as text: one line per span, indented under its
// parent, with its offset from the trace's start, its duration, a bar on a time
// scale of width characters, and the attributes named in show.
func Waterfall(spans []Span, width int, show ...string) string {
	if len(spans) == 0 {
		return "(no spans)\n"
	}
	start, total, roots, children := tree(spans)
	var b strings.Builder
	var walk func(s Span, depth int)
	walk = func(s Span, depth int) {
		from := int(float64(width) * float64(s.Start.Sub(start)) / float64(total))
		to := int(float64(width) * float64(s.End.Sub(start)) / float64(total))
		if to <= from {
			to = from + 1
		}
		if to > width {
			to = width
		}
		if from >= width {
			from = width - 1
		}
		bar := strings.Repeat(" ", from) + strings.Repeat("█", to-from) + strings.Repeat(" ", width-to)
		label := strings.Repeat("  ", depth) + s.Name
		fmt.Fprintf(&b, "%-34s %9s %9s |%s|", label, ms(s.Start.Sub(start)), ms(s.End.Sub(s.Start)), bar)
		var attrs []string
		for _, k := range show {
			if v, ok := s.Attrs[k]; ok {
				attrs = append(attrs, k+"="+v)
			}
		}
		if s.Error {
			attrs = append(attrs, "status=ERROR")
		}
		if len(attrs) > 0 {
			b.WriteString(" " + strings.Join(attrs, " "))
		}
		b.WriteString("\n")
		for _, c := range children[s.SpanID] {
			walk(c, depth+1)
		}
	}
	fmt.Fprintf(&b, "%-34s %9s %9s |%s|\n", "span", "start", "duration", strings.Repeat("-", width))
	for _, r := range roots {
		walk(r, 0)
	}
	return b.String()
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
}
