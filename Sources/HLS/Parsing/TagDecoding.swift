#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Decoding a known tag's value into its typed ``Tag``, leniently or strictly as the parse's
/// ``Recoveries`` say.
extension Parser {
    /// Tags a player does without: with nothing after the colon, the tag is ignored (with a
    /// warning) rather than the playlist refused.
    static func ignorableWhenEmpty(_ name: TagName) -> Bool {
        switch name {
        case .version, .targetDuration, .mediaSequence, .discontinuitySequence, .bitrate, .playlistType,
             .programDateTime, .start, .dateRange, .sessionData, .partInf, .part, .preloadHint, .skip,
             .contentSteering, .define:
            true
        default:
            false
        }
    }

    mutating func decode(_ name: TagName, value: UnsafeBufferPointer<UInt8>?) throws(TagError) -> Tag {
        let tagName = name.rawValue
        let recoveries = self.recoveries
        if value?.first.map(Parser.isSpace) ?? true, value?.allSatisfy(Parser.isSpace) ?? true,
           Parser.ignorableWhenEmpty(name) {
            try recoveries.recover("empty-value", .missingValue, "\(tagName) has no value after its colon; the tag is ignored")
            return .unknown(name: tagName, value: value.map { String(decoding: $0, as: UTF8.self) })
        }
        func required() throws(TagError) -> UnsafeBufferPointer<UInt8> {
            guard let value, !value.isEmpty else { throw TagError(.missingValue, "\(tagName) needs a value after ':'") }
            return value
        }
        func integer() throws(TagError) -> Int {
            let value = try required()
            if let number = Number.decimalInteger(value) { return number }
            return try Number.lenientInteger(value, what: tagName, recoveries: recoveries)
        }
        /// The attribute list; with `allowingNone`, for tags whose attributes are all optional,
        /// an empty or absent list too (the writer writes `ServerControl()` as an empty list).
        func attributes(allowingNone: Bool = false) throws(TagError) -> AttributeReader {
            if allowingNone, value?.isEmpty ?? true { return AttributeReader([], tag: tagName, recoveries: recoveries) }
            return AttributeReader(try AttributeList.parse(try required(), tag: tagName), tag: tagName, recoveries: recoveries)
        }
        func noValue(_ tag: Tag) throws(TagError) -> Tag {
            guard let value else { return tag }
            if name == .m3u, !value.allSatisfy(Parser.isSpace) {
                try recoveries.recover("header-attributes", .structure,
                    "#EXTM3U carries attributes (\(String(decoding: value, as: UTF8.self).prefix(60))), an IPTV extension; they are ignored")
            } else {
                try recoveries.recover("value-ignored", .structure, "\(tagName) takes no value; the value is ignored")
            }
            return tag
        }
        /// The value as text, white space around it ignored with a warning.
        func trimmedText() throws(TagError) -> String {
            let value = try required()
            var start = 0
            var end = value.count
            while start < end, Parser.isSpace(value[start]) { start += 1 }
            while end > start, Parser.isSpace(value[end - 1]) { end -= 1 }
            if start > 0 || end < value.count {
                try recoveries.recover("space-in-value", .invalidValue, "\(tagName): white space around the value is ignored")
            }
            return String(decoding: UnsafeBufferPointer(rebasing: value[start..<end]), as: UTF8.self)
        }
        switch name {
        case .inf:
            return .inf(try Inf(reading: try required(), recoveries: recoveries))
        case .m3u: return try noValue(.m3u)
        case .version: return .version(try integer())
        case .independentSegments: return try noValue(.independentSegments)
        case .endList: return try noValue(.endList)
        case .iFramesOnly: return try noValue(.iFramesOnly)
        case .discontinuity: return try noValue(.discontinuity)
        case .gap: return try noValue(.gap)
        case .mediaSequence: return .mediaSequence(try integer())
        case .discontinuitySequence: return .discontinuitySequence(try integer())
        case .bitrate: return .bitrate(try integer())
        case .targetDuration:
            let value = try required()
            if let number = Number.decimalInteger(value) { return .targetDuration(number) }
            let text = try trimmedText()
            if let number = Number.decimalInteger(text.utf8) { return .targetDuration(number) }
            if let number = Number.decimalFloat(text), number < Double(Int.max) {
                try recoveries.recover("integer-as-float", .invalidValue,
                    "EXT-X-TARGETDURATION must be a decimal integer; \(Number.format(number)) is read as \(Int(number.rounded(.up)))")
                return .targetDuration(Int(number.rounded(.up)))
            }
            throw TagError(.invalidValue, "EXT-X-TARGETDURATION: \"\(text)\" is not a decimal integer")
        case .playlistType:
            let text = try trimmedText()
            if let type = PlaylistType(rawValue: text) { return .playlistType(type) }
            if let type = PlaylistType(rawValue: text.uppercased()) {
                try recoveries.recover("lower-case", .invalidValue, "EXT-X-PLAYLIST-TYPE: \(text) is written in lower case; read as \(type.rawValue)")
                return .playlistType(type)
            }
            try recoveries.recover("unknown-playlist-type", .invalidValue,
                                   "EXT-X-PLAYLIST-TYPE: \"\(text)\" is neither EVENT nor VOD; the tag is ignored")
            return .unknown(name: tagName, value: value.map { String(decoding: $0, as: UTF8.self) })
        case .byteRange:
            let text = try trimmedText()
            guard let range = ByteRange(text) else {
                throw TagError(.invalidValue, "EXT-X-BYTERANGE: \"\(text)\" is not a byte range (length[@offset])")
            }
            return .byteRange(range)
        case .programDateTime:
            let text = try trimmedText()
            guard let date = DateTime(text) else {
                try recoveries.recover("bad-date", .invalidValue,
                    "EXT-X-PROGRAM-DATE-TIME: \"\(text)\" is not an ISO 8601 date and time with a time zone; the tag is ignored")
                return .unknown(name: tagName, value: value.map { String(decoding: $0, as: UTF8.self) })
            }
            return .programDateTime(date)
        case .start:
            var reader = try attributes()
            return .start(try Start(reading: &reader))
        case .define:
            var reader = try attributes()
            return .define(try Define(reading: &reader))
        case .partInf:
            var reader = try attributes()
            return .partInf(try PartInf(reading: &reader))
        case .serverControl:
            var reader = try attributes(allowingNone: true)
            return .serverControl(try ServerControl(reading: &reader))
        case .key, .sessionKey:
            var reader = try attributes()
            let key = try Key(reading: &reader)
            if name == .sessionKey, key.method == .none {
                throw TagError(.invalidValue, "EXT-X-SESSION-KEY must not have METHOD=NONE")
            }
            return name == .key ? .key(key) : .sessionKey(key)
        case .map:
            var reader = try attributes()
            return .map(try Map(reading: &reader))
        case .part:
            var reader = try attributes()
            return .part(try Part(reading: &reader))
        case .dateRange:
            var reader = try attributes()
            return .dateRange(try DateRange(reading: &reader))
        case .skip:
            var reader = try attributes()
            return .skip(try Skip(reading: &reader))
        case .preloadHint:
            var reader = try attributes()
            return .preloadHint(try PreloadHint(reading: &reader))
        case .renditionReport:
            var reader = try attributes(allowingNone: true)
            return .renditionReport(try RenditionReport(reading: &reader))
        case .media:
            var reader = try attributes()
            return .media(try Rendition(reading: &reader))
        case .streamInf, .iFrameStreamInf:
            var reader = try attributes()
            let stream = try StreamInf(reading: &reader, iFrame: name == .iFrameStreamInf)
            return name == .streamInf ? .streamInf(stream) : .iFrameStreamInf(stream)
        case .sessionData:
            var reader = try attributes()
            return .sessionData(try SessionData(reading: &reader))
        case .contentSteering:
            var reader = try attributes()
            return .contentSteering(try ContentSteering(reading: &reader))
        }
    }
}

