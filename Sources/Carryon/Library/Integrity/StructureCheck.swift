/// Whether a resource's bytes hold together as what a player will read them as — an MPEG-TS
/// whose every packet starts with its sync byte, an ISO BMFF (MP4) file whose boxes add up to
/// its length, a WebVTT file that says so — checked as the bytes stream past, in the same read
/// that hashes them (see ``BundleVerifier``).
///
/// This is what a library written before resources had digests is verified by, and what names
/// the damage a digest only says is there. It finds what stops a player, not every flaw: a
/// packet's payload or a box's contents are not read.
struct StructureCheck {
    /// What a file is read as.
    enum Container: String, Sendable {
        case transportStream = "MPEG-TS"
        case isoMedia = "MP4"
        case webVTT = "WebVTT"
        /// Packed audio, a key, anything else: only its length and digest are checked.
        case other
    }

    /// What resource `fileName` (of `kind`) is read as: by its extension, as players choose.
    static func container(of fileName: String, kind: ResourceKind) -> Container {
        let name = fileName.lowercased()
        let ext = name.split(separator: ".").last.map(String.init) ?? ""
        switch ext {
        case "ts", "tsv", "tsa", "m2ts", "mts", "m2t": return .transportStream
        case "mp4", "m4s", "m4a", "m4v", "m4i", "mp4a", "mp4v", "cmfv", "cmfa", "cmft", "cmfm", "fmp4", "mov", "iso", "isma", "ismv", "init":
            return .isoMedia
        case "vtt", "webvtt": return .webVTT
        default: return kind == .initSection ? .isoMedia : .other
        }
    }

    let container: Container
    /// Bytes seen so far.
    private(set) var length = 0
    /// The first problem found: checking stops there.
    private(set) var problem: String?

    // MPEG-TS: how many packets lack their sync byte, and the first.
    private var badPackets = 0
    // ISO BMFF: where the next box starts, and its header while it straddles two chunks.
    private var nextBox = 0
    private var header: [UInt8] = []
    /// The last box runs to the end of the file (size 0).
    private var toEnd = false
    // WebVTT: the first bytes.
    private var opening: [UInt8] = []

    init(_ container: Container) {
        self.container = container
    }

    /// Reads the next bytes of the resource.
    mutating func consume(_ bytes: UnsafeRawBufferPointer) {
        defer { length += bytes.count }
        guard problem == nil || container == .transportStream else { return }
        switch container {
        case .transportStream: consumePackets(bytes)
        case .isoMedia: consumeBoxes(bytes)
        case .webVTT:
            if opening.count < 10 { opening += bytes.prefix(10 - opening.count) }
        case .other: break
        }
    }

    /// The problem with the resource once all of it is read, or nil when it holds together.
    func finish() -> String? {
        switch container {
        case .transportStream:
            if badPackets > 0 { return problem.map { badPackets == 1 ? $0 : "\($0) (and \(badPackets - 1) more packets)" } }
            if length == 0 { return "the MPEG-TS file is empty" }
            if length % 188 != 0 { return "the MPEG-TS file ends in the middle of a packet (\(length % 188) bytes past its last whole packet)" }
            return nil
        case .isoMedia:
            if let problem { return problem }
            if length == 0 { return "the MP4 file is empty" }
            if toEnd || nextBox == length { return nil }
            return "the MP4 box at byte \(lastBoxStart) declares \(nextBox - lastBoxStart) bytes, but the file ends \(nextBox - length) bytes before it does"
        case .webVTT:
            var text = opening[...]
            if text.starts(with: [0xEF, 0xBB, 0xBF]) { text = text.dropFirst(3) }
            guard text.starts(with: Array("WEBVTT".utf8)) else { return "the WebVTT file does not begin with WEBVTT" }
            if text.count > 6, ![0x20, 0x09, 0x0A, 0x0D].contains(text[text.startIndex + 6]) {
                return "the WebVTT file does not begin with WEBVTT"
            }
            return nil
        case .other:
            return nil
        }
    }

    private mutating func consumePackets(_ bytes: UnsafeRawBufferPointer) {
        // The first packet start at or after this chunk's first byte.
        var index = (188 - length % 188) % 188
        while index < bytes.count {
            if bytes[index] != 0x47 {
                if badPackets == 0 {
                    let packet = (length + index) / 188
                    problem = "MPEG-TS packet \(packet + 1) (at byte \(length + index)) has no sync byte (0x47)"
                }
                badPackets += 1
            }
            index += 188
        }
    }

    private var lastBoxStart = 0

    private mutating func consumeBoxes(_ bytes: UnsafeRawBufferPointer) {
        var index = 0
        while index < bytes.count, problem == nil, !toEnd {
            let position = length + index
            if position < nextBox {
                index += min(nextBox - position, bytes.count - index)
                continue
            }
            // At a box's header: gather its 8 bytes (16 with a 64-bit size), perhaps across chunks.
            let wanted = header.count >= 4 && Self.uint32(header, 0) == 1 ? 16 : 8
            let take = min(wanted - header.count, bytes.count - index)
            header += bytes[index..<(index + take)]
            index += take
            guard header.count == wanted else { continue }
            if wanted == 8, Self.uint32(header, 0) == 1 { continue }
            let start = length + index - wanted
            let type = header[4..<8]
            guard type.allSatisfy({ (0x20...0x7E).contains($0) || $0 == 0xA9 }) else {
                problem = "no MP4 box at byte \(start): the bytes there (\(Hex.text(Array(header)))) are not a box header"
                return
            }
            let name = String(decoding: type, as: UTF8.self)
            let size32 = Self.uint32(header, 0)
            let size: Int
            if size32 == 0 {
                toEnd = true
                header = []
                return
            } else if size32 == 1 {
                size = Int(truncatingIfNeeded: UInt64(Self.uint32(header, 8)) << 32 | UInt64(Self.uint32(header, 12)))
            } else {
                size = Int(size32)
            }
            guard size >= wanted else {
                problem = "the MP4 box '\(name)' at byte \(start) declares \(size) bytes, fewer than its own header"
                return
            }
            lastBoxStart = start
            nextBox = start + size
            header = []
        }
    }

    private static func uint32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
