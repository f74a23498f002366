import ArgumentParser
@testable import WidgetControl

extension Widgetctl {
    /// Every subcommand that runs something, with the words that name it (`passcode set`).
    static var runnableCommands: [(path: [String], type: any WidgetctlCommand.Type)] {
        func walk(_ type: any ParsableCommand.Type, _ path: [String]) -> [(path: [String], type: any WidgetctlCommand.Type)] {
            let configuration = type.configuration
            var found: [(path: [String], type: any WidgetctlCommand.Type)] = []
            if let runnable = type as? any WidgetctlCommand.Type { found.append((path, runnable)) }
            for subcommand in configuration.subcommands {
                found += walk(subcommand, path + [subcommand._commandName])
            }
            return found
        }
        return walk(Widgetctl.self, [])
    }
}
