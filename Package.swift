// swift-tools-version:6.1
import PackageDescription
#if canImport(Glibc)
import Glibc
#endif

/// How the `carryon` binary is linked on Linux (Documentation/Development.md, "How the binary
/// is linked"), each measured by a download's peak memory (Benchmarks/README.md):
///
/// - by lld, its relative relocations packed (`-z pack-relative-relocs`, DT_RELR). Swift's
///   metadata holds about 155,000 absolute pointers; as RELA entries (24 bytes each) the
///   dynamic loader read 3.7 MB of relocations at every start, pages that stayed resident for
///   the life of the process. Packed, they take 30 KB. The loader must understand DT_RELR
///   (glibc 2.36, Debian 12), so these flags are given only when the glibc the package is built
///   against has it: a binary built on an older system keeps the default linker and runs there;
/// - exporting none of its own symbols (`--no-export-dynamic`, overriding the static standard
///   library's `-export-dynamic`): 57,000 public Swift symbols of Carryon and its dependencies
///   filled a 5 MB dynamic symbol table that the loader searches (and so maps) for every
///   symbol any shared library looks up, and no one looks up a symbol of an executable's;
/// - in a release build, the functions a download runs laid out together
///   (`--symbol-ordering-file`, Sources/CarryonCLI/carryon.order, made by
///   Scripts/link-order.sh): the kernel maps code 64 KiB around each page that runs, so
///   functions spread over the whole binary kept most of it resident.
let carryonLinking: [LinkerSetting] = {
    #if canImport(Glibc)
    // "glibc 2.36"
    var text = [CChar](repeating: 0, count: 64)
    guard confstr(Int32(_CS_GNU_LIBC_VERSION), &text, text.count) > 0 else { return [] }
    let version = String(cString: text).split(separator: " ").last?.split(separator: ".").compactMap { Int($0) } ?? []
    guard version.count >= 2, (version[0], version[1]) >= (2, 36) else { return [] }
    let order = Context.packageDirectory + "/Sources/CarryonCLI/carryon.order"
    return [
        .unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic"],
                     .when(platforms: [.linux])),
        // Names the file lists that a change removed are skipped, unwarned: the rest still count.
        .unsafeFlags(["-Xlinker", "--symbol-ordering-file=\(order)", "-Xlinker", "--no-warn-symbol-ordering"],
                     .when(platforms: [.linux], configuration: .release)),
    ]
    #else
    return []
    #endif
}()

