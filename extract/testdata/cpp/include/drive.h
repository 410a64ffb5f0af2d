#pragma once

struct Base {
  virtual int run() { return 0; }
};

struct Derived : Base {
  int run() override;
};

int drive(Base&);
int twice(Derived*);
