import Geo

public class Circle: Base, Solid {
    let center: Point

    public init(center: Point) {
        self.center = center
        super.init()
        center.copy()
    }

    public override func area() -> Double { center.norm() }

    public func volume() -> Double { 0 }

    func grow(by other: Circle?) {
        let p = Point.origin()
        p.copy().norm()
        self.area()
        super.render()
        area()
        other?.volume()
        if let o = other { o.extra() }
        Kind.small.label()
    }

    enum Kind: String {
        case small, large
        func label() -> String { rawValue }
    }
}
