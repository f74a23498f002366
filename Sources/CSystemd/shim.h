#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
// The session monitor talks to logind over the system bus (SessionMonitor.swift).
#include <systemd/sd-bus.h>
