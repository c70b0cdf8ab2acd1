/// ISO 8601 durations as MPDs write them (`PT1H2M3.456S`, `P1DT12H`, `PT0S`), read exactly into
/// microseconds.
enum ISODuration {
    /// Microseconds per second: the timescale durations are read into.
    static let timescale: Int64 = 1_000_000

    /// `text` as a time, or nil when it is not an ISO 8601 duration. Years and months, which
    /// have no fixed length, count as 365 and 30 days, as players take them.
    static func parse(_ text: String) -> MediaTime? {
        var rest = Substring(text.trimmingCharacters())
        var negative = false
        if rest.hasPrefix("-") { negative = true; rest.removeFirst() }
        guard rest.hasPrefix("P") else { return nil }
        rest.removeFirst()
        var total: Int64 = 0
        var inTime = false
        var sawComponent = false
        while !rest.isEmpty {
            if rest.first == "T" {
                guard !inTime else { return nil }
                inTime = true
                rest.removeFirst()
                continue
            }
            var number = ""
            while let character = rest.first, character.isASCII, character.isNumber || character == "." || character == "," {
                number.append(character == "," ? "." : character)
                rest.removeFirst()
            }
            guard !number.isEmpty, let unit = rest.first, let micros = microseconds(number) else { return nil }
            rest.removeFirst()
            let seconds: Int64
            switch (unit, inTime) {
            case ("Y", false): seconds = 365 * 86_400
            case ("M", false): seconds = 30 * 86_400
            case ("W", false): seconds = 7 * 86_400
            case ("D", false): seconds = 86_400
            case ("H", true): seconds = 3_600
            case ("M", true): seconds = 60
            case ("S", true): seconds = 1
            default: return nil
            }
            let (part, overflow) = micros.multipliedReportingOverflow(by: seconds)
            guard !overflow else { return nil }
            let (sum, sumOverflow) = total.addingReportingOverflow(part)
            guard !sumOverflow else { return nil }
            total = sum
            sawComponent = true
        }
        guard sawComponent else { return nil }
        return MediaTime(negative ? -total : total, timescale: timescale)
    }

    /// `12.5` as 12_500_000 microseconds (digits past the sixth decimal dropped).
    private static func microseconds(_ number: String) -> Int64? {
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = Int64(parts[0].isEmpty ? "0" : String(parts[0])) else { return nil }
        var fraction: Int64 = 0
        if parts.count == 2 {
            let digits = parts[1].prefix(6)
            guard digits.allSatisfy(\.isNumber) else { return nil }
            fraction = Int64(digits.padding(toLength: 6)) ?? 0
        }
        let (scaled, overflow) = whole.multipliedReportingOverflow(by: 1_000_000)
        guard !overflow else { return nil }
        return scaled + fraction
    }
}

extension String {
    func trimmingCharacters() -> String {
        String(Substring(self).trimmingWhitespace())
    }
}

extension Substring {
    func padding(toLength length: Int) -> String {
        count >= length ? String(self) : String(self) + String(repeating: "0", count: length - count)
    }
}
