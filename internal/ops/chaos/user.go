package chaos

import (
	"github.com/rtcagent/rtcagent/internal/testkit/nodeproc"

	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/testkit/simclient"
)

// user is one simulated person with one browser profile; page reloads replace
// its client, the profile (IndexedDB) stays.
type user struct {
	h       *harness
	name    string
	profile *simclient.Profile
	rng     *rng

	mu      sync.Mutex
	client  *simclient.Client
	clients []*simclient.Client // every client it had, for their errors
	session string
	runs    map[string]int            // tool invocations by RTC id
	answers map[string][]protocol.RTC // answers to extra submissions by RTC id
	deleted map[string]bool           // sessions the user deleted
	// goneRTCs: extra submissions answered not found, which only an RTC of a
	// deleted session may be
	goneRTCs []protocol.RTC
}

func (h *harness) newUser(ctx context.Context, i int) (*user, error) {
	u := &user{h: h, name: fmt.Sprintf("chaos-%d-u%d", h.o.Seed, i), profile: simclient.NewProfile(),
		rng: newRNG(h.o.Seed, uint64(i+1)), runs: map[string]int{}, answers: map[string][]protocol.RTC{}, deleted: map[string]bool{}}
	return u, u.dial(ctx, h.nodes[i%len(h.nodes)])
}

