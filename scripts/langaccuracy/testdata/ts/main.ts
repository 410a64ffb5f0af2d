import * as shapes from "./shapes";
import { Square, double } from "./shapes";
import { identity, twice } from "./util";

export function run(): number {
  const s = new Square(2);
  const t = new shapes.Square(3);
  const n = identity<number>(s.area());
  const described = t.describe();
  return twice(double, n) + shapes.scale(n, described.length);
}

function helper(): Square {
  function inner(): number {
    return run();
  }
  return new Square(inner());
}

helper();
