"""widgetd's own providers: the device's calendar, player and battery as widgets.

Each provider is a module with a ``main()``: :mod:`.eds` (evolution-data-server,
``org.widgetd.calendar``), :mod:`.mpris` (MPRIS players, ``org.widgetd.media``),
:mod:`.upower` (UPower, ``org.widgetd.power``). What each shows is a pure function
of what its source said, in :mod:`.calendar`, :mod:`.media` and :mod:`.power`;
:mod:`.link` writes it to widgetd; :mod:`.text` cleans what sources send.
"""
