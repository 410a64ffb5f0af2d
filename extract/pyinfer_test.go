package extract

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/graph"
)

// callEdges lists the calls edges of every payload as "source -> target",
// with the code:function:/code:class: prefixes cut for reading.
func callEdges(payloads map[string]graph.FileExtracted) map[string]bool {
	short := func(uid string) string {
		for _, p := range []string{"code:function:", "code:class:", "code:file:"} {
			uid = strings.TrimPrefix(uid, p)
		}
		return uid
	}
	out := map[string]bool{}
	for _, pl := range payloads {
		for _, e := range pl.Edges {
			if e.Type == graph.EdgeCalls {
				out[short(e.Source)+" -> "+short(e.Target)] = true
			}
		}
	}
	return out
}

// checkCalls asserts that every edge of want is present and none of
// absent is.
func checkCalls(t *testing.T, got map[string]bool, want, absent []string) {
	t.Helper()
	for _, w := range want {
		if !got[w] {
			t.Errorf("missing calls edge %s", w)
		}
	}
	for _, a := range absent {
		if got[a] {
			t.Errorf("unexpected calls edge %s", a)
		}
	}
	if t.Failed() {
		var all []string
		for e := range got {
			all = append(all, e)
		}
		sort.Strings(all)
		t.Logf("calls edges:\n  %s", strings.Join(all, "\n  "))
	}
}

func TestPython_Inference(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		// The newcomer's three files: Child.own called on instances.
		"shapes/base.py": `
class Base:
    def own(self):
        return 1

    def shared(self):
        return self.own()

    @property
    def conn(self) -> "Conn":
        return Conn()


class Conn:
    def send(self, data):
        pass
`,
		"shapes/child.py": `
from .base import Base


class Child(Base):
    def __init__(self):
        self.peer = Peer()

    def own(self):
        super().own()
        self.shared()
        self.peer.ping()
        self.conn.send(b"x")
        return 2


class Peer:
    def ping(self):
        pass
`,
		"shapes/__init__.py": `
from .child import Child
from .base import *
`,
		"registry.py": `
class Reg:
    def add(self):
        pass


DEFAULT = Reg()
`,
		"app.py": `
from typing import Optional
from registry import DEFAULT


def reg():
    DEFAULT.add()
    DEFAULT()

import shapes
from shapes import Child, Base
from shapes.child import Peer


def use(x: Child) -> Peer:
    x.own()


def make() -> Child:
    return Child()


def build():
    c = Child()
    c.own()
    make().shared()
    p: Optional[Peer] = None
    p.ping()
    shapes.Child().own()
    shapes.Conn().send(1)


def shadow(make):
    make()


def local_def():
    def use():
        pass
    use()


def late_import():
    from shapes.base import Conn
    Conn().send(2)


def untyped(y):
    y.own()


def defaulted(peer=None):
    if peer is None:
        peer = Peer()
    peer.ping()
`,
	}
	for p, src := range files {
		writeFile(t, root, p, []byte(src))
	}
	res := index(t, root, Options{}, nil)
	want := []string{
		"app.py::reg -> registry.py::Reg.add",
		"app.py::defaulted -> shapes/child.py::Peer.ping",
		"app.py::use -> shapes/child.py::Child.own",
		"app.py::build -> shapes/child.py::Child",
		"app.py::build -> shapes/child.py::Child.own",
		"app.py::build -> app.py::make",
		"app.py::build -> shapes/base.py::Base.shared",
		"app.py::build -> shapes/child.py::Peer.ping",
		"app.py::build -> shapes/base.py::Conn.send",
		"app.py::late_import -> shapes/base.py::Conn",
		"app.py::late_import -> shapes/base.py::Conn.send",
		"shapes/child.py::Child.own -> shapes/base.py::Base.own",
		"shapes/child.py::Child.own -> shapes/base.py::Base.shared",
		"shapes/child.py::Child.own -> shapes/child.py::Peer.ping",
		"shapes/child.py::Child.own -> shapes/base.py::Conn.send",
		"shapes/child.py::Child.__init__ -> shapes/child.py::Peer",
		"shapes/base.py::Base.shared -> shapes/base.py::Base.own",
	}
	absent := []string{
		"app.py::reg -> registry.py::Reg",  // calling an instance is not calling its class
		"app.py::shadow -> app.py::make",   // a parameter shadows the function
		"app.py::local_def -> app.py::use", // a nested def shadows the function
		"app.py::untyped -> shapes/child.py::Child.own",
		"app.py::untyped -> shapes/base.py::Base.own",
	}
	checkCalls(t, callEdges(res.Payloads), want, absent)
	// Annotations of a top-level function's signature are references.
	refs := map[string]bool{}
	for _, pl := range res.Payloads {
		for _, e := range pl.Edges {
			if e.Type == graph.EdgeReferences {
				refs[e.Source+" -> "+e.Target] = true
			}
		}
	}
	for _, w := range []string{"code:function:app.py::use -> code:class:shapes/child.py::Child", "code:function:app.py::use -> code:class:shapes/child.py::Peer"} {
		if !refs[w] {
			t.Errorf("missing references edge %s", w)
		}
	}
	// Calling a module variable is no stub named after it.
	for e := range callEdges(res.Payloads) {
		if strings.HasSuffix(e, "code:external:DEFAULT") {
			t.Errorf("stub edge %s", e)
		}
	}
}

