/// The `---completion` requests the generated completion scripts send back to widgetctl.
///
/// swift-argument-parser expects `---completion [SUBCOMMAND…] -- ARGUMENT WORD-INDEX
/// CURSOR-INDEX WORD…`. Its fish script asks fish for the cursor's offset in the
/// current word with `commandline -tC`, which fish 3 (Debian 12 has 3.6) answers with
/// nothing, so the request arrives without it and the parser rejects it. The cursor is
/// then at the end of the word (fish 3 passes the words only up to it), so that is
/// put in, and every other line is left as it is.
enum CompletionRequest {
    /// `arguments`, with the cursor offset that fish 3 leaves out supplied.
    static func normalized(_ arguments: [String]) -> [String] {
        guard arguments.first == "---completion", let separator = arguments.firstIndex(of: "--") else { return arguments }
        let wordIndexAt = separator + 2, cursorAt = separator + 3
        guard cursorAt < arguments.count, let wordIndex = Int(arguments[wordIndexAt]), Int(arguments[cursorAt]) == nil
        else { return arguments }
        let words = arguments[cursorAt...]
        let current = words.index(words.startIndex, offsetBy: wordIndex, limitedBy: words.endIndex)
            .flatMap { $0 < words.endIndex ? words[$0] : nil } ?? ""
        var result = arguments
        result.insert(String(current.count), at: cursorAt)
        return result
    }
}
