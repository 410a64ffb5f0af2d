package com.acme.shapes;

import com.acme.geo.Point;

public class Circle extends Base implements Solid {
  private final Point center;

  public Circle(Point p) {
    super();
    this.center = p.copy();
  }

  public double area() {
    return center.norm();
  }

  public double volume() {
    return 0;
  }

  @Override
  public String name() {
    return super.name() + this.area();
  }

  class Inner {
    double go() {
      return area();
    }
  }

  enum Kind {
    ROUND,
    FLAT;

    Kind flip() {
      return FLAT;
    }
  }

  record Pair(Point a, Point b) {
    double len() {
      return a.norm() + b().norm();
    }
  }
}
