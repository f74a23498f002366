import Glibc
import WidgetControl

exit(WidgetControl.main())
