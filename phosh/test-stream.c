/*
 * WdStream's rules (widgetd-stream.h) against real Unix sockets: who it sends calls
 * to, and the priority it reads at. scripts/test-phosh runs it under valgrind too.
 * The listener of another user needs root (a child drops to nobody); without root
 * that test is skipped.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "widgetd-stream.h"

#include <errno.h>
#include <grp.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/* GDK_PRIORITY_REDRAW, which this test does not link GTK for. */
#define REDRAW_PRIORITY (G_PRIORITY_HIGH_IDLE + 20)
/* Replies a flooding listener has written before the stream reads the second chunk. */
#define FLOOD 1000

static int
listen_on (const char *path)
{
  struct sockaddr_un address = { .sun_family = AF_UNIX };
  int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

  g_assert_cmpint (fd, >=, 0);
  g_strlcpy (address.sun_path, path, sizeof address.sun_path);
  g_assert_cmpint (bind (fd, (struct sockaddr *) &address, sizeof address), ==, 0);
  g_assert_cmpint (listen (fd, 4), ==, 0);
  return fd;
}

typedef struct {
  GMainLoop *loop;
  GError    *error;
  guint      replies;
} Outcome;

static void
on_reply (WdStream *stream, const WdReply *reply, const GError *error, gpointer data)
{
  Outcome *outcome = data;

  (void) stream;
  if (error != NULL) {
    outcome->error = g_error_copy (error);
    g_main_loop_quit (outcome->loop);
    return;
  }
  (void) reply;
  outcome->replies++;
}

static gboolean
on_deadline (gpointer loop)
{
  g_main_loop_quit (loop);
  return G_SOURCE_CONTINUE;
}

