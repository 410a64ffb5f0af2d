package natslog

import (
	"testing"
	"time"
)

// TestChooser: small rounds are pipelined; a large round tries each way
// once, then takes the one with the lower time per event, and tries the
// other once in chooseExplore rounds times how many times slower it was;
// when the other becomes faster the choice follows.
func TestChooser(t *testing.T) {
	var c chooser
	if w := c.choose(chooseMinMsgs - 1); w != wayPipeline {
		t.Fatalf("a small round went %v", w)
	}
	if w := c.choose(64); w != wayPipeline {
		t.Fatalf("first large round: %v, want the pipeline (unmeasured)", w)
	}
	c.observe(wayPipeline, 64, 64, 64*300*time.Microsecond) // 300 µs per event: a server that fsyncs each
	if w := c.choose(64); w != wayBatch {
		t.Fatalf("second large round: %v, want the batch (unmeasured)", w)
	}
	c.observe(wayBatch, 64, 64, 64*150*time.Microsecond)
	counts := map[commitWay]int{}
	for range 10 * chooseExplore {
		counts[c.choose(64)]++
	}
	// The pipeline is twice as slow: tried once in 2*chooseExplore rounds.
	if counts[wayBatch] != 10*chooseExplore-5 || counts[wayPipeline] != 5 {
		t.Fatalf("with the batch twice as fast: %v, want the batch but one round in %d", counts, 2*chooseExplore)
	}
	// Rounds that are small or committed nothing do not count.
	c.observe(wayPipeline, chooseMinMsgs-1, 8, time.Nanosecond)
	c.observe(wayPipeline, 64, 0, time.Nanosecond)
	if c.choose(64) != wayBatch {
		t.Fatal("an unmeasured round moved the choice")
	}
	// The pipeline becomes three times faster (the server now syncs
	// lazily): the batch is tried once in 3*chooseExplore rounds.
	for range 40 {
		c.observe(wayPipeline, 64, 64, 64*50*time.Microsecond)
	}
	counts = map[commitWay]int{}
	for range 6 * chooseExplore {
		counts[c.choose(64)]++
	}
	if counts[wayBatch] != 2 || counts[wayPipeline] != 6*chooseExplore-2 {
		t.Fatalf("with the pipeline now three times faster: %v, want the batch in 2 rounds of %d", counts, 6*chooseExplore)
	}
}
