#include "registry.h"

namespace geo {

Registry::Registry() : last_(nullptr), square_(new Square(1.0)) {}

void Registry::Add(Shape* s) {
  last_ = s;
  this->Total();
}

double Registry::Total() {
  double t = last_->Area();
  t += square_->Grow()->Area();
  Square sq(2.0);
  Point origin{};
  t += sq.Twice();
  auto* p = new Square(3.0);
  t += p->Both();
  return t;
}

double Sum(Registry& r) { return r.Total(); }

}  // namespace geo
