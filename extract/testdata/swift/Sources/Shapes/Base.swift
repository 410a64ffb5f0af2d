open class Base: Shape {
    let helper: Helper = Helper.make()
    public var name: String { "base" }

    public init() {}

    public func area() -> Double { 0 }

    func render() {
        helper.help()
        describe()
    }
}

final class Registry {
    var shapes: [String: Shape] = [:]
    var current: (any Shape)?

    func first() -> Double {
        current?.area() ?? shapes["x"]!.area()
    }
}
