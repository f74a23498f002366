/// "Did you mean …" for a mistyped name (a command, a setting, a configuration key or
/// section), as git and systemctl say it: one rule for widgetctl and the daemon.
public enum NameSuggestion {
    /// The name nearest `word` among `names`: one that starts with it (two letters at
    /// least), else the one fewest edits away when that is at most a quarter of the word
    /// (at least 1, as in `stauts`; one more from five letters), compared without case.
    public static func closest(to word: String, among names: [String]) -> String? {
        if word.count >= 2, let prefixed = names.first(where: { $0.hasPrefix(word) }) { return prefixed }
        let scored = names.map { (name: $0, distance: distance(word.lowercased(), $0.lowercased())) }
            .min { $0.distance < $1.distance }
        guard let scored, scored.distance <= max(1, word.count / 4) + (word.count >= 5 ? 1 : 0) else { return nil }
        return scored.name
    }

    /// Damerau–Levenshtein (optimal string alignment) distance: a swap of two
    /// neighbouring letters, the commonest slip, costs one edit.
    public static func distance(_ a: String, _ b: String) -> Int {
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