// dial opens a page: a new client on the profile, retried while the node is down.
func (u *user) dial(ctx context.Context, n *nodeproc.Proc) error {
	tok, _, err := u.h.ver.Issue(u.name, 24*time.Hour)
	if err != nil {
		return err
	}
	cfg := simclient.Config{URL: n.WSURL(), Token: tok, DeviceID: "chaos-device", Tool: u.tool, Confirm: u.confirm, Profile: u.profile,
		OnDelta: func(protocol.Delta, time.Time) { notify(u.h.streaming) }}
	deadline := time.Now().Add(time.Minute)
	for {
		dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		c, err := simclient.Dial(dctx, cfg)
		cancel()
		if err == nil {
			u.mu.Lock()
			u.client = c
			u.clients = append(u.clients, c)
			u.mu.Unlock()
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("%s: dial: %w", u.name, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (u *user) cur() *simclient.Client {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.client
}

func (u *user) close() {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, c := range u.clients {
		c.Close()
	}
}

// reload closes the page and opens a new one, possibly on another node.
func (u *user) reload(ctx context.Context, n *nodeproc.Proc) error {
	u.cur().Close()
	return u.dial(ctx, n)
}

// call runs an idempotent RPC through whichever page is open, until it gets an
// answer.
func (u *user) call(ctx context.Context, method string, params, out any) error {
	for {
		err := u.cur().CallRetry(ctx, method, params, out)
		if !errors.Is(err, simclient.ErrClosed) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func notify(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// run sends messages until the run's turn budget is used up.
func (u *user) run(ctx context.Context) error {
	for {
		k := u.h.started.Add(1)
		if k > int64(u.h.o.Turns) {
			return nil
		}
		if err := u.turn(ctx, k); err != nil {
			return err
		}
	}
}

// turn sends one message (sometimes twice with the same client_id, sometimes
// followed by a second one that queues), sometimes stops it, sometimes acts on
// its session meanwhile (act), and waits for the turns to end.
func (u *user) turn(ctx context.Context, k int64) error {
	u.mu.Lock()
	session := u.session
	u.mu.Unlock()
	if u.rng.chance(0.3) {
		session = ""
	}
	ids, err := u.send(ctx, session, fmt.Sprintf("m-%d", k), fmt.Sprintf("message %d", k), u.rng.chance(0.2))
	if err != nil {
		return err
	}
	if u.rng.chance(0.1) {
		more, err := u.send(ctx, ids.SessionID, fmt.Sprintf("m-%d-b", k), fmt.Sprintf("message %d, again", k), false)
		if err != nil {
			return err
		}
		ids.more = append(ids.more, more.TurnID)
	}
	if u.rng.chance(0.05) {
		time.Sleep(u.rng.dur(0, 300*time.Millisecond))
		var res protocol.TurnResult
		if err := u.call(ctx, protocol.MethodTurnStop, protocol.IDRequest{SessionID: ids.SessionID}, &res); err != nil {
			var pe *protocol.Error
			if !errors.As(err, &pe) || (pe.Code != protocol.CodeConflict && pe.Code != protocol.CodeNotFound) {
				return fmt.Errorf("%s: stop: %w", u.name, err)
			}
		}
		u.h.count(func(r *Report) { r.Stops++ })
	}
	forked := u.act(ctx, k, ids)
	u.mu.Lock()
	gone := u.deleted[ids.SessionID]
	u.mu.Unlock()
	wait := forked
	if !gone { // the turns of a deleted session are no longer the user's concern
		wait = append(append([]string{ids.TurnID}, ids.more...), forked...)
	}
	for _, id := range wait {
		wctx, cancel := context.WithTimeout(ctx, 90*time.Second)
		_, err := u.profile.WaitTurn(wctx, id)
		cancel()
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		// A turn that does not end here is counted after the settle time.
	}
	return nil
}

type sent struct {
	protocol.MessageSendResult
	more []string
}

// send posts a message until the server answers; dup sends the same client_id
// a second time concurrently, and both answers must agree.
func (u *user) send(ctx context.Context, session, clientID, text string, dup bool) (sent, error) {
	req := protocol.MessageSendRequest{ClientID: clientID, SessionID: session, Content: protocol.MessageContent{Text: text}}
	var res, res2 protocol.MessageSendResult
	var err2 error
	var wg sync.WaitGroup
	if dup {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err2 = u.call(ctx, protocol.MethodMessageSend, req, &res2)
		}()
	}
	err := u.call(ctx, protocol.MethodMessageSend, req, &res)
	wg.Wait()
	if err != nil {
		return sent{}, fmt.Errorf("%s: send %s: %w", u.name, clientID, err)
	}
	if dup {
		u.h.count(func(r *Report) { r.DupSends++ })
		if err2 != nil || res2 != res {
			u.h.count(func(r *Report) { r.DupDiffer++ })
			u.h.logf("%s: duplicate send %s answered %+v (%v), first %+v", u.name, clientID, res2, err2, res)
		}
	}
	u.mu.Lock()
	u.session = res.SessionID
	u.mu.Unlock()
	return sent{MessageSendResult: res}, nil
}

// tool is the browser's tool: it counts its invocations per RTC, takes a
// little time, and sometimes races its own submission with a duplicate (same
// client_id) and another tab's result (another client_id).
func (u *user) tool(ctx context.Context, r protocol.RTC) simclient.Result {
	u.mu.Lock()
	u.runs[r.ID]++
	u.mu.Unlock()
	u.h.count(func(rep *Report) { rep.Executions++ })
	notify(u.h.executing)
	time.Sleep(u.rng.dur(0, 120*time.Millisecond))
	res := simclient.Result{OK: true, Output: fmt.Sprintf("%s done (%s)", r.ToolName, r.ID)}
	switch n := u.rng.intn(100); {
	case n < 4:
		res = simclient.Result{Reject: true}
	case n < 8:
		res = simclient.Result{Error: "the tool failed on purpose"}
	}
	if !res.Reject && u.rng.chance(0.15) {
		u.extraSubmit(r, "res-"+r.ID, res)
		u.extraSubmit(r, "tab2-"+r.ID, simclient.Result{OK: true, Output: "another tab's result"})
	}
	notify(u.h.submitting)
	return res
}

// extraSubmit submits a result concurrently with the client's own submission
// and keeps the answer.
func (u *user) extraSubmit(r protocol.RTC, clientID string, res simclient.Result) {
	u.h.count(func(rep *Report) { rep.DupSubmits++ })
	u.h.extra.Add(1)
	go func() {
		defer u.h.extra.Done()
		req := protocol.RTCSubmitResultRequest{RTCID: r.ID, ClientID: clientID, OK: res.OK, Error: res.Error}
		if res.OK {
			req.Output = []byte(fmt.Sprintf("%q", res.Output))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		var out protocol.RTCResult
		err := u.call(ctx, protocol.MethodRTCSubmitResult, req, &out)
		if isCode(err, protocol.CodeNotFound) {
			u.mu.Lock()
			u.goneRTCs = append(u.goneRTCs, r) // checked against the deleted sessions
			u.mu.Unlock()
			return
		}
		if err != nil {
			u.h.count(func(rep *Report) { rep.ClientErrors++ })
			u.h.logf("%s: extra submission %s: %v", u.name, clientID, err)
			return
		}
		u.mu.Lock()
		u.answers[r.ID] = append(u.answers[r.ID], out.RTC)
		u.mu.Unlock()
	}()
}
