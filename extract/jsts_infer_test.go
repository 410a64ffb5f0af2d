package extract

import (
	"sort"
	"strings"
	"testing"

	"github.com/cos-dev/cos/extract/lang"

	"github.com/cos-dev/cos/graph"
)

// indexJS writes files into a fresh tree and extracts it.
func indexJS(t *testing.T, files map[string]string) map[string]graph.FileExtracted {
	t.Helper()
	root := t.TempDir()
	for p, src := range files {
		writeFile(t, root, p, []byte(src))
	}
	res := index(t, root, Options{CacheDir: t.TempDir()}, nil)
	if d := dangling(res.Payloads); len(d) > 0 {
		t.Errorf("dangling edges: %v", d)
	}
	return res.Payloads
}

// shortUID cuts the code:…: prefixes of a uid for reading.
func shortUID(uid string) string {
	for _, p := range []string{"code:function:", "code:class:", "code:file:", "code:"} {
		if s, ok := strings.CutPrefix(uid, p); ok {
			return s
		}
	}
	return uid
}

// checkFileEdges asserts that the edges of type typ emitted by the
// payload of file are exactly want ("source -> target", short uids).
func checkFileEdges(t *testing.T, payloads map[string]graph.FileExtracted, file, typ string, want ...string) {
	t.Helper()
	pl, ok := payloads[file]
	if !ok {
		t.Fatalf("no payload for %s", file)
	}
	got := map[string]bool{}
	for _, e := range pl.Edges {
		if e.Type == typ && e.Extractor != lang.ExtractorFolder {
			got[shortUID(e.Source)+" -> "+shortUID(e.Target)] = true
		}
	}
	wantSet := map[string]bool{}
	for _, w := range want {
		wantSet[w] = true
		if !got[w] {
			t.Errorf("%s: missing %s edge %s", file, typ, w)
		}
	}
	for g := range got {
		if !wantSet[g] {
			t.Errorf("%s: unexpected %s edge %s", file, typ, g)
		}
	}
	if t.Failed() {
		var all []string
		for e := range got {
			all = append(all, e)
		}
		sort.Strings(all)
		t.Logf("%s edges of %s:\n  %s", typ, file, strings.Join(all, "\n  "))
	}
}

// nodeOf returns the node uid of payload file, failing when absent.
func nodeOf(t *testing.T, payloads map[string]graph.FileExtracted, file, uid string) graph.Node {
	t.Helper()
	for _, n := range payloads[file].Nodes {
		if n.UID == uid {
			return n
		}
	}
	t.Fatalf("%s: no node %s", file, uid)
	return graph.Node{}
}

func TestJSTS_Instances(t *testing.T) {
	p := indexJS(t, map[string]string{
		"src/conn.ts": `
export class Conn {
  send(x: number): void {}
  close(): void {}
}
export class Pool {
  get(): Conn { return new Conn(); }
}
`,
		"src/use.ts": `
import { Conn, Pool } from "./conn";

class Client {
  private a: Conn;
  b: Conn | undefined;
  c = new Conn();
  d;
  constructor(private e: Conn, readonly pool: Pool) {
    this.d = new Conn();
  }
  run(): void {
    this.a.send(1);
    this.b.send(2);
    this.c.send(3);
    this.d.send(4);
    this.e.send(5);
    this.pool.get().close();
  }
}

export function typed(x: Conn, y?: Conn | null) {
  x.send(1);
  y.close();
}

export function local() {
  const x = new Conn();
  x.send(1);
  const p: Pool = make();
  p.get().send(2);
  const q = p;
  q.get().close();
}

export function unknown(x: any, u: Conn | Pool, m: Map<string, Conn>) {
  x.send(1);
  u.close();
  m.get("a").send(2);
}
`,
	})
	checkFileEdges(t, p, "src/use.ts", graph.EdgeCalls,
		"src/use.ts::Client.run -> src/conn.ts::Conn.send",
		"src/use.ts::Client.run -> src/conn.ts::Pool.get",
		"src/use.ts::Client.run -> src/conn.ts::Conn.close",
		"src/use.ts::Client -> src/conn.ts::Conn", // c = new Conn()
		"src/use.ts::Client.constructor -> src/conn.ts::Conn",
		"src/use.ts::typed -> src/conn.ts::Conn.send",
		"src/use.ts::typed -> src/conn.ts::Conn.close",
		"src/use.ts::local -> src/conn.ts::Conn",
		"src/use.ts::local -> src/conn.ts::Conn.send",
		"src/use.ts::local -> src/conn.ts::Pool.get",
		"src/use.ts::local -> src/conn.ts::Conn.close",
		"src/use.ts::local -> external:make",
		"src/use.ts::unknown -> external:*.send",
		"src/use.ts::unknown -> external:*.close",
		"src/use.ts::unknown -> external:*.get",
	)
}

