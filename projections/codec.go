package projections

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// encoder writes the primitives of the canonical encodings: unsigned varints,
// length-prefixed byte strings and fixed 64-bit floats. Errors stick: after
// the first, every write is a no-op and err reports it.
type encoder struct {
	w   io.Writer
	buf [binary.MaxVarintLen64]byte
	err error
}

func (e *encoder) write(b []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
}

func (e *encoder) uvarint(x uint64) {
	n := binary.PutUvarint(e.buf[:], x)
	e.write(e.buf[:n])
}

func (e *encoder) varint(x int64) {
	n := binary.PutVarint(e.buf[:], x)
	e.write(e.buf[:n])
}

func (e *encoder) float(f float64) {
	binary.LittleEndian.PutUint64(e.buf[:8], math.Float64bits(f))
	e.write(e.buf[:8])
}

func (e *encoder) bytes(b []byte) {
	e.uvarint(uint64(len(b)))
	e.write(b)
}

func (e *encoder) str(s string) {
	e.uvarint(uint64(len(s)))
	if e.err == nil {
		_, e.err = io.WriteString(e.w, s)
	}
}

// decoder reads what encoder wrote from a byte slice. Errors stick: after the
// first, every read returns zero values and err reports it (wrapping
// ErrBadSnapshot).
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: truncated or malformed %s", ErrBadSnapshot, what)
	}
	d.b = nil
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	x, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("varint")
		return 0
	}
	d.b = d.b[n:]
	return x
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	x, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail("varint")
		return 0
	}
	d.b = d.b[n:]
	return x
}

func (d *decoder) float() float64 {
	if d.err != nil || len(d.b) < 8 {
		d.fail("float")
		return 0
	}
	f := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
	d.b = d.b[8:]
	return f
}

// count reads a length and checks that at least min bytes per item remain,
// so a corrupt count cannot make the caller allocate gigabytes.
func (d *decoder) count(minPerItem int) int {
	n := d.uvarint()
	if d.err != nil {
		return 0
	}
	if minPerItem < 1 {
		minPerItem = 1
	}
	if n > uint64(len(d.b)/minPerItem) {
		d.fail("count")
		return 0
	}
	return int(n)
}

// bytes returns the next length-prefixed byte string, aliasing the input.
func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)) {
		d.fail("byte string")
		return nil
	}
	b := d.b[:n:n]
	d.b = d.b[n:]
	return b
}

func (d *decoder) str() string { return string(d.bytes()) }
