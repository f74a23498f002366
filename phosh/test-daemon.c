/*
 * A real widgetd for the plugin's C tests (test-daemon.h).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "test-daemon.h"

#include <fcntl.h>
#include <gio/gio.h>
#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>


static const char *
tool (const char *variable)
{
  const char *path = g_getenv (variable);

  return path != NULL && *path != '\0' ? path : NULL;
}

/* Runs widgetctl; returns its standard output, asserting it succeeded. */
char *
widgetctl (Daemon *daemon, const char *const *arguments, const char *input_file)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr (GError) error = NULL;
  int status;

  g_ptr_array_add (argv, (char *) tool ("WIDGETCTL"));
  g_ptr_array_add (argv, (char *) "--socket");
  g_ptr_array_add (argv, daemon->socket);
  for (guint i = 0; arguments[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) arguments[i]);
  if (input_file != NULL)
    g_ptr_array_add (argv, (char *) input_file);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status,
                               &error));
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("widgetctl failed: %s", err);
  return g_steal_pointer (&out);
}

static gboolean
on_notify (GSocket *socket, GIOCondition condition, gpointer data)
{
  char buffer[256] = { 0 };
  gssize got = g_socket_receive (socket, buffer, sizeof buffer - 1, NULL, NULL);

  (void) condition;
  if (got > 0 && strstr (buffer, "READY=1") != NULL)
    g_main_loop_quit (data);
  return G_SOURCE_CONTINUE;
}

gboolean
on_deadline (gpointer data)
{
  g_error ("nothing happened within %d s: %s", DEADLINE_SECONDS, (const char *) data);
  return G_SOURCE_REMOVE;
}

/* In the child: widgetd ends with the test, should the test abort before its teardown. */
static void
end_with_parent (gpointer data)
{
  (void) data;
  prctl (PR_SET_PDEATHSIG, SIGTERM);
}

static void
daemon_start (Daemon *daemon)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *etc = g_build_filename (daemon->root, "etc", NULL);
  g_autofree char *providers = g_build_filename (etc, "providers.d", NULL);
  g_autofree char *config = g_build_filename (etc, "widgetd.conf", NULL);
  g_autofree char *registration = g_build_filename (providers, "a.conf", NULL);
  g_autofree char *text = g_strdup_printf ("[Provider]\nId=com.example.a\nUser=%u\nDataProtection=none\n",
                                           (unsigned) getuid ());
  g_autofree char *state = g_build_filename (daemon->root, "state", NULL);
  g_autofree char *notify_path = g_build_filename (daemon->root, "notify", NULL);
  g_autofree char *log = g_build_filename (daemon->root, "widgetd.log", NULL);
  g_autoptr (GSocket) notify = g_socket_new (G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_DATAGRAM, 0, &error);
  g_autoptr (GSocketAddress) address = g_unix_socket_address_new (notify_path);
  g_autoptr (GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr (GSource) source = NULL;
  g_auto (GStrv) environment = g_environ_setenv (g_get_environ (), "NOTIFY_SOCKET", notify_path, TRUE);
  const char *argv[] = { tool ("WIDGETD_BIN"), "--config", config, "--state-directory", state,
                         "--socket", daemon->socket, NULL };
  guint deadline;
  int log_fd;

  g_assert_no_error (error);
  g_assert_cmpint (g_mkdir_with_parents (providers, 0700), ==, 0);
  g_assert_true (g_file_set_contents (config, "[Daemon]\n", -1, NULL));
  g_assert_true (g_file_set_contents (registration, text, -1, NULL));
  g_assert_true (g_socket_bind (notify, address, TRUE, &error));
  g_assert_no_error (error);
  log_fd = g_open (log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  g_assert_cmpint (log_fd, >=, 0);
  g_assert_true (g_spawn_async_with_fds (NULL, (char **) argv, environment, G_SPAWN_DO_NOT_REAP_CHILD, end_with_parent, NULL,
                                         &daemon->pid, -1, log_fd, log_fd, &error));
  g_assert_no_error (error);
  close (log_fd);
  source = g_socket_create_source (notify, G_IO_IN, NULL);
  g_source_set_callback (source, G_SOURCE_FUNC (on_notify), loop, NULL);
  g_source_attach (source, NULL);
  deadline = g_timeout_add_seconds (DEADLINE_SECONDS, on_deadline, (gpointer) "widgetd's READY=1");
  g_main_loop_run (loop);
  g_source_remove (deadline);
  g_source_destroy (source);
  g_unlink (notify_path);
}

void
daemon_stop (Daemon *daemon)
{
  int status;

  if (daemon->pid == 0)
    return;
  kill (daemon->pid, SIGTERM);
  g_assert_cmpint (waitpid (daemon->pid, &status, 0), ==, daemon->pid);
  g_spawn_close_pid (daemon->pid);
  daemon->pid = 0;
}

static void
put (Daemon *daemon, const char *widget)
{
  g_autofree char *path = g_build_filename (daemon->root, "timeline.json", NULL);
  const char *arguments[] = { "put", widget, NULL };
  g_autofree char *out = NULL;

  g_assert_true (g_file_set_contents (path,
                                      "{\"family\":\"systemSmall\",\"entries\":[{\"date\":\"2026-01-01T00:00:00Z\","
                                      "\"fields\":{\"title\":{\"value\":\"x\"}}}],\"policy\":{\"kind\":\"never\"}}",
                                      -1, NULL));
  out = widgetctl (daemon, arguments, path);
}

/* widgetd's hiddenLockScreenWidgets, as `widgetctl settings --json` prints it. */
char *
hidden_in_widgetd (Daemon *daemon)
{
  const char *arguments[] = { "settings", "--json", NULL };
  g_autofree char *out = widgetctl (daemon, arguments, NULL);
  const char *start = strstr (out, "\"hiddenLockScreenWidgets\":");
  const char *end;

  g_assert_nonnull (start);
  end = strchr (start, ']');
  g_assert_nonnull (end);
  return g_strndup (start + strlen ("\"hiddenLockScreenWidgets\":"), (gsize) (end - start) - strlen ("\"hiddenLockScreenWidgets\":") + 1);
}

void
setup (Daemon *daemon)
{
  daemon->root = g_dir_make_tmp ("widgetd-settings-XXXXXX", NULL);
  g_assert_nonnull (daemon->root);
  daemon->socket = g_build_filename (daemon->root, "widgetd.sock", NULL);
  daemon_start (daemon);
  put (daemon, TWO);
  put (daemon, ONE);
}

void
teardown (Daemon *daemon)
{
  const char *argv[] = { "rm", "-rf", daemon->root, NULL };

  daemon_stop (daemon);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL));
  g_free (daemon->root);
  g_free (daemon->socket);
}

gboolean
have_widgetd (void)
{
  if (tool ("WIDGETD_BIN") == NULL || tool ("WIDGETCTL") == NULL) {
    g_test_skip ("WIDGETD_BIN and WIDGETCTL name no widgetd build");
    return FALSE;
  }
  return TRUE;
}

