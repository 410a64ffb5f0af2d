package com.acme.geo;

public class Point {
  public double norm() {
    return Math.sqrt(2);
  }

  public Point copy() {
    return new Point();
  }

  public static Point origin() {
    return new Point();
  }
}
