package com.acme {
  package extra {
    import com.acme.model._

    class Extra extends Base(2) {
      override def describe(): String = {
        val s: Shape = Registry.lookup(id)
        s.title()
      }
    }
  }
}
