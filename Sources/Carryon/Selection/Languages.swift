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

    /// `tag` as BCP 47 writes it: a three-letter ISO 639-2 code, which muxers such as ffmpeg's
    /// write in MPDs (`deu`, `ger`), becomes the two-letter code BCP 47 requires (`de`) when
    /// ISO 639-1 has one; anything else is returned as it is.
    static func bcp47(_ tag: String) -> String {
        let primary = tag.prefix { $0 != "-" && $0 != "_" }
        guard primary.count == 3, let short = iso639Part2[primary.lowercased()] else { return tag }
        return short + tag.dropFirst(3)
    }

    /// ISO 639-2 codes (bibliographic and terminological) of the languages ISO 639-1 also names,
    /// for the most spoken ones.
    static let iso639Part2: [String: String] = [
        "eng": "en", "deu": "de", "ger": "de", "fra": "fr", "fre": "fr", "spa": "es", "ita": "it", "por": "pt",
        "nld": "nl", "dut": "nl", "swe": "sv", "nor": "no", "nob": "nb", "nno": "nn", "dan": "da", "fin": "fi",
        "pol": "pl", "ces": "cs", "cze": "cs", "slk": "sk", "slo": "sk", "hun": "hu", "ron": "ro", "rum": "ro",
        "ell": "el", "gre": "el", "tur": "tr", "rus": "ru", "ukr": "uk", "bul": "bg", "hrv": "hr", "srp": "sr",
        "slv": "sl", "est": "et", "lav": "lv", "lit": "lt", "ara": "ar", "heb": "he", "fas": "fa", "per": "fa",
        "hin": "hi", "ben": "bn", "urd": "ur", "tam": "ta", "tel": "te", "tha": "th", "vie": "vi", "ind": "id",
        "msa": "ms", "may": "ms", "zho": "zh", "chi": "zh", "jpn": "ja", "kor": "ko", "cat": "ca", "eus": "eu",
        "baq": "eu", "glg": "gl", "isl": "is", "ice": "is", "gle": "ga", "cym": "cy", "wel": "cy",
    ]

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
