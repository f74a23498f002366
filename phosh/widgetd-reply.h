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

/* One field as it may be drawn. */
typedef struct {
  char     *name;
  /* The value as text; NULL when redacted: nothing of a hidden value is kept. */
  char     *text;
  gboolean  redacted;
} WdField;

/* What the lock screen may show of a widget now. */
typedef struct {
  char      *widget;
  WdMode     mode;
  gboolean   stale;
  gboolean   has_relevance;
  double     relevance;
  /* WdField, in the order the reply gives them. */
  GPtrArray *fields;
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
