package com.acme.app

fun ping() {}
