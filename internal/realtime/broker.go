package realtime

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/centrifugal/centrifuge"

	"github.com/rtcagent/rtcagent/internal/store"
)

const (
	topicPrefix = "topic:u="
	livePrefix  = "live:u="
	tagOffset   = "_o"
	tagEpoch    = "_e"
)

// TopicChannel and LiveChannel name a user's channels.
func TopicChannel(userID string) string { return topicPrefix + userID }
func LiveChannel(userID string) string  { return livePrefix + userID }

// topicBroker wraps a Centrifuge broker: pub/sub goes through the inner broker;
// history of topic channels comes from the store.
type topicBroker struct {
	inner     centrifuge.Broker
	store     store.Store
	pageBytes int // bounds the publications of one History answer
}

func (b *topicBroker) RegisterBrokerEventHandler(h centrifuge.BrokerEventHandler) error {
	return b.inner.RegisterBrokerEventHandler(&positionStamper{h: h})
}

func (b *topicBroker) Subscribe(chs ...string) error   { return b.inner.Subscribe(chs...) }
func (b *topicBroker) Unsubscribe(chs ...string) error { return b.inner.Unsubscribe(chs...) }
func (b *topicBroker) PublishJoin(ch string, info *centrifuge.ClientInfo) error {
	return b.inner.PublishJoin(ch, info)
}
func (b *topicBroker) PublishLeave(ch string, info *centrifuge.ClientInfo) error {
	return b.inner.PublishLeave(ch, info)
}

// Publish forwards to the inner broker without broker-side history. A topic
// publication must carry its store position in the reserved tags.
func (b *topicBroker) Publish(ch string, data []byte, opts centrifuge.PublishOptions) (centrifuge.PublishResult, error) {
	if strings.HasPrefix(ch, topicPrefix) && (opts.Tags[tagOffset] == "" || opts.Tags[tagEpoch] == "") {
		return centrifuge.PublishResult{}, errors.New("topic publication without a store position")
	}
	opts.HistorySize, opts.HistoryTTL = 0, 0
	return b.inner.Publish(ch, data, opts)
}

func (b *topicBroker) History(ch string, opts centrifuge.HistoryOptions) ([]*centrifuge.Publication, centrifuge.StreamPosition, error) {
	userID, ok := strings.CutPrefix(ch, topicPrefix)
	if !ok {
		return b.inner.History(ch, opts)
	}
	if opts.Filter.Reverse {
		return nil, centrifuge.StreamPosition{}, centrifuge.ErrorNotAvailable
	}
	var pubs []*centrifuge.Publication
	var sp centrifuge.StreamPosition
	err := b.store.Read(context.Background(), func(tx store.Tx) error {
		var err error
		pubs, sp, err = b.history(tx, userID, opts.Filter)
		return err
	})
	return pubs, sp, err
}

// history reads the user's stream position and the updates the filter asks
// for.
func (b *topicBroker) history(tx store.Stream, userID string, f centrifuge.HistoryFilter) ([]*centrifuge.Publication, centrifuge.StreamPosition, error) {
	pos, err := tx.StreamGet(userID)
	if err != nil {
		return nil, centrifuge.StreamPosition{}, err
	}
	sp := centrifuge.StreamPosition{Offset: uint64(pos.Top), Epoch: pos.Epoch}
	if f.Limit == 0 {
		return nil, sp, nil
	}
	since := int64(0)
	if f.Since != nil {
		since = int64(f.Since.Offset)
	}
	limit := f.Limit
	if limit < 0 {
		limit = 1 << 30
	}
	// A list cut short by the byte bound does not reach the top, so
	// Centrifuge reports the recovery failed and the client refills with
	// v1.update.list, page by page, instead of one frame of everything.
	list, _, err := tx.UpdateList(userID, since, limit, b.pageBytes)
	var pubs []*centrifuge.Publication
	for _, u := range list {
		pubs = append(pubs, &centrifuge.Publication{Offset: uint64(u.Offset), Epoch: u.Epoch, Data: mustPayload(u)})
	}
	return pubs, sp, err
}

// RemoveHistory discards a user's history: a new epoch starts.
func (b *topicBroker) RemoveHistory(ch string) error {
	userID, ok := strings.CutPrefix(ch, topicPrefix)
	if !ok {
		return b.inner.RemoveHistory(ch)
	}
	return b.store.Write(context.Background(), func(tx store.Tx) error {
		_, err := tx.StreamReset(userID)
		return err
	})
}

// positionStamper moves the store position from the reserved tags into the
// publication, where Centrifuge's positioning and recovery read it.
type positionStamper struct {
	h centrifuge.BrokerEventHandler
}

func (p *positionStamper) HandlePublication(ch string, pub *centrifuge.Publication, sp centrifuge.StreamPosition, delta bool, prev *centrifuge.Publication) error {
	if strings.HasPrefix(ch, topicPrefix) {
		off, err := strconv.ParseUint(pub.Tags[tagOffset], 10, 64)
		if err != nil {
			return nil // not stamped: drop rather than break positioning
		}
		epoch := pub.Tags[tagEpoch]
		cp := *pub
		cp.Tags = nil
		cp.Offset, cp.Epoch = off, epoch
		pub, sp = &cp, centrifuge.StreamPosition{Offset: off, Epoch: epoch}
	}
	return p.h.HandlePublication(ch, pub, sp, delta, prev)
}

func (p *positionStamper) HandleJoin(ch string, info *centrifuge.ClientInfo) error {
	return p.h.HandleJoin(ch, info)
}

func (p *positionStamper) HandleLeave(ch string, info *centrifuge.ClientInfo) error {
	return p.h.HandleLeave(ch, info)
}
