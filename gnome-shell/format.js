// How a card's values become text (card.js): bounded, and dates in their style. No St
// here, so that tests/gnome/test-format.js runs it under plain gjs.

/* exported formatDate, truncate, valueText, MAX_TEXT */

const {GLib} = imports.gi;

var MAX_TEXT = 120;

function truncate(text) {
    return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;
}

function valueText(value) {
    if (value === null || value === undefined)
        return '—';
    if (typeof value === 'string')
        return truncate(value);
    if (typeof value === 'number' || typeof value === 'boolean')
        return String(value);
    return truncate(JSON.stringify(value));
}

function twoDigits(n) {
    return n < 10 ? `0${n}` : `${n}`;
}

// A date field's text at `nowUnix` (seconds), in its style; null when it is no date.
function formatDate(value, style, nowUnix) {
    if (typeof value !== 'string')
        return null;
    const date = GLib.DateTime.new_from_iso8601(value, null);
    if (!date)
        return null;
    const local = date.to_local();
    const delta = date.to_unix() - nowUnix;
    switch (style) {
    case 'date':
        return local.format('%e %b %Y').trim();
    case 'relative': {
        const minutes = Math.round(Math.abs(delta) / 60);
        let amount;
        if (minutes < 1)
            return 'now';
        else if (minutes < 60)
            amount = `${minutes} min`;
        else if (minutes < 48 * 60)
            amount = `${Math.round(minutes / 60)} h`;
        else
            amount = `${Math.round(minutes / 1440)} d`;
        return delta > 0 ? `in ${amount}` : `${amount} ago`;
    }
    case 'timer': {
        const total = Math.abs(Math.trunc(delta));
        const hours = Math.floor(total / 3600);
        const minutes = Math.floor(total / 60) % 60;
        const seconds = total % 60;
        return hours > 0 ? `${hours}:${twoDigits(minutes)}:${twoDigits(seconds)}`
            : `${twoDigits(minutes)}:${twoDigits(seconds)}`;
    }
    default:
        return local.format('%H:%M');
    }
}

