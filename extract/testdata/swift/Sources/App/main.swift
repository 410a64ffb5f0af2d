import Foundation
import Geo
import Shapes

func run(shape: Shape) -> Double {
    let c = Circle(center: Point(x: 1, y: 2))
    c.grow(by: nil)
    let h: Helper = Helper.make()
    h.help()
    let s: Solid = c
    s.volume()
    shape.describe()
    [1, 2].forEach { $0.unknown() }
    return shape.area()
}

run(shape: Circle(center: .origin()))
