#pragma once

namespace geo {

class Shape {
 public:
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
