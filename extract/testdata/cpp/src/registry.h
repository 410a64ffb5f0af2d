#pragma once

#include "shape.h"

namespace geo {

class Registry {
 public:
  Registry();
  void Add(Shape* s);
  double Total();

 private:
  Shape* last_;
  Square* square_;
};

double Sum(Registry& r);

}  // namespace geo
