package envelope

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzTrim feeds arbitrary JSON objects and budgets to OK and checks every
// invariant of checkSuccess plus idempotence.
func FuzzTrim(f *testing.F) {
	f.Add([]byte(`{"results":["a","b","c"],"scope":"high"}`), uint16(60))
	f.Add([]byte(`{"results":[{"x":"\"\\\n😀"},{"x":"\u0001"}],"neighbours":[1,2,3,4,5,6,7,8,9,10]}`), uint16(120))
	f.Add([]byte(`{"edges_by_type":{"calls":[1,2,3,4,5,6,7,8],"imports":["\\\\\\"],"n":1},"text":"`+strings.Repeat(`\"\n\\😀日`, 80)+`"}`), uint16(300))
	f.Add([]byte(`{"nodes":[{"uid":"a"},{"uid":"b"}],"edges":[{"source":"a","target":"b"}]}`), uint16(10))
	f.Add([]byte(`{"summary":"`+strings.Repeat("日本語", 300)+`","node":"`+strings.Repeat("n", 400)+`"}`), uint16(500))
	f.Add([]byte(`{"rows":[],"dead":[null,true,false,-1.5e300],"meta":{"truncated":true}}`), uint16(40))
	f.Fuzz(func(t *testing.T, raw []byte, budget uint16) {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var body map[string]any
		if err := dec.Decode(&body); err != nil || body == nil {
			return
		}
		opts := Options{BudgetChars: 1 + int(budget)}
		if budget%7 == 0 {
			opts.SubgraphBudgetChars = 1 + int(budget)
		}
		if budget%11 == 0 {
			opts.NoBudget = true
		}
		env := OK(body, Meta{Layer: LayerGraph}, opts)
		if !env.OK() {
			t.Fatalf("OK failed on an object: %s", env.JSON())
		}
		data := checkSuccess(t, env, body, opts)
		checkLazySame(t, env, body, Meta{Layer: LayerGraph}, opts)
		checkIdempotent(t, data, Meta{Layer: LayerGraph}, opts)
	})
}
