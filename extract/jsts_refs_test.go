package extract

import (
	"testing"

	"github.com/cos-dev/cos/graph"
)

func TestJSTS_References_TypesAndValues(t *testing.T) {
	p := indexJS(t, map[string]string{
		"src/model.ts": `
export class Conn {
  send(): void {}
  get open(): boolean { return true; }
}
export interface Port { close(): void; }
export enum Mode { A, B }
export function helper(x: number): number { return x; }
`,
		"src/use.ts": `
import { Conn, Port, Mode, helper } from "./model";
import * as m from "./model";
import { Widget } from "some-package";

export type Pair = [Conn, Port];

export class Client implements Port {
  conn: Conn;
  close(): void {}
  run(p: Port): m.Conn {
    const c = this.conn as Conn;
    const f = this.close;
    const o = c.open;
    [1, 2].map(helper);
    return c;
  }
}

export function pick<T extends Conn>(a: T, b: Array<Mode>): T {
  return a;
}

export function shadow(Conn: number, helper: string, w: Widget) {
  const Port = 1;
  return [Conn, helper, Port, Unknown, w];
}

export function wrap<Conn>(x: Conn): Conn { return x; }

export function inner() {
  interface Conn { x: number }
  const c: Conn = { x: 1 };
  return c;
}

export const handlers = { helper };
`,
	})
	checkFileEdges(t, p, "src/use.ts", graph.EdgeReferences,
		"src/use.ts -> src/model.ts::Conn",   // type Pair = [Conn, Port]
		"src/use.ts -> src/model.ts::Port",   // type Pair
		"src/use.ts -> src/model.ts::helper", // { helper }
		"src/use.ts::Client -> src/model.ts::Conn",
		"src/use.ts::Client.run -> src/model.ts::Port",       // p: Port
		"src/use.ts::Client.run -> src/model.ts::Conn",       // m.Conn, as Conn
		"src/use.ts::Client.run -> src/use.ts::Client.close", // this.close read
		"src/use.ts::Client.run -> src/model.ts::Conn.open",  // a getter read
		"src/use.ts::Client.run -> src/model.ts::helper",     // passed as a callback
		"src/use.ts::pick -> src/model.ts::Conn",             // T extends Conn
		"src/use.ts::pick -> src/model.ts::Mode",             // Array<Mode>
	)
	// Nothing from shadow (parameters, a local, an unresolved name, a
	// package's type), wrap (a type parameter spelling an imported class)
	// or inner (a local interface); T is no reference.
}

func TestJSTS_References_MergedDeclaration(t *testing.T) {
	p := indexJS(t, map[string]string{
		"src/core.ts": `
export interface Maker<T> { make(): T; }
export function Maker<T>(x: T): Maker<T> { return null as any; }
export interface Thing { id: string; }
export const Thing: Maker<Thing> = Maker({ id: "" });
`,
		"src/use.ts": `
import * as core from "./core";
import { Maker } from "./core";
export function build(m: core.Maker<core.Thing>): core.Thing {
  return core.Thing.make();
}
export function pass(m: Maker<number>) {
  return [1].map(Maker);
}
`,
	})
	checkFileEdges(t, p, "src/use.ts", graph.EdgeReferences,
		"src/use.ts::build -> src/core.ts::Maker", // the interface, not the function
		"src/use.ts::build -> src/core.ts::Thing", // the interface, not the variable
		"src/use.ts::pass -> src/core.ts::Maker",  // the interface (m: Maker) and the function (passed)
	)
	var passTargets []string
	for _, e := range p["src/use.ts"].Edges {
		if e.Type == graph.EdgeReferences && e.Source == "code:function:src/use.ts::pass" {
			passTargets = append(passTargets, e.Target)
		}
	}
	if len(passTargets) != 2 {
		t.Errorf("pass references %v, want the interface and the function Maker", passTargets)
	}
	checkFileEdges(t, p, "src/core.ts", graph.EdgeReferences,
		"src/core.ts::Maker -> src/core.ts::Maker", // function Maker's return type: the interface
		"src/core.ts -> src/core.ts::Maker",        // const Thing: Maker<Thing>
		"src/core.ts -> src/core.ts::Thing",
	)
	fn, iface := "code:function:src/core.ts::Maker", "code:class:src/core.ts::Maker"
	found := false
	for _, e := range p["src/core.ts"].Edges {
		if e.Type == graph.EdgeReferences && e.Source == fn {
			found = e.Target == iface
		}
	}
	if !found {
		t.Errorf("function Maker's return type does not reference the interface Maker")
	}
}

func TestJSTS_References_CommonJS(t *testing.T) {
	p := indexJS(t, map[string]string{
		"lib/layer.js": `
function Layer(path) { this.path = path; }
Layer.prototype.match = function match(p) { return p === this.path; };
function helper() {}
function copy() { return Layer.prototype.match; }
function pick(kind) {
  var fn;
  fn = helper;
  return fn;
}
module.exports = Layer;
exports.helper = helper;
`,
	})
	checkFileEdges(t, p, "lib/layer.js", graph.EdgeReferences,
		"lib/layer.js -> lib/layer.js::Layer",              // module.exports = Layer
		"lib/layer.js -> lib/layer.js::helper",             // exports.helper = helper
		"lib/layer.js::Layer.match -> lib/layer.js::Layer", // Layer.prototype.match = …
		"lib/layer.js::pick -> lib/layer.js::helper",       // fn = helper
		"lib/layer.js::copy -> lib/layer.js::Layer",
		"lib/layer.js::copy -> lib/layer.js::Layer.match", // Layer.prototype.match read
	)
}
