/*
 * The Varlink replies the lock-screen plugin reads from widgetd, parsed into plain
 * structures before anything reaches a widget. Pure code (GLib and json-glib, no
 * I/O, no GTK), so that it is tested on its own (test-reply.c), under valgrind, and
 * fuzzed (fuzz-reply.c).
 *
 * Every input is bounded: a reply longer than WD_REPLY_MAX bytes, nested deeper than
 * WD_REPLY_MAX_DEPTH, not valid UTF-8 or not exactly one strict JSON object (json-glib
 * also reads comments and single-quoted strings: they are refused) is refused before
 * json-glib sees it; a presentation keeps at most WD_MAX_FIELDS fields and at most
 * WD_MAX_TEXT characters of each value; a widget list at most WD_MAX_CANDIDATES
 * widgets. A refused reply drops the stream it came on, never the shell.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The largest reply read, NUL excluded (widgetd's presentations are a few KiB). */
#define WD_REPLY_MAX (64 * 1024)
/* Objects and arrays nested deeper than this are refused unparsed. */
#define WD_REPLY_MAX_DEPTH 32
/* Fields drawn per card; the rest are dropped. */
#define WD_MAX_FIELDS 16
/* Characters of a value drawn; longer values end in an ellipsis. */
#define WD_MAX_TEXT 120
/* Widgets read from ListWidgets when none are picked. */
#define WD_MAX_CANDIDATES 64
/* Actions drawn per card; the rest are dropped (widgetd allows 8). */
#define WD_MAX_ACTIONS 8
/* Widgets hidden on the lock screen read from the settings; the rest are refused. */
#define WD_MAX_HIDDEN 256
/* The longest widget id read from the settings. */
#define WD_MAX_WIDGET_ID 512
/* The longest icon name drawn (DESIGN §12: [a-z0-9-], at most 64 bytes). */
#define WD_MAX_ICON 64

#define WD_REPLY_ERROR (wd_reply_error_quark ())
GQuark wd_reply_error_quark (void);

typedef enum {
  /* Longer than WD_REPLY_MAX. */
  WD_REPLY_ERROR_TOO_LARGE,
  /* Not UTF-8, not JSON, not an object, too deep, or a member of the wrong type. */
  WD_REPLY_ERROR_MALFORMED,
} WdReplyError;

/* One Varlink reply: an error name, or parameters; "continues" for a stream. */
typedef struct {
  /* The error's qualified name (e.g. "io.widgetd.WidgetNotFound"), or NULL. */
  char       *error;
  gboolean    continues;
  /* The parameters object (an empty one when absent). */
  JsonObject *parameters;
} WdReply;

typedef enum {
  WD_MODE_CONTENT,
  WD_MODE_REDACTED,
  WD_MODE_PLACEHOLDER,
} WdMode;

/* A field's layout role (DESIGN §12); WD_ROLE_NONE: none given. */
typedef enum {
  WD_ROLE_NONE,
  WD_ROLE_TITLE,
  WD_ROLE_VALUE,
  WD_ROLE_DETAIL,
  WD_ROLE_ICON,
  WD_ROLE_GAUGE,
  WD_ROLE_DATE,
  /* A role this plugin does not know: the field has a role, and is not drawn. */
  WD_ROLE_OTHER,
} WdRole;

/* How a date field is drawn. */
typedef enum {
  WD_DATE_TIME,
  WD_DATE_DATE,
  WD_DATE_RELATIVE,
  WD_DATE_TIMER,
} WdDateStyle;

/* One field as it may be drawn. */
typedef struct {
  char       *name;
  /* The value as text; NULL when redacted: nothing of a hidden value is kept. */
  char       *text;
  gboolean    redacted;
  WdRole      role;
  /* WD_ROLE_ICON: the icon name, if it is a plain one (a redacted icon's is the
   * placeholder's, a sample); else NULL. */
  char       *icon;
  /* WD_ROLE_GAUGE: the range (default [0, 1]), and the value (clamped to it) when
   * has_gauge; a redacted gauge has none and is drawn empty. */
  double      gauge_min;
  double      gauge_max;
  double      gauge;
  gboolean    has_gauge;
  /* WD_ROLE_DATE: the style, and the date unless redacted or not RFC 3339. */
  WdDateStyle style;
  GDateTime  *date;
} WdField;

/* One action a card may offer (DESIGN §13). */
typedef struct {
  char     *id;
  /* What the button says; NULL when redacted without the placeholder's title. */
  char     *title;
  gboolean  redacted;
  /* A plain icon name, or NULL. */
  char     *icon;
  gboolean  toggle;
  gboolean  is_on;
  /* Runs now without an unlock; else `requires_unlock` (held until an unlock). */
  gboolean  available;
  gboolean  requires_unlock;
} WdAction;

