import CarryonTestSupport
import Foundation
import Testing

/// The API documentation: every public declaration has a DocC comment, and the DocC catalogs
/// (articles, topic groups, symbol links) build without a warning. Reads the modules the test
/// build made, with the toolchain's `swift symbolgraph-extract` and `docc`.
@Suite("documentation", .serialized, .heavy)
struct DocumentationTests {
    static let modules = ["HLS", "DASH", "Carryon", "CarryonServer"]

    @Test("every public type, method, property and case of HLS, Carryon and CarryonServer has a DocC comment (and DASH's)")
    func everyPublicDeclarationIsDocumented() async throws {
        try await withTemporaryDirectory { folder in
            var undocumented: [String] = []
            var total = 0
            for module in Self.modules {
                for symbol in try await Self.symbols(of: module, into: folder) {
                    guard let file = symbol.location?.uri, file.contains("/Sources/\(module)/") else { continue }
                    total += 1
                    let name = symbol.pathComponents.joined(separator: ".")
                    // A member implementing a standard protocol (`description`, `==`, `init(from:)`)
                    // carries the protocol's comment in the symbol graph, so it counts as documented.
                    if symbol.docComment == nil {
                        undocumented.append("\(module).\(name) (\(file.split(separator: "/Sources/").last ?? ""))")
                    }
                }
            }
            #expect(total > 900, "only \(total) public declarations were found: the symbol graphs are incomplete")
            #expect(undocumented.isEmpty, "\(undocumented.count) public declarations lack a DocC comment:\n\(undocumented.sorted().joined(separator: "\n"))")
        }
    }

    @Test("the DocC catalogs build without warnings: articles, topic groups and symbol links all resolve")
    func catalogsBuildWithoutWarnings() async throws {
        let docc = try Self.toolchainProgram("docc")
        try await withTemporaryDirectory { folder in
            for module in Self.modules {
                let graphs = folder.appendingPathComponent("graphs-\(module)")
                _ = try await Self.symbols(of: module, into: graphs)
                var catalog = packageRoot.appendingPathComponent("Sources/\(module)/\(module).docc")
                if !FileManager.default.fileExists(atPath: catalog.path) {
                    catalog = folder.appendingPathComponent("\(module).docc")
                    try FileManager.default.createDirectory(at: catalog, withIntermediateDirectories: true)
                }
                let result = try await run(docc, [
                    "convert", catalog.path, "--additional-symbol-graph-dir", graphs.path,
                    "--fallback-display-name", module, "--fallback-bundle-identifier", "carryon.\(module)",
                    "--output-path", folder.appendingPathComponent("out-\(module)").path, "--warnings-as-errors",
                ])
                #expect(result.status == 0, "docc convert \(module): \(result.standardOutput)\(result.standardError)")
            }
            #expect(FileManager.default.fileExists(
                atPath: folder.appendingPathComponent("out-Carryon/data/documentation/carryon/gettingstarted.json").path),
                "the getting-started article was not built")
        }
    }

    // MARK: - Symbol graphs

    struct SymbolGraph: Decodable {
        var symbols: [Symbol]
    }

    struct Symbol: Decodable {
        struct Location: Decodable { var uri: String }
        struct DocComment: Decodable {}
        var pathComponents: [String]
        var location: Location?
        var docComment: DocComment?
    }

    /// Extracts `module`'s public symbols from the module the test build made.
    static func symbols(of module: String, into folder: URL) async throws -> [Symbol] {
        let swift = try toolchainProgram("swift")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var arguments = [
            "symbolgraph-extract", "-module-name", module, "-target", targetTriple,
            "-I", productsDirectory.appendingPathComponent("Modules").path,
            "-minimum-access-level", "public", "-output-dir", folder.path,
        ]
        for map in moduleMaps { arguments += ["-Xcc", "-fmodule-map-file=\(map)"] }
        for include in includeFolders { arguments += ["-Xcc", "-I\(include)"] }
        let result = try await run(swift, arguments)
        guard result.status == 0 else {
            throw TestSupportError("swift symbolgraph-extract \(module) failed: \(result.standardError)")
        }
        let data = try Data(contentsOf: folder.appendingPathComponent("\(module).symbols.json"))
        return try JSONDecoder().decode(SymbolGraph.self, from: data).symbols
    }

    /// The C modules the Swift modules import: those the build generated, and the dependencies' own.
    static var moduleMaps: [String] {
        var maps: [String] = []
        let products = productsDirectory.path
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: products)) ?? [] where entry.hasSuffix(".build") {
            let map = "\(products)/\(entry)/module.modulemap"
            if FileManager.default.fileExists(atPath: map) { maps.append(map) }
        }
        let checkouts = packageRoot.appendingPathComponent(".build/checkouts")
        let walker = FileManager.default.enumerator(atPath: checkouts.path)
        while let path = walker?.nextObject() as? String {
            if path.hasSuffix("/module.modulemap"), path.contains("/Sources/") { maps.append("\(checkouts.path)/\(path)") }
        }
        return maps
    }

    static var includeFolders: [String] {
        var folders = [packageRoot.appendingPathComponent("Sources/CCarryonSystem/include").path]
        let checkouts = packageRoot.appendingPathComponent(".build/checkouts")
        let walker = FileManager.default.enumerator(atPath: checkouts.path)
        while let path = walker?.nextObject() as? String {
            if path.hasSuffix("/include"), path.contains("/Sources/") { folders.append("\(checkouts.path)/\(path)") }
        }
        return folders
    }

    static var targetTriple: String {
        var name = utsname()
        uname(&name)
        let machine = withUnsafeBytes(of: &name.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return "\(machine)-unknown-linux-gnu"
    }

    /// A program of the Swift toolchain, found on the PATH.
    static func toolchainProgram(_ name: String) throws -> URL {
        guard let program = findExecutable(name) else {
            throw TestSupportError("\(name) is not on the PATH; it comes with the Swift toolchain (swift.org/install)")
        }
        return program
    }
}
