extension DownloadPlan {
    /// The extension a local file gets: the origin path's, if it is 1–5 letters or digits;
    /// otherwise one that fits the kind.
    static func fileExtension(of uri: String, kind: ResourceKind) -> String {
        // Over the UTF-8 bytes: a million segments call this once each.
        let bytes = uri.utf8
        let end = bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
        let path = bytes[..<end]
        if let dot = path.lastIndex(of: UInt8(ascii: ".")) {
            let ext = path[path.index(after: dot)...]
            let isAlphanumeric = ext.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            }
            if (1...5).contains(ext.count), isAlphanumeric {
                return String(decoding: ext.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
            }
        }
        return kind == .initSection ? "mp4" : "bin"
    }

    /// `value` in decimal, zero-padded to at least `width` digits (`String(format:)` costs a
    /// microsecond a call, a second for a million segments).
    static func zeroPadded(_ value: Int, to width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
