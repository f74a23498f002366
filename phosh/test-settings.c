/*
 * WdSettingsModel (widgetd-settings.h) against a real widgetd (test-daemon.h): what the
 * model changed is read back with `widgetctl settings --json`. scripts/test-phosh runs
 * this under valgrind too.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "test-daemon.h"
#include "widgetd-settings.h"

#include <string.h>

typedef gboolean (*Predicate) (WdSettingsModel *model);

typedef struct {
  GMainLoop *loop;
  Predicate  predicate;
} Waiting;

static void
on_changed (WdSettingsModel *model, gpointer data)
{
  Waiting *waiting = data;

  if (waiting->predicate (model))
    g_main_loop_quit (waiting->loop);
}

/* Runs the main loop until `predicate` holds (checked at each "changed"). */
static void
wait_until (WdSettingsModel *model, Predicate predicate, const char *what)
{
  g_autoptr (GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  Waiting waiting = { loop, predicate };
  gulong handler;
  guint deadline;

  if (predicate (model))
    return;
  handler = g_signal_connect (model, "changed", G_CALLBACK (on_changed), &waiting);
  deadline = g_timeout_add_seconds (DEADLINE_SECONDS, on_deadline, (gpointer) what);
  g_main_loop_run (loop);
  g_source_remove (deadline);
  g_signal_handler_disconnect (model, handler);
}

static gboolean
loaded_with_both (WdSettingsModel *model)
{
  GPtrArray *widgets = wd_settings_model_get_widgets (model);

  return wd_settings_model_get_loaded (model) && widgets->len == 2;
}

static gboolean
settled (WdSettingsModel *model)
{
  return !wd_settings_model_get_busy (model);
}

static gboolean
failed (WdSettingsModel *model)
{
  return !wd_settings_model_get_busy (model) && wd_settings_model_get_error (model) != NULL;
}

static void
test_widgets_are_listed_and_hiding_one_is_sent_without_waiting (void)
{
  Daemon daemon = { 0 };
  g_autoptr (WdSettingsModel) model = NULL;
  g_autofree char *hidden = NULL;
  GPtrArray *widgets;

  if (!have_widgetd ())
    return;
  setup (&daemon);
  model = wd_settings_model_new (daemon.socket);
  /* Nothing is read before the main loop runs: the constructor waits for nothing. */
  g_assert_false (wd_settings_model_get_loaded (model));
  wait_until (model, loaded_with_both, "the model loaded");
  widgets = wd_settings_model_get_widgets (model);
  g_assert_cmpstr (g_ptr_array_index (widgets, 0), ==, ONE);
  g_assert_cmpstr (g_ptr_array_index (widgets, 1), ==, TWO);
  g_assert_true (wd_settings_model_get_access (model));
  g_assert_false (wd_settings_model_is_hidden (model, ONE));
  g_assert_null (wd_settings_model_get_error (model));

  /* Hidden at once on the page, sent without waiting: the reply is not in yet. */
  wd_settings_model_set_hidden (model, ONE, TRUE);
  g_assert_true (wd_settings_model_get_busy (model));
  g_assert_true (wd_settings_model_is_hidden (model, ONE));
  wait_until (model, settled, "SetSettings answered");
  g_assert_null (wd_settings_model_get_error (model));
  g_assert_true (wd_settings_model_is_hidden (model, ONE));
  hidden = hidden_in_widgetd (&daemon);
  g_assert_cmpstr (hidden, ==, "[\"" ONE "\"]");

  g_clear_object (&model);
  teardown (&daemon);
}

static void
test_quick_toggles_end_in_the_last (void)
{
  Daemon daemon = { 0 };
  g_autoptr (WdSettingsModel) model = NULL;
  g_autofree char *hidden = NULL;

  if (!have_widgetd ())
    return;
  setup (&daemon);
  model = wd_settings_model_new (daemon.socket);
  wait_until (model, loaded_with_both, "the model loaded");
  wd_settings_model_set_hidden (model, ONE, TRUE);
  wd_settings_model_set_hidden (model, TWO, TRUE);
  wd_settings_model_set_hidden (model, ONE, FALSE);
  wd_settings_model_set_hidden (model, TWO, FALSE);
  wd_settings_model_set_hidden (model, TWO, TRUE);
  g_assert_false (wd_settings_model_is_hidden (model, ONE));
  g_assert_true (wd_settings_model_is_hidden (model, TWO));
  wait_until (model, settled, "the toggles answered");
  hidden = hidden_in_widgetd (&daemon);
  g_assert_cmpstr (hidden, ==, "[\"" TWO "\"]");
  g_assert_false (wd_settings_model_is_hidden (model, ONE));
  g_assert_true (wd_settings_model_is_hidden (model, TWO));

  g_clear_object (&model);
  teardown (&daemon);
}

static void
test_widgetd_gone_is_an_error_and_nothing_is_hidden (void)
{
  Daemon daemon = { 0 };
  g_autoptr (WdSettingsModel) model = NULL;

  if (!have_widgetd ())
    return;
  setup (&daemon);
  model = wd_settings_model_new (daemon.socket);
  wait_until (model, loaded_with_both, "the model loaded");
  daemon_stop (&daemon);
  wd_settings_model_set_hidden (model, ONE, TRUE);
  wait_until (model, failed, "the error");
  g_assert_nonnull (strstr (wd_settings_model_get_error (model), "widgetd is not available"));
  /* What widgetd last said stays: nothing is shown hidden that is not. */
  g_assert_false (wd_settings_model_is_hidden (model, ONE));

  g_clear_object (&model);
  teardown (&daemon);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/settings/widgets-are-listed-and-hiding-one-is-sent-without-waiting",
                   test_widgets_are_listed_and_hiding_one_is_sent_without_waiting);
  g_test_add_func ("/settings/quick-toggles-end-in-the-last", test_quick_toggles_end_in_the_last);
  g_test_add_func ("/settings/widgetd-gone-is-an-error-and-nothing-is-hidden",
                   test_widgetd_gone_is_an_error_and_nothing_is_hidden);
  return g_test_run ();
}
