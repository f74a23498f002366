import ArgumentParser
import WidgetModel

/// A surface as the command line spells it: `lock-screen`, like the option and setting
/// names; the wire's `lockScreen` is accepted too. Help, completion and text output
/// show the first spelling only.
struct SurfaceName: ExpressibleByArgument, Equatable {
    /// The surface meant.
    let surface: Surface

    /// The default, the home screen.
    static let homeScreen = SurfaceName(surface: .homeScreen)

    init(surface: Surface) { self.surface = surface }

    /// Either spelling: `always-on` or `alwaysOn`.
    init?(argument: String) {
        guard let surface = Surface.allCases.first(where: { Self.spelling(of: $0) == argument || $0.rawValue == argument })
        else { return nil }
        self.surface = surface
    }

    /// The spelling shown, e.g. `lock-screen`.
    var defaultValueDescription: String { Self.spelling(of: surface) }

    /// Every surface, as shown (help and shell completion).
    static var allValueStrings: [String] { Surface.allCases.map(spelling(of:)) }

    /// The shells offer the shown spellings.
    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }

    /// `lockScreen` → `lock-screen`.
    static func spelling(of surface: Surface) -> String { CommandLineSpelling.kebab(surface.rawValue) }
}

/// The command line's one spelling style: lower-case words joined by `-`.
enum CommandLineSpelling {
    /// `lockScreenWidgets` → `lock-screen-widgets`; text already in that style is unchanged.
    static func kebab(_ camel: String) -> String {
        var result = ""
        for character in camel {
            if character.isUppercase {
                if !result.isEmpty { result.append("-") }
                result += character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }
}
