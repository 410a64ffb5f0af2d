package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// tableSpec says how one table of results is laid out in Markdown.
type tableSpec struct {
	name  string
	title string
	// rows are shown in this order with these labels; nil shows every row
	// of the table in the order measured, labelled by its key.
	rows []rowSpec
	// cols are the result columns shown, in order; nil shows every column
	// of the table in the order measured.
	cols []string
	// colLabels are column headers where they differ from the column name.
	colLabels map[string]string
	// ratios are extra columns comparing each row with something.
	ratios []ratioSpec
}

// rowSpec is one row: its result key, its label, and the column that
// stands for it in ratios when it differs from cols[0] (the fdatasync row
// measures syncs/s, not events/s).
type rowSpec struct {
	key, label string
	mainCol    string
}

// ratioSpec is a ratio column: the row's main figure divided by the
// reference row's (refRow) or, with num and den, one column by another in
// the same row. onlyRows, when set, limits it to rows whose key contains
// one of them.
type ratioSpec struct {
	header   string
	refRow   string
	num, den string
	onlyRows []string
}

// colError holds a row's failure ("benchmark failed"), shown in its first
// column when that has no figure.
const colError = "error"

// specs are the tables bench.sh prints, in order.
var specs = []tableSpec{
	{
		name: tableEventLog, title: "Event log: durable appends (go test -bench ./eventlog/boltlog)",
		rows: []rowSpec{
			{key: "Floor_Fdatasync", label: "disk: fdatasync of a 4 KiB rewrite", mainCol: "syncs/s"},
			{key: "Floor_BoltUpdate", label: "raw bbolt, one `Update` per event"},
			{key: "Append_Single", label: "cos log, 1 appender"},
			{key: "Append_Concurrent/appenders=1", label: "cos log, 1 appender goroutine (group commit on)"},
			{key: "Append_Concurrent/appenders=64", label: "cos log, 64 appender goroutines"},
			{key: "Append_Processes", label: "cos log, 4 processes × 16 appenders"},
			{key: rowProcessesOutside, label: "cos log, 4 processes × 16 appenders (boltlog's child processes timed by benchmcp)"},
		},
		cols:      []string{"events/s", "p50-µs", "req/tx"},
		colLabels: map[string]string{"p50-µs": "p50 latency", "req/tx": "requests per transaction"},
		ratios: []ratioSpec{
			{header: "× fdatasync rate", refRow: "Floor_Fdatasync"},
			{header: "× raw bbolt", refRow: "Floor_BoltUpdate"},
		},
	},
	{
		name: tableRoundTrip, title: "MCP round trips over stdio, `cos serve --nats off`, synthetic graph (per call)",
		cols: []string{"p50", "p95"},
		ratios: []ratioSpec{
			{header: "p50 ÷ exact-uid resolve", refRow: "resolve, exact uid", onlyRows: []string{"resolve", "context", "impact", "export"}},
		},
	},
	{
		name: tableIndex, title: "`cos index` of the Go source tree, `$(go env GOROOT)/src` (--quick: `src/net/http`)",
		rows:      []rowSpec{{key: "full", label: "full (fresh state folder)"}, {key: "no change", label: "again, nothing changed"}},
		cols:      []string{colWall, colCPU, colPeakRSS, "extract + append", "project + search index", "files seen", "files extracted", "nodes", "state folder"},
		colLabels: map[string]string{colCPU: "CPU (user + sys)", colPeakRSS: "peak RSS"},
		ratios: []ratioSpec{
			{header: "÷ full", refRow: "full"},
		},
	},
	{
		name: tableKernel, title: "`cos index` of the Linux kernel (Debian's `linux-source` tarball, unpacked and git-initialised), then a process started cold on its state folder",
		cols:      []string{colWall, colCPU, colPeakRSS, "extract + append", "project + search index", "files extracted", "nodes", "state folder"},
		colLabels: map[string]string{colCPU: "CPU (user + sys)", colPeakRSS: "peak RSS"},
		ratios: []ratioSpec{
			{header: "÷ full", refRow: rowKernelFull, onlyRows: []string{"again", "after"}},
		},
	},
	{
		name: tableCold, title: "Cold start: a new process on an indexed state folder, until its first answer of `cos_graph_resolve`",
		cols:      []string{colWall, colCPU, colPeakRSS},
		colLabels: map[string]string{colCPU: "CPU (user + sys)", colPeakRSS: "peak RSS"},
	},
	{
		name: tableReads, title: "MCP round trips on a real repository: `cos serve --nats off` over stdio on an indexed tree, " +
			"each read once per uid of a fixed-seed uniform sample of its function and method nodes (per call)",
		cols:      []string{"p50", "p95", "p99", colServerCPU, colAnswer, colSampled, colOf},
		colLabels: map[string]string{colServerCPU: "server CPU per call", colAnswer: "answer size, p50", colSampled: "uids sampled", colOf: "of function + method nodes"},
	},
	{
		name: tablePropagation, title: "Propagation between two processes on one state folder",
		cols: []string{"p50", "p95", "reads until visible"},
	},
	{
		name:  tableToolsBench,
		title: "Propagation measured inside Go (`go test -bench Propagation ./tools`): from the commit in server A to server B having it",
		rows: []rowSpec{
			{key: "Propagation/nats_auto", label: "bus on: B applies it from the NATS message, no read on B"},
			{key: "Propagation/nats_off", label: "bus off: a read on B right after A's ack sees it"},
		},
		cols: []string{"p50-ms", "p99-ms", "after-ack-p50-ms", "after-ack-p99-ms", "append-p50-ms"},
		colLabels: map[string]string{
			"p50-ms": "from commit, p50", "p99-ms": "from commit, p99", "after-ack-p50-ms": "from A's ack, p50",
			"after-ack-p99-ms": "from A's ack, p99", "append-p50-ms": "A's append, p50",
		},
	},
	{
		name: tableCompare, title: "Side by side with the reference MCP memory server (one writer, same workload over stdio)",
		cols: []string{colCos, colMemory},
		ratios: []ratioSpec{
			{header: "memory server ÷ cos", num: colMemory, den: colCos},
		},
	},
	{
		name: tableConcurrent, title: "The same writes from 4 server processes on one store at once",
		cols: []string{colCos, colMemory},
		ratios: []ratioSpec{
			{header: "memory server ÷ cos", num: colMemory, den: colCos, onlyRows: []string{"wall time"}},
		},
	},
}

