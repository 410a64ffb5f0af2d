package com.acme.shapes;

/** Shape is the interface calls go through. */
public interface Shape {
  double area();

  String name();
}
