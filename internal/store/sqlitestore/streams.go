package sqlitestore

// maxKnownStreams bounds the writer's stream positions; past it they are
// read again.
const maxKnownStreams = 1 << 16

// knownStreams are the user streams as the writer last committed them. The
// writer is the database's only one, and every change of a stream (an offset
// assigned, a reset, a prune) is one of its transactions, so a position it
// committed stays true until its next commit of that stream: a write
// transaction starts from it instead of reading the stream's row and newest
// update. Only the group's leader uses it (one at a time); a write that rolls
// back leaves it as it was, and a commit that fails clears it.
type knownStreams map[string]streamState

// get returns the committed state of the user's stream, if known.
func (k knownStreams) get(userID string) (*streamState, bool) {
	st, ok := k[userID]
	if !ok {
		return nil, false
	}
	return &st, true
}

// commit keeps the streams a write saw or changed, once it took effect.
func (k *knownStreams) commit(t *tx) {
	if t.streamsUnknown {
		clear(*k)
	}
	if len(*k)+len(t.streams) > maxKnownStreams {
		clear(*k)
	}
	for u, st := range t.streams {
		(*k)[u] = *st
	}
}
