package embedding

// UseTop calls methods promoted two levels.
func UseTop(t *Top) string {
	t.SetID(1)
	t.Log("x")
	return t.Hello()
}

// UseMid calls methods promoted one level, from a value.
func UseMid(m Mid) string {
	m.SetID(2)
	m.Log("y")
	return m.Hello()
}

// UseExplicit spells the embedded fields out.
func UseExplicit(t *Top) string { return t.Mid.Base.Hello() }

// UseShadow calls the shadowing method.
func UseShadow(s Shadow) string { return s.Hello() }

// UsePtr calls through an embedded pointer.
func UsePtr(p PtrTop) { p.SetID(3) }

// UseLocked calls methods promoted from sync.Mutex.
func UseLocked(l *Locked) int {
	l.Lock()
	defer l.Unlock()
	l.n++
	return l.n
}

// UseDecorated calls a method promoted from an embedded interface.
func UseDecorated(d Decorated) string { return d.Hello() }
