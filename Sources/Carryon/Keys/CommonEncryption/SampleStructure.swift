/// Whether a decrypted sample has its codec's structure where its bytes were encrypted: the
/// evidence that a key is right or wrong. A wrong key turns encrypted bytes into noise, which
/// breaks what a codec requires of them:
/// - H.264 and H.265: NAL unit lengths that add up to the sample, headers with the forbidden bit
///   clear and a known type, and a picture's first slice saying so (`first_mb_in_slice` 0,
///   `first_slice_segment_in_pic_flag` 1) with a slice type and parameter set that exist;
/// - AAC: a raw data block starting with the element its channel configuration calls for,
///   `ics_info` with its reserved bit clear and no more scale factor bands than the rate has.
///
/// Only fields whose bytes were encrypted count: a clear field says nothing about the key.
enum SampleStructure {
    enum Finding: Equatable {
        /// The encrypted fields read as the codec requires.
        case fits
        /// They do not: what is wrong.
        case broken(String)
        /// No field this check reads was encrypted.
        case unknown
    }

    static func check(_ sample: [UInt8], encrypted: [Range<Int>], codec: ProtectedTrack.Codec) -> Finding {
        let isEncrypted = { (range: Range<Int>) -> Bool in encrypted.contains { $0.overlaps(range) } }
        switch codec {
        case let .avc(lengthSize, sets):
            return nalUnits(sample, lengthSize: lengthSize, headerSize: 1, isEncrypted: isEncrypted) { header, body, first in
                let type = Int(header[0] & 31)
                if header[0] & 0x80 != 0 { return .broken("a NAL unit's forbidden bit is set") }
                if type == 0 || type >= 24 { return .broken("a NAL unit of type \(type)") }
                guard (type == 1 || type == 5), first else { return nil }
                var bits = BitReader(body)
                guard let firstMacroblock = bits.exponentialGolomb(), let sliceType = bits.exponentialGolomb(),
                      let pictureSet = bits.exponentialGolomb() else { return .broken("a slice header ends early") }
                if firstMacroblock != 0 { return .broken("the first slice of a picture starts at macroblock \(firstMacroblock)") }
                if sliceType > 9 { return .broken("a slice of type \(sliceType)") }
                if type == 5 && ![2, 4, 7, 9].contains(sliceType) { return .broken("an IDR slice of type \(sliceType)") }
                if !sets.isEmpty && !sets.contains(pictureSet) { return .broken("a slice names picture parameter set \(pictureSet)") }
                return .fits
            } headerReach: { 1 + $0 }
        case let .hevc(lengthSize):
            return nalUnits(sample, lengthSize: lengthSize, headerSize: 2, isEncrypted: isEncrypted) { header, body, first in
                let type = Int(header[0] >> 1 & 63)
                if header[0] & 0x80 != 0 { return .broken("a NAL unit's forbidden bit is set") }
                if (header[1] & 7) == 0 { return .broken("a NAL unit's temporal id is -1") }
                if (41...47).contains(type) { return .broken("a NAL unit of reserved type \(type)") }
                guard type < 32, first, let flag = body.first.map({ $0 >> 7 }) else { return nil }
                return flag == 1 ? .fits : .broken("a picture's first slice segment does not say it is first")
            } headerReach: { 2 + $0 }
        case let .aac(objectType, frequencyIndex, channels):
            return aac(sample, objectType: objectType, frequencyIndex: frequencyIndex, channels: channels,
                       encrypted: isEncrypted(0..<min(sample.count, 4)))
        case .other:
            return .unknown
        }
    }

    /// Walks the NAL units: `unit` judges one (header bytes, the rest, whether it is the
    /// sample's first VCL unit) or returns nil; only units whose judged bytes were encrypted count.
    private static func nalUnits(_ sample: [UInt8], lengthSize: Int, headerSize: Int, isEncrypted: (Range<Int>) -> Bool,
                                 unit: ([UInt8], ArraySlice<UInt8>, Bool) -> Finding?,
                                 headerReach: (Int) -> Int) -> Finding {
        var position = 0
        var finding = Finding.unknown
        var firstVCL = true
        while position < sample.count {
            let lengthRange = position..<(position + lengthSize)
            guard lengthRange.upperBound <= sample.count else {
                return isEncrypted(lengthRange.clamped(to: 0..<sample.count)) ? .broken("a NAL unit's length is cut off") : finding
            }
            let length = sample[lengthRange].reduce(0) { $0 << 8 | Int($1) }
            let body = (lengthRange.upperBound)..<(lengthRange.upperBound + length)
            guard length >= headerSize, body.upperBound <= sample.count else {
                return isEncrypted(lengthRange) ? .broken("a NAL unit's length (\(length)) runs past the sample") : finding
            }
            let header = Array(sample[body.lowerBound..<(body.lowerBound + headerSize)])
            let rest = sample[(body.lowerBound + headerSize)..<body.upperBound]
            // The fields a judgement reads: the header, and a slice header's first bytes.
            let judged = body.lowerBound..<min(body.upperBound, body.lowerBound + headerReach(4))
            if isEncrypted(lengthRange) || isEncrypted(judged), let judgement = unit(header, rest, firstVCL) {
                if case .broken = judgement { return judgement }
                finding = .fits
            }
            let isVCL = headerSize == 1 ? [1, 5].contains(Int(header[0] & 31)) : Int(header[0] >> 1 & 63) < 32
            if isVCL { firstVCL = false }
            position = body.upperBound
        }
        return finding
    }

    /// The number of scale factor bands of a long window by sampling frequency index
    /// (ISO/IEC 14496-3 4.5.4, `num_swb_long_window`).
    private static let longBands = [41, 41, 47, 49, 49, 51, 47, 47, 43, 43, 43, 40, 40]

    private static func aac(_ sample: [UInt8], objectType: Int, frequencyIndex: Int, channels: Int, encrypted: Bool) -> Finding {
        guard encrypted, (1...7).contains(channels), [1, 2, 4, 5, 29].contains(objectType) else { return .unknown }
        var bits = BitReader(sample[...])
        guard let element = bits.read(3), let tag = bits.read(4) else { return .broken("a raw data block ends early") }
        let expected = channels == 2 ? 1 : 0
        guard element == expected else {
            return .broken("a raw data block starts with element \(element), not the \(expected == 1 ? "channel pair" : "single channel") its \(channels) channels start with")
        }
        guard tag == 0 else { return .broken("the first element's instance tag is \(tag)") }
        if element == 1 {
            guard let common = bits.read(1) else { return .broken("a raw data block ends early") }
            if common == 0 { _ = bits.read(8) }
        } else {
            _ = bits.read(8)
        }
        guard let reserved = bits.read(1), let sequence = bits.read(2), bits.read(1) != nil else {
            return .broken("ics_info ends early")
        }
        guard reserved == 0 else { return .broken("ics_info's reserved bit is set") }
        if sequence == 2 {
            guard let bands = bits.read(4) else { return .broken("ics_info ends early") }
            return bands <= 15 ? .fits : .broken("\(bands) short-window bands")
        }
        guard let bands = bits.read(6), let predictor = bits.read(1) else { return .broken("ics_info ends early") }
        if frequencyIndex < longBands.count, bands > longBands[frequencyIndex] {
            return .broken("\(bands) scale factor bands where the rate has \(longBands[frequencyIndex])")
        }
        if objectType == 2 || objectType == 5 || objectType == 29, predictor != 0 { return .broken("AAC-LC with prediction") }
        return .fits
    }
}
