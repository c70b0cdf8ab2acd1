/// A Segment Index box (`sidx`, ISO/IEC 14496-12 8.16.3): where each subsegment of a file
/// lies and how long it plays. SegmentBase addressing reads one from `@indexRange`; a
/// reference may point at another `sidx` (a hierarchical index), which is read in turn.
public struct SegmentIndex: Sendable, Hashable {
    /// One reference: media bytes, or another index.
    public struct Reference: Sendable, Hashable {
        /// Whether it points at another `sidx` rather than media.
        public var isIndex: Bool
        /// The bytes it covers, absolute in the file.
        public var range: ByteRange
        /// Its duration in ``SegmentIndex/timescale`` units.
        public var duration: Int64
    }

    /// Units per second of the durations.
    public var timescale: Int64
    /// The presentation time of the first reference.
    public var earliestPresentationTime: Int64
    /// The references in order.
    public var references: [Reference]

    /// Every `sidx` box in `bytes`, which were read from `offset` in the file (top-level boxes
    /// of other types are skipped).
    ///
    /// - Throws: ``MPDError`` when `bytes` hold no `sidx` or a box is cut short.
    public static func parse(_ bytes: [UInt8], at offset: Int64) throws(MPDError) -> [SegmentIndex] {
        var reader = BoxReader(bytes: bytes)
        var indexes: [SegmentIndex] = []
        while reader.position + 8 <= bytes.count {
            let boxStart = reader.position
            guard var size = reader.uint32().map(Int64.init), let type = reader.fourCC() else { break }
            if size == 1 {
                guard let large = reader.uint64(), large <= UInt64(Int64.max) else { throw MPDError(line: nil, "a box in the segment index has an impossible size") }
                size = Int64(large)
            } else if size == 0 {
                size = Int64(bytes.count - boxStart)
            }
            guard size >= 8, size <= Int64(bytes.count) - Int64(boxStart) else {
                throw MPDError(line: nil, "the \(type) box at byte \(offset.addingReportingOverflow(Int64(boxStart)).partialValue) runs past the \(bytes.count) bytes of the index range")
            }
            let boxEnd = boxStart + Int(size)
            if type == "sidx" {
                let (anchor, overflow) = offset.addingReportingOverflow(Int64(boxEnd))
                guard !overflow else { throw MPDError(line: nil, "the sidx box's offset in its file is past the numbers Carryon computes with") }
                indexes.append(try sidx(&reader, anchor: anchor, boxEnd: boxEnd))
            }
            reader.position = boxEnd
        }
        guard !indexes.isEmpty else {
            throw MPDError(line: nil, "the index range holds no sidx box")
        }
        return indexes
    }

    private static func sidx(_ reader: inout BoxReader, anchor: Int64, boxEnd: Int) throws(MPDError) -> SegmentIndex {
        let truncated = MPDError(line: nil, "the sidx box is cut short")
        guard let versionAndFlags = reader.uint32(), reader.uint32() != nil, let timescale = reader.uint32(), timescale > 0 else { throw truncated }
        let version = versionAndFlags >> 24
        let earliest: UInt64, firstOffset: UInt64
        if version == 0 {
            guard let time = reader.uint32(), let first = reader.uint32() else { throw truncated }
            (earliest, firstOffset) = (UInt64(time), UInt64(first))
        } else {
            guard let time = reader.uint64(), let first = reader.uint64() else { throw truncated }
            (earliest, firstOffset) = (time, first)
        }
        guard reader.uint16() != nil, let count = reader.uint16(), earliest <= UInt64(Int64.max), firstOffset < UInt64(Int64.max / 2) else { throw truncated }
        guard reader.position + Int(count) * 12 <= boxEnd else { throw truncated }
        var references: [Reference] = []
        references.reserveCapacity(Int(count))
        let tooFar = MPDError(line: nil, "the sidx box names bytes past the numbers Carryon computes with")
        var (position, overflow) = anchor.addingReportingOverflow(Int64(firstOffset))
        guard !overflow else { throw tooFar }
        for _ in 0..<count {
            guard let typeAndSize = reader.uint32(), let duration = reader.uint32(), reader.uint32() != nil else { throw truncated }
            let size = Int64(typeAndSize & 0x7FFF_FFFF)
            guard size > 0 else { throw MPDError(line: nil, "the sidx box has a reference of 0 bytes") }
            // The next byte after the reference must fit too: a range's length and the byte
            // after it are computed later.
            let next: Int64
            (next, overflow) = position.addingReportingOverflow(size)
            guard !overflow, next < .max else { throw tooFar }
            references.append(Reference(isIndex: typeAndSize >> 31 == 1, range: ByteRange(first: position, last: next - 1),
                                        duration: Int64(duration)))
            position = next
        }
        return SegmentIndex(timescale: Int64(timescale), earliestPresentationTime: Int64(earliest), references: references)
    }
}

/// Big-endian reads over a box's bytes.
struct BoxReader {
    let bytes: [UInt8]
    var position = 0

    mutating func uint16() -> UInt16? {
        guard position + 2 <= bytes.count else { return nil }
        defer { position += 2 }
        return UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1])
    }

    mutating func uint32() -> UInt32? {
        guard position + 4 <= bytes.count else { return nil }
        defer { position += 4 }
        return bytes[position..<(position + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func uint64() -> UInt64? {
        guard let high = uint32(), let low = uint32() else { return nil }
        return UInt64(high) << 32 | UInt64(low)
    }

    mutating func fourCC() -> String? {
        guard position + 4 <= bytes.count else { return nil }
        defer { position += 4 }
        return String(decoding: bytes[position..<(position + 4)], as: UTF8.self)
    }
}
