// Package natslog is the event log in a NATS JetStream stream: the
// state.Log of several machines sharing one log.
package natslog