func TestJSTS_ArrayElements(t *testing.T) {
	p := indexJS(t, map[string]string{
		"a.ts": `
export class Conn { a(): void {} b(): void {} c(): void {} d(): void {} e(): void {} f(): void {} g(): void {} h(): void {} k(): void {} }
export class Registry {
  private conns: Conn[] = [];
  readonly spare: Array<Conn> | null = null;
  constructor(private extra: readonly Conn[]) {}
  all() {
    for (const c of this.conns) { c.a(); }
    this.spare!.forEach((c) => c.b());
    this.extra[0].c();
    const { conns } = this;
    conns.pop()!.d();
  }
  find(): Conn { return this.conns[0]; }
}
export const pool: Conn[] = [];
export function f(xs: Conn[], r: Registry) {
  for (const x of xs) { x.e(); }
  xs.map((x) => x.f());
  pool.shift().g();
  r.find().h();
  const ys = xs;
  ys[1].k();
  for (const key in xs) { key.a(); }
}
`,
	})
	checkFileEdges(t, p, "a.ts", graph.EdgeCalls,
		"a.ts::Registry.all -> a.ts::Conn.a",
		"a.ts::Registry.all -> a.ts::Conn.b",
		"a.ts::Registry.all -> a.ts::Conn.c",
		"a.ts::Registry.all -> a.ts::Conn.d",
		"a.ts::Registry.all -> external:*.forEach", // the array's own methods stay unknown
		"a.ts::Registry.all -> external:*.pop",
		"a.ts::f -> a.ts::Conn.e",
		"a.ts::f -> a.ts::Conn.f",
		"a.ts::f -> a.ts::Conn.g",
		"a.ts::f -> a.ts::Registry.find", // a find of the code's own, not the array's
		"a.ts::f -> a.ts::Conn.h",
		"a.ts::f -> a.ts::Conn.k",
		"a.ts::f -> external:*.map",
		"a.ts::f -> external:*.shift",
		"a.ts::f -> external:*.a", // for … in: the keys
	)
}

func TestJSTS_InheritedAndSuper(t *testing.T) {
	p := indexJS(t, map[string]string{
		"lib/base.ts": `
export class Base {
  hello(): void {}
  over(): void {}
}
`,
		"lib/index.ts": `export * from "./base";
`,
		"app/mid.ts": `
import { Base } from "../lib";
export class Mid extends Base {
  over(): void { super.over(); }
}
`,
		"app/leaf.ts": `
import * as m from "./mid";
class Leaf extends m.Mid {
  run() {
    this.hello();
    this.over();
    super.over();
    super.hello();
  }
  static make() { return new Leaf(); }
}
export function f() {
  Leaf.make().hello();
}
`,
	})
	checkFileEdges(t, p, "app/mid.ts", graph.EdgeCalls, "app/mid.ts::Mid.over -> lib/base.ts::Base.over")
	checkFileEdges(t, p, "app/mid.ts", graph.EdgeInheritsFrom, "app/mid.ts::Mid -> lib/base.ts::Base")
	checkFileEdges(t, p, "app/leaf.ts", graph.EdgeCalls,
		"app/leaf.ts::Leaf.run -> lib/base.ts::Base.hello",
		"app/leaf.ts::Leaf.run -> app/mid.ts::Mid.over",
		"app/leaf.ts::Leaf.make -> app/leaf.ts::Leaf",
		"app/leaf.ts::f -> app/leaf.ts::Leaf.make",
		"app/leaf.ts::f -> lib/base.ts::Base.hello",
	)
	checkFileEdges(t, p, "app/leaf.ts", graph.EdgeInheritsFrom, "app/leaf.ts::Leaf -> app/mid.ts::Mid")
}

