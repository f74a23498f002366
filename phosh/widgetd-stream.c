/*
 * An asynchronous Varlink connection to widgetd (widgetd-stream.h).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "widgetd-stream.h"

#include <gio/gunixsocketaddress.h>
#include <string.h>
#include <unistd.h>

/* Bytes asked of the socket per read. */
#define CHUNK 4096
/* Replies are read below GTK's drawing (GDK_PRIORITY_REDRAW, G_PRIORITY_HIGH_IDLE + 20):
 * a listener that never stops sending cannot keep phosh from drawing a frame. */
#define READ_PRIORITY G_PRIORITY_DEFAULT_IDLE

struct _WdStream {
  GObject             parent;

  char               *socket_path;
  WdStreamFunc        func;
  gpointer            user_data;

  GCancellable       *cancellable;
  GSocketConnection  *connection;
  gboolean            connecting;
  gboolean            reading;
  gboolean            finished;
  /* The call waiting for the connection, and the one being written. */
  char               *pending;
  char               *writing;
  /* Received bytes not yet split into replies: decrypted content, wiped when consumed. */
  GByteArray         *received;
  guint8              chunk[CHUNK];
};

G_DEFINE_TYPE (WdStream, wd_stream, G_TYPE_OBJECT)

static void
wipe_string (char **text)
{
  if (*text != NULL) {
    explicit_bzero (*text, strlen (*text));
    g_clear_pointer (text, g_free);
  }
}

static void
wd_stream_finalize (GObject *object)
{
  WdStream *self = WD_STREAM (object);

  g_clear_object (&self->cancellable);
  g_clear_object (&self->connection);
  g_free (self->socket_path);
  wipe_string (&self->pending);
  wipe_string (&self->writing);
  explicit_bzero (self->received->data, self->received->len);
  g_byte_array_unref (self->received);
  explicit_bzero (self->chunk, sizeof self->chunk);
  G_OBJECT_CLASS (wd_stream_parent_class)->finalize (object);
}

static void
wd_stream_class_init (WdStreamClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = wd_stream_finalize;
}

static void
wd_stream_init (WdStream *self)
{
  self->cancellable = g_cancellable_new ();
  self->received = g_byte_array_new ();
}

char *
wd_default_socket (void)
{
  const char *variable = g_getenv ("WIDGETD_SOCKET");
  const char *runtime;

  if (variable != NULL && *variable != '\0')
    return g_strdup (variable);
  if (getuid () == 0)
    return g_strdup ("/run/widgetd/widgetd.sock");
  runtime = g_getenv ("XDG_RUNTIME_DIR");
  if (runtime != NULL && runtime[0] == '/')
    return g_build_filename (runtime, "widgetd", "widgetd.sock", NULL);
  return g_strdup_printf ("/run/user/%u/widgetd/widgetd.sock", (unsigned) getuid ());
}

WdStream *
wd_stream_new (const char *socket_path, WdStreamFunc func, gpointer user_data)
{
  WdStream *self = g_object_new (WD_TYPE_STREAM, NULL);

  self->socket_path = g_strdup (socket_path);
  self->func = func;
  self->user_data = user_data;
  return self;
}

void
wd_stream_close (WdStream *self)
{
  self->finished = TRUE;
  g_cancellable_cancel (self->cancellable);
  if (self->connection != NULL)
    g_io_stream_close_async (G_IO_STREAM (self->connection), G_PRIORITY_DEFAULT, NULL, NULL, NULL);
}

/* Ends the stream with `error`: one callback, then nothing more. */
static void
fail (WdStream *self, const GError *error)
{
  if (self->finished)
    return;
  wd_stream_close (self);
  self->func (self, NULL, error, self->user_data);
}

static void read_more (WdStream *self);

/* Splits what was received into replies and hands each over; stops at a failure or
 * when the stream is closed by a callback. */
static void
deliver (WdStream *self)
{
  while (!self->finished) {
    guint8 *end = memchr (self->received->data, '\0', self->received->len);
    g_autoptr (GError) error = NULL;
    g_autoptr (WdReply) reply = NULL;
    gsize length;

    if (end == NULL) {
      if (self->received->len > WD_REPLY_MAX) {
        g_set_error (&error, WD_REPLY_ERROR, WD_REPLY_ERROR_TOO_LARGE, "reply longer than %d bytes", WD_REPLY_MAX);
        fail (self, error);
      }
      return;
    }
    length = (gsize) (end - self->received->data);
    reply = wd_reply_parse ((const char *) self->received->data, length, &error);
    explicit_bzero (self->received->data, length + 1);
    g_byte_array_remove_range (self->received, 0, (guint) length + 1);
    if (reply == NULL) {
      fail (self, error);
      return;
    }
    self->func (self, reply, NULL, self->user_data);
  }
}

