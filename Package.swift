// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Ferry",
    platforms: [.macOS(.v14), .iOS(.v16)],
    products: [
        .library(name: "FerryKit", targets: ["FerryKit"]),
        .library(name: "Ferry", targets: ["Ferry"]),
        // The stores, for the benchmarks and for tools built on Ferry's database.
        .library(name: "FerryStore", targets: ["FerryStore"]),
        .executable(name: "ferry", targets: ["ferry"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/vapor/sqlite-nio", from: "1.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.0"),
        .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
    ],
    targets: [
        // Pure logic, Foundation only: visitors, links, routes, decisions, association files.
        .target(name: "FerryKit"),
        // The storage protocol and its implementations.
        .target(
            name: "FerryStore",
            dependencies: [
                "FerryKit",
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The server: link handling on top of FerryKit and FerryStore.
        .target(
            name: "FerryServer",
            dependencies: [
                "FerryKit",
                "FerryStore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Atomics", package: "swift-atomics"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // Resources/openapi.yaml links to the repository's openapi.yaml: one document,
            // compiled into the binary, like the dashboard's templates and stylesheet.
            resources: [.embedInCode("Resources/openapi.yaml")]
                + ["layout.mustache", "signin.mustache", "links.mustache", "link.mustache", "apps.mustache", "app.mustache", "problem.mustache", "preview.mustache", "numbers.mustache", "stats.mustache",
                   "app.css", "preview.js"]
                .map { .embedInCode("Resources/dashboard/\($0)") }
        ),
        // The client SDK that apps embed: Foundation (and FerryKit, itself Foundation only).
        .target(name: "Ferry", dependencies: ["FerryKit"]),
        .executableTarget(
            name: "ferry",
            dependencies: [
                "FerryKit",
                "FerryStore",
                "FerryServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Configuration", package: "swift-configuration"),
            ]
        ),
        .testTarget(name: "FerryKitTests", dependencies: ["FerryKit"]),
        .testTarget(name: "FerryStoreTests", dependencies: ["FerryStore", .product(name: "PostgresNIO", package: "postgres-nio")]),
        .testTarget(
            name: "FerryServerTests",
            dependencies: ["FerryServer", .product(name: "HummingbirdTesting", package: "hummingbird")]
        ),
        .testTarget(name: "FerryTests", dependencies: ["Ferry"]),
        .testTarget(name: "FerryCLITests", dependencies: ["ferry", "FerryStore", "Ferry"]),
    ],
    swiftLanguageModes: [.v6]
)
