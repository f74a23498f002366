/*
 * One Varlink connection to widgetd, driven entirely by GIO's asynchronous socket
 * API so that phosh's main loop never waits on it: connecting, writing a call and
 * reading replies all return at once and finish in callbacks.
 *
 * A stream carries one call at a time: a Watch (its replies keep coming), or a
 * sequence of single calls, each sent once the previous reply arrived. Replies are
 * split at their NUL terminators, each bounded by WD_REPLY_MAX; one longer, or one
 * wd_reply_parse refuses, fails the stream. A stream fails once: the callback gets
 * the error, the socket is closed, and no callback follows.
 *
 * Only a listener that is this user or root (SO_PEERCRED) is sent anything: any other
 * fails the stream with G_IO_ERROR_PERMISSION_DENIED before a byte is written. Replies
 * are read at a priority below GTK's drawing, so that a flood of them never holds a
 * frame back.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#pragma once

#include "widgetd-reply.h"

#include <gio/gio.h>

G_BEGIN_DECLS

#define WD_TYPE_STREAM (wd_stream_get_type ())
G_DECLARE_FINAL_TYPE (WdStream, wd_stream, WD, STREAM, GObject)

/*
 * Called with each reply (error NULL), or once with the error that ended the stream
 * (reply NULL). Never called after wd_stream_close.
 */
typedef void (*WdStreamFunc) (WdStream *stream, const WdReply *reply, const GError *error, gpointer user_data);

/*
 * The socket used when the "socket" setting is empty, as widgetctl picks it:
 * $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock for root, else
 * $XDG_RUNTIME_DIR/widgetd/widgetd.sock (/run/user/UID without an absolute XDG_RUNTIME_DIR).
 */
char     *wd_default_socket (void);

WdStream *wd_stream_new (const char *socket_path, WdStreamFunc func, gpointer user_data);

/* Sends a call, connecting first if needed; "more" asks for a stream of replies. */
void      wd_stream_call (WdStream *stream, const char *method, JsonNode *parameters, gboolean more);
/* Calls io.widgetd.Host.ListWidgets for the page of WD_LIST_PAGE widgets after `after`
 * (from the first when NULL): what every host's discovery asks, once written. */
#define WD_LIST_PAGE 64
void      wd_stream_list_widgets (WdStream *stream, const char *after);

/* Closes the connection and cancels what is pending; no callback follows. */
void      wd_stream_close (WdStream *stream);

G_END_DECLS
