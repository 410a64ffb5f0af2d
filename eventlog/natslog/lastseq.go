package natslog

import "context"

// LastSeq returns the stream's last sequence as the stream leader knows
// it, whether or not the message there is a cos event; 0 for an empty
// stream, or a missing one of a read-only log. Salvaging a damaged stream
// uses it to list every seq it cannot keep. Errors: as Head's.
func (l *Log) LastSeq(ctx context.Context) (uint64, error) {
	if err := l.usable(ctx); err != nil {
		return 0, err
	}
	_, seq, err := l.lastSeq(ctx)
	return seq, err
}
