from pkg import shapes
from pkg.shapes import Square, scale
import pkg.util


def run():
    s = Square(2)
    t = shapes.Square(3)
    n = pkg.util.identity(s.area())
    d = t.describe()
    return pkg.util.twice(scale, n) + shapes.scale(n, len(d))


def helper():
    def inner():
        return run()

    return Square(inner())


helper()
