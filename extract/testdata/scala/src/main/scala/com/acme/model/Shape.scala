package com.acme.model

trait Named {
  def title(): String
}

trait Shape extends Named {
  def area(): Double
  def name: String = "shape"
}

abstract class Base(val id: Int) {
  def describe(): String = "base"
  def ping(): Unit = ()
}

case class Circle(r: Double) extends Base(1) with Shape with Named with Serializable {
  def area(): Double = 3.14 * r * r
  override def describe(): String = super.describe() + this.label()
  def label(): String = title()
  def title(): String = "circle"
}

object Circle {
  def unit(): Circle = Circle(1.0)
}

object Registry extends Named {
  def title(): String = "registry"
  def lookup(id: Int): Shape = Circle.unit()
}

enum Color {
  case Red, Green
  def hex(): String = "#"
}
