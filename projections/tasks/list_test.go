package tasks

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cos-dev/cos/internal/testutil"
)

// boardOf creates n tasks; every third is labelled "x".
func boardOf(t testing.TB, n int) (*testutil.FakeLog, *Board) {
	l := new(testutil.FakeLog)
	b := NewBoard()
	for k := 1; k <= n; k++ {
		var labels []string
		if k%3 == 0 {
			labels = []string{"x"}
		}
		apply(t, b, create(t, l, Created{Title: fmt.Sprintf("task %d", k), Labels: labels}))
	}
	return l, b
}

func TestBoard_List_PagesEachTaskOnce(t *testing.T) {
	l, b := boardOf(t, 500)
	for _, tc := range []struct {
		filter Filter
		limit  int
		want   int
	}{
		{Filter{}, 7, 500},
		{Filter{}, MaxLimit, 500},
		{Filter{Label: "x"}, 13, 166},
		{Filter{Status: StatusTodo, Label: "x"}, 1, 166},
		{Filter{Assignee: "nobody"}, 10, 0},
	} {
		t.Run(fmt.Sprintf("%+v/%d", tc.filter, tc.limit), func(t *testing.T) {
			seen := map[string]int{}
			cursor, pages := "", 0
			prev := ""
			for {
				page, next, err := b.List(tc.filter, cursor, tc.limit, l.Seq)
				if err != nil {
					t.Fatal(err)
				}
				pages++
				if page.Total != tc.want || len(page.Tasks) > tc.limit {
					t.Fatalf("total %d (want %d), page of %d (limit %d)", page.Total, tc.want, len(page.Tasks), tc.limit)
				}
				for _, task := range page.Tasks {
					seen[task.ID]++
					if prev != "" && compareIDs(prev, task.ID) >= 0 {
						t.Fatalf("%s after %s: not in id order", task.ID, prev)
					}
					prev = task.ID
				}
				if next == "" {
					break
				}
				cursor = next
			}
			if len(seen) != tc.want {
				t.Errorf("saw %d distinct tasks, want %d", len(seen), tc.want)
			}
			for id, n := range seen {
				if n != 1 {
					t.Errorf("%s seen %d times", id, n)
				}
			}
			if wantPages := max(1, (tc.want+tc.limit-1)/tc.limit); pages != wantPages {
				t.Errorf("%d pages, want %d", pages, wantPages)
			}
		})
	}
}

func TestBoard_List_Limit(t *testing.T) {
	_, b := boardOf(t, 3)
	for _, limit := range []int{-1, 0, MaxLimit + 1} {
		_, _, err := b.List(Filter{}, "", limit, 3)
		fe := onlyField(t, err)
		if fe.Field != "limit" || !strings.Contains(fe.Legal, "1 to 200") {
			t.Errorf("limit %d: %+v", limit, fe)
		}
	}
	_, _, err := b.List(Filter{Status: "open"}, "", 10, 3)
	if fe := onlyField(t, err); fe.Field != "status" || !strings.Contains(fe.Hint, `"todo"`) {
		t.Errorf("bad status: %+v", fe)
	}
}

func TestBoard_List_MalformedCursor(t *testing.T) {
	l, b := boardOf(t, 10)
	_, good, err := b.List(Filter{}, "", 3, l.Seq)
	if err != nil || good == "" {
		t.Fatal(err)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(good)
	reencode := func(f func([]byte)) string {
		c := append([]byte(nil), raw...)
		f(c)
		return base64.RawURLEncoding.EncodeToString(c)
	}
	cases := map[string]string{
		"garbage":        "!!not-a-cursor!!",
		"std base64":     base64.StdEncoding.EncodeToString(raw),
		"truncated":      good[:len(good)-4],
		"extended":       good + "AAAA",
		"flipped byte":   reencode(func(c []byte) { c[20] ^= 0xff }),
		"bad checksum":   reencode(func(c []byte) { c[28] ^= 1 }),
		"wrong version":  reencode(func(c []byte) { c[0] = 2 }),
		"json":           base64.RawURLEncoding.EncodeToString([]byte(`{"seq":1}`)),
		"very long":      strings.Repeat("A", 500),
		"whitespace pad": " " + good,
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, _, err := b.List(Filter{}, c, 3, l.Seq)
			var ce *CursorError
			if !errors.Is(err, ErrCursor) || !errors.As(err, &ce) {
				t.Errorf("err = %v, want ErrCursor", err)
			}
		})
	}
}

