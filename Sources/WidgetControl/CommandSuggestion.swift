import ArgumentParser

/// "Did you mean …" for a mistyped command, as git and systemctl say it.
enum CommandSuggestion {
    /// The commands `widgetctl` takes first on its line.
    static var commandNames: [String] {
        let commands: [any ParsableCommand.Type] = [
            Widgetctl.Status.self, Widgetctl.Unlock.self, Widgetctl.Lock.self, Widgetctl.Passcode.self,
            Widgetctl.Settings.self, Widgetctl.Wipe.self, Widgetctl.Monitor.self, Widgetctl.Put.self,
            Widgetctl.Append.self, Widgetctl.Timeline.self, Widgetctl.Delete.self, Widgetctl.Providers.self,
            Widgetctl.List.self, Widgetctl.Get.self, Widgetctl.Watch.self, Widgetctl.Reload.self,
            Widgetctl.Introspect.self, Widgetctl.Call.self, Widgetctl.Actions.self, Widgetctl.Act.self,
        ]
        return commands.map { $0._commandName } + ["help"]
    }

    /// The first word of `arguments` that stands where a command does, when it names
    /// none: options and the value of `--socket` are passed over.
    static func unknownCommand(in arguments: [String]) -> String? {
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let word = arguments[index]
            if word == "--" { return nil }
            if word == "--socket" {
                index += 2
                continue
            }
            if word.hasPrefix("-") {
                index += 1
                continue
            }
            return commandNames.contains(word) ? nil : word
        }
        return nil
    }

    /// The command nearest `word`: one that starts with it, else the one fewest edits
    /// away when that is at most a third of the word (at least 1, as in `stauts`).
    static func closest(to word: String) -> String? {
        let names = commandNames.filter { $0 != "help" }
        if word.count >= 2, let prefixed = names.first(where: { $0.hasPrefix(word) }) { return prefixed }
        let scored = names.map { (name: $0, distance: distance(word, $0)) }.min { $0.distance < $1.distance }
        guard let scored, scored.distance <= max(1, word.count / 3) + (word.count >= 5 ? 1 : 0) else { return nil }
        return scored.name
    }

    /// Damerau–Levenshtein (optimal string alignment) distance: a swap of two
    /// neighbouring letters, the commonest slip, costs one edit.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
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
