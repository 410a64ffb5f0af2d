package eventlog_test

import (
	"testing"

	"github.com/cos-dev/cos/eventlog"
)

func TestParseTypePattern(t *testing.T) {
	for s, want := range map[string]struct {
		ok             bool
		match, nomatch string
	}{
		"task.updated":    {true, "task.updated", "task.updated_x"},
		"task.*":          {true, "task.claimed", "taskx.claimed"},
		" graph.file_* ":  {false, "", ""},
		"graph.*":         {true, "graph.file_extracted", "task.updated"},
		"a.b.*":           {true, "a.b.c", "a.bc"},
		"task":            {false, "", ""},
		"task*":           {false, "", ""},
		"*":               {false, "", ""},
		"task.*.x":        {false, "", ""},
		"Task.Updated":    {false, "", ""},
		"":                {false, "", ""},
		" task.updated\t": {true, "task.updated", "task.created"},
	} {
		p, ok := eventlog.ParseTypePattern(s)
		if ok != want.ok {
			t.Errorf("ParseTypePattern(%q) ok = %v, want %v", s, ok, want.ok)
			continue
		}
		if ok && (!p.Match(want.match) || p.Match(want.nomatch)) {
			t.Errorf("%q: Match(%q) = %v, Match(%q) = %v", s, want.match, p.Match(want.match), want.nomatch, p.Match(want.nomatch))
		}
	}
}
