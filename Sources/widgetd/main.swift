import Glibc
import WidgetDaemon

exit(Daemon.main())
