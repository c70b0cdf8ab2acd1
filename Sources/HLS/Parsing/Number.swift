/// Numbers as HLS writes them: decimal integers and decimal floating point without exponents.
enum Number {
    /// A decimal-integer: one or more digits that fit in `Int`. Nil otherwise.
    static func decimalInteger<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Int? {
        if bytes.isEmpty { return nil }
        var value = 0
        for byte in bytes {
            let digit = Int(byte &- UInt8(ascii: "0"))
            guard digit >= 0, digit <= 9 else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(digit)
            if overflow1 || overflow2 { return nil }
            value = sum
        }
        return value
    }

    /// A decimal-floating-point (`[0-9]+(.[0-9]*)?`), or with `signed`, a
    /// signed-decimal-floating-point (optional leading `-`). Nil otherwise, and for values
    /// too large to be finite.
    static func decimalFloat(_ bytes: UnsafeBufferPointer<UInt8>, signed: Bool = false) -> Double? {
        // Fast path for what playlists hold (`6.006`, `10`, `-2.5`): at most 15 digits in all,
        // so the digits make an exact integer and one division by an exact power of ten is
        // correctly rounded (as below). Anything else takes the general path.
        if let base = bytes.baseAddress, bytes.count <= 17 {
            let count = bytes.count
            var index = 0
            let negative = signed && count > 0 && base[0] == UInt8(ascii: "-")
            if negative { index = 1 }
            var mantissa: UInt64 = 0
            let integerStart = index
            while index < count {
                let digit = base[index] &- UInt8(ascii: "0")
                if digit > 9 { break }
                mantissa = mantissa &* 10 &+ UInt64(digit)
                index += 1
            }
            var digits = index - integerStart
            var fractionDigits = 0
            if index < count, base[index] == UInt8(ascii: ".") {
                index += 1
                let fractionStart = index
                while index < count {
                    let digit = base[index] &- UInt8(ascii: "0")
                    if digit > 9 { break }
                    mantissa = mantissa &* 10 &+ UInt64(digit)
                    index += 1
                }
                fractionDigits = index - fractionStart
                digits += fractionDigits
            }
            guard index == count, digits > 0 else { return nil }
            if digits <= 15 {
                let value = Double(mantissa) / powerOfTen(fractionDigits)
                return negative ? -value : value
            }
        }
        var index = 0
        var negative = false
        if signed, index < bytes.count, bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var fractionDigits = 0
        var digits = 0
        var seenPoint = false
        var exact = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                if seenPoint { return nil }
                seenPoint = true
            } else {
                let digit = byte &- UInt8(ascii: "0")
                guard digit <= 9 else { return nil }
                digits += 1
                if mantissa != 0 || digit != 0 { significantDigits += 1 }
                if significantDigits <= 15 {
                    mantissa = mantissa * 10 + UInt64(digit)
                    if seenPoint { fractionDigits += 1 }
                } else if !seenPoint || digit != 0 {
                    exact = false
                }
            }
            index += 1
        }
        guard digits > 0 else { return nil }
        if exact && fractionDigits <= 22 {
            // Clinger's fast path: both operands are exact, so the quotient is correctly rounded.
            let value = Double(mantissa) / powerOfTen(fractionDigits)
            return negative ? -value : value
        }
        guard let value = Double(String(decoding: bytes, as: UTF8.self)), value.isFinite else { return nil }
        return value
    }

    /// Whether `bytes` are exactly what ``format(_:)`` writes for the number they read as: no
    /// sign, no zero before another integer digit, a fraction that does not end in zero, and at
    /// most 15 digits in all (so that no shorter text reads back as the same value).
    static func isCanonical(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = bytes.count
        guard count > 0, count <= 16 else { return false }
        var index = 0
        while index < count, bytes[index] &- UInt8(ascii: "0") <= 9 { index += 1 }
        guard index > 0, index == 1 || bytes[0] != UInt8(ascii: "0") else { return false }
        if index == count { return count <= 15 }
        guard bytes[index] == UInt8(ascii: "."), index + 1 < count else { return false }
        index += 1
        while index < count, bytes[index] &- UInt8(ascii: "0") <= 9 { index += 1 }
        return index == count && bytes[count - 1] != UInt8(ascii: "0")
    }

    static func decimalFloat(_ text: some StringProtocol, signed: Bool = false) -> Double? {
        var text = String(text)
        return text.withUTF8 { decimalFloat($0, signed: signed) }
    }

    /// A decimal integer as careless packagers write it — with white space around it
    /// (`EXT-X-VERSION: 3`), as a decimal number (`1280000.0`, rounded to the nearest integer) or
    /// negative (0 is assumed) — read with a warning, or in strict mode refused.
    ///
    /// - Parameters:
    ///   - bytes: The value as written, which is not a plain decimal integer.
    ///   - what: The tag or attribute, for the message.
    /// - Throws: ``TagError`` when no integer can be read, or in strict mode.
    static func lenientInteger<Bytes: Collection<UInt8>>(_ bytes: Bytes, what: String, recoveries: Recoveries) throws(TagError) -> Int {
        let written = String(decoding: bytes, as: UTF8.self)
        let text = written.trimmingWhiteSpace
        if let number = decimalInteger(text.utf8) {
            try recoveries.recover("space-in-value", .invalidValue, "\(what): white space around the value \(text) is ignored")
            return number
        }
        guard let number = decimalFloat(text, signed: true), abs(number) < 0x1p62 else {
            throw TagError(.invalidValue, "\(what): \"\(written)\" is not a decimal integer")
        }
        if number < 0 {
            try recoveries.recover("negative", .invalidValue, "\(what): \(text) is negative; 0 is assumed")
            return 0
        }
        let rounded = Int(number.rounded())
        try recoveries.recover("integer-as-float", .invalidValue, "\(what): \(text) is not a decimal integer; read as \(rounded)")
        return rounded
    }

    /// 10 to the power `exponent`, exactly, for 0...22 (the powers a Double holds exactly).
    static func powerOfTen(_ exponent: Int) -> Double {
        switch exponent {
        case 0: 1e0
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        case 15: 1e15
        case 16: 1e16
        case 17: 1e17
        case 18: 1e18
        case 19: 1e19
        case 20: 1e20
        case 21: 1e21
        case 22: 1e22
        default: preconditionFailure("10^\(exponent) is not exact in a Double")
        }
    }

    /// Writes a double as HLS decimal floating point: the shortest text that reads back as the
    /// same value, without an exponent; integral values without a fraction.
    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 {
            return String(Int(value))
        }
        let text = value.description
        guard let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) else { return text }
        // Expand `d.ddde±x` into plain digits.
        var mantissa = text[..<e]
        let exponent = Int(text[text.index(after: e)...])!
        var sign = ""
        if mantissa.hasPrefix("-") {
            sign = "-"
            mantissa = mantissa.dropFirst()
        }
        let pointOffset = mantissa.firstIndex(of: ".").map { mantissa.distance(from: mantissa.startIndex, to: $0) }
            ?? mantissa.count
        let digits = Array(mantissa.filter { $0 != "." })
        let point = pointOffset + exponent
        var result = sign
        if point <= 0 {
            result += "0." + String(repeating: "0", count: -point) + String(digits)
        } else if point >= digits.count {
            result += String(digits) + String(repeating: "0", count: point - digits.count)
        } else {
            result += String(digits[..<point]) + "." + String(digits[point...])
        }
        return result
    }
}

extension String {
    /// The text without spaces and tabs at either end.
    var trimmingWhiteSpace: String {
        let utf8 = self.utf8
        guard let first = utf8.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }),
              let last = utf8.lastIndex(where: { $0 != 0x20 && $0 != 0x09 })
        else { return "" }
        return String(self[first...last])
    }
}
