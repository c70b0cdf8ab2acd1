/// RFC 3986 URI references: resolving a relative reference against a base URI.
///
/// HLS resolves every URI in a playlist against the playlist's own URL (RFC 8216bis section
/// 4.1). This is RFC 3986 section 5.2, implemented on the text so that it is exact and free of
/// Foundation's quirks.
///
/// ```swift
/// URIReference.resolve("../audio/en.m3u8", against: "https://cdn.example/v/main.m3u8")
/// // "https://cdn.example/audio/en.m3u8"
/// ```
public enum URIReference {
    struct Components {
        var scheme: Substring?
        var authority: Substring?
        var path: Substring
        var query: Substring?
        var fragment: Substring?

        /// Splits a URI reference as the regular expression of RFC 3986 appendix B does.
        ///
        /// The delimiters are found among the UTF-8 code units: RFC 3986 works on characters
        /// of the URI, not on extended grapheme clusters (a `#` followed by a combining mark is
        /// still a delimiter), and this is much faster.
        init(_ text: String) {
            var rest = text[...]
            if let hash = rest.utf8.firstIndex(of: UInt8(ascii: "#")) {
                fragment = rest[rest.utf8.index(after: hash)...]
                rest = rest[..<hash]
            }
            if let question = rest.utf8.firstIndex(of: UInt8(ascii: "?")) {
                query = rest[rest.utf8.index(after: question)...]
                rest = rest[..<question]
            }
            if let colon = rest.utf8.firstIndex(of: UInt8(ascii: ":")), !rest[..<colon].utf8.contains(UInt8(ascii: "/")),
               Components.isScheme(rest[..<colon]) {
                scheme = rest[..<colon]
                rest = rest[rest.utf8.index(after: colon)...]
            }
            if rest.utf8.starts(with: "//".utf8) {
                let afterSlashes = rest.utf8.index(rest.startIndex, offsetBy: 2)
                let end = rest[afterSlashes...].utf8.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
                authority = rest[afterSlashes..<end]
                rest = rest[end...]
            }
            path = rest
        }

        static func isScheme(_ text: Substring) -> Bool {
            isScheme(text.utf8)
        }

