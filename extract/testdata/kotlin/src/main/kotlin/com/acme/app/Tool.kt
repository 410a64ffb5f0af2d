package com.acme.app

class Tool : Runnable {
    override fun run() {
        helper()
        ping()
    }
}
