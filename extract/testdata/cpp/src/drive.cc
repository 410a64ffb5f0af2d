#include "drive.h"

int drive(Base& b) { return b.run(); }

int Derived::run() { return 1; }

int twice(Derived* d) {
  Base* b = d;
  return b->run() + d->run();
}

int fact(int n) { return n ? n * fact(n - 1) : 1; }
