// widgetd@io.widgetd: widgetd's widgets on GNOME Shell 43's lock screen (DESIGN §15).
//
// While the session is locked (session mode "unlock-dialog"; the extension's
// session-modes keep it enabled there), a column of cards is added to
// Main.layoutManager.screenShieldGroup, the lock screen's own group: nothing is drawn
// in the user session, and every connection, card and value is dropped on unlock.
//
// What is shown: the widgets of the `widgets` setting, in its order; none chosen, those
// ListWidgets lists (WatchWidgets follows additions and removals), at most MAX_CARDS.
// Each card follows its widget's io.widgetd.Host.Watch(widget, "lockScreen") stream; a
// widget the lock screen may not show (UnavailableOnSurface) or that does not exist
// has no card.
//
// widgetd absent or restarting leaves the shell untouched: the column is empty and
// hidden, and the extension reconnects with a growing delay (BACKOFF_FIRST_MS doubling
// to BACKOFF_MAX_MS). Everything is GIO async (varlink.js): nothing blocks the shell.

/* exported init */

const {Clutter, GLib, St} = imports.gi;
const ExtensionUtils = imports.misc.extensionUtils;
const Main = imports.ui.main;

const Me = ExtensionUtils.getCurrentExtension();
const {Connection} = Me.imports.varlink;
const {Card} = Me.imports.card;

const HOST = 'io.widgetd.Host';
const SURFACE = 'lockScreen';
const MAX_CARDS = 6;
const MAX_LISTED = 64;
const BACKOFF_FIRST_MS = 250;
const BACKOFF_MAX_MS = 16000;
const WIDTH = 360;

function defaultSocket() {
    return GLib.build_filenamev([GLib.get_user_runtime_dir(), 'widgetd', 'widgetd.sock']);
}

// The cards on the lock screen, and their connections to widgetd.
class LockScreenWidgets {
    constructor(settings) {
        this._settings = settings;
        // screenShieldGroup is a BinLayout: START, so that the box keeps its own size.
        this._box = new St.BoxLayout({vertical: true, style_class: 'widgetd-cards', width: WIDTH,
            visible: false, reactive: true, x_align: Clutter.ActorAlign.START, y_align: Clutter.ActorAlign.START});
        this._box.accessible_name = 'widgetd';
        this._cards = new Map();      // widget id → {card, connection}
        this._infos = new Map();      // widget id → WidgetInfo (as listed)
        this._refused = new Set();    // widgets whose stream failed, until widgetd announces them again
        this._control = null;
        this._retry = 0;
        this._backoff = BACKOFF_FIRST_MS;
        this._generation = 0;
        this._actions = new Set();
        this._watched = [];       // [actor, handler ids...] that _place follows
        this._placeId = 0;
        Main.layoutManager.screenShieldGroup.add_child(this._box);
        this._monitorsId = Main.layoutManager.connect('monitors-changed', () => this._queuePlace());
        this._place();
        this._settingsId = this._settings.connect('changed', () => this._restart());
        this._connect();
    }

    destroy() {
        this._settings.disconnect(this._settingsId);
        Main.layoutManager.disconnect(this._monitorsId);
        this._unfollow();
        if (this._placeId !== 0)
            GLib.source_remove(this._placeId);
        this._reset();
        for (const connection of this._actions)
            connection.close();
        this._actions.clear();
        this._box.destroy();
    }

    // Centred on the primary monitor, below the lock screen's clock: below the last label
    // of the unlock dialog's clock, its hint (shell-internal, hence the fallback). From
    // the allocations, not the transformed position: the dialog slides its clock with a
    // translation while it wakes, and that is no place to stay.
    _place() {
        const monitor = Main.layoutManager.primaryMonitor;
        if (!monitor)
            return;
        const width = Math.min(WIDTH, monitor.width - 32);
        let top = monitor.y + Math.round(monitor.height * 0.6);
        const dialog = Main.screenShield?._dialog;
        const hint = dialog?._clock?._hint;
        this._follow([hint, dialog?._stack]);
        const group = Main.layoutManager.screenShieldGroup;
        if (hint && hint.has_allocation()) {
            let y = hint.height;
            let actor = hint;
            while (actor && actor !== group) {
                y += actor.y;
                actor = actor.get_parent();
            }
            if (actor === group)
                top = Math.round(y + 24);
        }
        this._box.set_width(width);
        this._box.set_position(monitor.x + Math.round((monitor.width - width) / 2), top);
    }