        /// `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )` (RFC 3986 section 3.1), on UTF-8.
        static func isScheme<Bytes: Collection<UInt8>>(_ utf8: Bytes) -> Bool {
            guard let first = utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first | 0x20) else {
                return false
            }
            return utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            }
        }

        var text: String {
            var result = ""
            if let scheme { result += scheme + ":" }
            if let authority { result += "//" + authority }
            result += path
            if let query { result += "?" + query }
            if let fragment { result += "#" + fragment }
            return result
        }
    }

    /// Whether the reference has a scheme (`https:`, `data:`, `skd:` …).
    public static func isAbsolute(_ reference: String) -> Bool {
        Components(reference).scheme != nil
    }

    /// The scheme of a URI, lower-cased, or nil for a relative reference.
    public static func scheme(of reference: String) -> String? {
        // What Components finds, without splitting the rest: the text before the first `:`,
        // when no `/`, `?` or `#` comes before it. Every segment's URI is checked this way.
        let bytes = reference.utf8
        guard let stop = bytes.firstIndex(where: { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }),
              bytes[stop] == UInt8(ascii: ":"), Components.isScheme(reference[..<stop]) else { return nil }
        return reference[..<stop].lowercased()
    }

    /// The URI with each space written `%20`, as browsers and players fetch a URI that a playlist
    /// wrote with spaces in it (`URI="my key.bin"`, a segment `part 1.ts`).
    public static func encodingSpaces(_ uri: String) -> String {
        guard uri.utf8.contains(UInt8(ascii: " ")) else { return uri }
        return uri.split(separator: " ", omittingEmptySubsequences: false).joined(separator: "%20")
    }

    /// The query component of a URI, without `?`.
    public static func query(of reference: String) -> Substring? {
        Components(reference).query
    }

    /// Resolves `reference` against `base` (RFC 3986 section 5.2.2, strict).
    ///
    /// A reference with a scheme is returned with its dot segments removed; `data:` URIs are
    /// returned as they are. A space, which no URI may hold but playlists sometimes do
    /// (`URI="my key.bin"`), is kept; ``encodingSpaces(_:)`` makes the result fetchable.
    public static func resolve(_ reference: String, against base: String) -> String {
        resolve(reference, against: Components(base))
    }

    /// The same against a base already split, for resolving many references against one URL.
    static func resolve(_ reference: String, against b: Components) -> String {
        if reference.utf8.starts(with: "data:".utf8) { return reference }
        let r = Components(reference)
        var t = Components("")
        if r.scheme != nil {
            t = r
            t.path = removeDotSegments(r.path)[...]
        } else {
            if r.authority != nil {
                t.authority = r.authority
                t.path = removeDotSegments(r.path)[...]
                t.query = r.query
            } else {
                if r.path.isEmpty {
                    t.path = b.path
                    t.query = r.query ?? b.query
                } else {
                    if r.path.utf8.first == UInt8(ascii: "/") {
                        t.path = removeDotSegments(r.path)[...]
                    } else {
                        t.path = removeDotSegments(merge(base: b, reference: r.path)[...])[...]
                    }
                    t.query = r.query
                }
                t.authority = b.authority
            }
            t.scheme = b.scheme
        }
        t.fragment = r.fragment
        return t.text
    }

    /// What a reference of one plain path segment resolves under against `base`: its scheme,
    /// authority and path up to the last `/` — nil where RFC 3986's steps could change more
    /// than appending (no authority, or a dot segment in the base's path). Most segment URIs of
    /// a playlist are such references (`seg123.m4s?token=…`): resolved by appending, a million
    /// cost a tenth of what the general steps do.
    static func directoryPrefix(of base: Components) -> String? {
        guard let scheme = base.scheme, let authority = base.authority, !hasDotSegment(base.path) else { return nil }
        let directory = base.path.utf8.lastIndex(of: UInt8(ascii: "/")).map { base.path[...$0] } ?? "/"
        return scheme + "://" + authority + directory
    }

    /// `scheme://authority` of a base, for references that are absolute paths; nil when the base
    /// has no authority.
    static func origin(of base: Components) -> String? {
        guard let scheme = base.scheme, let authority = base.authority else { return nil }
        return scheme + "://" + authority
    }

    /// `reference` resolved by appending, where RFC 3986's steps come to that, read in one pass
    /// over its UTF-8; nil otherwise, for the general steps. Three kinds of reference, none with
    /// a `.` or `..` path segment, make most segment URIs of real playlists:
    ///
    /// - a relative path (`seg123.m4s?sig=…`, `1080p/seg1.ts`): `prefix` + reference, `prefix`
    ///   from ``directoryPrefix(of:)``;
    /// - an absolute path (`/vod/abc/seg1.m4s?token=…`): `origin` + reference, `origin` from
    ///   ``origin(of:)``;
    /// - an absolute URI with an authority (`https://cdn.example/seg1.ts`): the reference itself.
    static func resolveDirectly(_ reference: String, prefix: String?, origin: String?) -> String? {
        enum Kind { case relativePath, absolutePath, absoluteURI }
        let found = reference.utf8.withContiguousStorageIfAvailable { utf8 -> Kind? in
            let count = utf8.count
            // `#`, `.`, `/`, `:` and `?`, all below 64: one test skips every other byte.
            let delimiters: UInt64 = 1 << 35 | 1 << 46 | 1 << 47 | 1 << 58 | 1 << 63
            func isDelimiter(_ byte: UInt8) -> Bool { byte < 64 && (delimiters >> UInt64(byte)) & 1 != 0 }
            // The scheme, if any: the text before a `:` that comes before any `/`, `?` or `#`.
            var index = 0
            while index < count, !isDelimiter(utf8[index]) || utf8[index] == UInt8(ascii: ".") { index += 1 }
            let kind: Kind
            var pathStart = 0
            if index < count, utf8[index] == UInt8(ascii: ":") {
                // Only `scheme://authority…`; `data:`, `urn:` and the like take the general steps.
                guard Components.isScheme(UnsafeBufferPointer(rebasing: utf8[..<index])),
                      index + 2 < count, utf8[index + 1] == UInt8(ascii: "/"), utf8[index + 2] == UInt8(ascii: "/")
                else { return nil }
                pathStart = index + 3
                while pathStart < count, utf8[pathStart] != UInt8(ascii: "/"), utf8[pathStart] != UInt8(ascii: "?"),
                      utf8[pathStart] != UInt8(ascii: "#") {
                    pathStart += 1
                }
                kind = .absoluteURI
            } else if count > 0, utf8[0] == UInt8(ascii: "/") {
                // `//host/…` names another authority: the general steps.
                guard count == 1 || utf8[1] != UInt8(ascii: "/") else { return nil }
                kind = .absolutePath
            } else {
                // An empty path (`?q`, `#f`, ``) takes the base's path: the general steps.
                guard count > 0, utf8[0] != UInt8(ascii: "?"), utf8[0] != UInt8(ascii: "#") else { return nil }
                kind = .relativePath
            }
            // No `.` or `..` segment in the path, which ends at `?` or `#`.
            index = pathStart
            while index < count {
                let byte = utf8[index]
                if !isDelimiter(byte) {
                    index += 1
                    continue
                }
                if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
                if byte == UInt8(ascii: "."), index == pathStart || utf8[index - 1] == UInt8(ascii: "/") {
                    var next = index + 1
                    if next < count, utf8[next] == UInt8(ascii: ".") { next += 1 }
                    if next == count || utf8[next] == UInt8(ascii: "/") || utf8[next] == UInt8(ascii: "?")
                        || utf8[next] == UInt8(ascii: "#") {
                        return nil
                    }
                }
                index += 1
            }
            return kind
        }
        switch found {
        case .relativePath?: return prefix.map { $0 + reference }
        case .absolutePath?: return origin.map { $0 + reference }
        case .absoluteURI?: return reference
        case nil, .some(nil): return nil
        }
    }

    /// RFC 3986 section 5.2.3.
    private static func merge(base: Components, reference: Substring) -> String {
        if base.authority != nil && base.path.isEmpty { return "/" + reference }
        guard let slash = base.path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return String(reference) }
        return String(base.path[..<base.path.utf8.index(after: slash)]) + reference
    }

    /// RFC 3986 section 5.2.4.
    static func removeDotSegments(_ path: Substring) -> String {
        guard hasDotSegment(path) else { return String(path) }
        var input = path
        var output: [Substring] = []
        // The rules compare ASCII prefixes, so they work on the UTF-8 code units.
        func starts(with prefix: String) -> Bool { input.utf8.starts(with: prefix.utf8) }
        func equals(_ text: String) -> Bool { input.utf8.elementsEqual(text.utf8) }
        func drop(_ count: Int) { input = input[input.utf8.index(input.startIndex, offsetBy: count)...] }
        while !input.isEmpty {
            if starts(with: "../") {
                drop(3)
            } else if starts(with: "./") {
                drop(2)
            } else if starts(with: "/./") {
                drop(2)
            } else if equals("/.") {
                input = "/"
            } else if starts(with: "/../") {
                drop(3)
                if !output.isEmpty { output.removeLast() }
            } else if equals("/..") {
                input = "/"
                if !output.isEmpty { output.removeLast() }
            } else if equals(".") || equals("..") {
                input = ""
            } else {
                // Move the first segment (with its leading "/", if any) to the output.
                let searchStart = starts(with: "/") ? input.utf8.index(after: input.startIndex) : input.startIndex
                let end = input[searchStart...].utf8.firstIndex(of: UInt8(ascii: "/")) ?? input.endIndex
                output.append(input[..<end])
                input = input[end...]
            }
        }
        return output.joined()
    }

    /// Whether a path has a `.` or `..` segment, the only ones ``removeDotSegments(_:)`` changes.
    private static func hasDotSegment(_ path: Substring) -> Bool {
        var dots = 0
        var onlyDots = true
        for byte in path.utf8 {
            if byte == UInt8(ascii: "/") {
                if onlyDots && (dots == 1 || dots == 2) { return true }
                dots = 0
                onlyDots = true
            } else if byte == UInt8(ascii: ".") {
                dots += 1
            } else {
                onlyDots = false
            }
        }
        return onlyDots && (dots == 1 || dots == 2)
    }

    /// Decodes `%XX` escapes (and `+` as space when `plusAsSpace`), as in a query string.
    static func percentDecode(_ text: Substring, plusAsSpace: Bool = true) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "%"), iterator.count >= 2,
               let value = UInt8(String(decoding: iterator.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                iterator = iterator.dropFirst(2)
            } else if byte == UInt8(ascii: "+") && plusAsSpace {
                bytes.append(UInt8(ascii: " "))
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The value of the first query parameter named `name` in `url`, percent-decoded.
    public static func queryParameter(_ name: String, in url: String) -> String? {
        guard let query = query(of: url) else { return nil }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if percentDecode(parts[0]) == name {
                return parts.count == 2 ? percentDecode(parts[1]) : ""
            }
        }
        return nil
    }
}
