package com.acme.shapes;

public abstract class Base implements Shape {
  protected Helper helper = Helper.make();

  public String name() {
    helper.help();
    return describe();
  }

  protected String describe() {
    return "base";
  }

  protected String describe(int depth) {
    return describe();
  }
}
