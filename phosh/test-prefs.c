/*
 * The preferences window (widgetd-prefs.c) as phosh-mobile-settings uses it: its GIO
 * module loaded from PREFS_MODULE (default: the build's), the window made from the
 * extension point "phosh-lockscreen-widget-prefs" by its name "widgetd-prefs", shown,
 * and its switches used as a person would (activated), against a real widgetd
 * (test-daemon.h). Needs a display: scripts/test-phosh runs it inside its phoc;
 * without one, or without a widgetd build, it is skipped.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "test-daemon.h"

#include <adwaita.h>
#include <phosh-plugin.h>
#include <string.h>

#define MODULE ".build-release/phosh/libphosh-plugin-prefs-widgetd.so"

static GtkWidget *
find_named (GtkWidget *root, const char *name)
{
  if (g_strcmp0 (gtk_widget_get_name (root), name) == 0)
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child)) {
    GtkWidget *found = find_named (child, name);
    if (found != NULL)
      return found;
  }
  return NULL;
}

typedef gboolean (*Condition) (GtkWidget *window, Daemon *daemon);

static gboolean
on_tick (gpointer data)
{
  (void) data;
  return G_SOURCE_CONTINUE;
}

/*
 * Runs the main loop until `condition` holds. It is checked after each event the loop
 * dispatches, and at least every 100 ms (for what only widgetctl can tell).
 */
static void
iterate_until (GtkWidget *window, Daemon *daemon, Condition condition, const char *what)
{
  gint64 end = g_get_monotonic_time () + DEADLINE_SECONDS * G_USEC_PER_SEC;
  guint tick = g_timeout_add (100, on_tick, NULL);

  while (!condition (window, daemon)) {
    if (g_get_monotonic_time () > end)
      on_deadline ((gpointer) what);
    g_main_context_iteration (NULL, TRUE);
  }
  g_source_remove (tick);
}

static gboolean
switches_shown (GtkWidget *window, Daemon *daemon)
{
  (void) daemon;
  return find_named (window, ONE) != NULL && find_named (window, TWO) != NULL;
}

static gboolean
one_hidden_in_widgetd (GtkWidget *window, Daemon *daemon)
{
  g_autofree char *hidden = hidden_in_widgetd (daemon);

  (void) window;
  return g_strcmp0 (hidden, "[\"" ONE "\"]") == 0;
}

static gboolean
two_shown_hidden (GtkWidget *window, Daemon *daemon)
{
  (void) daemon;
  return gtk_switch_get_active (GTK_SWITCH (find_named (window, TWO))) &&
         !gtk_switch_get_active (GTK_SWITCH (find_named (window, ONE)));
}

static gboolean
unavailable_shown (GtkWidget *window, Daemon *daemon)
{
  GtkWidget *status = find_named (window, "widgetd-status");

  (void) daemon;
  return gtk_widget_get_visible (status) &&
         strstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (status)), "widgetd is not available") != NULL &&
         !gtk_switch_get_active (GTK_SWITCH (find_named (window, ONE)));
}

static GType
prefs_type (void)
{
  const char *path = g_getenv ("PREFS_MODULE") != NULL ? g_getenv ("PREFS_MODULE") : MODULE;
  GIOExtensionPoint *point = g_io_extension_point_register (PHOSH_PLUGIN_EXTENSION_POINT_LOCKSCREEN_WIDGET_PREFS);
  GIOModule *module = g_io_module_new (path);
  GIOExtension *extension;

  g_assert_true (g_type_module_use (G_TYPE_MODULE (module)));
  extension = g_io_extension_point_get_extension_by_name (point, "widgetd-prefs");
  g_assert_nonnull (extension);
  return g_io_extension_get_type (extension);
}

static void
test_switches_hide_widgets_and_follow_widgetd (void)
{
  Daemon daemon = { 0 };
  const char *select_two[] = { "settings", "set", "lock-screen-widgets", "selected", TWO, NULL };
  g_autofree char *out = NULL;
  GtkWidget *window;

  if (!have_widgetd ())
    return;
  if (!gtk_init_check ()) {
    g_test_skip ("no display");
    return;
  }
  adw_init ();
  setup (&daemon);
  g_setenv ("WIDGETD_SOCKET", daemon.socket, TRUE);
  window = g_object_new (prefs_type (), NULL);
  gtk_window_present (GTK_WINDOW (window));

  /* A switch per widget, off: nothing is hidden yet. */
  iterate_until (window, &daemon, switches_shown, "a switch per widget");
  g_assert_false (gtk_switch_get_active (GTK_SWITCH (find_named (window, ONE))));
  g_assert_false (gtk_switch_get_active (GTK_SWITCH (find_named (window, TWO))));
  g_assert_false (gtk_widget_get_visible (find_named (window, "widgetd-status")));

  /* Switched on as a person would (the switch turns at the end of its animation):
   * widgetd hides it. */
  gtk_widget_activate (find_named (window, ONE));
  iterate_until (window, &daemon, one_hidden_in_widgetd, "widgetd hiding " ONE);
  g_assert_true (gtk_switch_get_active (GTK_SWITCH (find_named (window, ONE))));

  /* Changed elsewhere (widgetctl), then Reload: the switches follow widgetd. */
  out = widgetctl (&daemon, select_two, NULL);
  gtk_widget_activate (find_named (window, "widgetd-reload"));
  iterate_until (window, &daemon, two_shown_hidden, "the switches following widgetd");

  /* widgetd gone: a change switched on says so, and the switch goes back to what holds. */
  daemon_stop (&daemon);
  gtk_widget_activate (find_named (window, ONE));
  iterate_until (window, &daemon, unavailable_shown, "widgetd shown unavailable");
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
  g_assert_false (gtk_switch_get_active (GTK_SWITCH (find_named (window, ONE))));

  gtk_window_destroy (GTK_WINDOW (window));
  teardown (&daemon);
}

int
main (int argc, char **argv)
{
  /* The plugin's GSettings at their defaults (its socket is then WIDGETD_SOCKET), set
   * before GTK reads any. */
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/prefs/switches-hide-widgets-and-follow-widgetd", test_switches_hide_widgets_and_follow_widgetd);
  return g_test_run ();
}
