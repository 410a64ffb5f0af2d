package com.acme.geo

fun distance(a: Point, b: Point): Int {
    return a.scale(1).norm() + b.norm()
}

val ORIGIN = Point.origin()
