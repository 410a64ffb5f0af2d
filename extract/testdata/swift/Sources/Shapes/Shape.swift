public protocol Shape {
    var name: String { get }
    func area() -> Double
}

extension Shape {
    public func describe() -> String { name + String(area()) }
}
