extension Circle {
    func extra() {
        grow(by: nil)
        Kind.small.label() // Circle.Kind is declared in another file: a stub
    }
}

extension Helper: CustomStringConvertible {
    public var description: String { "helper" }
}
