/// A small, strict-about-safety and lenient-about-form XML reader for MPDs: elements,
/// attributes, text, CDATA and the predefined and numeric character references. It never reads
/// anything but the bytes it is given.
///
/// What it refuses, before building anything: a `DOCTYPE` that declares entities (an external
/// entity would read a local file; nested internal ones expand to gigabytes, the "billion
/// laughs"), nesting deeper than ``maximumDepth``. What it reads past, with a warning: an end tag
/// that closes the wrong element, elements left open at the end, an unquoted attribute value, an
/// unknown entity reference (kept as written), a second root element.
///
///     let root = try XMLReader.read(Array("<MPD type=\"static\"><Period/></MPD>".utf8))
///     root.element.name  // "MPD"
public enum XMLReader {
    /// Deeper nesting than any MPD needs (an MPD is at most seven levels deep).
    public static let maximumDepth = 64

    /// A document read: its root element and what was read past.
    public struct Document: Sendable {
        /// The root element.
        public var element: Element
        /// What was read past.
        public var warnings: [MPDWarning]
    }

    /// Reads `bytes` (UTF-8, with or without a byte order mark) into its root element.
    ///
    /// - Throws: ``MPDError`` for a document with no root element, entity declarations, or
    ///   nesting past ``maximumDepth``.
    public static func read(_ bytes: [UInt8]) throws(MPDError) -> Document {
        var scanner = Scanner(bytes: bytes)
        return try scanner.document()
    }

    private struct Open {
        var element: Element
        var qualifiedName: String
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        var line = 1
        var warnings: [MPDWarning] = []

        init(bytes: [UInt8]) {
            self.bytes = bytes
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        }

        mutating func document() throws(MPDError) -> Document {
            var stack: [Open] = []
            var root: Element?
            while index < bytes.count {
                if bytes[index] != UInt8(ascii: "<") {
                    // White space between elements is no element's text.
                    if let text = readText(), !stack.isEmpty {
                        stack[stack.count - 1].element.text += text
                    }
                    continue
                }
                if starts(with: "<?") {
                    skip(past: "?>")
                } else if starts(with: "<!--") {
                    skip(past: "-->")
                } else if starts(with: "<![CDATA[") {
                    index += 9
                    let start = index
                    skip(past: "]]>")
                    let end = max(start, index - 3)
                    if !stack.isEmpty {
                        stack[stack.count - 1].element.text += String(decoding: bytes[start..<min(end, bytes.count)], as: UTF8.self)
                    }
                } else if starts(with: "<!") {
                    try doctype()
                } else if starts(with: "</") {
                    let tagLine = line
                    index += 2
                    let name = readName()
                    skip(past: ">")
                    guard let position = stack.lastIndex(where: { $0.qualifiedName == name }) else {
                        warnings.append(MPDWarning(line: tagLine, "the end tag </\(name)> closes no open element; ignored"))
                        continue
                    }
                    if position != stack.count - 1 {
                        let unclosed = stack[(position + 1)...].map { "<\($0.qualifiedName)>" }.joined(separator: ", ")
                        warnings.append(MPDWarning(line: tagLine, "the end tag </\(name)> closes \(unclosed) too, which were not closed"))
                    }
                    while stack.count > position {
                        close(&stack, into: &root)
                    }
                } else {
                    let (open, selfClosing) = try startTag()
                    if stack.isEmpty && root != nil {
                        warnings.append(MPDWarning(line: open.element.line, "a second root element <\(open.qualifiedName)> after the first; ignored"))
                        if !selfClosing { skipElement(open.qualifiedName) }
                        continue
                    }
                    guard stack.count < XMLReader.maximumDepth else {
                        throw MPDError(line: open.element.line, "elements are nested deeper than \(XMLReader.maximumDepth) levels")
                    }
                    stack.append(open)
                    if selfClosing { close(&stack, into: &root) }
                }
            }
            if !stack.isEmpty {
                warnings.append(MPDWarning(line: line, "the document ends with \(stack.map { "<\($0.qualifiedName)>" }.joined(separator: ", ")) not closed"))
                while !stack.isEmpty { close(&stack, into: &root) }
            }
            guard let root else {
                throw MPDError(line: nil, "the document has no root element")
            }
            return Document(element: root, warnings: warnings)
        }