static void
test_a_listener_of_another_user_is_sent_nothing (void)
{
  g_autofree char *directory = g_dir_make_tmp ("wd-stream-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (directory, "sock", NULL);
  g_autoptr (WdStream) stream = NULL;
  Outcome outcome = { 0 };
  int ready[2], result[2];
  pid_t child;
  guint timeout;
  char byte;
  gssize received = -1;

  if (geteuid () != 0) {
    g_test_skip ("a listener of another user needs root");
    return;
  }
  g_assert_cmpint (chmod (directory, 0777), ==, 0);
  g_assert_cmpint (pipe (ready), ==, 0);
  g_assert_cmpint (pipe (result), ==, 0);
  child = fork ();
  g_assert_cmpint (child, >=, 0);
  if (child == 0) {
    /* nobody listens, counts what it is sent, and says how much. */
    char buffer[4096];
    gssize total = 0, n;
    int fd, connection;

    if (setgroups (0, NULL) != 0 || setgid (65534) != 0 || setuid (65534) != 0)
      _exit (2);
    fd = listen_on (path);
    if (write (ready[1], "r", 1) != 1)
      _exit (3);
    connection = accept (fd, NULL, NULL);
    while ((n = read (connection, buffer, sizeof buffer)) > 0)
      total += n;
    if (write (result[1], &total, sizeof total) != sizeof total)
      _exit (4);
    _exit (0);
  }
  close (ready[1]);
  close (result[1]);
  g_assert_cmpint (read (ready[0], &byte, 1), ==, 1);

  outcome.loop = g_main_loop_new (NULL, FALSE);
  stream = wd_stream_new (path, on_reply, &outcome);
  wd_stream_call (stream, "io.widgetd.Host.Watch", NULL, TRUE);
  /* The refusal comes at connect; the deadline only ends a test that fails (a stream
   * that sent its call waits for a reply this listener never gives). */
  timeout = g_timeout_add_seconds (30, on_deadline, outcome.loop);
  g_main_loop_run (outcome.loop);
  g_source_remove (timeout);
  g_assert_error (outcome.error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
  g_assert_nonnull (strstr (outcome.error->message, "uid 65534"));
  g_assert_cmpuint (outcome.replies, ==, 0);
  /* The stream closed its end: the child counted what came before. */
  g_clear_object (&stream);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_cmpint (read (result[0], &received, sizeof received), ==, sizeof received);
  g_assert_cmpint (received, ==, 0);
  g_assert_cmpint (waitpid (child, NULL, 0), ==, child);
  close (ready[0]);
  close (result[0]);
  g_clear_error (&outcome.error);
  g_main_loop_unref (outcome.loop);
  g_unlink (path);
  g_rmdir (directory);
}

/* A listener of this user, which floods: FLOOD valid replies at once, once it has read
 * the call, then holds the connection open until told to close it. */
typedef struct {
  char    *path;
  int      fd;
  GMutex   lock;
  GCond    changed;
  gboolean written;
  gboolean close;
  gsize    call_bytes;
} Flooder;

static gpointer
flood (gpointer data)
{
  Flooder *flooder = data;
  GString *replies = g_string_new (NULL);
  char buffer[4096];
  gssize n;
  int connection = accept (flooder->fd, NULL, NULL);

  g_assert_cmpint (connection, >=, 0);
  /* The call, up to its NUL. */
  do {
    n = read (connection, buffer, sizeof buffer);
    g_assert_cmpint (n, >, 0);
    flooder->call_bytes += (gsize) n;
  } while (memchr (buffer, '\0', (gsize) n) == NULL);
  for (int i = 0; i < FLOOD; i++) {
    g_string_append_printf (replies, "{\"parameters\":{\"n\":%d},\"continues\":true}", i);
    g_string_append_c (replies, '\0');
  }
  for (gsize sent = 0; sent < replies->len; sent += (gsize) n) {
    n = write (connection, replies->str + sent, replies->len - sent);
    g_assert_cmpint (n, >, 0);
  }
  g_string_free (replies, TRUE);
  g_mutex_lock (&flooder->lock);
  flooder->written = TRUE;
  g_cond_broadcast (&flooder->changed);
  while (!flooder->close)
    g_cond_wait (&flooder->changed, &flooder->lock);
  g_mutex_unlock (&flooder->lock);
  close (connection);
  return NULL;
}

typedef struct {
  Flooder *flooder;
  guint    replies;
  /* Replies delivered when the drawing-priority source ran, or -1. */
  gint     replies_when_drawn;
  gboolean drawing;
} FloodOutcome;

static gboolean
on_draw (gpointer data)
{
  FloodOutcome *outcome = data;

  outcome->replies_when_drawn = (gint) outcome->replies;
  return G_SOURCE_REMOVE;
}

static void
on_flood (WdStream *stream, const WdReply *reply, const GError *error, gpointer data)
{
  FloodOutcome *outcome = data;

  (void) stream;
  (void) reply;
  g_assert_no_error (error);
  outcome->replies++;
  if (outcome->drawing)
    return;
  /* At the first reply, a frame is due (as GTK queues a redraw at drawing's priority);
   * everything else has been sent by then, so that more replies wait at every turn. */
  outcome->drawing = TRUE;
  g_idle_add_full (REDRAW_PRIORITY, on_draw, outcome, NULL);
  g_mutex_lock (&outcome->flooder->lock);
  while (!outcome->flooder->written)
    g_cond_wait (&outcome->flooder->changed, &outcome->flooder->lock);
  g_mutex_unlock (&outcome->flooder->lock);
}

static void
test_a_flood_of_replies_does_not_hold_drawing_back (void)
{
  g_autofree char *directory = g_dir_make_tmp ("wd-stream-XXXXXX", NULL);
  Flooder flooder = { .path = g_build_filename (directory, "sock", NULL) };
  FloodOutcome outcome = { .flooder = &flooder, .replies_when_drawn = -1 };
  g_autoptr (WdStream) stream = NULL;
  GThread *thread;

  g_mutex_init (&flooder.lock);
  g_cond_init (&flooder.changed);
  flooder.fd = listen_on (flooder.path);
  thread = g_thread_new ("flood", flood, &flooder);
  stream = wd_stream_new (flooder.path, on_flood, &outcome);
  wd_stream_call (stream, "io.widgetd.Host.Watch", NULL, TRUE);
  while (outcome.replies_when_drawn < 0 && outcome.replies < FLOOD)
    g_main_context_iteration (NULL, TRUE);
  /* The frame came after the first chunk read (a few dozen replies), not after the
   * whole flood: reads wait below drawing. */
  g_test_message ("replies delivered before the frame: %d of %d", outcome.replies_when_drawn, FLOOD);
  g_assert_cmpint (outcome.replies_when_drawn, >, 0);
  g_assert_cmpint (outcome.replies_when_drawn, <, FLOOD / 4);

  g_mutex_lock (&flooder.lock);
  flooder.close = TRUE;
  g_cond_broadcast (&flooder.changed);
  g_mutex_unlock (&flooder.lock);
  g_thread_join (thread);
  wd_stream_close (stream);
  g_clear_object (&stream);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  close (flooder.fd);
  g_unlink (flooder.path);
  g_rmdir (directory);
  g_free (flooder.path);
  g_mutex_clear (&flooder.lock);
  g_cond_clear (&flooder.changed);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/stream/a-listener-of-another-user-is-sent-nothing",
                   test_a_listener_of_another_user_is_sent_nothing);
  g_test_add_func ("/stream/a-flood-of-replies-does-not-hold-drawing-back",
                   test_a_flood_of_replies_does_not_hold_drawing_back);
  return g_test_run ();
}