func TestJSTS_ReExports(t *testing.T) {
	p := indexJS(t, map[string]string{
		"core/impl.ts": `
export function _coercedBigint() {}
export function plain() {}
export function renamed() {}
export class Thing { go() {} }
`,
		"core/via.ts": `
import { plain } from "./impl";
export { plain };
`,
		"core/index.ts": `
export * from "./via";
export { _coercedBigint } from "./impl";
export { renamed as alias } from "./impl";
export * as ns from "./impl";
`,
		"use.ts": `
import * as core from "./core/index";
import { alias, plain } from "./core";
export function f() {
  core._coercedBigint();
  core.plain();
  alias();
  plain();
  core.ns.renamed();
  new core.ns.Thing().go();
  core.missing();
}
`,
	})
	checkFileEdges(t, p, "use.ts", graph.EdgeCalls,
		"use.ts::f -> core/impl.ts::_coercedBigint",
		"use.ts::f -> core/impl.ts::plain",
		"use.ts::f -> core/impl.ts::renamed",
		"use.ts::f -> core/impl.ts::Thing",
		"use.ts::f -> core/impl.ts::Thing.go",
		"use.ts::f -> external:*.missing",
	)
}

func TestJSTS_Interfaces(t *testing.T) {
	p := indexJS(t, map[string]string{
		"types.ts": `
export interface Unsub {
  unsubscribe(): void;
}
export interface Observer<T> extends Unsub {
  next(v: T): void;
  error: (e: any) => void;
  closed?: boolean;
  child: Unsub;
}
export abstract class Scheduler implements Unsub {
  abstract schedule(): void;
  unsubscribe(): void { this.schedule(); }
}
export type Provider = { now(): number };
`,
		"use.ts": `
import { Observer, Scheduler, Provider } from "./types";
export const provider: Provider = { now() { return 1; } };
export function f(o: Observer<number>, s: Scheduler) {
  o.next(1);
  o.error(2);
  o.unsubscribe();
  o.child.unsubscribe();
  s.schedule();
  provider.now();
}
`,
	})
	for _, uid := range []string{"Unsub.unsubscribe", "Observer.next", "Observer.error", "Scheduler.schedule"} {
		n := nodeOf(t, p, "types.ts", "code:function:types.ts::"+uid)
		if n.Kind != graph.KindMethod || n.Label != uid {
			t.Errorf("node %s: kind %s label %q, want method %q", uid, n.Kind, n.Label, uid)
		}
	}
	for _, absent := range []string{"Observer.closed", "Observer.child"} {
		for _, n := range p["types.ts"].Nodes {
			if n.UID == "code:function:types.ts::"+absent {
				t.Errorf("property %s has a method node", absent)
			}
		}
	}
	checkFileEdges(t, p, "types.ts", graph.EdgeContains,
		"types.ts -> types.ts::Unsub", "types.ts -> types.ts::Observer", "types.ts -> types.ts::Scheduler", "types.ts -> types.ts::Provider",
		"types.ts::Unsub -> types.ts::Unsub.unsubscribe",
		"types.ts::Observer -> types.ts::Observer.next", "types.ts::Observer -> types.ts::Observer.error",
		"types.ts::Scheduler -> types.ts::Scheduler.schedule", "types.ts::Scheduler -> types.ts::Scheduler.unsubscribe",
		"types.ts::Provider -> types.ts::Provider.now",
	)
	checkFileEdges(t, p, "types.ts", graph.EdgeImplements, "types.ts::Scheduler -> types.ts::Unsub")
	checkFileEdges(t, p, "types.ts", graph.EdgeInheritsFrom, "types.ts::Observer -> types.ts::Unsub")
	checkFileEdges(t, p, "types.ts", graph.EdgeCalls, "types.ts::Scheduler.unsubscribe -> types.ts::Scheduler.schedule")
	checkFileEdges(t, p, "use.ts", graph.EdgeCalls,
		"use.ts::f -> types.ts::Observer.next",
		"use.ts::f -> types.ts::Observer.error",
		"use.ts::f -> types.ts::Unsub.unsubscribe",
		"use.ts::f -> types.ts::Scheduler.schedule",
		"use.ts::f -> types.ts::Provider.now", // the declared type wins over the literal
	)
}

