import CarryonTestSupport
import Foundation
import Testing

/// The folders of `Sources/Carryon` are layers, each using only the types of those below it
/// (Documentation/Development.md, "Layout"): a type named in a folder's code must be declared in
/// that folder or a lower one. One module has no imports to check, so the test reads the code:
/// the types each folder declares at the top level, and the capitalised names each file uses
/// (comments and string literals left out).
@Suite("Layer order of Carryon's folders")
struct LayerOrderTests {
    /// From the bottom up. The files at the top of `Sources/Carryon` (`CarryonError`) are below all.
    static let layers = ["", "Concurrency", "Model", "Transfer", "Selection", "Formats", "Library", "Keys", "Logs", "Session", "Playback", "Asset"]

    static let sources = packageRoot.appendingPathComponent("Sources/Carryon")

    /// Each Swift file of `Sources/Carryon` with its folder (the first path component; "" at the top).
    static func files() throws -> [(folder: String, name: String, text: String)] {
        let enumerator = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var files: [(String, String, String)] = []
        for case let url as URL in enumerator where url.pathExtension == "swift" {
            let relative = url.path.dropFirst(sources.path.count + 1)
            let parts = relative.split(separator: "/")
            files.append((parts.count > 1 ? String(parts[0]) : "", String(relative), try String(contentsOf: url, encoding: .utf8)))
        }
        return files
    }

    /// The code of `text` without comments and string literals' contents.
    static func code(_ text: String) -> String {
        var result = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var kept = ""
            var inString = false
            var previous: Character = " "
            var iterator = line.makeIterator()
            while let character = iterator.next() {
                if !inString, character == "/", previous == "/" { kept.removeLast(); break }
                if character == "\"", previous != "\\" { inString.toggle(); kept.append(character) } else if !inString { kept.append(character) }
                previous = character
            }
            result += kept + "\n"
        }
        return result
    }

    /// The types declared at the top level of `text`.
    static func declarations(_ text: String) -> [String] {
        let kinds: Set<Substring> = ["struct", "class", "enum", "protocol", "actor", "typealias"]
        let modifiers: Set<Substring> = ["public", "package", "internal", "private", "fileprivate", "final", "nonisolated"]
        var names: [String] = []
        for line in text.split(separator: "\n") where !(line.first?.isWhitespace ?? true) {
            let words = line.split(whereSeparator: { $0 == " " || $0 == ":" || $0 == "<" || $0 == "{" })
            var index = 0
            while index < words.count, modifiers.contains(words[index]) || words[index].hasPrefix("@") { index += 1 }
            if index + 1 < words.count, kinds.contains(words[index]) { names.append(String(words[index + 1])) }
        }
        return names
    }

    /// The capitalised identifiers `code` names.
    static func identifiers(_ code: String) -> Set<String> {
        var found: Set<String> = []
        var current = ""
        for character in code + " " {
            if character.isLetter || character.isNumber || character == "_" {
                current.append(character)
            } else {
                if let first = current.first, first.isUppercase { found.insert(current) }
                current = ""
            }
        }
        return found
    }

    @Test("every folder uses only the types of its own layer and those below it")
    func layersPointDown() throws {
        let files = try Self.files()
        #expect(files.count > 100, "only \(files.count) files found under \(Self.sources.path)")
        let folders = Set(files.map(\.folder))
        #expect(folders.isSubset(of: Set(Self.layers)), "folders without a layer: \(folders.subtracting(Self.layers).sorted()); give each its place in LayerOrderTests.layers and Development.md")
        var owner: [String: String] = [:]
        for file in files {
            for name in Self.declarations(Self.code(file.text)) where owner[name] == nil { owner[name] = file.folder }
        }
        #expect(owner["DownloadSession"] == "Session" && owner["AssetRecord"] == "Model" && owner["CarryonError"] == "",
                "the declarations were not read: \(owner.count) types found")
        var upward: [String] = []
        for file in files {
            let level = Self.layers.firstIndex(of: file.folder) ?? 0
            for name in Self.identifiers(Self.code(file.text)).sorted() {
                guard let folder = owner[name], folder != file.folder, let above = Self.layers.firstIndex(of: folder), above > level else { continue }
                upward.append("\(file.name) uses \(name) of \(folder)/")
            }
        }
        #expect(upward.isEmpty, "\(upward.count) uses point up the layers:\n\(upward.joined(separator: "\n"))")
    }

    @Test("the reading finds an upward use: a Transfer file naming DownloadSession")
    func readingFindsUpwardUse() {
        let code = Self.code("let x = DownloadSession.now() // Locked\nlet s = \"AssetRecord\"\n")
        #expect(Self.identifiers(code) == ["DownloadSession"])
        #expect(Self.declarations("public final class DownloadSession: Sendable {\n    struct Inner {}\n}\n@usableFromInline struct X<T> {}\n") == ["DownloadSession", "X"])
    }
}
