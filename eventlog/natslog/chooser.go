package natslog

import "time"

// Which commit is faster for a large round of one-event requests on a
// one-replica stream depends on how the server syncs its disk, which a
// client cannot see. Measured on loopback, 64 appenders (the README's
// table): with nats-server's default lazy fsync the pipeline commits
// ~21,000 events/s and an atomic batch ~4,300; with sync_interval: always
// the pipeline (one fsync per message) ~3,200 and the batch ~6,600. Small
// rounds favour the pipeline either way. So the committer measures: a
// round of at least chooseMinMsgs messages goes the way whose recent time
// per event is lower, and now and then one goes the other way, to notice
// when that has become the faster: after chooseExplore rounds times how
// many times slower it was (a way ten times slower is tried ten times less
// often, so trying it costs a few percent at most). Both ways are correct
// for every round they are used for; only speed depends on the choice.

const (
	// chooseMinMsgs is the smallest round measured and chosen for; a
	// smaller one is pipelined.
	chooseMinMsgs = 16
	// chooseExplore: one in this many measured rounds, times how many
	// times slower the other way was, tries the other way.
	chooseExplore = 32
	// chooseWeight is the weight of a new measurement in the moving
	// average.
	chooseWeight = 0.2
)

// commitWay is how a round is published.
type commitWay int

const (
	wayPipeline commitWay = iota
	wayBatch
)

// chooser keeps the moving average of the time per event of each way. It
// is used by the committer alone (under smu).
type chooser struct {
	perEvent [2]float64 // nanoseconds; 0 = not measured yet
	// sinceOther counts the measured rounds since the slower way was
	// last tried.
	sinceOther float64
}

// choose returns the way for a round of msgs messages that either way can
// publish.
func (c *chooser) choose(msgs int) commitWay {
	if msgs < chooseMinMsgs {
		return wayPipeline
	}
	switch {
	case c.perEvent[wayPipeline] == 0:
		return wayPipeline
	case c.perEvent[wayBatch] == 0:
		return wayBatch
	}
	best, other := wayPipeline, wayBatch
	if c.perEvent[wayBatch] < c.perEvent[wayPipeline] {
		best, other = wayBatch, wayPipeline
	}
	c.sinceOther++
	if c.sinceOther >= chooseExplore*c.perEvent[other]/c.perEvent[best] {
		c.sinceOther = 0
		return other
	}
	return best
}

// observe records that way published events events of a round of msgs
// messages in d. Rounds below chooseMinMsgs and rounds that committed
// nothing are not measured.
func (c *chooser) observe(way commitWay, msgs, events int, d time.Duration) {
	if msgs < chooseMinMsgs || events == 0 {
		return
	}
	ns := float64(d.Nanoseconds()) / float64(events)
	if c.perEvent[way] == 0 {
		c.perEvent[way] = ns
		return
	}
	c.perEvent[way] += chooseWeight * (ns - c.perEvent[way])
}
