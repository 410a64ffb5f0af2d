package com.acme.shapes

interface Named {
    fun name(): String
}

interface Shape : Named {
    fun area(): Int
}

sealed class Kind {
    object Round : Kind()
}

enum class Color(val rgb: Int) {
    RED(1),
    GREEN(2);

    fun hex(): Int = rgb
}

annotation class Marker