func TestJSTS_CommonJS(t *testing.T) {
	p := indexJS(t, map[string]string{
		"lib/layer.js": `
module.exports = Layer;
function Layer(path) {
  if (!(this instanceof Layer)) return new Layer(path);
  this.init();
}
Layer.prototype.init = function init() { this.match(); };
Layer.prototype.match = function () { helper(); };
function helper() {}
`,
		"lib/utils.js": `
exports.flatten = function (xs) { return exports.normalize(xs); };
module.exports.normalize = function normalize(x) { return x; };
exports.keep = keep;
function keep() {}
`,
		"lib/app.js": `
var Layer = require('./layer');
var utils = require('./utils');
var { flatten } = require('./utils');
var app = exports = module.exports = {};
app.init = function init() { this.handle(); utils.flatten(); flatten(); utils.keep(); };
app.handle = function handle() { var l = new Layer('/'); l.match(); Layer('/x'); };
`,
		"lib/obj.js": `
module.exports = { a: function () { b(); }, b() {}, c: () => 1 };
function b() {}
const o = { m() { this.n(); }, n: function () {} };
o.m();
`,
		"lib/fields.ts": `
export class K {
  handler = () => { this.other(); };
  other() {}
  run() { this.handler(); }
}
`,
		"lib/use.js": `
const app = require('./app');
const anon = require('./anon');
app.handle();
anon();
`,
		"lib/anon.js": `module.exports = function () { require('./obj').b(); };
`,
	})
	checkFileEdges(t, p, "lib/layer.js", graph.EdgeCalls,
		"lib/layer.js::Layer -> lib/layer.js::Layer",
		"lib/layer.js::Layer -> lib/layer.js::Layer.init",
		"lib/layer.js::Layer.init -> lib/layer.js::Layer.match",
		"lib/layer.js::Layer.match -> lib/layer.js::helper",
	)
	checkFileEdges(t, p, "lib/layer.js", graph.EdgeContains,
		"lib/layer.js -> lib/layer.js::Layer", "lib/layer.js -> lib/layer.js::helper",
		"lib/layer.js::Layer -> lib/layer.js::Layer.init", "lib/layer.js::Layer -> lib/layer.js::Layer.match",
	)
	checkFileEdges(t, p, "lib/utils.js", graph.EdgeCalls, "lib/utils.js::flatten -> lib/utils.js::normalize")
	checkFileEdges(t, p, "lib/app.js", graph.EdgeCalls,
		"lib/app.js::app.init -> lib/app.js::app.handle",
		"lib/app.js::app.init -> lib/utils.js::flatten",
		"lib/app.js::app.init -> lib/utils.js::keep",
		"lib/app.js::app.handle -> lib/layer.js::Layer",
		"lib/app.js::app.handle -> lib/layer.js::Layer.match",
	)
	checkFileEdges(t, p, "lib/obj.js", graph.EdgeCalls,
		"lib/obj.js::a -> lib/obj.js::b",
		"lib/obj.js::o.m -> lib/obj.js::o.n",
		"lib/obj.js -> lib/obj.js::o.m",
	)
	checkFileEdges(t, p, "lib/fields.ts", graph.EdgeCalls,
		"lib/fields.ts::K.handler -> lib/fields.ts::K.other",
		"lib/fields.ts::K.run -> lib/fields.ts::K.handler",
	)
	checkFileEdges(t, p, "lib/use.js", graph.EdgeCalls,
		"lib/use.js -> lib/app.js::app.handle",
		"lib/use.js -> lib/anon.js::default",
	)
	checkFileEdges(t, p, "lib/anon.js", graph.EdgeCalls, "lib/anon.js::default -> lib/obj.js::b")
	for uid, kind := range map[string]string{
		"code:function:lib/obj.js::a": graph.KindFunction, "code:function:lib/obj.js::c": graph.KindFunction,
		"code:function:lib/obj.js::o.m": graph.KindMethod, "code:function:lib/app.js::app.init": graph.KindMethod,
	} {
		file := strings.TrimPrefix(uid, "code:function:")
		file = file[:strings.Index(file, "::")]
		if n := nodeOf(t, p, file, uid); n.Kind != kind {
			t.Errorf("%s: kind %s, want %s", uid, n.Kind, kind)
		}
	}
}

func TestJSTS_Shadowing(t *testing.T) {
	p := indexJS(t, map[string]string{
		"a.ts": `
export function helper() {}
export function run() {}
class Conn { send() {} }

export function param(helper: () => void) {
  helper();
}
export function local() {
  const helper = () => 1;
  helper();
  if (true) {
    run();
  }
}
export function nested() {
  inner();
  function inner() {}
  function run() {}
  run();
}
export function caught() {
  try {} catch (helper) { helper(); }
  for (const run of []) { run(); }
}
export function typed(Conn: any) {
  const c = new Conn();
  c.send();
}
export function ok() {
  helper();
  const c = new Conn();
  c.send();
}
`,
	})
	checkFileEdges(t, p, "a.ts", graph.EdgeCalls,
		"a.ts::local -> a.ts::run",
		"a.ts::ok -> a.ts::helper",
		"a.ts::ok -> a.ts::Conn",
		"a.ts::ok -> a.ts::Conn.send",
		"a.ts::typed -> external:*.send",
	)
}

