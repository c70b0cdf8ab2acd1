/// The encrypted samples of one track in a media segment (its `moof`/`mdat` pairs): each
/// sample's bytes, IV and subsamples from the fragment's `senc` box (ISO/IEC 23001-7 7.2).
struct ProtectedSample {
    /// The sample's bytes, encrypted.
    var bytes: [UInt8]
    /// The IV: the sample's own (8 or 16 bytes), or the entry's constant IV.
    var iv: [UInt8]
    /// (clear bytes, protected bytes) pairs; empty when the whole sample is protected.
    var subsamples: [(clear: Int, protected: Int)]
    /// The sample entry it is described by.
    var entry: ProtectedTrack.Entry

    /// The samples of `track` in the segment `bytes` that are encrypted.
    ///
    /// - Throws: ``MP4Structure`` when the fragment does not hold together, or names its samples'
    ///   protection in a way this reading does not follow (sample groups, `saio` alone).
    static func encrypted(of track: ProtectedTrack, in bytes: [UInt8]) throws(MP4Structure) -> [ProtectedSample] {
        var found: [ProtectedSample] = []
        for moof in try MP4Box.children(of: bytes, in: 0..<bytes.count) where moof.type == "moof" {
            for traf in try MP4Box.children(of: bytes, in: moof.payload) where traf.type == "traf" {
                found += try samples(of: track, traf: traf, moofStart: moof.start, in: bytes)
            }
        }
        return found
    }

    private static func samples(of track: ProtectedTrack, traf: MP4Box, moofStart: Int, in bytes: [UInt8]) throws(MP4Structure) -> [ProtectedSample] {
        let boxes = try MP4Box.children(of: bytes, in: traf.payload)
        guard let tfhd = boxes.first(where: { $0.type == "tfhd" }) else { throw MP4Structure("a traf box has no tfhd") }
        var header = ByteReader(bytes, tfhd.payload)
        let flags = try header.u32() & 0xffffff
        guard try header.u32() == track.trackID else { return [] }
        var base = moofStart
        if flags & 0x1 != 0 {
            let offset = try header.u64()
            guard offset <= UInt64(bytes.count) else { throw MP4Structure("a base data offset of \(offset) past the segment's \(bytes.count) bytes") }
            base = Int(offset)
        }
        var description = track.defaultDescription
        if flags & 0x2 != 0 { description = try header.u32() }
        if flags & 0x8 != 0 { try header.skip(4) }
        var defaultSize = track.defaultSampleSize
        if flags & 0x10 != 0 { defaultSize = try header.u32() }
        guard description >= 1, Int(description) <= track.entries.count else {
            throw MP4Structure("a fragment names sample description \(description) of \(track.entries.count)")
        }
        let entry = track.entries[Int(description) - 1]
        guard entry.isProtected, entry.scheme != nil else { return [] }
        for group in boxes where group.type == "sgpd" || group.type == "sbgp" {
            var reader = ByteReader(bytes, group.payload)
            try reader.skip(4)
            if try reader.bytes(4) == Array("seig".utf8) {
                throw MP4Structure("its samples' protection changes by sample group (seig)")
            }
        }
        // Every trun's samples: where each starts, how long it is.
        var spans: [Range<Int>] = []
        var next = base
        for trun in boxes where trun.type == "trun" {
            var reader = ByteReader(bytes, trun.payload)
            let trunFlags = try reader.u32() & 0xffffff
            let count = Int(try reader.u32())
            // Each sample takes at least a byte of the segment, or a field of the trun.
            guard count <= bytes.count else { throw MP4Structure("a trun of \(count) samples in a segment of \(bytes.count) bytes") }
            if trunFlags & 0x1 != 0 { next = base + Int(Int32(bitPattern: try reader.u32())) }
            if trunFlags & 0x4 != 0 { try reader.skip(4) }
            for _ in 0..<count {
                if trunFlags & 0x100 != 0 { try reader.skip(4) }
                let size = trunFlags & 0x200 != 0 ? Int(try reader.u32()) : Int(defaultSize)
                if trunFlags & 0x400 != 0 { try reader.skip(4) }
                if trunFlags & 0x800 != 0 { try reader.skip(4) }
                guard next >= 0, size >= 0, next <= bytes.count, size <= bytes.count - next else {
                    throw MP4Structure("a sample of \(size) bytes at byte \(next) runs past the segment")
                }
                spans.append(next..<(next + size))
                next += size
            }
        }
        guard let senc = boxes.first(where: { $0.type == "senc" }) else {
            throw MP4Structure("its encrypted samples' IVs are not in a senc box")
        }
        var reader = ByteReader(bytes, senc.payload)
        let sencFlags = try reader.u32() & 0xffffff
        let count = Int(try reader.u32())
        guard count == spans.count else {
            throw MP4Structure("senc describes \(count) samples, the fragment has \(spans.count)")
        }
        var samples: [ProtectedSample] = []
        for span in spans {
            let iv = entry.ivSize > 0 ? try reader.bytes(entry.ivSize) : entry.constantIV ?? []
            var subsamples: [(clear: Int, protected: Int)] = []
            if sencFlags & 0x2 != 0 {
                for _ in 0..<Int(try reader.u16()) {
                    subsamples.append((Int(try reader.u16()), Int(try reader.u32())))
                }
                guard subsamples.reduce(0, { $0 + $1.clear + $1.protected }) == span.count else {
                    throw MP4Structure("a sample's subsamples do not add up to its \(span.count) bytes")
                }
            }
            samples.append(ProtectedSample(bytes: Array(bytes[span]), iv: iv, subsamples: subsamples, entry: entry))
        }
        return samples
    }
}
