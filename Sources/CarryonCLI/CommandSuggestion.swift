import ArgumentParser

/// What `carryon` says to a word where a command belongs that names none: `carryon wrokers`.
///
/// ArgumentParser suggests the nearest option for a mistyped one (`--jsno`: "Did you mean
/// '--json'?") but says only "Unexpected argument" for a mistyped command. Here the word is
/// named as no command, with the nearest commands when a slip of one or two keys explains it.
enum CommandSuggestion {
    /// The usage error for `arguments` (without the program's name) when one of them stands where
    /// `root` or one of its groups (`keys`) expects a command and names none; nil otherwise, and
    /// then the parser has its say. A group with a default command takes any word, so it is left
    /// to the parser, and so is everything from the first option on.
    static func unknownCommand(in arguments: [String], root: any ParsableCommand.Type) -> String? {
        var command = root
        var path = [root._commandName]
        for word in arguments {
            let configuration = command.configuration
            guard !configuration.subcommands.isEmpty, configuration.defaultSubcommand == nil, !word.hasPrefix("-") else { return nil }
            if let next = configuration.subcommands.first(where: { $0._commandName == word || $0.configuration.aliases.contains(word) }) {
                command = next
                path.append(word)
                continue
            }
            guard word != "help" else { return nil }
            let names = configuration.subcommands.flatMap { [$0._commandName] + $0.configuration.aliases }
            let near = nearest(to: word, among: names)
            let group = path.joined(separator: " ")
            let suggestion = near.isEmpty ? "" : " Did you mean \(near.map { "'\($0)'" }.joined(separator: " or "))?"
            return """
                Error: '\(word)' is not a \(group) command.\(suggestion)
                Usage: \(group) <subcommand>
                  See '\(group) --help' for more information.
                """
        }
        return nil
    }

    /// The names a slip explains `word` by, nearest first and in their order among equals: at
    /// most one edit away for a word of up to four letters, two for a longer one. An edit is a
    /// letter added, dropped, changed, or two neighbours swapped (`wrokers`: `workers`).
    static func nearest(to word: String, among names: [String]) -> [String] {
        let allowed = word.count <= 4 ? 1 : 2
        let distances = names.map { (name: $0, distance: editDistance(word.lowercased(), $0)) }.filter { $0.distance <= allowed }
        guard let least = distances.map(\.distance).min() else { return [] }
        return distances.filter { $0.distance == least }.map(\.name)
    }

    /// The optimal string alignment distance: insertions, deletions, substitutions and
    /// transpositions of neighbours, each costing one.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
