package com.acme.shapes

import com.acme.ext.label
import com.acme.geo.Point
import com.acme.geo.distance

class Circle(origin: Point, private val radius: Int) : Base(origin), Solid {
    constructor(r: Int) : this(Point.origin(), r)

    init {
        Registry.register(this)
    }

    override fun area(): Int = radius * radius + origin.norm()

    override fun name(): String {
        val far = distance(origin, Point(1, 2))
        return super.name() + this.describe() + area() + far + label()
    }
}

interface Solid : Shape