/* PerformAction's outcome. */
typedef enum {
  WD_OUTCOME_DELIVERED,
  WD_OUTCOME_HELD,
  WD_OUTCOME_EXPIRED,
} WdOutcome;

/* A WatchWidgets event. */
typedef enum {
  WD_WIDGET_ADDED,
  WD_WIDGET_REMOVED,
  WD_WIDGET_CHANGED,
} WdWidgetEventKind;

/* What the lock screen may show of a widget now. */
typedef struct {
  char      *widget;
  WdMode     mode;
  gboolean   stale;
  /* The reasons include "invalidated": drawn "Out of date". */
  gboolean   invalidated;
  gboolean   has_relevance;
  double     relevance;
  /* WdField, in the order the reply gives them. */
  GPtrArray *fields;
  /* Whether any field has a role: then only fields with roles are drawn, and no
   * field's name (DESIGN §12). */
  gboolean   has_roles;
  /* WdAction, in the reply's order. */
  GPtrArray *actions;
} WdPresentation;

/* One entry of ListWidgets. */
typedef struct {
  char *widget;
  /* The family as DESIGN names it ("systemSmall", ...), or NULL. */
  char *family;
} WdWidgetInfo;

/*
 * Parses one reply: the `len` bytes before its NUL terminator. Returns NULL and sets
 * `error` (WD_REPLY_ERROR) when the reply is refused.
 */
WdReply *wd_reply_parse (const char *text, gsize len, GError **error);
void     wd_reply_free (WdReply *reply);

/* The presentation in a Watch or GetPresentation reply's parameters. */
WdPresentation *wd_presentation_from_reply (const WdReply *reply, GError **error);
void            wd_presentation_free (WdPresentation *presentation);

/*
 * The widgets of a ListWidgets reply (WdWidgetInfo, at most WD_MAX_CANDIDATES), and
 * its "next" cursor in `next` (NULL when no page follows).
 */
GPtrArray *wd_widget_list_from_reply (const WdReply *reply, char **next, GError **error);
void       wd_widget_info_free (WdWidgetInfo *info);

/*
 * The outcome of a PerformAction reply (one without an error); FALSE and `error` when
 * it is not one of "delivered", "held" or "expired".
 */
gboolean wd_outcome_from_reply (const WdReply *reply, WdOutcome *outcome, GError **error);

/*
 * The settings of a GetSettings or SetSettings reply: "Allow access when locked" and the
 * widgets hidden on the lock screen (ids, in the reply's order, at most WD_MAX_HIDDEN,
 * each a plain widget id of at most WD_MAX_WIDGET_ID bytes). FALSE and `error` when
 * malformed; `hidden` is then left NULL.
 */
gboolean wd_settings_from_reply (const WdReply *reply, gboolean *access, GPtrArray **hidden, GError **error);

/* The event of a WatchWidgets reply, and its widget (NULL and `error` if malformed). */
WdWidgetInfo *wd_widget_event_from_reply (const WdReply *reply, WdWidgetEventKind *kind, GError **error);

/*
 * A date as drawn in its style at `now` (both in the same time zone as the text is
 * meant): "time" 14:05, "date" 29 Nov 2026, "relative" "in 5 min" / "2 h ago" / "now",
 * "timer" 04:59 or 1:04:59, counting down to the date and then up from it.
 */
char *wd_date_text (WdDateStyle style, GDateTime *date, GDateTime *now);

/* How often a date in `style` changes as drawn, in seconds (0: it does not tick). */
guint wd_date_tick_seconds (WdDateStyle style);

/* Whether `name` is a plain icon name: [a-z0-9-], 1 to WD_MAX_ICON bytes. */
gboolean wd_icon_name_is_plain (const char *name);

/* The text of a call: `{"method": METHOD, "parameters": PARAMETERS[, "more": true]}`. */
char *wd_call_text (const char *method, JsonNode *parameters, gboolean more);

/*
 * Whether `text` is one strict JSON value (RFC 8259: no comments, no single-quoted
 * strings, no hex numbers, none of what json-glib reads beyond JSON), with no object
 * or array nested deeper than `max_depth`, and nothing but white space after it.
 */
gboolean wd_json_depth_within (const char *text, gsize len, guint max_depth);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WdReply, wd_reply_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WdPresentation, wd_presentation_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WdWidgetInfo, wd_widget_info_free)

G_END_DECLS
