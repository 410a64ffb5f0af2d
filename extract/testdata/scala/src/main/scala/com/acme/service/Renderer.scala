package com.acme
package service

import com.acme.model.{Circle, Shape, Registry => Reg}
import com.acme.util.Log
import com.acme.util.Log.warn
import com.acme.util.topLevel

class Canvas {
  def draw(s: Shape): Unit = s.area()
}

class Renderer(canvas: Canvas, log: Log) {
  private val helper: Canvas = new Canvas()
  val spare = new Canvas()
  var count = 0
  def render(shape: Shape): Unit = {
    val c = new Circle(2.0)
    val d = Circle(3.0)
    val e: Circle = Circle.unit()
    c.label()
    d.describe()
    d.ping()
    e.area()
    shape.area()
    canvas.draw(shape)
    helper.draw(c)
    spare.draw(c)
    log.info("x")
    Log.warn("y")
    warn("z")
    topLevel()
    Reg.lookup(1).area()
    Circle.unit().label()
    this.finish()
    finish()
    items.map(x => x.size).filter(_.ok)
    shape match {
      case k: Circle => k.label()
      case _ =>
    }
  }
  def finish(): Unit = ()
  given ord: Ordering[Int] = Ordering.Int
}
