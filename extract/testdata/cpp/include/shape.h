#pragma once

namespace geo {

struct Point {
  double x, y;
};

class Shape {
 public:
  Shape();
  virtual ~Shape();
  virtual double Area() const = 0;
  double Twice() const { return 2 * Area(); }
};

class Square : public Shape {
 public:
  explicit Square(double side);
  double Area() const override;
  double Both() const;
  Square* Grow();

 private:
  double side_;
};

}  // namespace geo
