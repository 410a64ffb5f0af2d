package a;

public class Circle implements Shape {
  private final double r;

  public Circle(double r) {
    this.r = r;
  }

  public Circle() {
    this(1.0);
  }

  @Override
  public double area() {
    return Math.PI * square(r);
  }

  static double square(double x) {
    return x * x;
  }

  double scale(double f) {
    return f * area();
  }

  double scale(int f) {
    return scale((double) f);
  }
}
