// swift-tools-version:6.0
import PackageDescription

// Benchmarks live in their own package so that `swift test` at the root never builds them.
// Run them with the scripts beside this file; each prints ratios against a baseline measured
// in the same run.
let package = Package(
    name: "FerryBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Ferry", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
    ],
    targets: [
        .executableTarget(
            name: "ClassifyDecide",
            dependencies: [.product(name: "FerryKit", package: "Ferry")]
        ),
        .executableTarget(
            name: "StatsQuery",
            dependencies: [.product(name: "FerryKit", package: "Ferry"), .product(name: "FerryStore", package: "Ferry")]
        ),
        // The baseline of the redirect benchmark: Hummingbird answering every request with a
        // fixed 302, no lookup, no classification, no recording.
        .executableTarget(
            name: "BareRedirect",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
