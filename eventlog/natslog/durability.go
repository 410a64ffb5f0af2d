package natslog

import (
	"context"
	"fmt"
	"maps"

	"github.com/cos-dev/cos/eventlog"
)

// MetadataSingleReplica is the stream metadata key that records that the
// operator intends the stream to have one replica, with
// SingleReplicaIntended as its value. Open sets it on a stream it creates
// with Options.SingleReplica; IntendSingleReplica sets it on an existing
// one. An R1 stream without it is reported (Durability.Warning).
const MetadataSingleReplica = "cos_single_replica"

// SingleReplicaIntended is the value of MetadataSingleReplica.
const SingleReplicaIntended = "intended"

// Durability is what the stream's replica count promises about the events
// the servers acknowledged, as far as cos can see: it cannot see the
// servers' fsync setting (sync_interval).
//
//   - Replicas 3 (or 5): an acknowledged event is on a majority of the
//     servers; it survives the loss of any one (two) of them. With
//     sync_interval: always on every server it also survives a power loss
//     of all of them; with the default lazy fsync (every two minutes) a
//     power loss of a majority at once can lose the last acknowledged
//     events (Jepsen, NATS 2.12.1).
//   - Replicas 1: an acknowledged event is on one server's disk only. A
//     crash of that machine before its next fsync loses it (with the
//     default lazy fsync, up to two minutes of acknowledged events), and
//     a lost disk loses the log.
type Durability struct {
	// Replicas is the stream's replica count (0 when unknown).
	Replicas int `json:"replicas,omitempty"`
	// SingleReplicaIntended is true when the operator said one replica is
	// intended: Options.SingleReplica, or the stream's metadata.
	SingleReplicaIntended bool `json:"single_replica_intended,omitempty"`
	// Warning, when set, says the stream has one replica and nobody said
	// that is intended, what that risks and what to do.
	Warning string `json:"warning,omitempty"`
}

// Durability returns what the stream's replica count promises (as Open
// read it) and, for one replica not said to be intended, a warning.
func (l *Log) Durability() Durability {
	l.smu.Lock()
	s := l.stream
	l.smu.Unlock()
	d := Durability{Replicas: l.replicas, SingleReplicaIntended: l.opts.SingleReplica}
	if s != nil && s.CachedInfo().Config.Metadata[MetadataSingleReplica] == SingleReplicaIntended {
		d.SingleReplicaIntended = true
	}
	if d.Replicas == 1 && !d.SingleReplicaIntended {
		d.Warning = fmt.Sprintf("the JetStream stream %q has one replica: an acknowledged event is on one server's disk only, "+
			"and with nats-server's default lazy fsync a crash of that machine can lose the events of the last two minutes. "+
			"For a log that must not lose what it acknowledged use three servers (a stream of 3 replicas: `cos migrate` into a new "+
			"stream whose --to address lists three servers) with sync_interval: always; if one replica is what you want, say so "+
			"once with `cos log init --single-replica`", l.opts.Stream)
	}
	return d
}

// IntendSingleReplica records in the stream's metadata
// (MetadataSingleReplica) that its one replica is intended, so that no
// handle warns about it any more. It refuses a stream of more replicas
// (nothing to intend) and a read-only handle. Errors: eventlog.ErrReadOnly,
// *eventlog.StorageError, ErrNoStream.
func (l *Log) IntendSingleReplica(ctx context.Context) error {
	if err := l.usable(ctx); err != nil {
		return err
	}
	if l.opts.ReadOnly {
		return eventlog.ErrReadOnly
	}
	s, err := l.currentStream(ctx)
	if err != nil {
		return err
	}
	info, err := s.Info(ctx)
	if err != nil {
		return l.storageErr(ctx, "stream info", err)
	}
	cfg := info.Config
	if cfg.Replicas != 1 {
		return fmt.Errorf("the JetStream stream %q has %d replicas, not one: nothing to say about a single replica", l.opts.Stream, cfg.Replicas)
	}
	if cfg.Metadata[MetadataSingleReplica] == SingleReplicaIntended {
		return nil
	}
	cfg.Metadata = maps.Clone(cfg.Metadata)
	if cfg.Metadata == nil {
		cfg.Metadata = map[string]string{}
	}
	cfg.Metadata[MetadataSingleReplica] = SingleReplicaIntended
	s, err = l.js.UpdateStream(ctx, cfg)
	if err != nil {
		return l.storageErr(ctx, "update stream", err)
	}
	l.smu.Lock()
	l.stream = s
	l.smu.Unlock()
	return nil
}

// warnDurability logs the Durability warning of a stream just opened.
func (l *Log) warnDurability() {
	if d := l.Durability(); d.Warning != "" {
		l.opts.Logger.Warn("eventlog: " + d.Warning)
	}
}
