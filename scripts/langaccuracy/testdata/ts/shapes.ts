export interface Shape {
  area(): number;
}

export abstract class Base implements Shape {
  abstract area(): number;
  describe(): string {
    return "area " + this.area();
  }
}

export class Square extends Base {
  constructor(private side: number) {
    super();
  }
  area(): number {
    return scale(this.side, this.side);
  }
  describe(): string {
    return super.describe() + "!";
  }
}

export function scale(a: number, b: number): number {
  return a * b;
}

export const double = (n: number): number => scale(n, 2);
