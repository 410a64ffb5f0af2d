package com.acme.shapes

import com.acme.geo.Point

abstract class Base(val origin: Point) : Shape {
    private val helper = Helper()

    override fun name(): String {
        helper.help()
        return describe()
    }

    fun describe(): String = "base"
}
