/// A SegmentTemplate's `@media`, `@initialization` or `@index`, split once into literal text and
/// identifiers (`$RepresentationID$`, `$Number$`, `$Time$`, `$Bandwidth$`, `$SubNumber$`, each
/// but the first with an optional printf width, `$Number%05d$`; `$$` is a dollar sign).
///
///     let template = TemplateString("seg-$Number%05d$.m4s")
///     template.expand(.init(representationID: "v1", number: 7))   // "seg-00007.m4s"
public struct TemplateString: Sendable, Hashable {
    enum Part: Sendable, Hashable {
        case literal(String)
        case identifier(String, width: Int)
    }

    var parts: [Part] = []
    /// Identifiers that are not the standard's, or malformed widths, kept as written.
    public private(set) var problems: [String] = []

    /// Splits `text`; what is not an identifier the standard defines stays literal (see
    /// ``problems``).
    public init(_ text: String) {
        var literal = ""
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            literal += rest[..<dollar]
            let after = rest[rest.index(after: dollar)...]
            guard let close = after.firstIndex(of: "$") else {
                problems.append("an unclosed $ in \"\(text)\"")
                literal += rest[dollar...]
                rest = ""
                break
            }
            let body = after[..<close]
            rest = after[after.index(after: close)...]
            if body.isEmpty {
                literal += "$"
                continue
            }
            var name = body
            var width = 1
            if let percent = body.firstIndex(of: "%") {
                name = body[..<percent]
                let format = body[body.index(after: percent)...]
                let digits = format.dropLast()
                if format.hasSuffix("d"), let value = digits.isEmpty ? 1 : Int(digits), (1...32).contains(value) {
                    width = value
                } else {
                    problems.append("the format \"%\(format)\" of $\(name)$ is not %0<width>d; no width used")
                }
            }
            guard ["RepresentationID", "Number", "Time", "Bandwidth", "SubNumber"].contains(String(name)) else {
                problems.append("$\(body)$ is not an identifier the standard defines; kept as written")
                literal += "$\(body)$"
                continue
            }
            if !literal.isEmpty { parts.append(.literal(literal)) }
            literal = ""
            parts.append(.identifier(String(name), width: width))
        }
        literal += rest
        if !literal.isEmpty { parts.append(.literal(literal)) }
    }

    /// The values identifiers take for one segment.
    public struct Values: Sendable {
        /// `$RepresentationID$`.
        public var representationID: String
        /// `$Number$`.
        public var number: Int64 = 0
        /// `$Time$`.
        public var time: Int64 = 0
        /// `$Bandwidth$`.
        public var bandwidth: Int = 0
        /// `$SubNumber$`.
        public var subNumber: Int64 = 1

        /// The values of one segment.
        public init(representationID: String, number: Int64 = 0, time: Int64 = 0, bandwidth: Int = 0, subNumber: Int64 = 1) {
            self.representationID = representationID
            self.number = number
            self.time = time
            self.bandwidth = bandwidth
            self.subNumber = subNumber
        }
    }

    /// The text with every identifier replaced.
    public func expand(_ values: Values) -> String {
        var result = ""
        for part in parts {
            switch part {
            case .literal(let text):
                result += text
            case .identifier(let name, let width):
                let digits: String
                switch name {
                case "RepresentationID": result += values.representationID; continue
                case "Number": digits = String(values.number)
                case "Time": digits = String(values.time)
                case "Bandwidth": digits = String(values.bandwidth)
                default: digits = String(values.subNumber)
                }
                if digits.count < width { result += String(repeating: "0", count: width - digits.count) }
                result += digits
            }
        }
        return result
    }

    /// Whether the template uses `$Time$`.
    public var usesTime: Bool {
        parts.contains { part in
            if case .identifier("Time", _) = part { return true }
            return false
        }
    }
}
