// Package natssub subscribes to NATS subjects.
package natssub

import "github.com/nats-io/nats.go"

func onOrder(m *nats.Msg) {}

// Listen subscribes.
func Listen(nc *nats.Conn) error {
	if _, err := nc.Subscribe("orders.created", onOrder); err != nil {
		return err
	}
	if _, err := nc.QueueSubscribe("orders.*", "workers", func(m *nats.Msg) {}); err != nil {
		return err
	}
	ch := make(chan *nats.Msg, 8)
	_, err := nc.ChanSubscribe("audit", ch)
	return err
}
