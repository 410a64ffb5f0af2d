package hub

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// redoclyPath is the Redocly CLI the lint test runs: $COS_REDOCLY, else
// the one installed beside the MCP SDK; "" when neither is there.
func redoclyPath() string {
	if p := os.Getenv("COS_REDOCLY"); p != "" {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	p := filepath.Join(home, ".cache", "cos-ci-npm", "node_modules", ".bin", "redocly")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// TestOpenAPI_RedoclyLint: the document, with and without a token, is
// clean under `redocly lint` with the recommended rules
// (testdata/redocly.yaml): no error and no warning. Without Redocly the
// test is skipped, under CI=true it fails.
func TestOpenAPI_RedoclyLint(t *testing.T) {
	bin := redoclyPath()
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("redocly not found: set COS_REDOCLY or install @redocly/cli beside the MCP SDK")
		}
		t.Skip("redocly not found (COS_REDOCLY)")
	}
	e := newAPIEnv(t, false)
	dir := t.TempDir()
	for _, auth := range []bool{false, true} {
		a := NewAPI(e.r, APIOptions{Version: "test", Auth: auth})
		doc, err := a.openAPI()
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(dir, "openapi-open.json")
		if auth {
			name = filepath.Join(dir, "openapi-token.json")
		}
		if err := os.WriteFile(name, doc, 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "lint", "--config", "testdata/redocly.yaml", "--format", "json", name)
		cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true", "NO_COLOR=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		var report struct {
			Totals struct {
				Errors   int `json:"errors"`
				Warnings int `json:"warnings"`
			} `json:"totals"`
			Problems []struct {
				RuleID   string `json:"ruleId"`
				Severity string `json:"severity"`
				Message  string `json:"message"`
				Location []struct {
					Pointer string `json:"pointer"`
				} `json:"location"`
			} `json:"problems"`
		}
		if jerr := json.Unmarshal(out, &report); jerr != nil {
			t.Fatalf("redocly lint (token %v): %v, output not its JSON report (%v):\n%s\n%s", auth, err, jerr, out, stderr.Bytes())
		}
		for _, p := range report.Problems {
			at := ""
			if len(p.Location) > 0 {
				at = p.Location[0].Pointer
			}
			t.Errorf("redocly lint (token %v): %s %s at %s: %s", auth, p.Severity, p.RuleID, at, p.Message)
		}
		if err != nil || report.Totals.Errors+report.Totals.Warnings > 0 {
			t.Fatalf("redocly lint (token %v): %v, %d errors, %d warnings", auth, err, report.Totals.Errors, report.Totals.Warnings)
		}
	}
}
