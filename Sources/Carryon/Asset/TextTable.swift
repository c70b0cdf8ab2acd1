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
        // Each cell measured once.
        let cellWidths = rows.map { row in row.map(Self.visibleWidth) }
        for row in cellWidths {
            for (index, width) in row.enumerated() { widths[index] = max(widths[index], width) }
        }
        var out = ""
        let pad = String(repeating: " ", count: indent)
        for (row, rowWidths) in zip(rows, cellWidths) {
            out += pad
            for (index, cell) in row.enumerated() {
                out += cell
                if index < row.count - 1 { out += String(repeating: " ", count: widths[index] - rowWidths[index] + 2) }
            }
            out += "\n"
        }
        return out
    }

    /// The columns `text` takes on a terminal: its characters, less its ANSI colour escapes.
    package static func visibleWidth(_ text: String) -> Int {
        var width = 0
        var inEscape = false
        // ASCII without a carriage return (which joins a line feed into one character): a
        // byte is a character, counted without breaking graphemes (a table of 10,000 rows).
        var ascii = true
        for byte in text.utf8 {
            if byte >= 0x80 || byte == 0x0D {
                ascii = false
                break
            }
            if inEscape {
                if byte == UInt8(ascii: "m") { inEscape = false }
            } else if byte == 0x1B {
                inEscape = true
            } else {
                width += 1
            }
        }
        if ascii { return width }
        width = 0
        inEscape = false
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
