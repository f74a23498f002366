// scripts/test-gnome's helper: NEVER shipped, installed only in the test's private home.
//
// - global.context.unsafe_mode: org.gnome.Shell.Eval and the Screenshot interface answer
//   the test (they refuse everyone outside unsafe mode).
// - IBusManager._spawn a no-op: a headless shell spawning ibus-daemon (with a JS
//   child_setup from a threaded process) hung about 6 starts in 15 here; without it,
//   none in 25.
// It is listed first in enabled-extensions, so that it runs before the IBus manager
// spawns anything.

/* exported init */

const IBusManager = imports.misc.ibusManager;

function init() {
    return {
        enable() {
            global.context.unsafe_mode = true;
            IBusManager.IBusManager.prototype._spawn = function () {};
        },
        disable() {},
    };
}