        private func close(_ stack: inout [Open], into root: inout Element?) {
            let finished = stack.removeLast().element
            if stack.isEmpty {
                root = root ?? finished
            } else {
                stack[stack.count - 1].element.children.append(finished)
            }
        }

        /// Skips everything up to the end tag of an element (for an ignored second root).
        private mutating func skipElement(_ name: String) {
            var depth = 1
            while index < bytes.count, depth > 0 {
                if starts(with: "</") {
                    index += 2
                    if readName() == name { depth -= 1 }
                } else if starts(with: "<") && !starts(with: "<!") && !starts(with: "<?") {
                    index += 1
                    if readName() == name { depth += 1 }
                } else {
                    advance()
                }
            }
            skip(past: ">")
        }

        /// `<!DOCTYPE …>`: skipped, unless it declares entities, which are refused.
        private mutating func doctype() throws(MPDError) {
            let start = index
            let startLine = line
            var depth = 0
            var inQuote: UInt8?
            while index < bytes.count {
                let byte = bytes[index]
                if let quote = inQuote {
                    if byte == quote { inQuote = nil }
                } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    inQuote = byte
                } else if byte == UInt8(ascii: "<") {
                    depth += 1
                } else if byte == UInt8(ascii: ">") {
                    depth -= 1
                    if depth == 0 { advance(); break }
                }
                advance()
            }
            let declaration = bytes[start..<index]
            if contains(declaration, "<!ENTITY") {
                throw MPDError(line: startLine, "the document's DOCTYPE declares entities; Carryon refuses them (an external entity reads local files, nested ones expand without bound) and read nothing more")
            }
            if contains(declaration, "SYSTEM") || contains(declaration, "PUBLIC") {
                warnings.append(MPDWarning(line: startLine, "the DOCTYPE names an external DTD, which is not read"))
            }
        }

        private func contains(_ haystack: ArraySlice<UInt8>, _ needle: String) -> Bool {
            let pattern = Array(needle.utf8)
            guard haystack.count >= pattern.count else { return false }
            var position = haystack.startIndex
            while position <= haystack.endIndex - pattern.count {
                if haystack[position..<(position + pattern.count)].elementsEqual(pattern) { return true }
                position += 1
            }
            return false
        }

