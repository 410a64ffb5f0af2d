package natslog

// CheckpointSeq returns the seq of the checkpoint l loaded at Open or
// wrote since (0: none).
func CheckpointSeq(l *Log) uint64 {
	l.smu.Lock()
	defer l.smu.Unlock()
	return l.checkpointSeq
}