    // Once the current allocation is done, not inside it.
    _queuePlace() {
        if (this._placeId !== 0)
            return;
        this._placeId = GLib.idle_add(GLib.PRIORITY_DEFAULT, () => {
            this._placeId = 0;
            this._place();
            return GLib.SOURCE_REMOVE;
        });
    }

    // Follows the allocations of `actors` (what _place reads), until they go.
    _follow(actors) {
        actors = actors.filter(Boolean);
        if (actors.length === this._watched.length && actors.every((a, i) => a === this._watched[i][0]))
            return;
        this._unfollow();
        this._watched = actors.map(actor => [actor, actor.connect('notify::allocation', () => this._queuePlace()),
            actor.connect('destroy', () => {
                this._watched = this._watched.filter(([a]) => a !== actor);
            })]);
    }

    _unfollow() {
        for (const [actor, ...ids] of this._watched)
            ids.forEach(id => actor.disconnect(id));
        this._watched = [];
    }

    _socket() {
        const path = this._settings.get_string('socket');
        return path !== '' ? path : defaultSocket();
    }

    _chosen() {
        return this._settings.get_strv('widgets');
    }

    // Drops every connection and card (what was shown goes with them).
    _reset() {
        this._generation++;
        if (this._retry !== 0) {
            GLib.source_remove(this._retry);
            this._retry = 0;
        }
        if (this._control) {
            this._control.close();
            this._control = null;
        }
        const cards = [...this._cards.values()];
        this._cards.clear();
        for (const {card, connection} of cards) {
            card.destroy();
            connection.close();
        }
        this._infos.clear();
        this._refused.clear();
        this._sync();
    }

    _restart() {
        this._reset();
        this._backoff = BACKOFF_FIRST_MS;
        this._connect();
    }

    _lost(why) {
        this._reset();
        log(`widgetd: ${why}; retrying in ${this._backoff} ms`);
        const generation = this._generation;
        this._retry = GLib.timeout_add(GLib.PRIORITY_DEFAULT, this._backoff, () => {
            this._retry = 0;
            if (generation === this._generation)
                this._connect();
            return GLib.SOURCE_REMOVE;
        });
        this._backoff = Math.min(this._backoff * 2, BACKOFF_MAX_MS);
    }

    // The control connection: ListWidgets, then WatchWidgets on the same connection.
    _connect() {
        const generation = ++this._generation;
        const control = new Connection(this._socket(), why => {
            if (generation === this._generation)
                this._lost(why);
        });
        this._control = control;
        control.open(error => {
            if (generation !== this._generation)
                return;
            if (error) {
                this._lost(error.message);
                return;
            }
        });
        control.call(`${HOST}.ListWidgets`, {limit: MAX_LISTED}, false, (error, reply) => {
            if (generation !== this._generation || !error && !Array.isArray(reply.widgets))
                return;
            if (error) {
                if (error.error !== 'closed')
                    this._lost(`ListWidgets: ${error.error}`);
                return;
            }
            this._backoff = BACKOFF_FIRST_MS;
            for (const info of reply.widgets) {
                if (info && typeof info.widget === 'string')
                    this._infos.set(info.widget, info);
            }
            this._choose();
        });
        control.call(`${HOST}.WatchWidgets`, {}, true, (error, reply) => {
            if (generation !== this._generation || error)
                return;
            const info = reply.widget;
            if (!info || typeof info.widget !== 'string')
                return;
            this._refused.delete(info.widget);
            if (reply.event === 'removed')
                this._infos.delete(info.widget);
            else if (this._infos.size < MAX_LISTED || this._infos.has(info.widget))
                this._infos.set(info.widget, info);
            this._cards.get(info.widget)?.card.setFamily(info.family ?? null);
            this._choose();
        });
    }

