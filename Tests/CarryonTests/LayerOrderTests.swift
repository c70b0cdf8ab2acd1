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

    /// The functions and properties a folder adds to a type of another folder
    /// (`extension OfflineLibrary { func ownershipContext() }` in `Library/`), and the top-level
    /// functions, by name — each with the folder that declares it — of the names declared once in
    /// the module (a name declared twice cannot be told apart by reading).
    static func addedMembers(_ files: [(folder: String, name: String, text: String)], owner: [String: String])
        -> (members: [String: String], functions: [String: String]) {
        let modifiers: Set<Substring> = ["public", "package", "internal", "private", "fileprivate", "final", "nonisolated",
                                         "static", "mutating", "override", "convenience", "nonmutating", "lazy"]
        var declared: [String: Int] = [:]
        var members: [String: String] = [:]
        var functions: [String: String] = [:]
        for file in files {
            var extending: String?
            for line in code(file.text).split(separator: "\n") {
                let indent = line.prefix { $0 == " " }.count
                let words = line.split(whereSeparator: { $0 == " " || $0 == "(" || $0 == ":" || $0 == "<" || $0 == "{" || $0 == "=" })
                if indent == 0, words.first == "extension", words.count > 1 { extending = String(words[1]) }
                if indent == 0, line.hasPrefix("}") { extending = nil }
                var index = 0
                while index < words.count, modifiers.contains(words[index]) || words[index].hasPrefix("@") { index += 1 }
                guard index + 1 < words.count, ["func", "var", "let"].contains(words[index]) else { continue }
                // Members and top-level declarations: a local name (further in) is no member.
                guard indent <= 4 else { continue }
                let name = String(words[index + 1])
                declared[name, default: 0] += 1
                if indent == 0, words[index] == "func" { functions[name] = file.folder }
                if indent == 4, let type = extending, let home = owner[type], home != file.folder { members[name] = file.folder }
            }
        }
        return (members.filter { declared[$0.key] == 1 }, functions.filter { declared[$0.key] == 1 })
    }

    /// The names `code` uses as members (`.name`) and as calls without a receiver (`name(`).
    static func uses(_ code: String) -> (members: Set<String>, calls: Set<String>) {
        var members: Set<String> = []
        var calls: Set<String> = []
        let characters = Array(code)
        var index = 0
        while index < characters.count {
            guard characters[index].isLetter || characters[index] == "_" else { index += 1; continue }
            let start = index
            while index < characters.count, characters[index].isLetter || characters[index].isNumber || characters[index] == "_" { index += 1 }
            let name = String(characters[start..<index])
            let before = start > 0 ? characters[start - 1] : " "
            if before == "." { members.insert(name) } else if index < characters.count, characters[index] == "(", !before.isNumber { calls.insert(name) }
        }
        return (members, calls)
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
        // What a higher folder adds to a lower one's types, and top-level functions.
        let added = Self.addedMembers(files, owner: owner)
        #expect(added.members["purge"] == "Session" && added.functions["formatBytes"] == "Asset",
                "the members added by extensions, and the top-level functions, were not read: \(added.members.count), \(added.functions.count)")
        for file in files {
            let level = Self.layers.firstIndex(of: file.folder) ?? 0
            let used = Self.uses(Self.code(file.text))
            for (name, folder) in added.members.sorted(by: { $0.key < $1.key }) + added.functions.sorted(by: { $0.key < $1.key })
            where folder != file.folder && (Self.layers.firstIndex(of: folder) ?? 0) > level
                && (used.members.contains(name) || (added.functions[name] != nil && used.calls.contains(name))) {
                upward.append("\(file.name) uses \(name) of \(folder)/")
            }
        }
        #expect(upward.isEmpty, "\(upward.count) uses point up the layers:\n\(upward.joined(separator: "\n"))")
    }

    @Test("the reading finds what a higher folder adds to a lower one's type, and where it is used")
    func readingFindsAddedMembers() {
        let files: [(folder: String, name: String, text: String)] = [
            ("Library", "Library/OfflineLibrary.swift", "public final class OfflineLibrary {\n    func bundleURL() {}\n}\n"),
            ("Session", "Session/OfflineLibrary+Context.swift", "extension OfflineLibrary {\n    func ownershipContext() -> Int { 1 }\n    var count: Int { 0 }\n}\nfunc helper() {}\n"),
            ("Model", "Model/Other.swift", "struct Other {\n    var count: Int\n}\n"),
        ]
        let added = Self.addedMembers(files, owner: ["OfflineLibrary": "Library", "Other": "Model"])
        #expect(added.members == ["ownershipContext": "Session"], "count is declared twice: not told apart")
        #expect(added.functions == ["helper": "Session"])
        let used = Self.uses("let c = library.ownershipContext()\nhelper()\nlet x = 1.5\n")
        #expect(used.members.contains("ownershipContext") && used.calls.contains("helper") && !used.members.contains("5"))
    }

    @Test("the reading finds an upward use: a Transfer file naming DownloadSession")
    func readingFindsUpwardUse() {
        let code = Self.code("let x = DownloadSession.now() // Locked\nlet s = \"AssetRecord\"\n")
        #expect(Self.identifiers(code) == ["DownloadSession"])
        #expect(Self.declarations("public final class DownloadSession: Sendable {\n    struct Inner {}\n}\n@usableFromInline struct X<T> {}\n") == ["DownloadSession", "X"])
    }
}