        private mutating func startTag() throws(MPDError) -> (Open, Bool) {
            let tagLine = line
            index += 1
            let qualified = readName()
            var element = Element(name: Self.localName(qualified), line: tagLine)
            while true {
                skipWhitespace()
                guard index < bytes.count else { break }
                if bytes[index] == UInt8(ascii: ">") {
                    index += 1
                    return (Open(element: element, qualifiedName: qualified), false)
                }
                if starts(with: "/>") {
                    index += 2
                    return (Open(element: element, qualifiedName: qualified), true)
                }
                let attributeLine = line
                let name = readName()
                if name.isEmpty {
                    warnings.append(MPDWarning(line: line, "an unexpected character in the start tag of <\(qualified)>; skipped"))
                    advance()
                    continue
                }
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
                    warnings.append(MPDWarning(line: attributeLine, "the attribute \(name) of <\(qualified)> has no value; ignored"))
                    continue
                }
                index += 1
                skipWhitespace()
                let value: String
                if index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") {
                    let quote = bytes[index]
                    index += 1
                    let start = index
                    while index < bytes.count, bytes[index] != quote { advance() }
                    value = decode(bytes[start..<index], line: attributeLine)
                    if index < bytes.count { index += 1 }
                } else {
                    let start = index
                    while index < bytes.count, !Self.isWhitespace(bytes[index]), bytes[index] != UInt8(ascii: ">"),
                          !starts(with: "/>") { advance() }
                    value = decode(bytes[start..<index], line: attributeLine)
                    warnings.append(MPDWarning(line: attributeLine, "the value of \(name) on <\(qualified)> is not quoted"))
                }
                if element.attributes.contains(where: { $0.name == name }) {
                    warnings.append(MPDWarning(line: attributeLine, "<\(qualified)> has the attribute \(name) twice; the first is used"))
                } else {
                    element.attributes.append((name, value))
                }
            }
            warnings.append(MPDWarning(line: tagLine, "the start tag of <\(qualified)> is not closed"))
            return (Open(element: element, qualifiedName: qualified), true)
        }

        /// The text up to the next `<`, or nil when it is only white space.
        private mutating func readText() -> String? {
            let start = index
            let startLine = line
            var blank = true
            while index < bytes.count, bytes[index] != UInt8(ascii: "<") {
                if blank && !Self.isWhitespace(bytes[index]) { blank = false }
                advance()
            }
            return blank ? nil : decode(bytes[start..<index], line: startLine)
        }

        /// Text with its character references replaced.
        private mutating func decode(_ raw: ArraySlice<UInt8>, line: Int) -> String {
            guard raw.contains(UInt8(ascii: "&")) else { return String(decoding: raw, as: UTF8.self) }
            var output: [UInt8] = []
            output.reserveCapacity(raw.count)
            var position = raw.startIndex
            while position < raw.endIndex {
                let byte = raw[position]
                guard byte == UInt8(ascii: "&"),
                      let semicolon = raw[position...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
                    output.append(byte)
                    position += 1
                    continue
                }
                let name = String(decoding: raw[(position + 1)..<semicolon], as: UTF8.self)
                if let replacement = Self.reference(name) {
                    output += Array(replacement.utf8)
                } else {
                    warnings.append(MPDWarning(line: line, "the entity reference &\(name); is not one XML predefines; kept as written"))
                    output += raw[position...semicolon]
                }
                position = semicolon + 1
            }
            return String(decoding: output, as: UTF8.self)
        }

        private static func reference(_ name: String) -> String? {
            switch name {
            case "lt": return "<"
            case "gt": return ">"
            case "amp": return "&"
            case "quot": return "\""
            case "apos": return "'"
            default:
                guard name.hasPrefix("#") else { return nil }
                let digits = name.dropFirst()
                let value = digits.hasPrefix("x") || digits.hasPrefix("X") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
                guard let value, value != 0, let scalar = Unicode.Scalar(value) else { return nil }
                return String(Character(scalar))
            }
        }

        private mutating func readName() -> String {
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if Self.isWhitespace(byte) || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "=")
                    || byte == UInt8(ascii: "<") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") { break }
                index += 1
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        private static func localName(_ qualified: String) -> String {
            let utf8 = qualified.utf8
            guard let colon = utf8.lastIndex(of: UInt8(ascii: ":")) else { return qualified }
            return String(qualified[utf8.index(after: colon)...])
        }

        private static func isWhitespace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
        }

        private mutating func skipWhitespace() {
            while index < bytes.count, Self.isWhitespace(bytes[index]) { advance() }
        }

        private mutating func advance() {
            if bytes[index] == 0x0A { line += 1 }
            index += 1
        }

        private func starts(with prefix: StaticString) -> Bool {
            let count = prefix.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            return prefix.withUTF8Buffer { pattern in
                for offset in 0..<count where bytes[index + offset] != pattern[offset] { return false }
                return true
            }
        }

        /// Moves past the next `terminator`, or to the end.
        private mutating func skip(past terminator: StaticString) {
            while index < bytes.count {
                if starts(with: terminator) {
                    for _ in 0..<terminator.utf8CodeUnitCount { advance() }
                    return
                }
                advance()
            }
        }
    }
}
