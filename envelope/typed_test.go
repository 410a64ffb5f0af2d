package envelope

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

type typedNode struct {
	UID      string         `json:"uid"`
	Kind     string         `json:"kind"`
	Path     string         `json:"path,omitempty"`
	Line     int            `json:"line,omitempty"`
	Score    float64        `json:"score,omitempty"`
	Ratio    float32        `json:"ratio"`
	Metadata map[string]any `json:"metadata,omitempty"`
	hidden   string
}

type typedEdge struct {
	Source string `json:"source"`
	Target string `json:"target"`
	Type   string `json:"type"`
	Line   uint16 `json:"line,omitempty"`
}

// typedNeighbour embeds an unexported struct, as the graph tools' answers
// do: its fields are promoted, and reflection cannot hand them out.
type typedNeighbour struct {
	typedNode
	Depth int `json:"depth"`
}

type typedInner struct {
	Note string `json:"note"`
}

type typedAnswer struct {
	Node        typedNode              `json:"node"`
	Neighbours  []typedNeighbour       `json:"neighbours"`
	References  []*typedEdge           `json:"references,omitempty"`
	EdgesByType map[string][]typedEdge `json:"edges_by_type"`
	Degree      map[string]int         `json:"degree"`
	Count       int64                  `json:"count"`
	Big         uint64                 `json:"big"`
	Number      json.Number            `json:"number"`
	Opt         *typedInner            `json:"opt,omitempty"`
	*typedInner
	Any      any      `json:"any"`
	Names    []string `json:"names"`
	Flags    [2]bool  `json:"flags"`
	Skipped  string   `json:"-"`
	Untagged string
}

func typedAnswerOf(r *rand.Rand, n int) typedAnswer {
	word := func() string {
		switch r.IntN(6) {
		case 0:
			return strings.Repeat("日本", 20+r.IntN(200))
		case 1:
			return "bad\xff\xfe" + strings.Repeat("x", r.IntN(300))
		case 2:
			return "<&>\u2028\"\\\n\t"
		}
		return fmt.Sprintf("w%d", r.IntN(1000))
	}
	node := func(i int) typedNode {
		nd := typedNode{UID: fmt.Sprintf("code:function:p/f%d.go::F%d", i%7, i), Kind: "function", Line: i % 3,
			Ratio: float32(i) / 7, hidden: "x"}
		if i%2 == 0 {
			nd.Path = fmt.Sprintf("p/f%d.go", i%7)
		}
		if i%3 == 0 {
			nd.Score = float64(i) * 1e-8
		}
		if i%4 == 0 {
			nd.Metadata = map[string]any{"doc": word(), "n": float64(i) / 3, "k\xffey": i, "list": []any{json.Number("12345678901234567890"), true, nil},
				"deep": map[string]any{"x": []any{word()}}, "i32": int32(i)}
		}
		return nd
	}
	a := typedAnswer{Node: node(0), EdgesByType: map[string][]typedEdge{}, Degree: map[string]int{"in": n, "out": 2 * n},
		Count: -5, Big: math.MaxUint64, Number: "", Any: map[string]any{"t": time.Duration(5), "f": float32(0.1)},
		Untagged: word(), Skipped: "never"}
	if n%2 == 1 {
		a.Opt = &typedInner{Note: word()}
		a.Number = "1.5e-7"
		a.typedInner = &typedInner{Note: "embedded"}
	}
	for i := range n {
		a.Neighbours = append(a.Neighbours, typedNeighbour{node(i + 1), i%3 + 1})
		e := typedEdge{Source: node(i).UID, Target: node(i + 1).UID, Type: []string{"calls", "references"}[i%2], Line: uint16(i)}
		a.EdgesByType[e.Type] = append(a.EdgesByType[e.Type], e)
		if i%3 != 0 {
			a.References = append(a.References, &e)
		}
		a.Names = append(a.Names, word())
	}
	return a
}

// TestOK_TypedPathSameAsRoundTrip checks that a typed body, converted
// without encoding/json's round trip, yields the bytes the round trip
// yields, at several budgets.
func TestOK_TypedPathSameAsRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for _, n := range []int{0, 1, 2, 7, 40, 300} {
		a := typedAnswerOf(r, n)
		if _, ok := typedBody(a); !ok {
			t.Fatalf("n=%d: the typed answer takes the round trip", n)
		}
		graph := map[string]any{"nodes": a.Neighbours, "edges": a.EdgesByType["calls"], "root": &a.Node}
		for _, body := range []any{a, &a, graph} {
			raw, err := json.Marshal(body)
			if err != nil {
				t.Fatal(err)
			}
			for _, opts := range []Options{{}, {BudgetChars: 600}, {BudgetChars: 3000, SubgraphBudgetChars: 3000}, {NoBudget: true}, {BudgetChars: 20000}} {
				meta := Meta{Layer: LayerGraph, LogSeq: 3}
				typed := OK(body, meta, opts)
				slow := OK(json.RawMessage(raw), meta, opts)
				if !bytes.Equal(typed.JSON(), slow.JSON()) {
					t.Fatalf("n=%d %T opts %+v: typed path differs from round trip:\ntyped %s\nslow  %s", n, body, opts, typed.JSON(), slow.JSON())
				}
				for _, v := range typed.Data() {
					if _, ok := v.(*lazyList); ok {
						t.Errorf("a lazy list escaped into Envelope.Map()")
					}
				}
			}
		}
	}
}

// TestOK_TypedPathFallsBack checks that what the conversion does not
// mirror still answers as the round trip does: the same bytes, or the same
// failure.
func TestOK_TypedPathFallsBack(t *testing.T) {
	type clash struct {
		typedInner
		Note string `json:"note"`
	}
	type stringOpt struct {
		N int `json:"n,string"`
	}
	type tree struct {
		Kids []tree `json:"kids"`
	}
	cyc := map[string]any{}
	cyc["self"] = cyc
	bodies := map[string]any{
		"marshaler":  map[string]any{"at": time.Unix(5, 0).UTC(), "results": []json.RawMessage{json.RawMessage(`{"a":1}`)}},
		"bytes":      map[string]any{"b": []byte("hi")},
		"int keys":   map[string]any{"m": map[int]string{2: "b", 1: "a"}},
		"clash":      clash{typedInner{"inner"}, "outer"},
		"string opt": stringOpt{7},
		"recursive":  tree{Kids: []tree{{}, {Kids: []tree{{}}}}},
		"nan":        map[string]any{"results": []float64{1, math.NaN()}},
		"bad number": struct{ N json.Number }{"0x10"},
		"cycle":      cyc,
		"chan":       struct{ C chan int }{make(chan int)},
		"not object": []string{"a"},
		"nil ptr":    (*typedInner)(nil),
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			if _, ok := typedBody(body); ok && name != "nil ptr" {
				t.Errorf("converted without the round trip")
			}
			got := OK(body, Meta{}, Options{BudgetChars: 500})
			raw, err := json.Marshal(body)
			if err != nil {
				if got.OK() {
					t.Fatalf("encoding/json fails (%v), OK answered %s", err, got.JSON())
				}
				return
			}
			want := OK(json.RawMessage(raw), Meta{}, Options{BudgetChars: 500})
			if !bytes.Equal(got.JSON(), want.JSON()) {
				t.Errorf("differs from the round trip:\ngot  %s\nwant %s", got.JSON(), want.JSON())
			}
		})
	}
}
