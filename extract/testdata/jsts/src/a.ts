import { B } from "./b";
import * as path from "node:path";
import React from "react";

export function foo(x: number): number {
  return bar(x) + 1;
}

function bar(x: number): number {
  return x;
}

export default class A extends B {
  run(): void {
    this.helper();
    foo(1);
    path.join("a", "b");
  }
  helper(): void {}
}

export interface Shape {
  area(): number;
}

enum Color {
  Red,
}
