// One widget's card on the lock screen, drawn from a presentation (io.widgetd.Host,
// DESIGN §12–13): roles per family, or names and values for an entry without roles;
// redaction keeps the role (a bar, an empty gauge, no date, the placeholder's icon);
// actions as buttons that follow the authentication rule.
//
// Accessibility (§15): the card's accessible name is the widget id and its description
// the mode ("content", "redacted" or "placeholder", ", out of date" when stale); a
// label's text is what is drawn; a redacted field's accessible name is "redacted". No
// label ever holds a value the presentation hides: the presentation only carries what
// the surface may show, and each new one replaces every child.

/* exported Card, describe */

const {Atk, Cally, Clutter, GLib, GObject, St} = imports.gi;
const ExtensionUtils = imports.misc.extensionUtils;

const {formatDate, truncate, valueText} = ExtensionUtils.getCurrentExtension().imports.format;

const MAX_FIELDS = 16;
const MAX_ACTIONS = 4;
const ICON_NAME = /^[a-z0-9-]{1,64}$/;
const TEXT_ROLES = new Set(['title', 'value', 'detail']);

// The card's accessible description: its mode, and whether it is out of date.
function describe(presentation) {
    return presentation.stale ? `${presentation.mode}, out of date` : presentation.mode;
}

function label(text, styleClass) {
    return new St.Label({text, style_class: styleClass, x_align: Clutter.ActorAlign.START});
}

// A redacted text: a bar drawn by the stylesheet, no text, named "redacted".
function bar(styleClass) {
    const widget = new St.Label({text: '', style_class: `${styleClass} widgetd-redacted`,
        x_align: Clutter.ActorAlign.START});
    widget.accessible_name = 'redacted';
    return widget;
}

function gaugeFraction(field) {
    if (field.redacted || typeof field.value !== 'number')
        return 0;
    let [min, max] = Array.isArray(field.range) && field.range.length === 2 ? field.range : [0, 1];
    if (typeof min !== 'number' || typeof max !== 'number' || !(max > min))
        [min, max] = [0, 1];
    return Math.min(1, Math.max(0, (field.value - min) / (max - min)));
}

function gaugeName(field) {
    return field.redacted ? 'redacted' : `${Math.round(gaugeFraction(field) * 100)} %`;
}

const Ring = GObject.registerClass(
class WidgetdRing extends St.DrawingArea {
    _init(fraction, name) {
        super._init({style_class: 'widgetd-ring', width: 64, height: 64});
        this._fraction = fraction;
        this.accessible_name = name;
        this.accessible_role = Atk.Role.PROGRESS_BAR;
    }

    vfunc_repaint() {
        const cr = this.get_context();
        const [width, height] = this.get_surface_size();
        const radius = Math.min(width, height) / 2 - 4;
        cr.setLineWidth(6);
        cr.setSourceRGBA(1, 1, 1, 0.25);
        cr.arc(width / 2, height / 2, radius, 0, 2 * Math.PI);
        cr.stroke();
        if (this._fraction > 0) {
            cr.setSourceRGBA(1, 1, 1, 0.95);
            cr.arc(width / 2, height / 2, radius, -Math.PI / 2, -Math.PI / 2 + 2 * Math.PI * this._fraction);
            cr.stroke();
        }
        cr.$dispose();
    }
});

const Bar = GObject.registerClass(
class WidgetdBar extends St.DrawingArea {
    _init(fraction, name) {
        super._init({style_class: 'widgetd-gauge', x_expand: true, height: 8});
        this._fraction = fraction;
        this.accessible_name = name;
        this.accessible_role = Atk.Role.PROGRESS_BAR;
    }

    vfunc_repaint() {
        const cr = this.get_context();
        const [width, height] = this.get_surface_size();
        const radius = height / 2;
        const pill = w => {
            cr.newSubPath();
            cr.arc(radius, radius, radius, Math.PI / 2, 3 * Math.PI / 2);
            cr.arc(w - radius, radius, radius, -Math.PI / 2, Math.PI / 2);
            cr.closePath();
        };
        cr.setSourceRGBA(1, 1, 1, 0.25);
        pill(width);
        cr.fill();
        if (this._fraction > 0) {
            cr.setSourceRGBA(1, 1, 1, 0.95);
            pill(Math.max(height, width * this._fraction));
            cr.fill();
        }
        cr.$dispose();
    }
});

function gaugeBar(field) {
    return new Bar(gaugeFraction(field), gaugeName(field));
}

function icon(field, size) {
    const name = typeof field.value === 'string' && ICON_NAME.test(field.value) ? field.value : 'image-missing';
    return new St.Icon({icon_name: name, icon_size: size, style_class: 'widgetd-icon'});
}

