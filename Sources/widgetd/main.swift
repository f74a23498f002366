import Glibc
import WidgetControl
import WidgetdCommand

// One program for both commands, as systemd's udevadm is also systemd-udevd: the
// Swift runtime and FoundationEssentials, nearly all of each binary's 16 MB, are then
// installed once, and `make install` makes widgetctl a symbolic link to widgetd.
// Called by that name (argv[0]'s last component), it is the client; by any other, the
// daemon.
if CommandLine.arguments.first?.split(separator: "/").last == "widgetctl" {
    exit(WidgetControl.main())
}
exit(Widgetd.main(arguments: Array(CommandLine.arguments.dropFirst())))
