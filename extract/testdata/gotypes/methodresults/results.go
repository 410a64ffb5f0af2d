// Package methodresults calls methods on values that functions and
// methods return: chained, stored in locals, comma-ok and with an error.
package methodresults

// Conn is what the pool hands out.
type Conn struct{ open bool }

// Send has a pointer receiver.
func (c *Conn) Send() error { return nil }

// Close has a pointer receiver.
func (c *Conn) Close() error { return nil }

// Sender is returned by Pool.Sender.
type Sender interface {
	Send() error
}

// Pool holds connections.
type Pool struct{ conns []*Conn }

// NewPool returns an empty pool.
func NewPool() *Pool { return &Pool{} }

// Open returns a connection and an error.
func Open() (*Conn, error) { return &Conn{}, nil }

// Get returns the first connection.
func (p *Pool) Get() *Conn { return p.conns[0] }

// TryGet returns the first connection, if any.
func (p *Pool) TryGet() (*Conn, bool) {
	if len(p.conns) == 0 {
		return nil, false
	}
	return p.conns[0], true
}

// Sender returns a connection as an interface.
func (p *Pool) Sender() Sender { return p.Get() }

// Chain is f().M().M().
func Chain() error { return NewPool().Get().Send() }

// Local keeps each result in a local.
func Local() error {
	p := NewPool()
	c := p.Get()
	return c.Close()
}

// CommaOK takes the first of two results.
func CommaOK() error {
	if c, ok := NewPool().TryGet(); ok {
		return c.Send()
	}
	return nil
}

// WithErr takes a result next to an error.
func WithErr() error {
	c, err := Open()
	if err != nil {
		return err
	}
	return c.Close()
}

// Iface calls through the interface a method returns.
func Iface() error { return NewPool().Sender().Send() }

// Deref copies the pointed-to value into a local.
func Deref() error {
	c := *NewPool().Get()
	return c.Close()
}
