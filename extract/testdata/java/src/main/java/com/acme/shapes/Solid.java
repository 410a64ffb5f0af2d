package com.acme.shapes;

public interface Solid extends Shape {
  double volume();
}
