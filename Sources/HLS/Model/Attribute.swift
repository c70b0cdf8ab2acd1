/// One `NAME=VALUE` pair of an attribute list (RFC 8216bis section 4.2), as written.
///
/// Known attributes are decoded into the typed properties of their tag; others — client
/// attributes (`X-…`) and attributes this parser does not know — are kept as `Attribute`s and
/// written back after the known ones.
public struct Attribute: Sendable, Hashable {
    /// The attribute name, e.g. `BANDWIDTH`.
    public var name: String
    /// The value as written.
    public var value: AttributeValue

    /// Creates an attribute with the given name and value, as they are to be written.
    public init(name: String, value: AttributeValue) {
        self.name = name
        self.value = value
    }
}

/// An attribute value as written: quoted, or an unquoted token.
public enum AttributeValue: Sendable, Hashable, CustomStringConvertible {
    /// A quoted-string, without its quotes.
    case quoted(String)
    /// An unquoted token: a decimal integer or float, a hexadecimal sequence, a resolution or an
    /// enumerated string, exactly as written.
    case token(String)

    /// The text of the value without quotes.
    public var text: String {
        switch self {
        case .quoted(let text), .token(let text): text
        }
    }

    /// The value as it appears in an attribute list.
    public var description: String {
        switch self {
        case .quoted(let text): "\"\(text)\""
        case .token(let text): text
        }
    }
}

/// A `WIDTHxHEIGHT` resolution, e.g. `1920x1080`.
public struct Resolution: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The width in pixels.
    public var width: Int
    /// The height in pixels.
    public var height: Int

    /// Creates a resolution of `width` by `height` pixels.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Parses `WxH` (e.g. `1280x720`); nil when the text is not two decimal integers around `x`.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "x", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2,
              let width = Number.decimalInteger(parts[0].utf8),
              let height = Number.decimalInteger(parts[1].utf8)
        else { return nil }
        self.init(width: width, height: height)
    }

    /// The number of pixels, for ordering; `Int.max` when the product does not fit.
    public var pixels: Int {
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? .max : product
    }

    public static func < (lhs: Resolution, rhs: Resolution) -> Bool {
        (lhs.pixels, lhs.width) < (rhs.pixels, rhs.width)
    }

    public var description: String { "\(width)x\(height)" }
}

/// A `<length>[@<offset>]` byte range of `EXT-X-BYTERANGE`, or of the `BYTERANGE` attribute of
/// `EXT-X-MAP` and `EXT-X-PART`.
public struct ByteRange: Sendable, Hashable, CustomStringConvertible {
    /// The number of bytes.
    public var length: Int
    /// The offset of the first byte from the start of the resource; when nil, the range starts
    /// right after the previous segment's (or part's) range of the same resource.
    public var offset: Int?

    /// Creates a range of `length` bytes that starts at `offset`, or, when `offset` is nil, right
    /// after the previous range of the same resource.
    public init(length: Int, offset: Int? = nil) {
        self.length = length
        self.offset = offset
    }

    /// Parses `n[@o]`; nil when malformed.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        guard let length = Number.decimalInteger(parts[0].utf8) else { return nil }
        if parts.count == 2 {
            guard let offset = Number.decimalInteger(parts[1].utf8) else { return nil }
            self.init(length: length, offset: offset)
        } else {
            self.init(length: length)
        }
    }

    public var description: String {
        if let offset { "\(length)@\(offset)" } else { "\(length)" }
    }
}

/// A hexadecimal-sequence attribute value (`0x…`), such as an initialization vector.
public struct HexSequence: Sendable, Hashable, CustomStringConvertible {
    /// The bytes, most significant first.
    public var bytes: [UInt8]

    /// Creates a sequence of the given bytes, most significant first.
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// Parses `0x` or `0X` followed by hexadecimal digits; an odd number of digits is read as if
    /// it had a leading zero. Nil when malformed.
    public init?(_ text: some StringProtocol) {
        let utf8 = Array(text.utf8)
        guard utf8.count > 2, utf8[0] == UInt8(ascii: "0"),
              utf8[1] == UInt8(ascii: "x") || utf8[1] == UInt8(ascii: "X")
        else { return nil }
        var digits = utf8[2...].map { $0 }
        if digits.count % 2 == 1 { digits.insert(UInt8(ascii: "0"), at: 0) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else {
                return nil
            }
            bytes.append(high << 4 | low)
            index += 2
        }
        self.bytes = bytes
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `0x` followed by upper-case hexadecimal digits, two per byte.
    public var description: String {
        let digits: [Character] = Array("0123456789ABCDEF")
        var text = "0x"
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return text
    }

    /// The 16-byte initialization vector HLS derives from a media sequence number: the number as
    /// a big-endian 128-bit integer (RFC 8216bis section 5.2).
    public static func iv(mediaSequence: Int) -> HexSequence {
        var bytes = [UInt8](repeating: 0, count: 16)
        let value = UInt64(truncatingIfNeeded: mediaSequence)
        for index in 0..<8 {
            bytes[15 - index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))
        }
        return HexSequence(bytes: bytes)
    }
}