// Layers (see DESIGN.md): each target imports only those below it.
//   CarryonCLI (`carryon`) → CarryonServer → Carryon → DASH, HLS
// DASH uses HLS's RFC 3986 reference resolution (URIReference), nothing else of it.
let package = Package(
    name: "Carryon",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "HLS", targets: ["HLS"]),
        .library(name: "DASH", targets: ["DASH"]),
        .library(name: "Carryon", targets: ["Carryon"]),
        .library(name: "CarryonServer", targets: ["CarryonServer"]),
        .executable(name: "carryon", targets: ["CarryonCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client.git", exact: "1.37.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", exact: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", exact: "2.28.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", exact: "4.5.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // TLS for the origins Carryon fetches from (trust, the words for a certificate that does
        // not verify) and for the daemon; already under AsyncHTTPClient and Hummingbird.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", exact: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", exact: "1.46.0"),
        // SOCKS5 for the certificate probe through a proxy (Transfer/Network/ProxyTunnel.swift):
        // AsyncHTTPClient's own SOCKS handler, already under it.
        .package(url: "https://github.com/apple/swift-nio-extras.git", exact: "1.35.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // The fleet's shared index and queue (Library/Postgres/): a library's index on a
        // PostgreSQL server, many machines' workers on one queue.
        .package(url: "https://github.com/vapor/postgres-nio.git", exact: "1.33.2"),
    ],
    targets: [
        // Layer 1: the M3U8 model, parser and writer. Pure values, no I/O, no dependencies.
        .target(name: "HLS"),
        // Layer 1: the MPD model, reader, segment addressing and writer. Pure values, no I/O.
        .target(name: "DASH", dependencies: ["HLS"]),

        // Layer 2: the engine.
        .target(
            name: "Carryon",
            dependencies: [
                "HLS", "DASH", "CCarryonZlib",
                // The verification's thread at the least CPU and I/O priority (Concurrency/BackgroundExecutor.swift).
                "CCarryonSystem",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, which GRDB is built on: a plan's million rows are bound with it
                // directly (see SQLiteAssetIndex+Inserts.swift).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                // The transfer's own event loops (see DownloadSession) and HTTP heads.
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
                // Trust (--cacert, SSL_CERT_FILE) and the diagnosis of a certificate that does not
                // verify (see Transfer/Network/).
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                // HTTP/2 streams' body parts gathered (Transfer/BodyCoalescer.swift).
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSOCKS", package: "swift-nio-extras"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Layer 3: loopback playback server and the conditioned origin.
        .target(
            name: "CarryonServer",
            dependencies: [
                "Carryon", "HLS", "DASH", "CCarryonSystem",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // `serve --tls-cert`: the daemon's own TLS (see TLSIdentity).
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Layer 4: the `carryon` command. (A target named `carryon` beside `Carryon` would
        // collide on case-insensitive file systems, hence CarryonCLI.)
        .executableTarget(
            name: "CarryonCLI",
            dependencies: [
                "HLS", "DASH", "Carryon", "CarryonServer", "CCarryonSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            exclude: ["carryon.order"],
            linkerSettings: carryonLinking
        ),

        // The embedding example in README.md, kept compiling here and run by EmbeddingExampleTests.
        .executableTarget(
            name: "CarryonExample",
            dependencies: ["HLS", "Carryon", "CarryonServer"],
            path: "Examples/Embedding"
        ),

        // What the C library offers that Swift's Glibc module does not import (mallopt).
        .target(name: "CCarryonSystem"),

        // zlib's inflate, for playlists sent with Content-Encoding gzip. zlib is already a
        // requirement: swift-nio-extras (under AsyncHTTPClient) links it the same way.
        .target(name: "CCarryonZlib", linkerSettings: [.linkedLibrary("z")]),

        // Release-build benchmark driver, run by Benchmarks/run.sh.
        .executableTarget(
            name: "HLSBenchmark",
            dependencies: ["HLS"],
            path: "Benchmarks/HLSBenchmark"
        ),

        // Release-build MPD reading benchmark, run by Benchmarks/dash.sh.
        .executableTarget(
            name: "DASHBenchmark",
            dependencies: ["DASH"],
            path: "Benchmarks/DASHBenchmark"
        ),

        // Helpers shared by the test targets: temporary folders, running the `carryon` binary.
        .target(name: "CarryonTestSupport", dependencies: ["CCarryonSystem"], path: "Tests/CarryonTestSupport"),
        // What the tests do to a library's index outside the AssetIndex protocol (raw values, an
        // earlier release's rows, SQLite's lock, another process's claim): the one place tests
        // speak SQL. `@testable import Carryon` works here as in the test targets: debug builds
        // compile every target with -enable-testing.
        .target(
            name: "CarryonIndexTestSupport",
            dependencies: ["Carryon", "CarryonTestSupport", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Tests/CarryonIndexTestSupport"
        ),

        .testTarget(name: "HLSTests", dependencies: ["HLS", "CarryonTestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "DASHTests", dependencies: ["DASH", "HLS", "CarryonTestSupport"]),
        .testTarget(
            name: "CarryonTests",
            dependencies: [
                "Carryon", "HLS", "CarryonTestSupport", "CarryonIndexTestSupport", "CCarryonSystem",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .testTarget(
            name: "CarryonServerTests",
            dependencies: [
                "Carryon", "CarryonServer", "CarryonTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "EndToEndTests",
            // CarryonCLI is a dependency so that `swift test` builds the `carryon` binary the
            // tests run.
            dependencies: [
                "Carryon", "CarryonServer", "HLS", "CarryonCLI", "CarryonTestSupport", "CarryonIndexTestSupport", "CCarryonSystem",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
    ]
)
