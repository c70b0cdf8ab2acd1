/// The attributes of `EXT-X-KEY` and `EXT-X-SESSION-KEY` (RFC 8216bis sections 4.4.4.4 and
/// 4.4.6.5): how media segments are encrypted and where to get the key.
public struct Key: Sendable, Hashable {
    /// The encryption method. Required.
    public var method: KeyMethod
    /// Where to obtain the key. Required unless the method is `NONE`.
    public var uri: String?
    /// An explicit 128-bit initialization vector. When absent, AES-128 segments use their media
    /// sequence number as the IV.
    public var iv: HexSequence?
    /// How the key is represented at `uri`; absent means `identity` (the raw 16 bytes).
    public var keyFormat: String?
    /// Versions of `keyFormat` the key conforms to, `/`-separated (e.g. `1/2/5`).
    public var keyFormatVersions: String?
    /// Attributes not listed above.
    public var otherAttributes: [Attribute]

    /// Creates the attributes of an `EXT-X-KEY` or `EXT-X-SESSION-KEY` tag.
    ///
    /// Unlike parsing, this checks nothing: give a `uri` unless `method` is ``KeyMethod/none``, and
    /// an `iv` of at most 16 bytes.
    public init(method: KeyMethod, uri: String? = nil, iv: HexSequence? = nil, keyFormat: String? = nil,
                keyFormatVersions: String? = nil, otherAttributes: [Attribute] = []) {
        self.method = method
        self.uri = uri
        self.iv = iv
        self.keyFormat = keyFormat
        self.keyFormatVersions = keyFormatVersions
        self.otherAttributes = otherAttributes
    }

    /// The key format, with the default `identity` when none is given.
    public var effectiveKeyFormat: String { keyFormat ?? "identity" }

    init(reading reader: inout AttributeReader) throws(TagError) {
        let methodText = try reader.enumerated(required: "METHOD")
        let known: [KeyMethod] = [.none, .aes128, .sampleAES, .sampleAESCTR]
        if let upper = known.first(where: { $0.rawValue == methodText.uppercased() }), upper.rawValue != methodText {
            try reader.recover("lower-case", .invalidValue, "\(reader.tag): METHOD=\(methodText) is written in lower case; read as \(upper.rawValue)")
            method = upper
        } else {
            method = KeyMethod(rawValue: methodText)
        }
        uri = try reader.uri()
        iv = try reader.hex("IV")
        keyFormat = try reader.string("KEYFORMAT")
        keyFormatVersions = try reader.string("KEYFORMATVERSIONS")
        otherAttributes = reader.rest()
        if method != .none, uri == nil {
            throw TagError(.missingValue, "\(reader.tag) with METHOD=\(method) lacks the required attribute URI")
        }
        if let iv, iv.bytes.count > 16 {
            throw TagError(.invalidValue, "\(reader.tag): IV=\(iv) is longer than 128 bits")
        }
        if method == .none, uri != nil || iv != nil || keyFormat != nil {
            try reader.recover("key-none-attributes", .structure, "\(reader.tag) with METHOD=NONE should have no other attributes; they are ignored")
        }
    }

    func write(to writer: inout AttributeWriter) throws(PlaylistError) {
        writer.token("METHOD", method.rawValue)
        try writer.string("URI", uri)
        writer.token("IV", iv?.description)
        try writer.string("KEYFORMAT", keyFormat)
        try writer.string("KEYFORMATVERSIONS", keyFormatVersions)
        try writer.other(otherAttributes)
    }
}

/// The attributes of `EXT-X-MAP`: the media initialization section of the segments that follow
/// (RFC 8216bis section 4.4.4.5).
public struct Map: Sendable, Hashable {
    /// The resource holding the initialization section. Required.
    public var uri: String
    /// The sub-range of the resource, when the section is only part of it.
    public var byteRange: ByteRange?
    /// Attributes not listed above.
    public var otherAttributes: [Attribute]

    /// Creates the attributes of an `EXT-X-MAP` tag. Give `byteRange` an offset: ``MediaPlaylist``
    /// reads a range without one as starting at 0, with a warning.
    public init(uri: String, byteRange: ByteRange? = nil, otherAttributes: [Attribute] = []) {
        self.uri = uri
        self.byteRange = byteRange
        self.otherAttributes = otherAttributes
    }

    init(reading reader: inout AttributeReader) throws(TagError) {
        uri = try reader.uri(required: "URI")
        byteRange = try reader.byteRange("BYTERANGE")
        otherAttributes = reader.rest()
    }

    func write(to writer: inout AttributeWriter) throws(PlaylistError) {
        try writer.string("URI", uri)
        try writer.string("BYTERANGE", byteRange?.description)
        try writer.other(otherAttributes)
    }
}
