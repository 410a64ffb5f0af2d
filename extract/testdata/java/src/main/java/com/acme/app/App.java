package com.acme.app;

import static com.acme.geo.Point.origin;

import com.acme.geo.Point;
import com.acme.shapes.*;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

public class App {
  @interface Marker {}

  private Shape shape;

  void run(Shape s, List<String> names) {
    Circle c = new Circle(origin());
    c.area();
    s.area();
    var p = Point.origin();
    p.copy().norm();
    Supplier<Point> sup = Point::new;
    Function<Point, Double> f = Point::norm;
    names.forEach(n -> c.name());
    shape.name();
    Runnable r =
        new Runnable() {
          public void run() {
            helper();
            tick();
          }

          void tick() {}
        };
    unknown.call();
  }

  void helper() {}
}
