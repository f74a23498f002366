import ArgumentParser
import WidgetdWire

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

    /// The command nearest `word` (``NameSuggestion``).
    static func closest(to word: String) -> String? {
        NameSuggestion.closest(to: word, among: commandNames.filter { $0 != "help" })
    }

    /// The settings `widgetctl settings set` takes, as the command line spells them.
    static let settingNames = ["lock-screen-widgets", "hide-sensitive-complications"]

    /// The word after `settings set` when it names no setting (options passed over).
    static func unknownSetting(in arguments: [String]) -> String? {
        var words: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let word = arguments[index]
            if word == "--" { break }
            if word == "--socket" { index += 2; continue }
            if !word.hasPrefix("-") { words.append(word) }
            index += 1
        }
        guard words.count >= 3, words[0] == "settings", words[1] == "set" else { return nil }
        let known = settingNames + ["lockScreenWidgets", "hideSensitiveComplications", "help"]
        return known.contains(words[2]) ? nil : words[2]
    }
}
