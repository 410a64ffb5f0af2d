package extract

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// jstsCorpus writes n TypeScript modules that use what the receiver
// inference reads — imports and re-exports, interfaces, classes with typed
// fields and parameter properties, inherited and super calls, callbacks
// typed by the callee, arrays, generics — and returns their root.
func jstsCorpus(b *testing.B, n int) string {
	b.Helper()
	root := b.TempDir()
	var index strings.Builder
	for i := 0; i < n; i++ {
		var s strings.Builder
		prev := (i + n - 1) % n
		fmt.Fprintf(&s, "import { Svc%d, make%d } from './m%d';\n", prev, prev, prev)
		fmt.Fprintf(&s, "export interface Port%d<T extends Base%d = Base%d> {\n  send(v: T): void;\n  each: (f: (x: T) => void) => void;\n  items: T[];\n}\n", i, i, i)
		fmt.Fprintf(&s, "export class Base%d {\n  run(): void {}\n  stop(): void { this.run(); }\n}\n", i)
		fmt.Fprintf(&s, "export class Svc%d extends Base%d implements Port%d {\n", i, i, i)
		fmt.Fprintf(&s, "  items: Base%d[] = [];\n  private peer: Svc%d | undefined;\n", i, prev)
		fmt.Fprintf(&s, "  constructor(private port: Port%d, readonly n: number) { super(); this.peer = make%d(); }\n", i, prev)
		s.WriteString("  send(v: any): void {\n    this.port.send(v);\n    this.peer!.stop();\n    super.stop();\n")
		s.WriteString("    for (const it of this.items) { it.run(); }\n    this.items.forEach((it) => it.stop());\n")
		s.WriteString("    this.port.each((x) => { x.run(); const y = x; y.stop(); });\n  }\n")
		s.WriteString("  each(f: (x: any) => void): void {\n    [1, 2, 3].map((k) => f(k));\n  }\n}\n")
		fmt.Fprintf(&s, "export function make%d(): Svc%d {\n  const s = new Svc%d(null as any, 1);\n  s.send(1);\n  return s;\n}\n", i, i, i)
		for j := 0; j < 20; j++ {
			fmt.Fprintf(&s, "export function f%d_%d(a: Svc%d, b: Port%d): number {\n", i, j, i, i)
			fmt.Fprintf(&s, "  const local = make%d();\n  local.send(a.n);\n  b.items[0].run();\n  return [a, local].filter((z) => z.n > %d).length;\n}\n", i, j)
		}
		writeFile(b, root, fmt.Sprintf("src/m%d.ts", i), []byte(s.String()))
		fmt.Fprintf(&index, "export * from './m%d';\n", i)
	}
	writeFile(b, root, "src/index.ts", []byte(index.String()))
	return root
}

// BenchmarkRun_JSTS extracts a generated TypeScript tree of 200 modules
// from scratch (parse, receiver facts, resolution), reporting files/s.
func BenchmarkRun_JSTS(b *testing.B) {
	const files = 200
	root := jstsCorpus(b, files)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		runCounting(b, root, Options{}, nil)
	}
	b.ReportMetric(float64(files*b.N)/time.Since(start).Seconds(), "files/s")
}
