/// A track of an init section as common encryption (ISO/IEC 23001-7) describes it: each sample
/// entry's scheme (`cenc`, `cbcs`, `cens`, `cbc1`), KID, IVs and pattern from its `sinf`, and
/// the codec configuration a decrypted sample is checked against.
struct ProtectedTrack {
    /// What the samples' bytes are, as far as a key check reads them.
    enum Codec {
        /// H.264, NAL units after `lengthSize`-byte lengths; the picture parameter sets' ids.
        case avc(lengthSize: Int, pictureParameterSets: Set<Int>)
        /// H.265, NAL units after `lengthSize`-byte lengths.
        case hevc(lengthSize: Int)
        /// AAC raw data blocks: the object type, sampling frequency index and channel
        /// configuration of the AudioSpecificConfig.
        case aac(objectType: Int, frequencyIndex: Int, channels: Int)
        /// Anything else (its sample entry's format): decrypted, but not checked.
        case other(String)
    }

    /// A sample description (`stsd` entry).
    struct Entry {
        /// The format before protection (`frma`): `avc1`, `hvc1`, `mp4a`.
        var format: String
        /// The protection scheme (`schm`), nil for a clear entry.
        var scheme: String?
        /// `tenc`'s default KID as 32 hexadecimal digits.
        var keyID: String?
        var isProtected = false
        var ivSize = 0
        var constantIV: [UInt8]?
        var cryptBlocks = 0
        var skipBlocks = 0
        var codec: Codec
    }

    var trackID: UInt32
    /// The sample entries, the first at index 0 (`sample_description_index` 1).
    var entries: [Entry]
    /// `trex`'s defaults for the track's fragments.
    var defaultDescription: UInt32 = 1
    var defaultSampleSize: UInt32 = 0

    /// The tracks of the init section `bytes`.
    static func tracks(in bytes: [UInt8]) throws(MP4Structure) -> [ProtectedTrack] {
        guard let moov = try MP4Box.find(["moov"], in: bytes, range: 0..<bytes.count) else {
            throw MP4Structure("the init section has no moov box")
        }
        let movie = try MP4Box.children(of: bytes, in: moov.payload)
        var tracks: [ProtectedTrack] = []
        for trak in movie where trak.type == "trak" {
            guard let tkhd = try trak.child("tkhd", in: bytes),
                  let stsd = try MP4Box.find(["mdia", "minf", "stbl", "stsd"], in: bytes, range: trak.payload) else { continue }
            var header = ByteReader(bytes, tkhd.payload)
            let version = try header.u8()
            try header.skip(3 + (version == 1 ? 16 : 8))
            let trackID = try header.u32()
            var entries: [Entry] = []
            guard stsd.payload.count >= 8 else { throw MP4Structure("an stsd box of \(stsd.payload.count) bytes") }
            for entry in try MP4Box.children(of: bytes, in: (stsd.payload.lowerBound + 8)..<stsd.payload.upperBound) {
                entries.append(try Self.entry(entry, in: bytes))
            }
            tracks.append(ProtectedTrack(trackID: trackID, entries: entries))
        }
        if let mvex = movie.first(where: { $0.type == "mvex" }) {
            for trex in try MP4Box.children(of: bytes, in: mvex.payload) where trex.type == "trex" {
                var reader = ByteReader(bytes, trex.payload)
                try reader.skip(4)
                let trackID = try reader.u32()
                guard let index = tracks.firstIndex(where: { $0.trackID == trackID }) else { continue }
                tracks[index].defaultDescription = try reader.u32()
                try reader.skip(4)
                tracks[index].defaultSampleSize = try reader.u32()
            }
        }
        return tracks
    }

    private static let visualEntries: Set<String> = ["encv", "avc1", "avc3", "hvc1", "hev1", "vp09", "av01"]