    // The widgets to show now: the chosen ones that exist, in order, or the listed ones.
    _choose() {
        const chosen = this._chosen();
        const wanted = (chosen.length > 0 ? chosen.filter(id => this._infos.has(id)) : [...this._infos.keys()])
            .slice(0, MAX_CARDS);
        for (const [id, {card, connection}] of this._cards) {
            if (!wanted.includes(id)) {
                // Out of the map first: closing answers the stream's pending call at
                // once, and its callback must find the card no longer ours.
                this._cards.delete(id);
                card.destroy();
                connection.close();
            }
        }
        for (const id of wanted) {
            if (!this._cards.has(id) && !this._refused.has(id))
                this._watch(id);
        }
        // In the order wanted.
        wanted.map(id => this._cards.get(id)?.card).filter(card => card?.get_parent() === this._box)
            .forEach((card, index) => this._box.set_child_at_index(card, index));
        this._sync();
    }

    // One widget's Watch stream; the card is added with its first presentation.
    _watch(widget) {
        const generation = this._generation;
        const card = new Card(widget, (id, action, onOutcome) => this._perform(id, action, onOutcome));
        card.setFamily(this._infos.get(widget)?.family ?? null);
        const drop = () => {
            const entry = this._cards.get(widget);
            if (entry && entry.card === card) {
                this._cards.delete(widget);
                entry.connection.close();
                card.destroy();
                this._sync();
            }
        };
        const connection = new Connection(this._socket(), () => {
            this._refused.add(widget);
            drop();
        });
        this._cards.set(widget, {card, connection});
        connection.open(error => {
            if (error)
                drop();
        });
        connection.call(`${HOST}.Watch`, {widget, surface: SURFACE}, true, (error, reply, continues) => {
            // A stale reply: another generation, or a card already dropped (its stream
            // closed by us answers 'closed' at once).
            if (generation !== this._generation || this._cards.get(widget)?.card !== card)
                return;
            if (error || !reply.presentation || typeof reply.presentation !== 'object') {
                this._refused.add(widget);
                drop();
                return;
            }
            if (!card.get_parent()) {
                this._box.add_child(card);
                this._choose();
            }
            card.present(reply.presentation);
            if (!continues)
                drop();
        });
    }

    // PerformAction with "more", on a connection of its own: a held action's final outcome
    // comes on it. `onOutcome(error, outcome)` for each reply.
    _perform(widget, action, onOutcome) {
        const connection = new Connection(this._socket(), null);
        this._actions.add(connection);
        const done = () => {
            connection.close();
            this._actions.delete(connection);
        };
        connection.open(error => {
            if (error)
                done();
        });
        connection.call(`${HOST}.PerformAction`, {widget, surface: SURFACE, action}, true,
            (error, reply, continues) => {
                onOutcome(error, reply?.outcome ?? null);
                if (!continues)
                    done();
            });
    }

    _sync() {
        this._box.visible = [...this._cards.values()].some(({card}) => card.get_parent() === this._box);
    }
}

class Extension {
    constructor() {
        this._settings = null;
        this._view = null;
        this._modeId = 0;
    }

    enable() {
        this._settings = ExtensionUtils.getSettings();
        this._modeId = Main.sessionMode.connect('updated', () => this._sync());
        this._sync();
    }

    disable() {
        if (this._modeId !== 0)
            Main.sessionMode.disconnect(this._modeId);
        this._modeId = 0;
        this._view?.destroy();
        this._view = null;
        this._settings = null;
    }

    // On the lock screen only.
    _sync() {
        if (Main.sessionMode.isLocked && !this._view)
            this._view = new LockScreenWidgets(this._settings);
        else if (!Main.sessionMode.isLocked && this._view) {
            this._view.destroy();
            this._view = null;
        }
    }
}

function init() {
    return new Extension();
}
