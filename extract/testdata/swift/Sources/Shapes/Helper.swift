public final class Helper {
    public init() {}

    public func help() {}

    public static func make() -> Helper { Helper() }
}