func TestJSTS_CallbackParameters(t *testing.T) {
	p := indexJS(t, map[string]string{
		"sub.ts": `
export class Subscriber<T> {
  next(v: T): void {}
  complete(): void {}
}
export class Observable<T> {
  constructor(subscribe?: (this: Observable<T>, subscriber: Subscriber<T>) => void) {}
  subscribe(): void {}
}
export function operate<T>(init: (source: Observable<T>, subscriber: Subscriber<T>) => void): void {}
export function pick(f: (a: Subscriber<number>) => void): void;
export function pick(f: (a: Observable<number>) => void): void;
export function pick(f: any): void {}
`,
		"use.ts": `
import { operate, Observable, pick } from "./sub";
export function op() {
  return operate((source, subscriber) => {
    source.subscribe();
    subscriber.next(1);
  });
}
export const EMPTY = new Observable<never>((subscriber) => subscriber.complete());
export function ambiguous() {
  pick((a) => a.next(1));
}
`,
	})
	checkFileEdges(t, p, "use.ts", graph.EdgeCalls,
		"use.ts::op -> sub.ts::operate",
		"use.ts::op -> sub.ts::Observable.subscribe",
		"use.ts::op -> sub.ts::Subscriber.next",
		"use.ts -> sub.ts::Observable",
		"use.ts -> sub.ts::Subscriber.complete",
		"use.ts::ambiguous -> sub.ts::pick",
		"use.ts::ambiguous -> external:*.next", // overloads disagree
	)
}

func TestJSTS_OverloadRange(t *testing.T) {
	p := indexJS(t, map[string]string{
		"o.ts": `export function f(a: string): string;
export function f(a: number): number;
export function f(a: any): any {
  return g(a);
}
function g(a: any) { return a; }
class C {
  m(a: string): void;
  m(a: any): void {
    g(a);
  }
}
`,
	})
	if n := nodeOf(t, p, "o.ts", "code:function:o.ts::f"); n.Line != 3 || n.EndLine != 5 {
		t.Errorf("f spans %d-%d, want the implementation 3-5", n.Line, n.EndLine)
	}
	if n := nodeOf(t, p, "o.ts", "code:function:o.ts::C.m"); n.Line != 9 || n.EndLine != 11 {
		t.Errorf("C.m spans %d-%d, want the implementation 9-11", n.Line, n.EndLine)
	}
	checkFileEdges(t, p, "o.ts", graph.EdgeCalls, "o.ts::f -> o.ts::g", "o.ts::C.m -> o.ts::g")
}

func TestJSTS_MergedDeclarations(t *testing.T) {
	p := indexJS(t, map[string]string{
		"core.ts": `
export interface $constructor<T> {
  init(inst: T, def: unknown): void;
}
export function $constructor<T>(name: string): $constructor<T> {
  return null as any;
}
export interface AjaxCreation {
  get(url: string): void;
}
export const ajax: AjaxCreation = make();
export interface ZodType { check(): void }
export const ZodType: $constructor<ZodType> = $constructor("ZodType");
`,
		"use.ts": `
import * as core from "./core";
import { ajax, ZodType } from "./core";
export function f() {
  core.ZodType.init(1, 2);
  core.$constructor("x");
  ajax("x");
  ajax.get("y");
  new ZodType();
}
`,
	})
	checkFileEdges(t, p, "use.ts", graph.EdgeCalls,
		"use.ts::f -> core.ts::$constructor.init", // the variable's type: the interface merged with the function
		"use.ts::f -> core.ts::$constructor",      // the function
		"use.ts::f -> external:ajax",              // a variable of an interface type: no declaration to call
		"use.ts::f -> core.ts::AjaxCreation.get",
		"use.ts::f -> core.ts::ZodType", // new of a variable merged with an interface: the interface
	)
}

