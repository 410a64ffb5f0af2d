import Foundation

public struct Point: Equatable {
    public let x: Double
    public let y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public func norm() -> Double { sqrt(x * x + y * y) }

    public func copy() -> Point { Point(x: x, y: y) }

    public static func origin() -> Point { Point(x: 0, y: 0) }
}
