// swift-tools-version: 6.1
import PackageDescription

// The dependency rules are the architecture (see docs/architecture.md):
// - ReceptionCore: Reception's vocabulary (request, events, results), Backend, Middleware,
//   Pipeline, and the plugin seam (BackendPlugin, profiles). Foundation only.
// - ReceptionIntent and ReceptionSoul depend on the core, never on each other.
// - ReceptionConfiguration reads the one backend configuration file (core + Yams).
// - Shared transports: ReceptionTransport (HTTP, SSE) and ReceptionWebSocket.
// - Each backend adapter depends on the core and the shared transports, never on the REPL,
//   the configuration reader or another adapter; each exports its `BackendPlugin`.
// - ReceptionTesting (scripted backend, conformance suite) depends on the core only.
// - ReceptionQueue (the offline queue middleware, SQLite) depends on the core and GRDB; no
//   adapter and not the REPL depend on it: the executable wires it in.
// - ReceptionLog (the conversation log, SQLite) depends on the core, GRDB and ReceptionStorage
//   (private SQLite files); the REPL reaches it through its `LogControl` protocol, wired in by
//   the executable, so neither the REPL nor any adapter depends on SQLite.
// - Reference servers are used by tests and the `reception-reference-server` program, never
//   linked into the `reception` chat binary.
// - Only the executables see everything.
let package = Package(
    name: "Reception",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "ReceptionCore", targets: ["ReceptionCore"]),
        .library(name: "ReceptionIntent", targets: ["ReceptionIntent"]),
        .library(name: "ReceptionSoul", targets: ["ReceptionSoul"]),
        .library(name: "ReceptionLocal", targets: ["ReceptionLocal"]),
        .library(name: "ReceptionLoopSymphony", targets: ["ReceptionLoopSymphony"]),
        .library(name: "ReceptionOpenAI", targets: ["ReceptionOpenAI"]),
        .library(name: "ReceptionFriday", targets: ["ReceptionFriday"]),
        .library(name: "ReceptionCodex", targets: ["ReceptionCodex"]),
        .library(name: "ReceptionTimepoint", targets: ["ReceptionTimepoint"]),
        .library(name: "ReceptionReferenceServers", targets: ["ReceptionReferenceServers"]),
        .library(name: "ReceptionREPL", targets: ["ReceptionREPL"]),
        .library(name: "ReceptionConfiguration", targets: ["ReceptionConfiguration"]),
        .library(name: "ReceptionTesting", targets: ["ReceptionTesting"]),
        .library(name: "ReceptionTransport", targets: ["ReceptionTransport"]),
        .library(name: "ReceptionWebSocket", targets: ["ReceptionWebSocket"]),
        .library(name: "ReceptionQueue", targets: ["ReceptionQueue"]),
        .library(name: "ReceptionLoomi", targets: ["ReceptionLoomi"]),
        .library(name: "ReceptionStorage", targets: ["ReceptionStorage"]),
        .library(name: "ReceptionLog", targets: ["ReceptionLog"]),
        .executable(name: "reception", targets: ["reception"]),
        .executable(name: "reception-reference-server", targets: ["reception-reference-server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        // Already pulled in by the three above; named so the modules we import are declared.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        // hummingbird-websocket's client and core, used directly by ReceptionWebSocket to build
        // the client pipeline (see UpgradeKeepingClient.swift).
        .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.6.2"),
    ],
    targets: [
        // Core contract: Reception's request/event/result vocabulary, Backend, Middleware, Pipeline, plugins.
        .target(name: "ReceptionCore"),

        // The backend configuration file, validated against what each plugin declares, with located errors.
        .target(name: "ReceptionConfiguration", dependencies: [
            "ReceptionCore",
            .product(name: "Yams", package: "Yams"),
        ]),

        // Local intent classifier and the middleware that fills `context.intent`.
        // No unsafe flags (a package that uses them cannot be a versioned dependency of another):
        // the test that retrains the shipped model byte for byte takes minutes unoptimised, and
        // runs on a thread of its own so that it holds no thread the other tests need.
        .target(name: "ReceptionIntent", dependencies: ["ReceptionCore"], exclude: ["Model"]),

        // soul.md parsing and the personality renderer/middleware.
        .target(name: "ReceptionSoul", dependencies: [
            "ReceptionCore",
            .product(name: "Yams", package: "Yams"),
            .product(name: "Mustache", package: "swift-mustache"),
        ]),

        // For tests of middleware, front ends and adapters: a scripted backend and the conformance suite.
        .target(name: "ReceptionTesting", dependencies: ["ReceptionCore"]),

        // Embedded `local` backend: Loop Symphony semantics over BM25 retrieval on Markdown knowledge.
        .target(name: "ReceptionLocal", dependencies: ["ReceptionCore"], resources: [.copy("Knowledge")]),

        // Shared transports for adapters: HTTP with pluggable authentication, and Server-Sent Events.
        .target(name: "ReceptionTransport", dependencies: [
            "ReceptionCore",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
        ]),

        // Shared WebSocket transport for adapters of streaming engines (Friday); connection
        // failures and TLS are worded and configured by ReceptionTransport's ConnectionFailure.
        .target(name: "ReceptionWebSocket", dependencies: [
            "ReceptionCore",
            "ReceptionTransport",
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "WSClient", package: "swift-websocket"),
            .product(name: "WSCore", package: "swift-websocket"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOWebSocket", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        // Loop Symphony adapter: the HTTP + SSE client, room heartbeat loop, SQLite knowledge cache, its plugin.
        .target(name: "ReceptionLoopSymphony", dependencies: [
            "ReceptionCore", "ReceptionTransport",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),

        // OpenAI-compatible adapter: chat completions streamed over SSE, the soul as the system prompt.
        .target(name: "ReceptionOpenAI", dependencies: ["ReceptionCore", "ReceptionTransport"]),

        // Loomi adapter: the two-phase recipe agent (decision, then recipe data by id), its SQLite caches, its plugin.
        .target(name: "ReceptionLoomi", dependencies: [
            "ReceptionCore", "ReceptionTransport",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),

        // Friday adapter: its WebSocket frames, the backend over the shared WebSocket client, its plugin.
        .target(name: "ReceptionFriday", dependencies: ["ReceptionCore", "ReceptionWebSocket"]),

        // OpenAgents Codex workers adapter: wire types, client, watcher (cursor, backoff, dedupe), commands, plugin.
        .target(name: "ReceptionCodex", dependencies: ["ReceptionCore", "ReceptionTransport"]),

        // TIMEPOINT Flash adapter: JWT sessions with rotation, credits, scene generation, character chat, time travel.
        .target(name: "ReceptionTimepoint", dependencies: [
            "ReceptionCore", "ReceptionTransport", .product(name: "NIOHTTP1", package: "swift-nio"),
        ]),

        // Deterministic reference servers (Loop Symphony, OpenAI-compatible, Friday, Codex workers, Loomi,
        // TIMEPOINT Flash) for tests and
        // `reception-reference-server`. Loop Symphony's speaks the adapter's wire types, so it
        // depends on its module (never the reverse); the others write their frames by hand, so a
        // mistake in an adapter's codec shows.
        .target(name: "ReceptionReferenceServers", dependencies: [
            "ReceptionCore", "ReceptionLoopSymphony",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),

        // The offline queue: requests sent while a backend is unreachable, kept in SQLite until it answers.
        .target(name: "ReceptionQueue", dependencies: [
            "ReceptionCore",
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),

        // Private SQLite files: 0600 in a 0700 folder, WAL, versioned schemas, a newer schema left alone.
        .target(name: "ReceptionStorage", dependencies: [
            "ReceptionCore",
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),

        // The conversation log: every exchange of the REPL, searchable (FTS5), exportable as a corpus.
        .target(name: "ReceptionLog", dependencies: [
            "ReceptionCore", "ReceptionStorage",
            .product(name: "GRDB", package: "GRDB.swift"),
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
                "ReceptionConfiguration", "ReceptionLoopSymphony", "ReceptionOpenAI", "ReceptionFriday", "ReceptionQueue",
                "ReceptionCodex", "ReceptionLoomi", "ReceptionTimepoint", "ReceptionLog",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // Release builds only (figures and the reasons in docs/benchmarks.md, "Static runtime"):
            // - lld lays the binary out more tightly than the default gold (every build).
            // - The Swift runtime and Foundation are linked in (-static-stdlib): the loader then
            //   resolves a few hundred symbols instead of tens of thousands, and only the pages of
            //   them that run are resident. lld, unlike gold, needs Foundation's archives named.
            // - No exported symbols (nothing loads code that looks up ours) and packed relative
            //   relocations (glibc 2.36+): 3 MB of relocation and symbol tables are not read at start.
            // - The functions that run up to the first answer sit together (Linker/startup-order.txt,
            //   made by scripts/startup-order.py), so the kernel maps a few MB of code, not 15.
            linkerSettings: [
                .unsafeFlags(["-use-ld=lld"]),
                .unsafeFlags([
                    "-static-stdlib",
                    "-Xlinker", "--no-export-dynamic",
                    "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                    "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Linker/startup-order.txt",
                    "-Xlinker", "--no-warn-symbol-ordering",
                ], .when(configuration: .release)),
                .linkedLibrary("_FoundationICU", .when(configuration: .release)),
                .linkedLibrary("_FoundationCollections", .when(configuration: .release)),
                .linkedLibrary("_FoundationCShims", .when(configuration: .release)),
                .linkedLibrary("CoreFoundation", .when(configuration: .release)),
                .linkedLibrary("BlocksRuntime", .when(configuration: .release)),
                .linkedLibrary("dispatch", .when(configuration: .release)),
            ]
        ),
        .executableTarget(name: "reception-reference-server", dependencies: [
            "ReceptionReferenceServers",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "reception-bench", dependencies: ["CPseudoTerminal"]),
        // Signs in and refreshes a TIMEPOINT session, optionally pausing before the token file is
        // written: the process the crash-during-refresh test kills (ReceptionTimepointTests).
        .executableTarget(name: "timepoint-session-probe", dependencies: ["ReceptionTimepoint", "ReceptionCore"]),
        // Fuzz targets for everything that reads untrusted bytes (docs/fuzzing.md).
        // scripts/fuzz.sh builds it with -sanitize=fuzzer (libFuzzer); a plain build gives the same
        // targets behind a seeded random harness, so `swift build` needs no special flag.
        .target(name: "CFuzzerDriver"),
        .executableTarget(name: "reception-fuzz", dependencies: [
            "CFuzzerDriver", "ReceptionCore", "ReceptionTransport", "ReceptionSoul", "ReceptionIntent",
            "ReceptionLoopSymphony", "ReceptionOpenAI", "ReceptionFriday",
        ]),
        // The conformance suite against a live server (the real engine, by hand; CI runs it against reference servers).
        .executableTarget(name: "reception-conformance", dependencies: ["ReceptionCore", "ReceptionLoopSymphony", "ReceptionOpenAI", "ReceptionTesting"]),
        // `logs -q` over a log of 100,000 exchanges: builds one and prints figures (run with -c release).
        .executableTarget(name: "reception-log-bench", dependencies: ["ReceptionLog", "ReceptionCore"]),
        // Adapter overhead vs raw HTTP round trips against the reference server (run with -c release).
        .executableTarget(name: "loop-symphony-bench", dependencies: [
            "ReceptionCore", "ReceptionLoopSymphony", "ReceptionReferenceServers",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
        ]),

        // For the test targets only: where the third-party data in `../shared` is, the
        // `.needsShared(…)` trait that skips a test, naming the folder, when a clone lacks it,
        // and the run's scratch folder, removed when the tests exit.
        .target(name: "ReceptionTestSupport", dependencies: [.product(name: "Logging", package: "swift-log")], path: "Tests/Support"),

        .testTarget(name: "ReceptionCoreTests", dependencies: ["ReceptionTestSupport", "ReceptionCore", "ReceptionTesting"]),
        .testTarget(name: "ReceptionConfigurationTests", dependencies: ["ReceptionTestSupport", "ReceptionConfiguration", "ReceptionCore"]),
        .testTarget(name: "ReceptionIntentTests", dependencies: ["ReceptionIntent", "ReceptionTestSupport"]),
        .testTarget(name: "ReceptionSoulTests", dependencies: ["ReceptionSoul", "ReceptionTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "ReceptionTransportTests", dependencies: [
            "ReceptionTestSupport",
            "ReceptionReferenceServers",
            "ReceptionTransport", "ReceptionCore",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ]),
        .testTarget(name: "ReceptionWebSocketTests", dependencies: [
            "ReceptionTestSupport",
            "ReceptionReferenceServers",
            "ReceptionWebSocket", "ReceptionTransport", "ReceptionCore",
            .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdTLS", package: "hummingbird"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "NIOWebSocket", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "ReceptionLocalTests", dependencies: ["ReceptionTestSupport", "ReceptionLocal", "ReceptionTesting"]),
        .testTarget(name: "ReceptionLoopSymphonyTests", dependencies: [
            "ReceptionTestSupport", "ReceptionLoopSymphony", "ReceptionReferenceServers", "ReceptionConfiguration", "ReceptionTesting",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ]),
        .testTarget(name: "ReceptionOpenAITests", dependencies: [
            "ReceptionTestSupport", "ReceptionOpenAI", "ReceptionReferenceServers", "ReceptionTesting", "ReceptionSoul", "ReceptionCore",
        ]),
        .testTarget(name: "ReceptionFridayTests", dependencies: [
            "ReceptionTestSupport", "ReceptionFriday", "ReceptionReferenceServers", "ReceptionTesting", "ReceptionREPL", "ReceptionSoul", "ReceptionCore",
            "ReceptionWebSocket",
        ]),
        .testTarget(name: "ReceptionCodexTests", dependencies: [
            "ReceptionTestSupport", "ReceptionCodex", "ReceptionReferenceServers", "ReceptionTesting", "ReceptionCore", "ReceptionIntent", "ReceptionSoul",
        ]),
        .testTarget(name: "ReceptionLoomiTests", dependencies: [
            "ReceptionTestSupport", "ReceptionLoomi", "ReceptionReferenceServers", "ReceptionTesting", "ReceptionCore",
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        .testTarget(name: "ReceptionTimepointTests", dependencies: [
            "ReceptionTimepoint", "ReceptionReferenceServers", "ReceptionTesting", "ReceptionSoul", "ReceptionCore", "ReceptionTransport",
            "ReceptionTestSupport",
        ]),
        .testTarget(name: "ReceptionQueueTests", dependencies: ["ReceptionTestSupport", "ReceptionQueue", "ReceptionCore", "ReceptionTesting",
                                                             .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "ReceptionLogTests", dependencies: ["ReceptionTestSupport", "ReceptionLog", "ReceptionStorage", "ReceptionCore",
                                                           .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "ReceptionREPLTests", dependencies: ["ReceptionTestSupport", "ReceptionREPL", "ReceptionCore", "ReceptionTesting", "ReceptionSoul"]),
        // End-to-end: drives the built `reception` binary through a pseudo-terminal.
        .testTarget(name: "ReceptionEndToEndTests", dependencies: ["CPseudoTerminal", "ReceptionSoul", "ReceptionTestSupport",
                                                                .product(name: "GRDB", package: "GRDB.swift")]),
    ]
)
