// swift-tools-version: 6.1
import PackageDescription

// The dependency rules are the architecture (see README "Architecture"):
// - ReceptionCore: wire types, Backend, Middleware, Pipeline. Foundation only.
// - ReceptionIntent and ReceptionSoul depend on the core, never on each other.
// - Each backend adapter depends on the core and its transport, never on the REPL or another adapter.
// - Reference servers are used by tests and `reception serve`, never by a library module.
// - Only the `reception` executable sees everything.
let package = Package(
    name: "Reception",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "ReceptionCore", targets: ["ReceptionCore"]),
        .library(name: "ReceptionIntent", targets: ["ReceptionIntent"]),
        .library(name: "ReceptionSoul", targets: ["ReceptionSoul"]),
        .library(name: "ReceptionLocal", targets: ["ReceptionLocal"]),
        .library(name: "ReceptionLoopSymphony", targets: ["ReceptionLoopSymphony"]),
        .library(name: "ReceptionReferenceServers", targets: ["ReceptionReferenceServers"]),
        .library(name: "ReceptionREPL", targets: ["ReceptionREPL"]),
        .executable(name: "reception", targets: ["reception"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // Already pulled in by the three above; named so the modules we import are declared.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
    ],
    targets: [
        // Core contract: Loop Symphony wire types, the Backend and Middleware protocols, the pipeline.
        .target(name: "ReceptionCore"),

        // Local intent classifier and the middleware that fills `context.intent`.
        .target(name: "ReceptionIntent", dependencies: ["ReceptionCore"], exclude: ["Model"]),

        // soul.md parsing and the personality renderer/middleware.
        .target(name: "ReceptionSoul", dependencies: [
            "ReceptionCore",
            .product(name: "Yams", package: "Yams"),
            .product(name: "Mustache", package: "swift-mustache"),
        ]),

        // Embedded `local` backend: Loop Symphony semantics over BM25 retrieval on Markdown knowledge.
        .target(name: "ReceptionLocal", dependencies: ["ReceptionCore"], resources: [.copy("Knowledge")]),

        // Loop Symphony adapter: HTTP + SSE client, room heartbeat loop, SQLite knowledge cache, backend profiles.
        .target(name: "ReceptionLoopSymphony", dependencies: [
            "ReceptionCore",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),

        // Deterministic reference servers (Loop Symphony) for tests and `reception serve`.
        .target(name: "ReceptionReferenceServers", dependencies: [
            "ReceptionCore",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        // GNU readline, reached through a small shim header (Swift 6 forbids touching its C globals directly).
        .systemLibrary(name: "CReadline", providers: [.apt(["libreadline-dev"])]),

        // The interactive shell as a library: testable without a terminal.
        .target(name: "ReceptionREPL", dependencies: ["ReceptionCore", "CReadline"]),

        // forkpty() for driving the real binary through a pseudo-terminal (tests and benchmarks only).
        .target(name: "CPseudoTerminal", linkerSettings: [.linkedLibrary("util")]),

        .executableTarget(
            name: "reception",
            dependencies: [
                "ReceptionCore", "ReceptionIntent", "ReceptionSoul", "ReceptionLocal", "ReceptionREPL",
                "ReceptionLoopSymphony", "ReceptionReferenceServers",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "reception-bench", dependencies: ["CPseudoTerminal"]),
        // Adapter overhead vs raw HTTP round trips against the reference server (run with -c release).
        .executableTarget(name: "loop-symphony-bench", dependencies: [
            "ReceptionCore", "ReceptionLoopSymphony", "ReceptionReferenceServers",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
        ]),

        .testTarget(name: "ReceptionCoreTests", dependencies: ["ReceptionCore"]),
        .testTarget(name: "ReceptionIntentTests", dependencies: ["ReceptionIntent"]),
        .testTarget(name: "ReceptionSoulTests", dependencies: ["ReceptionSoul"], exclude: ["Fixtures"]),
        .testTarget(name: "ReceptionLocalTests", dependencies: ["ReceptionLocal"]),
        .testTarget(name: "ReceptionLoopSymphonyTests", dependencies: [
            "ReceptionLoopSymphony", "ReceptionReferenceServers",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ]),
        .testTarget(name: "ReceptionREPLTests", dependencies: ["ReceptionREPL", "ReceptionCore"]),
        // End-to-end: drives the built `reception` binary through a pseudo-terminal.
        .testTarget(name: "ReceptionEndToEndTests", dependencies: ["CPseudoTerminal", "ReceptionSoul"]),
    ]
)
