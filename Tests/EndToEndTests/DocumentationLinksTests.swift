import CarryonTestSupport
import Foundation
import Testing

/// README.md is the front door and `Documentation/` the reference: README stays short, every
/// relative link in them leads to a file that exists and every `#anchor` to a heading in it (as
/// GitHub makes anchors), every reference page can be reached from README, and the Swift README
/// shortens from the embedding example uses only names the built example uses.
@Suite("documentation links")
struct DocumentationLinksTests {
    static let maximumReadmeLines = 300

    @Test("README.md is a front door of at most 300 lines")
    func readmeIsShort() throws {
        let lines = try Self.lines(of: Self.text(of: "README.md"))
        #expect(lines.count <= Self.maximumReadmeLines,
                "README.md has \(lines.count) lines: move reference material into a page under Documentation/ and link it")
    }

    @Test("every relative link in README.md and Documentation/*.md names a file that exists, and every #anchor a heading in it")
    func linksResolve() throws {
        var problems: [String] = []
        var links = 0
        for page in try Self.pages() {
            let text = try Self.text(of: page)
            links += Self.links(in: text).count
            problems += Self.problems(inPage: page, text: text)
        }
        #expect(links > 50, "only \(links) relative links were found: the link reader is broken")
        #expect(problems.isEmpty, "\(problems.count) broken links:\n\(problems.joined(separator: "\n"))")
    }

    @Test("the link checker reports a missing file and a missing heading, and passes a good link")
    func checkerCatchesBrokenLinks() {
        let page = """
            # A page

            [good](README.md) and [good anchor](Documentation/Commands.md#conventions), [itself](#a-page),
            [gone](Documentation/NoSuchPage.md), [no heading](Documentation/Commands.md#no-such-heading),
            [outside](https://example.com/x.md), `[in code](Nowhere.md)`

            ```
            [in a block](Nowhere.md)
            ```
            """
        let problems = Self.problems(inPage: "Example.md", text: page)
        #expect(problems.count == 2, "\(problems)")
        #expect(problems.contains { $0.contains("Documentation/NoSuchPage.md") })
        #expect(problems.contains { $0.contains("#no-such-heading") })
    }

    @Test("headings become anchors as GitHub makes them")
    func anchorsAreGitHubs() {
        let anchors = Self.anchors(in: """
            # Carryon
            ## `carryon inspect LOCATION [--json] [--strict] [--header 'Name: value']...`
            ## The key store's guarantees
            ## Storage: `policy`, `storage`, `purge`
            ## Storage: `policy`, `storage`, `purge`
            ```sh
            # not a heading
            ```
            """)
        #expect(anchors == [
            "carryon", "carryon-inspect-location---json---strict---header-name-value", "the-key-stores-guarantees",
            "storage-policy-storage-purge", "storage-policy-storage-purge-1",
        ])
    }

    @Test("every page under Documentation/ can be reached by links from README.md")
    func everyPageReachable() throws {
        var reached: Set<String> = ["README.md"]
        var queue = ["README.md"]
        while let page = queue.popLast() {
            for link in Self.links(in: try Self.text(of: page)) {
                guard let target = Self.resolve(link, from: page)?.path, target.hasSuffix(".md"),
                      FileManager.default.fileExists(atPath: packageRoot.appendingPathComponent(target).path),
                      reached.insert(target).inserted else { continue }
                queue.append(target)
            }
        }
        let unreached = try Self.pages().filter { !reached.contains($0) }
        #expect(unreached.isEmpty, "not reachable from README.md: \(unreached)")
    }

    @Test("README's shortened embedding example uses only names the built example uses")
    func readmeExcerptMatchesTheExample() throws {
        let readme = try Self.text(of: "README.md")
        let marker = "<!-- shortened from Examples/Embedding/main.swift -->\n```swift\n"
        let start = try #require(readme.range(of: marker), "README.md lacks the marker \(marker)")
        let end = try #require(readme.range(of: "\n```\n", range: start.upperBound..<readme.endIndex))
        let excerpt = String(readme[start.upperBound..<end.lowerBound])
        let example = try ["main.swift", "Managing.swift"]
            .map { try Self.text(of: "Examples/Embedding/\($0)") }.joined(separator: "\n")
        let names = Self.namesUsed(in: excerpt)
        #expect(names.count >= 10, "only \(names.sorted()) were read from the excerpt")
        let unknown = names.filter { Self.matches("\\b\($0)\\b", in: example).isEmpty }
        #expect(unknown.isEmpty, "README's excerpt uses \(unknown.sorted()), which Examples/Embedding does not: the excerpt no longer shows the API the example builds with")
    }

    // MARK: - Reading Markdown

    /// A relative link: the path (empty for the page itself) and the anchor, if any.
    struct Link: Equatable {
        var path: String
        var anchor: String?
    }

    /// README.md and every page of Documentation/, as paths from the package root.
    static func pages() throws -> [String] {
        let folder = packageRoot.appendingPathComponent("Documentation")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".md") }.sorted()
        return ["README.md"] + names.map { "Documentation/\($0)" }
    }

    static func text(of path: String) throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    static func lines(of text: String) -> [Substring] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// The text with fenced code blocks blanked out (their lines kept, empty): what Markdown reads
    /// headings and links from.
    static func outsideFences(_ text: String) -> String {
        var kept: [Substring] = []
        var fenced = false
        for line in lines(of: text) {
            if line.drop(while: { $0 == " " }).hasPrefix("```") {
                fenced.toggle()
                kept.append("")
            } else {
                kept.append(fenced ? "" : line)
            }
        }
        return kept.joined(separator: "\n")
    }

    /// The text outside code: no fenced blocks, no inline code spans.
    static func prose(_ text: String) -> String {
        replacing("(`+)[\\s\\S]*?\\1", in: outsideFences(text), with: "")
    }

    /// Every relative link and image of a page (`[text](target)`), outside code.
    static func links(in text: String) -> [Link] {
        matches("\\]\\(([^()\\s]*)\\)", in: prose(text)).compactMap { groups in
            let target = groups[1]
            guard !target.contains("://"), !target.hasPrefix("mailto:"), !target.isEmpty else { return nil }
            let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
            let path = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            return Link(path: path, anchor: parts.count > 1 ? String(parts[1]) : nil)
        }
    }

    /// The link's target as a path from the package root; nil when it leaves the package.
    static func resolve(_ link: Link, from page: String) -> (path: String, anchor: String?)? {
        if link.path.isEmpty { return (page, link.anchor) }
        var components = page.split(separator: "/").dropLast().map(String.init)
        for component in link.path.split(separator: "/") {
            switch component {
            case ".": continue
            case "..":
                guard !components.isEmpty else { return nil }
                components.removeLast()
            default: components.append(String(component))
            }
        }
        return (components.joined(separator: "/"), link.anchor)
    }

    /// The anchors GitHub gives a page's headings: the heading's text in lower case, without
    /// punctuation but hyphens and underscores, spaces made hyphens; a repeated one numbered.
    static func anchors(in text: String) -> [String] {
        var anchors: [String] = []
        var seen: [String: Int] = [:]
        for line in lines(of: outsideFences(text).replacingOccurrences(of: "`", with: "")) {
            guard let groups = matches("^#{1,6}[ \\t]+(.*?)[ \\t#]*$", in: String(line)).first else { continue }
            let rendered = replacing("!?\\[([^\\]]*)\\]\\([^)]*\\)", in: groups[1], with: "$1")
            let slug = String(rendered.lowercased().unicodeScalars.compactMap { scalar -> Character? in
                if scalar == " " { return "-" }
                if scalar == "-" || scalar == "_" || scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                    return Character(scalar)
                }
                return nil
            })
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            anchors.append(count == 0 ? slug : "\(slug)-\(count)")
        }
        return anchors
    }

    /// What is wrong with a page's links: a file that does not exist, or an anchor with no heading.
    static func problems(inPage page: String, text: String) -> [String] {
        var problems: [String] = []
        var anchorsByFile: [String: [String]] = [:]
        for link in links(in: text) {
            let written = link.path + (link.anchor.map { "#\($0)" } ?? "")
            guard let (path, anchor) = resolve(link, from: page) else {
                problems.append("\(page): \(written) leads outside the package")
                continue
            }
            let file = packageRoot.appendingPathComponent(path)
            let content: String?
            if path == page {
                content = text
            } else if FileManager.default.fileExists(atPath: file.path) {
                content = try? String(contentsOf: file, encoding: .utf8)
            } else {
                problems.append("\(page): \(written): no file \(path)")
                continue
            }
            guard let anchor, !anchor.isEmpty else { continue }
            guard path.hasSuffix(".md"), let content else {
                problems.append("\(page): \(written): an anchor into a file that is not Markdown")
                continue
            }
            if anchorsByFile[path] == nil { anchorsByFile[path] = anchors(in: content) }
            if !(anchorsByFile[path] ?? []).contains(anchor) {
                problems.append("\(page): \(written): \(path) has no heading with the anchor #\(anchor)")
            }
        }
        return problems
    }

    /// The names a Swift snippet calls (`name(`) or reads as members (`.name`), comments and
    /// string literals left out.
    static func namesUsed(in swift: String) -> Set<String> {
        let code = replacing("\"[^\"\\n]*\"", in: replacing("//[^\\n]*", in: swift, with: ""), with: "\"\"")
        let called = matches("([A-Za-z_][A-Za-z0-9_]*)\\(", in: code).map { $0[1] }
        let members = matches("\\.([A-Za-z_][A-Za-z0-9_]*)", in: code).map { $0[1] }
        return Set(called + members)
    }

    // MARK: - Regular expressions

    /// Every match of `pattern` in `text`, each as its groups (0 the whole match; "" when a group
    /// did not take part).
    static func matches(_ pattern: String, in text: String) -> [[String]] {
        guard let expression = try? NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines]) else {
            Issue.record("bad pattern \(pattern)")
            return []
        }
        let string = text as NSString
        return expression.matches(in: text, range: NSRange(location: 0, length: string.length)).map { match in
            (0..<match.numberOfRanges).map { index in
                let range = match.range(at: index)
                return range.location == NSNotFound ? "" : string.substring(with: range)
            }
        }
    }

    static func replacing(_ pattern: String, in text: String, with template: String) -> String {
        guard let expression = try? NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines]) else {
            Issue.record("bad pattern \(pattern)")
            return text
        }
        let string = text as NSString
        return expression.stringByReplacingMatches(
            in: text, range: NSRange(location: 0, length: string.length), withTemplate: template)
    }
}