func TestBoard_List_StaleCursor(t *testing.T) {
	cases := []struct {
		name   string
		filter Filter
		change func(t *testing.T, l *testutil.FakeLog, b *Board)
		stale  bool
	}{
		{"task already listed changed", Filter{}, func(t *testing.T, l *testutil.FakeLog, b *Board) {
			apply(t, b, l.AppendValue(t, "task:TASK-002", TypeUpdated, Updated{Patch: Patch{Title: ptr("renamed")}}))
		}, true},
		{"task not yet listed changed", Filter{}, func(t *testing.T, l *testutil.FakeLog, b *Board) {
			apply(t, b, l.AppendValue(t, "task:TASK-009", TypeClaimed, Claimed{Assignee: "a"}))
		}, true},
		{"task created in the set", Filter{Label: "x"}, func(t *testing.T, l *testutil.FakeLog, b *Board) {
			apply(t, b, create(t, l, Created{Title: "new", Labels: []string{"x"}}))
		}, true},
		{"task left the set", Filter{Label: "x"}, func(t *testing.T, l *testutil.FakeLog, b *Board) {
			apply(t, b, l.AppendValue(t, "task:TASK-009", TypeUpdated, Updated{Patch: Patch{Labels: &[]string{"y"}}}))
		}, true},
		{"task left and changed again", Filter{Label: "x"}, func(t *testing.T, l *testutil.FakeLog, b *Board) {
			apply(t, b, l.AppendValue(t, "task:TASK-009", TypeUpdated, Updated{Patch: Patch{Labels: &[]string{"y"}}}))
			apply(t, b, l.AppendValue(t, "task:TASK-009", TypeUpdated, Updated{Patch: Patch{Status: ptr(StatusDone)}}))
		}, true},
		{"task outside the set changed", Filter{Label: "x"}, func(t *testing.T, l *testutil.FakeLog, b *Board) {
			apply(t, b, l.AppendValue(t, "task:TASK-004", TypeUpdated, Updated{Patch: Patch{Title: ptr("renamed")}}))
		}, false},
		{"task created outside the set", Filter{Label: "x"}, func(t *testing.T, l *testutil.FakeLog, b *Board) {
			apply(t, b, create(t, l, Created{Title: "new"}))
		}, false},
		{"other streams advanced the log", Filter{}, func(t *testing.T, l *testutil.FakeLog, b *Board) {
			l.AppendValue(t, "metrics", "metric.recorded", map[string]any{"name": "x", "value": 1})
		}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l, b := boardOf(t, 12)
			_, next, err := b.List(tc.filter, "", 2, l.Seq)
			if err != nil || next == "" {
				t.Fatalf("first page: %q, %v", next, err)
			}
			tc.change(t, l, b)
			_, _, err = b.List(tc.filter, next, 2, l.Seq)
			var se *StaleCursorError
			if got := errors.Is(err, ErrStaleCursor) && errors.As(err, &se); got != tc.stale {
				t.Errorf("err = %v, want stale %v", err, tc.stale)
			}
			if !tc.stale && err != nil {
				t.Errorf("err = %v", err)
			}
		})
	}
}

func TestBoard_List_CursorBoundToFilterAndPosition(t *testing.T) {
	l, b := boardOf(t, 12)
	_, next, err := b.List(Filter{Label: "x"}, "", 2, l.Seq)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.List(Filter{}, next, 2, l.Seq); !errors.Is(err, ErrStaleCursor) {
		t.Errorf("other filter: err = %v, want ErrStaleCursor", err)
	}
	if _, _, err := b.List(Filter{Label: "x"}, next, 2, l.Seq-1); !errors.Is(err, ErrStaleCursor) {
		t.Errorf("earlier view: err = %v, want ErrStaleCursor", err)
	}
	page, _, err := b.List(Filter{Label: "x"}, next, 2, l.Seq+5)
	if err != nil || page.LogSeq != l.Seq || page.Tasks[0].ID != "TASK-009" {
		t.Errorf("later view without changes: %+v, %v", page, err)
	}
}

func FuzzDecodeCursor(f *testing.F) {
	f.Add(cursor{seq: 42, after: 7}.encode())
	f.Add("")
	f.Add("AAAA")
	f.Add(strings.Repeat("_", 39))
	f.Fuzz(func(t *testing.T, s string) {
		c, err := decodeCursor(s)
		if err != nil {
			if !errors.Is(err, ErrCursor) {
				t.Fatalf("error %v is not ErrCursor", err)
			}
			return
		}
		if again := c.encode(); again != s {
			t.Fatalf("decode→encode %q → %q: not canonical", s, again)
		}
	})
}

// compareIDs orders task ids by number.
func compareIDs(a, b string) int {
	na, _ := idNumber(a)
	nb, _ := idNumber(b)
	switch {
	case na < nb:
		return -1
	case na > nb:
		return 1
	}
	return strings.Compare(a, b)
}