// TestPython_InferenceIncremental: a change to a base class in another
// file re-resolves the callers whose receivers went through it, without
// re-reading them by hand.
func TestPython_InferenceIncremental(t *testing.T) {
	root := t.TempDir()
	cache := t.TempDir()
	writeFile(t, root, "lib/base.py", []byte("class Base:\n    def run(self):\n        pass\n"))
	writeFile(t, root, "lib/child.py", []byte("from lib.base import Base\n\nclass Child(Base):\n    def run(self):\n        pass\n"))
	writeFile(t, root, "lib/__init__.py", []byte("from lib.child import Child\n"))
	writeFile(t, root, "main.py", []byte("from lib import Child\n\ndef go(c: Child):\n    c.run()\n"))
	first := index(t, root, Options{CacheDir: cache}, nil)
	checkCalls(t, callEdges(first.Payloads), []string{"main.py::go -> lib/child.py::Child.run"}, nil)

	// Child no longer overrides run: the call reaches Base.run.
	writeFile(t, root, "lib/child.py", []byte("from lib.base import Base\n\nclass Child(Base):\n    pass\n"))
	second := index(t, root, Options{CacheDir: cache}, hashes(first.Payloads))
	if _, ok := second.Payloads["main.py"]; !ok {
		t.Fatalf("main.py was not re-extracted after its receiver's class changed (emitted: %v)", sortedPaths(second.Payloads))
	}
	checkCalls(t, callEdges(second.Payloads), []string{"main.py::go -> lib/base.py::Base.run"}, []string{"main.py::go -> lib/child.py::Child.run"})
}

// TestPython_StarCyclesAndClassCycles: modules that all re-export each
// other with *, and classes that inherit from themselves, resolve (or not)
// without walking every path of the cycle: without memoised lookups this
// fixture takes 13^12 steps per unknown name.
func TestPython_StarCyclesAndClassCycles(t *testing.T) {
	root := t.TempDir()
	const n = 14
	for i := 0; i < n; i++ {
		var b strings.Builder
		for j := 0; j < n; j++ {
			if j != i {
				fmt.Fprintf(&b, "from m%d import *\n", j)
			}
		}
		fmt.Fprintf(&b, "\n\ndef f%d():\n    nowhere()\n    f%d()\n    return Loop().spin()\n", i, (i+1)%n)
		writeFile(t, root, fmt.Sprintf("m%d.py", i), []byte(b.String()))
	}
	writeFile(t, root, "loop.py", []byte("class Loop(Loop):\n    pass\n\n\nclass A(B):\n    pass\n\n\nclass B(A):\n    def run(self):\n        self.spin()\n"))
	writeFile(t, root, "m0.py", []byte("from m1 import *\nfrom loop import Loop, A\n\n\ndef f0():\n    nowhere()\n    f1()\n    A().run()\n    return Loop().spin()\n"))
	done := make(chan indexResult, 1)
	go func() { done <- index(t, root, Options{}, nil) }()
	var res indexResult
	select {
	case res = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("indexing star-import and inheritance cycles did not finish in 60 s")
	}
	checkCalls(t, callEdges(res.Payloads),
		[]string{"m0.py::f0 -> m1.py::f1", "m3.py::f3 -> m4.py::f4", "m0.py::f0 -> loop.py::B.run"},
		[]string{"m0.py::f0 -> loop.py::Loop.spin"})
}

// TestPython_InferenceIncrementalBaseGains: a method added to a base class
// (or the base's file coming back) reaches the callers whose receivers
// went through a subclass in another file.
func TestPython_InferenceIncrementalBaseGains(t *testing.T) {
	root := t.TempDir()
	cache := t.TempDir()
	writeFile(t, root, "base.py", []byte("class Base:\n    def other(self):\n        pass\n"))
	writeFile(t, root, "child.py", []byte("from base import Base\n\n\nclass Child(Base):\n    pass\n"))
	writeFile(t, root, "use.py", []byte("from child import Child\n\n\ndef make():\n    c = Child()\n    c.own()\n"))
	prev := hashes(index(t, root, Options{CacheDir: cache}, nil).Payloads)

	writeFile(t, root, "base.py", []byte("class Base:\n    def other(self):\n        pass\n\n    def own(self):\n        pass\n"))
	second := index(t, root, Options{CacheDir: cache}, prev)
	checkCalls(t, callEdges(second.Payloads), []string{"use.py::make -> base.py::Base.own"}, nil)

	// The base's file goes away and comes back.
	for p, h := range hashes(second.Payloads) {
		prev[p] = h
	}
	if err := os.Rename(filepath.Join(root, "base.py"), filepath.Join(t.TempDir(), "base.py")); err != nil {
		t.Fatal(err)
	}
	third := index(t, root, Options{CacheDir: cache}, prev)
	for p, h := range hashes(third.Payloads) {
		prev[p] = h
	}
	for _, p := range third.Removed {
		delete(prev, p)
	}
	checkCalls(t, callEdges(third.Payloads), nil, []string{"use.py::make -> base.py::Base.own"})
	writeFile(t, root, "base.py", []byte("class Base:\n    def own(self):\n        pass\n"))
	fourth := index(t, root, Options{CacheDir: cache}, prev)
	checkCalls(t, callEdges(fourth.Payloads), []string{"use.py::make -> base.py::Base.own"}, nil)
}

// TestPython_DeepHierarchy: a method inherited 15 levels up is reached
// through self and super().
func TestPython_DeepHierarchy(t *testing.T) {
	root := t.TempDir()
	var b strings.Builder
	b.WriteString("class C0:\n    def m0(self):\n        pass\n\n\n")
	for i := 1; i < 15; i++ {
		fmt.Fprintf(&b, "class C%d(C%d):\n    pass\n\n\n", i, i-1)
	}
	b.WriteString("class D(C14):\n    def run(self):\n        self.m0()\n        super().m0()\n")
	writeFile(t, root, "chain.py", []byte(b.String()))
	res := index(t, root, Options{}, nil)
	checkCalls(t, callEdges(res.Payloads), []string{"chain.py::D.run -> chain.py::C0.m0"}, nil)
}