func TestJSTS_ThisAndTypeParameters(t *testing.T) {
	p := indexJS(t, map[string]string{
		"s.ts": `
export interface Action<T> {
  schedule(state?: T): void;
}
export interface Scheduler {
  schedule<T>(work: (this: Action<T>, state: T) => void): void;
}
export class Base { run(): void {} }
export function f(s: Scheduler) {
  s.schedule(function () {
    this.schedule();
  });
  s.schedule(() => {
    this.schedule();
  });
}
export function g(this: Action<number>) {
  this.schedule();
}
export function h<T extends Base, U>(a: T, b: U) {
  a.run();
  b.run();
}
export function pick<T extends Base>(x: T): T { return x; }
export function same<T extends Base>(x: T) { return x; }
export function use() {
  pick(new Base()).run();
  same(new Base()).run();
}
export interface Def<B extends Base = Base, C extends Base = Base> { out: B; keep: C[] }
export class Box<T extends Base> { item: T; }
export function defaults(d: Def, b: Box<Base>) {
  d.out.run();
  d.keep[0].run();
  b.item.run();
}
export function k(s: Scheduler, flag: boolean) {
  s.schedule(flag ? function () { this.schedule(); } : function () {});
}
`,
	})
	checkFileEdges(t, p, "s.ts", graph.EdgeCalls,
		"s.ts::f -> s.ts::Scheduler.schedule",
		"s.ts::f -> s.ts::Action.schedule", // the callback's this parameter
		"s.ts::f -> external:*.schedule",   // this in an arrow at module level: unknown
		"s.ts::g -> s.ts::Action.schedule",
		"s.ts::h -> s.ts::Base.run",
		"s.ts::h -> external:*.run",
		"s.ts::use -> s.ts::pick", // T is the caller's: its constraint is no answer outside
		"s.ts::use -> s.ts::same",
		"s.ts::use -> s.ts::Base",
		"s.ts::use -> external:*.run",
		"s.ts::defaults -> s.ts::Base.run", // a type parameter's default, seen from outside
		"s.ts::defaults -> external:*.run", // no default: unknown outside

		"s.ts::k -> s.ts::Scheduler.schedule",
		"s.ts::k -> s.ts::Action.schedule",
	)
}

// TestJSTS_IncrementalEqualsFull changes what receivers resolve to —
// a base class method moves, a re-export is retargeted, an attribute's
// class changes — and checks that the incremental graph equals a full
// extraction of the final tree (dependents were re-resolved).
func TestJSTS_IncrementalEqualsFull(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"lib/base.ts":  "export class Base {\n  hello(): void {}\n}\n",
		"lib/other.ts": "export class Other {\n  hello(): void {}\n  bye(): void {}\n}\n",
		"lib/index.ts": "export * from './base';\nexport { Other as Alt } from './other';\n",
		"app/use.ts": `import { Base, Alt } from '../lib';
class Leaf extends Base {
  conn: Alt;
  run() { this.hello(); this.conn.bye(); }
}
export function f(l: Leaf) { l.run(); l.hello(); }
`,
	}
	for p, s := range files {
		writeFile(t, root, p, []byte(s))
	}
	opts := Options{CacheDir: t.TempDir()}
	g := simGraph{}
	first := index(t, root, opts, nil)
	checkFileEdges(t, first.Payloads, "app/use.ts", graph.EdgeCalls,
		"app/use.ts::Leaf.run -> lib/base.ts::Base.hello",
		"app/use.ts::Leaf.run -> lib/other.ts::Other.bye",
		"app/use.ts::f -> app/use.ts::Leaf.run",
		"app/use.ts::f -> lib/base.ts::Base.hello",
	)
	g.apply(first)
	writeFile(t, root, "lib/base.ts", []byte("export class Root {\n  hello(): void {}\n}\nexport class Base extends Root {}\n"))
	writeFile(t, root, "lib/index.ts", []byte("export * from './base';\nexport { Base as Alt } from './base';\n"))
	g.apply(index(t, root, opts, hashes(g)))
	full := index(t, root, Options{}, nil)
	if got, want := render(g), render(full.Payloads); got != want {
		t.Errorf("incremental graph differs from a full extraction:\n%s", diffLines(want, got))
	}
	checkFileEdges(t, full.Payloads, "app/use.ts", graph.EdgeCalls,
		"app/use.ts::Leaf.run -> lib/base.ts::Root.hello",
		"app/use.ts::Leaf.run -> external:*.bye",
		"app/use.ts::f -> app/use.ts::Leaf.run",
		"app/use.ts::f -> lib/base.ts::Root.hello",
	)
}
