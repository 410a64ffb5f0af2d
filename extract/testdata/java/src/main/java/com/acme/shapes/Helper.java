package com.acme.shapes;

class Helper {
  void help() {}

  static Helper make() {
    return new Helper();
  }
}
