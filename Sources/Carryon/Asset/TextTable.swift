/// Columns of text, left-aligned, for the human output of commands (cells may be coloured).
package struct TextTable {
    private var rows: [[String]]

    /// A table whose first row is `header`; none when it is empty.
    package init(_ header: [String]) {
        rows = header.isEmpty ? [] : [header]
    }

    package mutating func add(_ row: [String]) {
        rows.append(row)
    }

    package func render(indent: Int) -> String {
        let columns = rows.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columns)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], Self.visibleWidth(cell)) }
        }
        var out = ""
        let pad = String(repeating: " ", count: indent)
        for row in rows {
            var line = pad
            for (index, cell) in row.enumerated() {
                line += cell
                if index < row.count - 1 { line += String(repeating: " ", count: widths[index] - Self.visibleWidth(cell) + 2) }
            }
            out += line + "\n"
        }
        return out
    }

    /// The columns `text` takes on a terminal: its characters, less its ANSI colour escapes.
    package static func visibleWidth(_ text: String) -> Int {
        var width = 0
        var inEscape = false
        // ASCII without a carriage return (which joins a line feed into one character): a
        // byte is a character, counted without breaking graphemes (a table of 10,000 rows).
        if text.utf8.allSatisfy({ $0 < 0x80 && $0 != 0x0D }) {
            for byte in text.utf8 {
                if inEscape {
                    if byte == UInt8(ascii: "m") { inEscape = false }
                } else if byte == 0x1B {
                    inEscape = true
                } else {
                    width += 1
                }
            }
            return width
        }
        for character in text {
            if inEscape {
                if character == "m" { inEscape = false }
            } else if character == "\u{1B}" {
                inEscape = true
            } else {
                width += 1
            }
        }
        return width
    }
}
