package com.acme.ext

import com.acme.shapes.Circle

fun Circle.label(): String = "circle"
