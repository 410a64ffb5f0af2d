package cli

import (
	"errors"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cos-dev/cos/hub"
)

// anyHubLine matches the address line of cos hub, whatever its host.
var anyHubLine = regexp.MustCompile(`Hub: http://(\S+)/`)

// TestHub_WildcardAddressPrintsAnAddressABrowserOpens: cos hub --http
// 0.0.0.0:0 listens on every interface; the address it prints, records in
// hub.json and a second cos hub names is one a browser on this machine
// opens (127.0.0.1:PORT), not the wildcard "[::]:PORT".
func TestHub_WildcardAddressPrintsAnAddressABrowserOpens(t *testing.T) {
	dir := t.TempDir()
	first := startWeb(t, anyHubLine, "--state-dir", dir, "hub", "--nats", "off", "--http", "0.0.0.0:0", "--token", "trial-token")
	if !hubLine.MatchString(first.stderr.String()) {
		t.Fatalf("cos hub --http 0.0.0.0:0 printed %q; want Hub: http://127.0.0.1:PORT/", first.url)
	}
	if status, ctype, _ := get(t, first.url); status != 200 || !strings.HasPrefix(ctype, "text/html") {
		t.Fatalf("GET %s: %d %s", first.url, status, ctype)
	}
	info, err := hub.ReadInfo(dir)
	if err != nil || info.URL() != first.url {
		t.Fatalf("hub.json %+v (%v): URL %q, want %s", info, err, info.URL(), first.url)
	}
	out, err := cosProcess(t, "--state-dir", dir, "hub", "--nats", "off").CombinedOutput()
	var ee *exec.ExitError
	want := "a Hub already serves this state folder at " + first.url + " (pid " + strconv.Itoa(first.cmd.Process.Pid) + ")"
	if !errors.As(err, &ee) || !strings.Contains(string(out), want) {
		t.Fatalf("second cos hub: %v\n%s\nwant %q", err, out, want)
	}
}
