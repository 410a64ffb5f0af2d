package envelope

import (
	"bufio"
	"os"
	"regexp"
	"strings"
	"testing"
)

func TestCatalogue_NoDuplicates(t *testing.T) {
	seen := map[Code]bool{}
	for _, s := range Catalogue() {
		if seen[s.Code] {
			t.Errorf("code %s appears twice in the catalogue", s.Code)
		}
		seen[s.Code] = true
	}
}

func TestCatalogue_Frozen(t *testing.T) {
	f, err := os.Open("testdata/codes.frozen")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	frozen := map[Code]Category{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Fields(line)
		if len(parts) != 2 {
			t.Fatalf("codes.frozen: malformed line %q", line)
		}
		if _, dup := frozen[Code(parts[0])]; dup {
			t.Errorf("codes.frozen: %s listed twice", parts[0])
		}
		frozen[Code(parts[0])] = Category(parts[1])
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for code, cat := range frozen {
		if !code.known() {
			t.Errorf("published code %s is gone from the catalogue (renamed or removed)", code)
			continue
		}
		if got := code.Category(); got != cat {
			t.Errorf("code %s: category %s, published as %s", code, got, cat)
		}
	}
	for _, s := range Catalogue() {
		if _, ok := frozen[s.Code]; !ok {
			t.Errorf("code %s is not in testdata/codes.frozen: append it there", s.Code)
		}
	}
}

func TestCatalogue_WellFormed(t *testing.T) {
	name := regexp.MustCompile(`^[A-Z][A-Z_]*[A-Z]$`)
	for _, s := range Catalogue() {
		if !name.MatchString(string(s.Code)) {
			t.Errorf("code %q is not UPPER_SNAKE", s.Code)
		}
		if !s.Category.Known() {
			t.Errorf("code %s has unknown category %q", s.Code, s.Category)
		}
	}
	// Every code of the catalogue in docs/errors.md must be present.
	for _, c := range []Code{"E_ARGUMENT", "E_PATH", "E_READ_ONLY", "STALE_READ", "STALE_REVISION",
		"STALE_CURSOR", "E_CURSOR", "E_REQUEST_REUSE", "E_REQUEST_ID", "E_CAS_REQUIRED",
		"COMMIT_UNKNOWN", "E_STORAGE", "E_INTEGRITY", "E_TIMEOUT", "E_INTERNAL", "E_UNKNOWN_TOOL",
		"E_CONTEXT_BUDGET", "E_NOT_FOUND", "E_AMBIGUOUS", "E_UNAVAILABLE", "E_MODULE_DISABLED", "E_CLAIMED"} {
		if !c.known() {
			t.Errorf("code %s missing", c)
		}
	}
}

func TestCategory_RetryableDefaults(t *testing.T) {
	// The categories table of docs/errors.md.
	want := map[Category]bool{
		"transient":       true,
		"validation":      false,
		"permission":      false,
		"not_found":       false,
		"unavailable":     true,
		"internal":        false,
		"module_disabled": false,
		"conflict":        false,
	}
	if len(Categories) != len(want) {
		t.Fatalf("got %d categories, want %d", len(Categories), len(want))
	}
	for _, c := range Categories {
		w, ok := want[c]
		if !ok {
			t.Errorf("unexpected category %q", c)
			continue
		}
		if got := c.Retryable(); got != w {
			t.Errorf("%s.Retryable() = %v, want %v", c, got, w)
		}
	}
}

func TestErrorf_TakesCategoryAndRetryableFromCatalogue(t *testing.T) {
	for _, s := range Catalogue() {
		e := Errorf(s.Code, "x %d", 1)
		if e.Category != s.Category || e.Retryable != s.Category.Retryable() || e.Message != "x 1" {
			t.Errorf("Errorf(%s) = %+v", s.Code, e)
		}
	}
	if got := Errorf("E_NO_SUCH", "m").Category; got != CategoryInternal {
		t.Errorf("unknown code category = %s, want internal", got)
	}
}

func TestError_WithRetryableAndDetailsCopy(t *testing.T) {
	base := Errorf(CodeArgument, "bad").WithDetails(map[string]any{"field": "limit"})
	over := base.withRetryable(true).WithDetails(map[string]any{"range": "1..500"})
	if base.Retryable || len(base.Details) != 1 {
		t.Errorf("base modified: %+v", base)
	}
	if !over.Retryable || over.Details["field"] != "limit" || over.Details["range"] != "1..500" {
		t.Errorf("override = %+v", over)
	}
	if got, want := over.Error(), "E_ARGUMENT: bad"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
