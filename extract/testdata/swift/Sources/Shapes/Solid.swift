public protocol Solid: Shape {
    func volume() -> Double
}
