import Foundation

/// Language tags: matching as RFC 4647 basic filtering does, and the user's languages from the
/// POSIX locale environment.
enum Languages {
    /// Whether `tag` (a rendition's `LANGUAGE`) falls under `range` (a preference): equal, or
    /// `range` followed by `-` is its prefix, ignoring case and `_` versus `-`.
    static func matches(_ tag: String, range: String) -> Bool {
        let tag = normalize(tag)
        let range = normalize(range)
        return tag == range || tag.hasPrefix(range + "-")
    }

    static func normalize(_ tag: String) -> String {
        tag.lowercased().replacingOccurrences(of: "_", with: "-")
    }

    /// The user's preferred languages from `LANGUAGE` (a colon-separated list), `LC_ALL`,
    /// `LC_MESSAGES` and `LANG`, as BCP 47 tags, most preferred first. `C` and `POSIX` mean none.
    static func fromEnvironment(_ environment: [String: String]) -> [String] {
        var result: [String] = []
        func add(_ value: String) {
            // "de_DE.UTF-8@euro" → "de-DE"
            var tag = Substring(value)
            if let dot = tag.firstIndex(of: ".") { tag = tag[..<dot] }
            if let at = tag.firstIndex(of: "@") { tag = tag[..<at] }
            let normalized = normalize(String(tag))
            guard !normalized.isEmpty, normalized != "c", normalized != "posix" else { return }
            if !result.contains(normalized) { result.append(normalized) }
        }
        if let list = environment["LANGUAGE"], !list.isEmpty {
            for entry in list.split(separator: ":") { add(String(entry)) }
        }
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = environment[name], !value.isEmpty {
                add(value)
                break
            }
        }
        return result
    }

}
