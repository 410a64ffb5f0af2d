package store

import "github.com/cos-dev/cos/eventlog/natslog"

// Durability is what a NATS store's stream promises about acknowledged
// events: its replica count, and a warning for one replica nobody said was
// intended (natslog.Durability, whose doc says what each count keeps).
type Durability = natslog.Durability

// DurabilityOf returns l's Durability when l is a NATS store's log (or
// wraps one and forwards Durability), and false for a file log.
func DurabilityOf(l any) (Durability, bool) {
	d, ok := l.(interface{ Durability() Durability })
	if !ok {
		return Durability{}, false
	}
	return d.Durability(), true
}
