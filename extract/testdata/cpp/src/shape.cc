#include "shape.h"

namespace geo {

Shape::Shape() {}

Shape::~Shape() {}

Square::Square(double side) : Shape(), side_(side) {}

double Square::Area() const { return side_ * side_; }

double Square::Both() const { return Shape::Twice() + Area(); }

Square* Square::Grow() {
  side_ = Twice();
  return this;
}

}  // namespace geo
