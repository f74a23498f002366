import FoundationEssentials
import Logging
import WidgetdPOSIX

/// The user's systemd manager (its private socket, else the user's bus):
/// `org.freedesktop.systemd1.Manager.StartUnit`
/// for providers started on demand (``UnitStarter``). The connection is made at the first
/// start and made again after it is lost; each start is asynchronous, so the loop never
/// waits for systemd. Loop only.
final class SystemdUserManager: UnitStarter {
    private let loop: EventLoop
    private let logger: Logger
    private var connection: BusConnection?

    init(loop: EventLoop, logger: Logger) {
        self.loop = loop
        self.logger = logger
    }

    /// `StartUnit(unit, "replace")`: a start already queued or a unit running is left as it is.
    func start(_ unit: String) {
        let log = logger.with("unit", unit)
        do throws(SystemError) {
            if connection?.isOpen != true {
                let failed = { (error: any Error) in
                    log.warning("provider unit not started", event: "provider_unit_failed", error: error)
                }
                // The manager's own socket first, as `systemctl --user` does: a user
                // without a session bus still has it. Then the user's bus.
                do {
                    connection = try BusConnection(.userManager, loop: loop, failed: failed)
                } catch {
                    connection = try BusConnection(.user, loop: loop, failed: failed)
                }
            }
            try connection?.call(
                to: "org.freedesktop.systemd1", "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager", "StartUnit",
                arguments: [unit, "replace"]
            ) { _ in
                log.info("provider unit started", event: "provider_unit_started")
            }
        } catch {
            connection = nil
            log.warning("provider unit not started", event: "provider_unit_failed", error: error)
        }
    }
}
