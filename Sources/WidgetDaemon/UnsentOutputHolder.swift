import VarlinkTransport

/// Who holds the replies written but not yet sent (the ``VarlinkServer``): the service
/// has it drop those their readers may no longer read, whenever a class key is purged or
/// a timeline stops being open (``TimelineService/dropUnreadableOutput()``), and all of
/// them when the store is wiped. Loop only.
protocol UnsentOutputHolder: AnyObject {
    /// Zeroes the unsent output of every connection holding a reply whose tag
    /// `unreadable` says its reader may no longer read, and closes those connections. A
    /// tag the service did not make is unreadable (``OutputTag``).
    func dropUnsentOutput(where unreadable: (any OutputTag) -> Bool)
}

extension VarlinkServer: UnsentOutputHolder {}
