#include "registry.h"

int main() {
  geo::Registry reg;
  reg.Add(nullptr);
  return static_cast<int>(geo::Sum(reg));
}
