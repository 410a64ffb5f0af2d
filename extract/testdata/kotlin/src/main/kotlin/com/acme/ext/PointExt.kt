package com.acme.ext

import com.acme.geo.Point

fun Point.label(): String = "point"
