export function identity<T>(x: T): T {
  return x;
}

export function twice(f: (n: number) => number, n: number): number {
  return f(f(n));
}
