package com.acme.shapes

class Helper {
    fun help() {}
}

object Registry {
    fun register(s: Shape) {
        s.area()
        Color.RED.hex()
    }
}
