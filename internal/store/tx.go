package store

import (
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// Tx is the set of operations available inside a transaction: one part for
// each kind of state, the transaction's time and its read hint. Read-only
// transactions may call only the getters and listers. A function that needs
// only some parts takes those, so its signature says what it reads and writes.
type Tx interface {
	// Now is the transaction's time: the store's clock read once, when the
	// transaction began. The store dates what it writes itself with it (an
	// update, an inbox item), and callers their changes.
	Now() time.Time
	// Prefetch tells the transaction what it is about to read (see Prefetch).
	Prefetch(p Prefetch)

	Stream
	Sessions
	Turns
	Messages
	RTCs
	Inbox
	Leases
	Nodes
	Audit
}

// Prefetch names rows a write transaction is about to read under their user's
// stream lock. A store that talks to a database server may read them in the
// exchange that takes the lock and answer the reads from what it read, kept up
// to date with the transaction's own writes. A hint: every answer is the same
// without it.
type Prefetch struct {
	Turn       string // TurnGet of this turn
	MessageSeq string // MessageMaxSeq of this session
	TurnSeq    string // TurnMaxSeq of this session
	TurnOfRTC  string // TurnGet and RTCListOpenByTurn of this RTC's turn
	OpenRTCsOf string // RTCListOpenByTurn of this turn
	// ClientUser and ClientID: MessageByClientID of this user and key.
	ClientUser, ClientID string
	// Adopt is a session whose work the transaction may adopt: its lease
	// and whether its inbox is empty, for LeaseAcquire and InboxNext.
	Adopt string
}

// Stream is the users' Topic streams: per user, the ordered updates that tell
// clients what changed. A write transaction gathers what it appends for a user
// in one update at one offset, written when it commits, together with the
// changes the update describes: no change without its update, no update
// without its change. A user's offsets start at 1 and grow by exactly 1; the
// epoch names the timeline and changes only when StreamReset discards history.
// A write transaction holds a user's stream from its first NextOffset,
// UpdateAppend or StreamReset of that user until it ends, so a user's writers
// commit one after another, in offset order.
type Stream interface {
	// UpdateAppend adds a change of the given type carrying data (marshalled as
	// JSON) to the user's one update of this transaction, opening it at the
	// user's next offset (Batch). It returns the update as it stands.
	UpdateAppend(userID, typ string, data any) (protocol.Update, error)
	// NextOffset returns the offset the next UpdateAppend of the user will
	// assign: the open update's.
	NextOffset(userID string) (int64, error)
	// UpdateOpen returns the user's update this transaction has opened and not
	// written yet, as it stands.
	UpdateOpen(userID string) (protocol.Update, bool)
	// UpdateList returns the user's stored updates after offset since (not the
	// open one), at most limit of them and, when maxBytes > 0, at most maxBytes
	// of stored payload: the list ends before the update that would pass
	// maxBytes but holds at least one.
	UpdateList(userID string, since int64, limit, maxBytes int) ([]protocol.Update, StreamPos, error)
	// StreamGet returns the user's position; its top counts the open update.
	StreamGet(userID string) (StreamPos, error)
	// StreamReset discards the user's history and starts a new epoch; offsets go on
	// from the old top.
	StreamReset(userID string) (StreamPos, error)
	// UpdatePrune deletes updates older than before, keeping at least keep per user.
	UpdatePrune(before time.Time, keep int) (int64, error)
}

// StreamPos is the state of a user's Topic stream.
type StreamPos struct {
	Epoch string
	Top   int64 // last assigned offset, 0 when none
	Floor int64 // oldest retained offset minus one: updates with offset > Floor exist
}

// Sessions is the session rows: a person's conversation with the agent, its
// work mode and approvals. A session is written whole (SessionUpdate of what
// SessionGet returned), and what SessionGet returns in a write transaction
// stays so until the commit: a read-modify-write of a session loses no
// concurrent change.
type Sessions interface {
	SessionInsert(s *protocol.Session) error
	// SessionGet in a write transaction returns the session as it stands until
	// the transaction commits: no other writer changes it meanwhile, so a
	// SessionUpdate of what it returned loses no concurrent change.
	SessionGet(id string) (*protocol.Session, error)
	// SessionList returns the user's sessions newest first, those created before
	// beforeID when it is set.
	SessionList(userID, beforeID string, limit int) ([]protocol.Session, error)
	// SessionUpdate overwrites the whole session; read it with SessionGet in the
	// same transaction.
	SessionUpdate(s *protocol.Session) error
}

// Turns is the turn rows: each run of the agent on a session, ordered in the
// session by seq. A turn changes by compare-and-set on its status: a
// TurnUpdate from a status the turn no longer has changes nothing and fails
// with ErrConflict (ErrNotFound when the turn is gone): TurnUpdate returns it,
// or a store that sends the check with a later statement fails the
// transaction with it.
type Turns interface {
	TurnInsert(t *protocol.Turn) error
	TurnGet(id string) (*protocol.Turn, error)
	TurnList(sessionID string, p Page) ([]protocol.Turn, error) // by seq
	// TurnUpdate writes t when the stored status equals expectStatus.
	TurnUpdate(t *protocol.Turn, expectStatus string) error
	// TurnNextQueued returns the oldest queued turn of the session.
	TurnNextQueued(sessionID string) (*protocol.Turn, error)
	TurnMaxSeq(sessionID string) (int64, error)
}

// Messages is the message rows: what the person, the model and the tools said
// in a session, ordered by seq. A message sent with a client id is stored once
// per user and id (ErrDuplicate for the second, after which the transaction
// goes on), and changes by compare-and-set on its status (ErrConflict).
type Messages interface {
	MessageInsert(m *protocol.Message, clientID string) error // ErrDuplicate on a used (user, clientID)
	MessageGet(id string) (*protocol.Message, error)
	MessageByClientID(userID, clientID string) (*protocol.Message, error)
	MessageList(sessionID string, p Page) ([]protocol.Message, error) // by seq
	// MessagesStreaming returns turn t's messages that are still streaming,
	// by seq. A turn's messages come after its user message (a retry's is
	// the retried turn's, earlier still; a compact turn has none and looks
	// at all); of those, only the streaming ones are read.
	MessagesStreaming(t *protocol.Turn) ([]protocol.Message, error)
	MessageMaxSeq(sessionID string) (int64, error)
	// MessageLastByRole returns the session's complete message of the given role
	// with the highest seq (such as its latest summary), or ErrNotFound.
	MessageLastByRole(sessionID, role string) (*protocol.Message, error)
	MessageUpdate(m *protocol.Message, expectStatus string) error
}

// Page selects a slice of an ordered list: rows with order key > After.
type Page struct {
	After int64
	Limit int
}

// RTCs is the RTC rows: the tool calls of turns, from their creation to their
// end. An RTC changes by compare-and-set on its status, as a turn does
// (Turns); the listers of open RTCs see every RTC whose status is not
// terminal, and only those.
type RTCs interface {
	RTCInsert(r *protocol.RTC) error
	RTCGet(id string) (*protocol.RTC, error)
	RTCListByTurn(turnID string) ([]protocol.RTC, error) // by seq
	// RTCListOpenByTurn lists the turn's non-terminal RTCs by seq.
	RTCListOpenByTurn(turnID string) ([]protocol.RTC, error)
	// RTCListBySession lists a session's RTCs in creation order, those created
	// after afterID when it is set.
	RTCListBySession(sessionID, afterID string, limit int) ([]protocol.RTC, error)
	RTCListOpenByUser(userID string, limit int) ([]protocol.RTC, error)
	// RTCListExpired returns non-terminal RTCs whose deadline passed.
	RTCListExpired(now time.Time, limit int) ([]protocol.RTC, error)
	RTCUpdate(r *protocol.RTC, expectStatus string) error
}

// Inbox is the work queued for sessions' workers. An item commits with the
// change that caused it (no work without its cause), a session's items are
// taken oldest first, and a session with items and no live lease is found by
// InboxSessions: no work is left without a worker to claim it. The sessions
// that got items are the Wake of the transaction's Commit.
type Inbox interface {
	// InboxInsert queues an item; its ID is set by the transaction's next
	// statement or its commit, whichever comes first.
	InboxInsert(item *InboxItem) error
	// Woken returns the sessions this transaction inserted inbox items for so
	// far (the Wake of its Commit), in order, possibly repeated.
	Woken() []string
	// InboxNext returns the oldest item of the session, or ErrNotFound.
	InboxNext(sessionID string) (*InboxItem, error)
	// InboxDelete deletes the item.
	InboxDelete(it InboxItem) error
	// InboxFinish deletes the session's item id and, when the session has no
	// other item, releases l as LeaseRelease does: how a drain ends an item and,
	// with the inbox empty, itself, in one statement. It sets *released to
	// whether it released by the time the transaction commits (a store may send
	// the statement with the commit).
	InboxFinish(id int64, l Lease, released *bool) error
	// InboxSessions returns up to limit candidates for a claim, oldest work
	// first: every session that has inbox items and no live lease (none, an
	// expired one, or one held by a node whose liveness record expired) is
	// among them once the limit allows. A store may also return a session that
	// turns out held or without work; LeaseAcquire and InboxNext find out.
	InboxSessions(limit int) ([]string, error)
}

// KindTurnStart is the inbox item of a queued turn: it may start.
const KindTurnStart = "turn.start"

// KindTurnResume is the inbox item of a turn whose step's calls have all
// ended: its next step is due. The session worker queues it in the
// transaction that ends the step's last open call and deletes it in the one
// that leaves the turn waiting again or ended, so the rows say it too: a
// session has one exactly while its turn waits with no open call, or runs
// having taken it. A store that is its file's one writer may keep these items
// in memory only, and derive them from the turns when it opens the file
// (sqlitestore); a store of many nodes writes them as rows.
const KindTurnResume = "turn.resume"

// InboxItem is one unit of work for a session's worker.
type InboxItem struct {
	ID        int64 // orders the session's items; may be given again once the item is deleted, or be below 1 (sqlitestore's derived items)
	SessionID string
	Kind      string // see internal/session for kinds
	TurnID    string
	CreatedAt time.Time
}

// Leases is who runs each session: one holder at a time. Every acquisition
// but the holder extending its own live lease bumps the fencing token, so a
// previous holder's LeaseCheck fails with ErrLeaseLost, and a write
// transaction whose LeaseCheck passed commits before anyone else can take the
// lease.
type Leases interface {
	// LeaseAcquire takes the session's lease when it is free, expired, held by a
	// node whose liveness record expired (see NodeBeat) or already the holder's;
	// ErrConflict when another, live holder has it. Any acquisition but the holder
	// extending its own live lease bumps the fencing token.
	LeaseAcquire(sessionID, holder string, ttl time.Duration) (Lease, error)
	// LeaseCheck fails with ErrLeaseLost unless l is still the current, unexpired lease.
	LeaseCheck(l Lease) error
	LeaseRenew(l Lease, ttl time.Duration) (Lease, error)
	LeaseRelease(l Lease) error
}

// Lease grants one worker the right to run a session.
type Lease struct {
	SessionID string
	Holder    string
	Token     int64 // fencing token, grows with every new acquisition
	ExpiresAt time.Time
}

// Nodes is the liveness records of lease holders (Leases): a node that keeps
// its record alive keeps long leases, and the sessions of one whose record
// expired fail over within a node TTL.
type Nodes interface {
	// NodeBeat records that the node (a lease holder) is alive until now+ttl.
	// A lease whose holder's record expired is free to take (LeaseAcquire,
	// InboxSessions) however long the lease itself still runs, so the sessions of
	// a dead node fail over within a node TTL while a live node keeps long leases.
	// A holder without a record keeps its leases until they expire. Records that
	// expired long ago (an hour) are deleted on the way.
	NodeBeat(node string, ttl time.Duration) error
	// NodeLeave expires the node's liveness record now: its leases are free.
	NodeLeave(node string) error
	// OtherNodeAlive reports whether a node other than node has a liveness
	// record alive now: whether another node may drain sessions.
	OtherNodeAlive(node string) (bool, error)
}

// Audit is the audit records: one per RTC, what was asked, decided and done,
// kept after the call ended until pruned. A record is the RTC's own row (the
// call with the state of its record it carries, protocol.RTC.Audit), written
// by RTCInsert and RTCUpdate; the records an RTC write carried are among the
// Audits of its Commit. AuditList reads the records in the order their calls
// were created.
type Audit interface {
	// AuditGet returns an RTC's audit record, or ErrNotFound.
	AuditGet(rtcID string) (*protocol.AuditRecord, error)
	// AuditList returns audit records in creation order (see AuditQuery).
	AuditList(q AuditQuery) ([]protocol.AuditRecord, error)
	// AuditPrune drops the records of calls that ended before the given time
	// (the calls stay) and returns how many.
	AuditPrune(before time.Time) (int64, error)
}

// AuditQuery selects audit records: of one user and/or one session (empty =
// any), created at or after Since (zero = any), after the record of the RTC
// AfterRTC when set, at most Limit.
type AuditQuery struct {
	UserID    string
	SessionID string
	Since     time.Time
	AfterRTC  string
	Limit     int
}
