package com.acme.app

import com.acme.ext.label
import com.acme.geo.*
import com.acme.shapes.Circle
import com.acme.shapes.Shape
import com.acme.shapes.Registry as Reg

class App(private val shape: Shape) {
    private val circle: Circle = Circle(3)

    fun run(extra: Shape) {
        val c = Circle(1)
        c.area()
        val p: Point = Point.origin()
        p.norm()
        shape.area()
        circle.describe()
        extra.name()
        Reg.register(c)
        p.scale(2).norm()
        helper()
        p.label()
        c.label()
        listOf(1).forEach { it.toString() }
    }
}

fun helper() {
    Settings.load()
}

object Settings {
    fun load() {
        Settings.Defaults.reset()
    }

    object Defaults {
        fun reset() {}
    }
}
