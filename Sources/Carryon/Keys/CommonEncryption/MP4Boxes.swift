/// The boxes of an ISO base media file (ISO/IEC 14496-12 4.2) in a byte buffer: enough to read a
/// protected track's sample entries from an init section and its samples from a fragment.
struct MP4Box {
    /// The four-character type (`moov`, `traf`).
    var type: String
    /// The box's contents after its header, as offsets in the buffer.
    var payload: Range<Int>
    /// Where the box's header starts.
    var start: Int

    /// The boxes one after another in `bytes[range]`.
    ///
    /// - Throws: ``MP4Structure`` when a box's size runs past the range or is too small.
    static func children(of bytes: [UInt8], in range: Range<Int>) throws(MP4Structure) -> [MP4Box] {
        var boxes: [MP4Box] = []
        var position = range.lowerBound
        while position + 8 <= range.upperBound {
            var reader = ByteReader(bytes, from: position, to: range.upperBound)
            var size = UInt64(try reader.u32())
            let type = String(decoding: try reader.bytes(4), as: UTF8.self)
            if size == 1 {
                size = try reader.u64()
            } else if size == 0 {
                size = UInt64(range.upperBound - position)
            }
            let header = reader.position - position
            guard size >= UInt64(header), size <= UInt64(range.upperBound - position) else {
                throw MP4Structure("a \(type) box of \(size) bytes at byte \(position) runs past its container")
            }
            boxes.append(MP4Box(type: type, payload: reader.position..<(position + Int(size)), start: position))
            position += Int(size)
        }
        return boxes
    }

    /// The first box of `type` among the children of this box.
    func child(_ type: String, in bytes: [UInt8], skipping header: Int = 0) throws(MP4Structure) -> MP4Box? {
        try Self.children(of: bytes, in: (payload.lowerBound + header)..<payload.upperBound).first { $0.type == type }
    }

    /// The box at the end of `path` (`["moov", "trak"]`), each the first of its type in the last.
    static func find(_ path: [String], in bytes: [UInt8], range: Range<Int>) throws(MP4Structure) -> MP4Box? {
        var current = range
        var found: MP4Box?
        for type in path {
            guard let box = try children(of: bytes, in: current).first(where: { $0.type == type }) else { return nil }
            found = box
            current = box.payload
        }
        return found
    }
}

/// A file's structure does not hold: what, where.
struct MP4Structure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Big-endian fields read one after another.
struct ByteReader {
    let bytes: [UInt8]
    private(set) var position: Int
    let end: Int

    init(_ bytes: [UInt8], from position: Int, to end: Int) {
        self.bytes = bytes
        self.position = position
        self.end = end
    }

    init(_ bytes: [UInt8], _ range: Range<Int>) {
        self.init(bytes, from: range.lowerBound, to: range.upperBound)
    }

    var remaining: Int { end - position }

    mutating func u8() throws(MP4Structure) -> UInt8 {
        try need(1)
        defer { position += 1 }
        return bytes[position]
    }

    mutating func u16() throws(MP4Structure) -> UInt16 {
        UInt16(try u8()) << 8 | UInt16(try u8())
    }

    mutating func u32() throws(MP4Structure) -> UInt32 {
        UInt32(try u16()) << 16 | UInt32(try u16())
    }

    mutating func u64() throws(MP4Structure) -> UInt64 {
        UInt64(try u32()) << 32 | UInt64(try u32())
    }

    mutating func bytes(_ count: Int) throws(MP4Structure) -> [UInt8] {
        try need(count)
        defer { position += count }
        return Array(bytes[position..<(position + count)])
    }

    mutating func skip(_ count: Int) throws(MP4Structure) {
        try need(count)
        position += count
    }

    private func need(_ count: Int) throws(MP4Structure) {
        guard count >= 0, count <= remaining else {
            throw MP4Structure("a field of \(count) bytes at byte \(position) runs past its box")
        }
    }
}

/// Bits read most significant first, with the Exp-Golomb codes of H.264 and H.265.
struct BitReader {
    let bytes: ArraySlice<UInt8>
    private(set) var bit = 0

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    /// The byte the next bit is in, counted from the start of the slice.
    var byteOffset: Int { bit / 8 }

    mutating func read(_ count: Int) -> Int? {
        var value = 0
        for _ in 0..<count {
            guard bit / 8 < bytes.count else { return nil }
            let byte = bytes[bytes.startIndex + bit / 8]
            value = value << 1 | Int(byte >> (7 - UInt8(bit % 8)) & 1)
            bit += 1
        }
        return value
    }

    /// An unsigned Exp-Golomb code (`ue(v)`); nil past the end or beyond 31 leading zeros.
    mutating func exponentialGolomb() -> Int? {
        var zeros = 0
        while true {
            guard let next = read(1) else { return nil }
            if next == 1 { break }
            zeros += 1
            if zeros > 31 { return nil }
        }
        guard let rest = read(zeros) else { return nil }
        return (1 << zeros) - 1 + rest
    }
}
