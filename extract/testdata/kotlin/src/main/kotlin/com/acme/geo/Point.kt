package com.acme.geo

data class Point(val x: Int, val y: Int) {
    fun norm(): Int = x + y

    companion object {
        fun origin(): Point = Point(0, 0)
    }
}

fun Point.scale(k: Int): Point {
    return Point(x * k, y * k)
}

fun Point.distanceTo(o: Point): Int = distance(this, o) + norm()
