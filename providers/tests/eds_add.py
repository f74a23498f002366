"""Adds an event to evolution-data-server's local calendar from a process of its own
(a process whose libecal saw the calendar factory die keeps asking the dead one):
``eds_add.py SUMMARY START END [LOCATION]`` (Unix times) prints the new event's uid."""

import sys

import gi

gi.require_version("ECal", "2.0")
gi.require_version("EDataServer", "1.2")
gi.require_version("ICalGLib", "3.0")
from gi.repository import ECal, EDataServer, ICalGLib  # noqa: E402

summary, start, end = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
registry = EDataServer.SourceRegistry.new_sync(None)
client = ECal.Client.connect_sync(registry.ref_builtin_calendar(), ECal.ClientSourceType.EVENTS, 1, None)
component = ICalGLib.Component.new_vevent()
component.set_summary(summary)
if len(sys.argv) > 4:
    component.set_location(sys.argv[4])
utc = ICalGLib.Timezone.get_utc_timezone()
component.set_dtstart(ICalGLib.Time.new_from_timet_with_zone(start, 0, utc))
component.set_dtend(ICalGLib.Time.new_from_timet_with_zone(end, 0, utc))
print(client.create_object_sync(component, ECal.OperationFlags.NONE, None)[1])