extension TagName {
    /// The known tag named by these bytes (the text between `#` and `:`), if any: the one name
    /// of that length with that seventh byte (the sixth for the two of six bytes), if the bytes
    /// are that name.
    static func lookup(_ name: UnsafeBufferPointer<UInt8>) -> TagName? {
        guard let start = name.baseAddress, name.count >= 6 else { return nil }
        let candidate: (name: TagName, text: StaticString)
        switch (name.count, name.count == 6 ? name[5] : name[6]) {
        case (6, UInt8(ascii: "F")): candidate = (.inf, "EXTINF")
        case (6, UInt8(ascii: "U")): candidate = (.m3u, "EXTM3U")
        case (9, UInt8(ascii: "G")): candidate = (.gap, "EXT-X-GAP")
        case (9, UInt8(ascii: "K")): candidate = (.key, "EXT-X-KEY")
        case (9, UInt8(ascii: "M")): candidate = (.map, "EXT-X-MAP")
        case (10, UInt8(ascii: "P")): candidate = (.part, "EXT-X-PART")
        case (10, UInt8(ascii: "S")): candidate = (.skip, "EXT-X-SKIP")
        case (11, UInt8(ascii: "M")): candidate = (.media, "EXT-X-MEDIA")
        case (11, UInt8(ascii: "S")): candidate = (.start, "EXT-X-START")
        case (12, UInt8(ascii: "D")): candidate = (.define, "EXT-X-DEFINE")
        case (13, UInt8(ascii: "B")): candidate = (.bitrate, "EXT-X-BITRATE")
        case (13, UInt8(ascii: "E")): candidate = (.endList, "EXT-X-ENDLIST")
        case (13, UInt8(ascii: "V")): candidate = (.version, "EXT-X-VERSION")
        case (14, UInt8(ascii: "P")): candidate = (.partInf, "EXT-X-PART-INF")
        case (15, UInt8(ascii: "B")): candidate = (.byteRange, "EXT-X-BYTERANGE")
        case (15, UInt8(ascii: "D")): candidate = (.dateRange, "EXT-X-DATERANGE")
        case (16, UInt8(ascii: "S")): candidate = (.streamInf, "EXT-X-STREAM-INF")
        case (17, UInt8(ascii: "S")): candidate = (.sessionKey, "EXT-X-SESSION-KEY")
        case (18, UInt8(ascii: "P")): candidate = (.preloadHint, "EXT-X-PRELOAD-HINT")
        case (18, UInt8(ascii: "S")): candidate = (.sessionData, "EXT-X-SESSION-DATA")
        case (19, UInt8(ascii: "D")): candidate = (.discontinuity, "EXT-X-DISCONTINUITY")
        case (19, UInt8(ascii: "I")): candidate = (.iFramesOnly, "EXT-X-I-FRAMES-ONLY")
        case (19, UInt8(ascii: "P")): candidate = (.playlistType, "EXT-X-PLAYLIST-TYPE")
        case (20, UInt8(ascii: "M")): candidate = (.mediaSequence, "EXT-X-MEDIA-SEQUENCE")
        case (20, UInt8(ascii: "S")): candidate = (.serverControl, "EXT-X-SERVER-CONTROL")
        case (20, UInt8(ascii: "T")): candidate = (.targetDuration, "EXT-X-TARGETDURATION")
        case (22, UInt8(ascii: "C")): candidate = (.contentSteering, "EXT-X-CONTENT-STEERING")
        case (22, UInt8(ascii: "R")): candidate = (.renditionReport, "EXT-X-RENDITION-REPORT")
        case (23, UInt8(ascii: "P")): candidate = (.programDateTime, "EXT-X-PROGRAM-DATE-TIME")
        case (24, UInt8(ascii: "I")): candidate = (.iFrameStreamInf, "EXT-X-I-FRAME-STREAM-INF")
        case (26, UInt8(ascii: "I")): candidate = (.independentSegments, "EXT-X-INDEPENDENT-SEGMENTS")
        case (28, UInt8(ascii: "D")): candidate = (.discontinuitySequence, "EXT-X-DISCONTINUITY-SEQUENCE")
        default: return nil
        }
        // The name as a StaticString (the raw value, which the tests check): compared in place,
        // with nothing made or retained.
        return memcmp(candidate.text.utf8Start, start, name.count) == 0 ? candidate.name : nil
    }
}
