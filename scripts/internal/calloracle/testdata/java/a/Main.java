package a;

import java.util.ArrayList;
import java.util.List;

public class Main {
  private final Circle unit = new Circle();

  public static void main(String[] args) {
    List<Shape> shapes = new ArrayList<>();
    Circle c = new Circle(2);
    shapes.add(c);
    for (Shape s : shapes) {
      System.out.println(s.describe());
    }
    new Main().run(c);
    Runnable r = () -> Circle.square(3);
    r.run();
  }

  void run(Circle c) {
    c.scale(2);
    unit.area();
    helper();
  }

  private void helper() {}
}
