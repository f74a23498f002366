/*
 * A real widgetd for the plugin's C tests (test-settings.c, test-prefs.c): WIDGETD_BIN
 * and WIDGETCTL name the builds (scripts/test-phosh sets them; without them the tests
 * are skipped). widgetd runs on a private configuration registering com.example.a for
 * this user, is awaited by its READY=1 as systemd awaits it, and holds the widgets ONE
 * and TWO; what changed is read back with `widgetctl settings --json`.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#pragma once

#include <glib.h>

#define ONE "com.example.a/one"
#define TWO "com.example.a/two"
/* The most any awaited change may take; nothing waits for it unless it fails. */
#define DEADLINE_SECONDS 30

typedef struct {
  char   *root;
  char   *socket;
  GPid    pid;
} Daemon;

/* Whether WIDGETD_BIN and WIDGETCTL are set; else the test is marked skipped. */
gboolean    have_widgetd (void);
/* A widgetd started with ONE and TWO stored; stopped and removed by teardown. */
void        setup (Daemon *daemon);
void        teardown (Daemon *daemon);
void        daemon_stop (Daemon *daemon);
/* Runs widgetctl with `arguments` (NULL-terminated) and `input_file`; its output. */
char       *widgetctl (Daemon *daemon, const char *const *arguments, const char *input_file);
/* widgetd's hiddenLockScreenWidgets as JSON text, e.g. ["a/b"]. */
char       *hidden_in_widgetd (Daemon *daemon);
/* A timeout callback that fails the test, naming what `data` says was awaited. */
gboolean    on_deadline (gpointer data);