// renderTables writes every table of specs that has results, as Markdown.
// Each numeric cell is "median unit (min–max)" over the samples.
func renderTables(w io.Writer, results []Result) error {
	byKey := map[string]Result{}
	order := map[string][]string{}    // table → row keys in first-seen order
	colOrder := map[string][]string{} // table → col names in first-seen order
	seen := map[string]bool{}
	for _, r := range results {
		k := r.Table + "\x00" + r.Row + "\x00" + r.Col
		if old, ok := byKey[k]; ok { // the same figure from two files: pool the samples
			old.Samples = append(old.Samples, r.Samples...)
			if r.Text != "" && !strings.Contains(old.Text, r.Text) {
				old.Text = strings.TrimPrefix(old.Text+" / "+r.Text, " / ")
			}
			byKey[k] = old
		} else {
			byKey[k] = r
		}
		if ck := r.Table + "\x00\x00" + r.Col; !seen[ck] && r.Row != rowWindow {
			seen[ck] = true
			colOrder[r.Table] = append(colOrder[r.Table], r.Col)
		}
		if rk := r.Table + "\x00" + r.Row; !seen[rk] && r.Row != rowWindow {
			seen[rk] = true
			order[r.Table] = append(order[r.Table], r.Row)
		}
	}
	get := func(table, row, col string) (Result, bool) {
		r, ok := byKey[table+"\x00"+row+"\x00"+col]
		return r, ok
	}
	var b strings.Builder
	for _, s := range specs {
		rows := s.rows
		if rows == nil {
			for _, k := range order[s.name] {
				rows = append(rows, rowSpec{key: k, label: k})
			}
		}
		cols := s.cols
		if cols == nil {
			cols = colOrder[s.name]
		}
		s.cols = cols
		var present []rowSpec
		for _, r := range rows {
			if hasRow(byKey, s.name, r.key) {
				present = append(present, r)
			}
		}
		if len(present) == 0 {
			continue
		}
		fmt.Fprintf(&b, "**%s**\n\n", s.title)
		if w, ok := get(s.name, rowWindow, colWindow); ok && w.Text != "" {
			fmt.Fprintf(&b, "_Measured on %s._\n\n", strings.ReplaceAll(w.Text, " / ", "; on "))
		}
		b.WriteString("| |")
		for _, c := range s.cols {
			if l, ok := s.colLabels[c]; ok {
				c = l
			}
			fmt.Fprintf(&b, " %s |", c)
		}
		for _, rs := range s.ratios {
			fmt.Fprintf(&b, " %s |", rs.header)
		}
		b.WriteString("\n|---|")
		for range len(s.cols) + len(s.ratios) {
			b.WriteString("---|")
		}
		b.WriteString("\n")
		for _, r := range present {
			fmt.Fprintf(&b, "| %s |", r.label)
			failure, failed := get(s.name, r.key, colError)
			for _, c := range s.cols {
				res, ok := get(s.name, r.key, c)
				if c == s.cols[0] && r.mainCol != "" {
					res, ok = get(s.name, r.key, r.mainCol)
				}
				if c == s.cols[0] && !ok && failed { // say why the row is empty
					res, ok = failure, true
				}
				fmt.Fprintf(&b, " %s |", cell(res, ok))
			}
			for _, rs := range s.ratios {
				fmt.Fprintf(&b, " %s |", ratioCell(s, r, rs, get))
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func hasRow(byKey map[string]Result, table, row string) bool {
	prefix := table + "\x00" + row + "\x00"
	for k := range byKey {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

// ratioCell computes one ratio cell; "—" when a side is missing, textual,
// or zero.
func ratioCell(s tableSpec, r rowSpec, rs ratioSpec, get func(table, row, col string) (Result, bool)) string {
	if len(rs.onlyRows) > 0 {
		match := false
		for _, o := range rs.onlyRows {
			match = match || strings.Contains(r.key, o)
		}
		if !match {
			return ""
		}
	}
	mainCol := func(row rowSpec) string {
		if row.mainCol != "" {
			return row.mainCol
		}
		return s.cols[0]
	}
	var num, den Result
	var ok1, ok2 bool
	if rs.refRow != "" {
		ref := rowSpec{key: rs.refRow}
		for _, x := range s.rows {
			if x.key == rs.refRow {
				ref = x
			}
		}
		if ref.key == r.key {
			return "1×"
		}
		num, ok1 = get(s.name, r.key, mainCol(r))
		den, ok2 = get(s.name, ref.key, mainCol(ref))
	} else {
		num, ok1 = get(s.name, r.key, rs.num)
		den, ok2 = get(s.name, r.key, rs.den)
	}
	if !ok1 || !ok2 || len(num.Samples) == 0 || len(den.Samples) == 0 || den.Median() == 0 {
		return "—"
	}
	return formatNum(num.Median()/den.Median()) + "×"
}

// cell renders one result: its text, or "median unit (min–max)".
func cell(r Result, ok bool) string {
	if !ok {
		return ""
	}
	if len(r.Samples) == 0 {
		return r.Text
	}
	s := formatNum(r.Median())
	if r.Unit != "" {
		s += " " + r.Unit
	}
	if lo, hi := r.Min(), r.Max(); len(r.Samples) > 1 && formatNum(lo) != formatNum(hi) {
		s += " (" + formatNum(lo) + "–" + formatNum(hi) + ")"
	}
	return s
}

// formatNum prints about three significant figures, thousands grouped:
// 12345.6 → "12,346", 45.67 → "45.7", 1.234 → "1.23", 0.01234 → "0.0123".
func formatNum(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	a := math.Abs(v)
	switch {
	case a >= 100 || v == math.Trunc(v):
		return groupThousands(strconv.FormatFloat(math.Round(v), 'f', 0, 64))
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	default:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
}

func groupThousands(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