static void
on_read (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (WdStream) self = data;
  g_autoptr (GError) error = NULL;
  gssize count = g_input_stream_read_finish (G_INPUT_STREAM (source), result, &error);

  self->reading = FALSE;
  if (self->finished)
    return;
  if (count < 0) {
    fail (self, error);
    return;
  }
  if (count == 0) {
    g_set_error_literal (&error, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED, "widgetd closed the connection");
    fail (self, error);
    return;
  }
  g_byte_array_append (self->received, self->chunk, (guint) count);
  explicit_bzero (self->chunk, (gsize) count);
  deliver (self);
  read_more (self);
}

static void
read_more (WdStream *self)
{
  if (self->finished || self->reading || self->connection == NULL)
    return;
  self->reading = TRUE;
  g_input_stream_read_async (g_io_stream_get_input_stream (G_IO_STREAM (self->connection)), self->chunk, CHUNK,
                             READ_PRIORITY, self->cancellable, on_read, g_object_ref (self));
}

static void
on_written (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (WdStream) self = data;
  g_autoptr (GError) error = NULL;

  wipe_string (&self->writing);
  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, &error) && !self->finished)
    fail (self, error);
}

static void
write_call (WdStream *self)
{
  GOutputStream *output = g_io_stream_get_output_stream (G_IO_STREAM (self->connection));

  /* One call is written at a time: the caller sends the next once a reply came. */
  g_return_if_fail (self->writing == NULL);
  self->writing = g_steal_pointer (&self->pending);
  /* The NUL that ends a Varlink message is written with it. */
  g_output_stream_write_all_async (output, self->writing, strlen (self->writing) + 1, G_PRIORITY_DEFAULT,
                                   self->cancellable, on_written, g_object_ref (self));
  read_more (self);
}

/*
 * Whether the listener may be sent a call: the process that called listen() on the
 * socket (SO_PEERCRED, which the kernel recorded then) is this user or root, as
 * pam_widgetd requires. Anyone else listening on the path (a directory another account
 * can write to, a path bound first by someone else) is sent nothing, not even a Watch,
 * whose replies it could forge.
 */
static gboolean
trust_listener (WdStream *self, GSocketConnection *connection, GError **error)
{
  GSocket *socket = g_socket_connection_get_socket (connection);
  g_autoptr (GCredentials) credentials = g_socket_get_credentials (socket, error);
  uid_t uid;

  if (credentials == NULL)
    return FALSE;
  uid = g_credentials_get_unix_user (credentials, error);
  if (uid == (uid_t) -1)
    return FALSE;
  if (uid != geteuid () && uid != 0) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                 "%s is served by uid %u, neither this user nor root: nothing sent", self->socket_path, (unsigned) uid);
    return FALSE;
  }
  return TRUE;
}

static void
on_connected (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (WdStream) self = data;
  g_autoptr (GError) error = NULL;
  GSocketConnection *connection = g_socket_client_connect_finish (G_SOCKET_CLIENT (source), result, &error);

  self->connecting = FALSE;
  if (connection == NULL) {
    fail (self, error);
    return;
  }
  if (!self->finished && !trust_listener (self, connection, &error)) {
    g_io_stream_close_async (G_IO_STREAM (connection), G_PRIORITY_DEFAULT, NULL, NULL, NULL);
    g_object_unref (connection);
    fail (self, error);
    return;
  }
  self->connection = connection;
  if (self->finished) {
    g_io_stream_close_async (G_IO_STREAM (connection), G_PRIORITY_DEFAULT, NULL, NULL, NULL);
    return;
  }
  if (self->pending != NULL)
    write_call (self);
}

void
wd_stream_list_widgets (WdStream *self, const char *after)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonNode) parameters = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "limit");
  json_builder_add_int_value (builder, WD_LIST_PAGE);
  if (after != NULL) {
    json_builder_set_member_name (builder, "after");
    json_builder_add_string_value (builder, after);
  }
  json_builder_end_object (builder);
  parameters = json_builder_get_root (builder);
  wd_stream_call (self, "io.widgetd.Host.ListWidgets", parameters, FALSE);
}

void
wd_stream_call (WdStream *self, const char *method, JsonNode *parameters, gboolean more)
{
  g_autoptr (GSocketClient) client = NULL;
  g_autoptr (GSocketAddress) address = NULL;

  g_return_if_fail (!self->finished && self->pending == NULL);
  self->pending = wd_call_text (method, parameters, more);
  if (self->connection != NULL) {
    write_call (self);
    return;
  }
  if (self->connecting)
    return;
  self->connecting = TRUE;
  client = g_socket_client_new ();
  address = g_unix_socket_address_new (self->socket_path);
  g_socket_client_connect_async (client, G_SOCKET_CONNECTABLE (address), self->cancellable, on_connected,
                                 g_object_ref (self));
}