    private static func entry(_ box: MP4Box, in bytes: [UInt8]) throws(MP4Structure) -> Entry {
        // VisualSampleEntry's fields take 78 bytes, AudioSampleEntry's 28 (ISO/IEC 14496-12 12.1, 12.2).
        let fields = visualEntries.contains(box.type) ? 78 : 28
        let boxes = box.payload.count > fields ? try MP4Box.children(of: bytes, in: (box.payload.lowerBound + fields)..<box.payload.upperBound) : []
        var entry = Entry(format: box.type, codec: .other(box.type))
        if let sinf = boxes.first(where: { $0.type == "sinf" }) {
            let inner = try MP4Box.children(of: bytes, in: sinf.payload)
            if let frma = inner.first(where: { $0.type == "frma" }) {
                var reader = ByteReader(bytes, frma.payload)
                entry.format = String(decoding: try reader.bytes(4), as: UTF8.self)
            }
            if let schm = inner.first(where: { $0.type == "schm" }) {
                var reader = ByteReader(bytes, schm.payload)
                try reader.skip(4)
                entry.scheme = String(decoding: try reader.bytes(4), as: UTF8.self)
            }
            if let schi = inner.first(where: { $0.type == "schi" }), let tenc = try schi.child("tenc", in: bytes) {
                var reader = ByteReader(bytes, tenc.payload)
                let version = try reader.u8()
                try reader.skip(4)
                let pattern = try reader.u8()
                if version > 0 {
                    entry.cryptBlocks = Int(pattern >> 4)
                    entry.skipBlocks = Int(pattern & 15)
                }
                entry.isProtected = try reader.u8() != 0
                entry.ivSize = Int(try reader.u8())
                entry.keyID = Hex.text(try reader.bytes(16))
                if entry.isProtected && entry.ivSize == 0 {
                    let size = Int(try reader.u8())
                    entry.constantIV = try reader.bytes(size)
                }
            }
        }
        entry.codec = try codec(of: entry.format, boxes: boxes, in: bytes)
        return entry
    }

    private static func codec(of format: String, boxes: [MP4Box], in bytes: [UInt8]) throws(MP4Structure) -> Codec {
        switch format {
        case "avc1", "avc3":
            guard let avcC = boxes.first(where: { $0.type == "avcC" }) else { return .other(format) }
            var reader = ByteReader(bytes, avcC.payload)
            try reader.skip(4)
            let lengthSize = Int(try reader.u8() & 3) + 1
            let spsCount = Int(try reader.u8() & 31)
            for _ in 0..<spsCount { try reader.skip(Int(try reader.u16())) }
            var ids: Set<Int> = []
            for _ in 0..<Int(try reader.u8()) {
                let nal = try reader.bytes(Int(try reader.u16()))
                var bits = BitReader(nal.dropFirst())
                if let id = bits.exponentialGolomb() { ids.insert(id) }
            }
            return .avc(lengthSize: lengthSize, pictureParameterSets: ids)
        case "hvc1", "hev1":
            guard let hvcC = boxes.first(where: { $0.type == "hvcC" }), hvcC.payload.count > 21 else { return .other(format) }
            return .hevc(lengthSize: Int(bytes[hvcC.payload.lowerBound + 21] & 3) + 1)
        case "mp4a":
            guard let esds = boxes.first(where: { $0.type == "esds" }),
                  let config = try decoderSpecificInfo(in: Array(bytes[esds.payload].dropFirst(4))), config.count >= 2 else {
                return .other(format)
            }
            var bits = BitReader(config[...])
            guard var objectType = bits.read(5) else { return .other(format) }
            if objectType == 31 { objectType = 32 + (bits.read(6) ?? 0) }
            guard let frequencyIndex = bits.read(4) else { return .other(format) }
            if frequencyIndex == 15 { _ = bits.read(24) }
            guard let channels = bits.read(4) else { return .other(format) }
            return .aac(objectType: objectType, frequencyIndex: frequencyIndex, channels: channels)
        default:
            return .other(format)
        }
    }

    /// The DecoderSpecificInfo (tag 5) among an ES_Descriptor's descriptors (ISO/IEC 14496-1 7.2.6).
    private static func decoderSpecificInfo(in descriptors: [UInt8]) throws(MP4Structure) -> [UInt8]? {
        var reader = ByteReader(descriptors, 0..<descriptors.count)
        while reader.remaining > 2 {
            let tag = try reader.u8()
            var size = 0
            for _ in 0..<4 {
                let byte = try reader.u8()
                size = size << 7 | Int(byte & 0x7f)
                if byte & 0x80 == 0 { break }
            }
            switch tag {
            case 3:
                // ES_Descriptor: ES_ID, flags, then the optional fields the flags name.
                try reader.skip(2)
                let flags = try reader.u8()
                if flags & 0x80 != 0 { try reader.skip(2) }
                if flags & 0x40 != 0 { try reader.skip(Int(try reader.u8())) }
                if flags & 0x20 != 0 { try reader.skip(2) }
            case 4:
                try reader.skip(13)
            case 5:
                return try reader.bytes(min(size, reader.remaining))
            default:
                try reader.skip(min(size, reader.remaining))
            }
        }
        return nil
    }
}
