import Glibc
import WidgetdCommand

exit(Widgetd.main(arguments: Array(CommandLine.arguments.dropFirst())))
