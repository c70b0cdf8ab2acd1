/// Columns of text, left-aligned, for the human output of commands (cells may be coloured).
struct TextTable {
    private var rows: [[String]]

    /// A table whose first row is `header`; none when it is empty.
    init(_ header: [String]) {
        rows = header.isEmpty ? [] : [header]
    }

    mutating func add(_ row: [String]) {
        rows.append(row)
    }

    func render(indent: Int) -> String {
        let columns = rows.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columns)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], Terminal.visibleWidth(cell)) }
        }
        var out = ""
        let pad = String(repeating: " ", count: indent)
        for row in rows {
            var line = pad
            for (index, cell) in row.enumerated() {
                line += cell
                if index < row.count - 1 { line += String(repeating: " ", count: widths[index] - Terminal.visibleWidth(cell) + 2) }
            }
            out += line + "\n"
        }
        return out
    }
}
