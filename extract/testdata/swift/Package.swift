// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "Acme",
    products: [.library(name: "Shapes", targets: ["Shapes"])],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.5.0"),
        .package(url: "https://github.com/Alamofire/Alamofire", .upToNextMajor(from: "5.8.0")),
        .package(url: "https://github.com/pointfreeco/swift-snapshot-testing", "1.10.0"..<"2.0.0"),
        .package(path: "../LocalKit"),
    ],
    targets: [
        .target(name: "Geo"),
        .target(name: "Shapes", dependencies: ["Geo", .product(name: "Logging", package: "swift-log")]),
        .executableTarget(name: "App", dependencies: ["Shapes"]),
    ]
)