var Card = GObject.registerClass(
class WidgetdCard extends St.BoxLayout {
    // `perform(widget, action, onOutcome)` runs an action (the host's PerformAction).
    _init(widget, perform) {
        super._init({vertical: true, style_class: 'widgetd-card', x_expand: true, reactive: false});
        this.widget = widget;
        this.accessible_name = widget;
        this._perform = perform;
        this._family = null;
        this._presentation = null;
        this._dates = [];
        this._tick = 0;
        this._toggles = new Map();
        this._status = new Map();
        this._destroyed = false;
        this._idle = 0;
        this.connect('notify::mapped', () => this._syncTick());
        this.connect('destroy', () => {
            this._destroyed = true;
            this._stopTick();
            if (this._idle !== 0)
                GLib.source_remove(this._idle);
            this._idle = 0;
        });
    }

    setFamily(family) {
        if (family === this._family)
            return;
        this._family = family;
        if (this._presentation)
            this.present(this._presentation);
    }

    // Draws `presentation` in place of whatever the card showed.
    present(presentation) {
        for (const [id, text] of this._status) {
            if (text === 'Done')
                this._status.delete(id);
        }
        this._draw(presentation);
    }

    _draw(presentation) {
        this._presentation = presentation;
        this._stopTick();
        this._dates = [];
        this.destroy_all_children();
        const entry = presentation.entry && typeof presentation.entry === 'object' ? presentation.entry : {};
        const fields = entry.fields && typeof entry.fields === 'object' ? Object.entries(entry.fields).slice(0, MAX_FIELDS) : [];
        const roled = fields.filter(([, f]) => f && typeof f === 'object' && typeof f.role === 'string');
        if (roled.length > 0)
            this._drawRoles(roled);
        else
            this._drawPlain(fields);
        this._drawActions(Array.isArray(presentation.actions) ? presentation.actions.slice(0, MAX_ACTIONS) : []);
        if (presentation.stale)
            this.add_child(label('Out of date', 'widgetd-stale'));
        this._syncTick();
        // Last: the name change tells a reader the card is drawn.
        const accessible = this.get_accessible();
        if (accessible)
            Atk.Object.prototype.set_description.call(accessible, describe(presentation));
    }

    // An entry without roles: each field's name and value, in the entry's order.
    _drawPlain(fields) {
        for (const [name, field] of fields) {
            if (!field || typeof field !== 'object')
                continue;
            const row = new St.BoxLayout({style_class: 'widgetd-row'});
            row.add_child(label(truncate(name), 'widgetd-name'));
            row.add_child(field.redacted ? bar('widgetd-detail') : label(valueText(field.value), 'widgetd-detail'));
            this.add_child(row);
        }
    }

    _text(field, styleClass) {
        return field.redacted ? bar(styleClass) : label(valueText(field.value), styleClass);
    }

    // A date: its text now, ticking while shown; a redacted date is not drawn.
    _date(field, styleClass) {
        if (field.redacted)
            return null;
        const now = GLib.DateTime.new_now_utc().to_unix();
        const text = formatDate(field.value, field.style, now);
        if (text === null)
            return null;
        const widget = label(text, styleClass);
        if (field.style === 'timer' || field.style === 'relative')
            this._dates.push([widget, field]);
        return widget;
    }

    _drawRoles(fields) {
        const by = role => fields.filter(([, f]) => f.role === role).map(([, f]) => f);
        const [title] = by('title');
        const [value] = by('value');
        const details = by('detail');
        const [iconField] = by('icon');
        const [gauge] = by('gauge');
        const dates = by('date');
        const family = this._family || 'systemSmall';
        const add = child => child && this.add_child(child);

        if (family === 'accessoryInline') {
            const row = new St.BoxLayout({style_class: 'widgetd-row'});
            if (iconField)
                row.add_child(icon(iconField, 16));
            const main = value || title;
            if (main)
                row.add_child(this._text(main, 'widgetd-detail'));
            else if (dates.length)
                row.add_child(this._date(dates[0], 'widgetd-detail') || new St.Widget());
            this.add_child(row);
            return;
        }
        if (family === 'accessoryCircular') {
            const holder = new St.Widget({layout_manager: new Clutter.BinLayout(),
                x_align: Clutter.ActorAlign.CENTER});
            holder.add_child(new Ring(gauge ? gaugeFraction(gauge) : 0, gauge ? gaugeName(gauge) : ''));
            const inside = value ? this._text(value, 'widgetd-ring-text') : iconField ? icon(iconField, 24) : null;
            if (inside) {
                inside.x_align = Clutter.ActorAlign.CENTER;
                inside.y_align = Clutter.ActorAlign.CENTER;
                holder.add_child(inside);
            }
            this.add_child(holder);
            return;
        }
        if (family === 'accessoryRectangular') {
            const lines = [];
            if (title)
                lines.push(this._text(title, 'widgetd-title'));
            if (value)
                lines.push(this._text(value, 'widgetd-detail'));
            for (const d of dates)
                lines.push(this._date(d, 'widgetd-detail'));
            for (const d of details)
                lines.push(this._text(d, 'widgetd-detail'));
            lines.filter(Boolean).slice(0, 3).forEach(add);
            return;
        }
        // systemSmall, systemMedium, systemLarge: title, value large, details, icon, gauge.
        const head = new St.BoxLayout({style_class: 'widgetd-row'});
        if (iconField)
            head.add_child(icon(iconField, 24));
        if (title)
            head.add_child(this._text(title, 'widgetd-title'));
        if (head.get_n_children() > 0)
            this.add_child(head);
        if (value)
            add(this._text(value, 'widgetd-value'));
        for (const d of dates)
            add(this._date(d, value ? 'widgetd-detail' : 'widgetd-value'));
        for (const d of details)
            add(this._text(d, 'widgetd-detail'));
        if (gauge)
            add(gaugeBar(gauge));
    }

    _drawActions(actions) {
        if (actions.length === 0)
            return;
        const row = new St.BoxLayout({style_class: 'widgetd-actions'});
        for (const action of actions) {
            if (!action || typeof action !== 'object' || typeof action.id !== 'string')
                continue;
            row.add_child(this._button(action));
        }
        this.add_child(row);
    }

    _button(action) {
        const toggle = action.kind === 'toggle';
        // A toggle performed shows its new state until the provider's timeline changes it.
        let isOn = toggle && action.isOn === true;
        const pending = this._toggles.get(action.id);
        if (toggle && pending && pending.from === isOn)
            isOn = pending.to;
        else
            this._toggles.delete(action.id);
        const button = new St.Button({style_class: 'button widgetd-action', can_focus: true,
            toggle_mode: false, checked: isOn});
        const box = new St.BoxLayout({style_class: 'widgetd-action-box'});
        if (typeof action.icon === 'string' && ICON_NAME.test(action.icon))
            box.add_child(new St.Icon({icon_name: action.icon, icon_size: 16}));
        const title = action.redacted && action.title === null ? null : valueText(action.title ?? action.id);
        box.add_child(title === null ? bar('widgetd-action-title') : label(title, 'widgetd-action-title'));
        // Not available while locked: it says so, and once pressed that it waits.
        const status = this._status.get(action.id);
        if (!action.available)
            box.add_child(new St.Icon({icon_name: 'changes-prevent-symbolic', icon_size: 16}));
        if (status || !action.available)
            box.add_child(label(status || 'Needs unlock', 'widgetd-action-hint'));
        button.set_child(box);
        button.accessible_name = title === null ? 'redacted' : title;
        if (toggle)
            button.accessible_role = Atk.Role.TOGGLE_BUTTON;
        const press = () => this._press(action);
        button.connect('clicked', press);
        // A reader presses it through AT-SPI (org.a11y.atspi.Action "press").
        const accessible = button.get_accessible();
        if (accessible instanceof Cally.Actor)
            Cally.Actor.prototype.add_action.call(accessible, 'press', 'Performs the action', '', press);
        return button;
    }

    _press(action) {
        if (!action.available)
            this._status.set(action.id, 'Waiting for unlock');
        this._redraw();
        this._perform(this.widget, action.id, (error, outcome) => {
            if (this._destroyed)
                return;
            if (error)
                this._status.set(action.id, 'Failed');
            else if (outcome === 'held')
                this._status.set(action.id, 'Waiting for unlock');
            else if (outcome === 'expired')
                this._status.set(action.id, 'Expired');
            else if (outcome === 'delivered')
                this._status.set(action.id, 'Done');
            if (outcome === 'delivered' && action.kind === 'toggle')
                this._toggles.set(action.id, {from: action.isOn === true, to: !(action.isOn === true)});
            this._redraw();
        });
    }

    // Later, not inside the button's own handler (the redraw destroys the button).
    _redraw() {
        if (this._idle !== 0)
            return;
        this._idle = GLib.idle_add(GLib.PRIORITY_DEFAULT, () => {
            this._idle = 0;
            if (this._presentation && !this._destroyed)
                this._draw(this._presentation);
            return GLib.SOURCE_REMOVE;
        });
    }

    _syncTick() {
        if (this.mapped && this._dates.length > 0 && this._tick === 0) {
            this._tick = GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, 1, () => {
                const now = GLib.DateTime.new_now_utc().to_unix();
                for (const [widget, field] of this._dates)
                    widget.text = formatDate(field.value, field.style, now) ?? '';
                return GLib.SOURCE_CONTINUE;
            });
        } else if ((!this.mapped || this._dates.length === 0) && this._tick !== 0) {
            this._stopTick();
        }
    }

    _stopTick() {
        if (this._tick !== 0) {
            GLib.source_remove(this._tick);
            this._tick = 0;
        }
    }

});
