package com.acme.util

class Log {
  def info(msg: String): Unit = ()
}

object Log {
  def warn(msg: String): Unit = ()
}

def topLevel(): Int = helper()

def helper(): Int = 1
