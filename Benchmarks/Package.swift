// swift-tools-version:6.0
import PackageDescription

// Benchmarks live in their own package so that `swift test` at the root never builds them.
// Run them with the scripts beside this file; each prints ratios against a baseline measured
// in the same run.
let package = Package(
    name: "FerryBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "Ferry", path: "..")],
    targets: [
        .executableTarget(
            name: "ClassifyDecide",
            dependencies: [.product(name: "FerryKit", package: "Ferry")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
