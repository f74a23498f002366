/*
 * What the preferences page shows and changes: widgetd's widgets and which of them are
 * hidden on the lock screen (`hiddenLockScreenWidgets`, DESIGN §4 rule 5), read with
 * GetSettings and ListWidgets and changed with SetSettings, all through WdStream: no
 * call waits, the answers come on the main loop. No GTK here, so that it is tested on
 * its own against a real widgetd (test-settings.c).
 *
 * A change is sent at once when no call is in flight; otherwise the latest wanted list
 * is sent when the call in flight is answered, so that quick toggles end in the last
 * one. widgetd's reply is the truth: the model takes the settings it returns.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define WD_TYPE_SETTINGS_MODEL (wd_settings_model_get_type ())
G_DECLARE_FINAL_TYPE (WdSettingsModel, wd_settings_model, WD, SETTINGS_MODEL, GObject)

/*
 * Starts reading at once. Signals: "changed" (no arguments) whenever the widgets, the
 * hidden ones, the error or whether a change is in flight changed.
 */
WdSettingsModel *wd_settings_model_new (const char *socket_path);

/* The widgets to choose from, in id order: those widgetd lists and those hidden. */
GPtrArray  *wd_settings_model_get_widgets (WdSettingsModel *self);
gboolean    wd_settings_model_is_hidden (WdSettingsModel *self, const char *widget);
/* "Allow access when locked" (when off, every widget is redacted on the lock screen). */
gboolean    wd_settings_model_get_access (WdSettingsModel *self);
/* Whether widgetd's settings were read. */
gboolean    wd_settings_model_get_loaded (WdSettingsModel *self);
/* Whether a SetSettings is on its way. */
gboolean    wd_settings_model_get_busy (WdSettingsModel *self);
/* What went wrong last (widgetd unavailable, a refused change), or NULL. */
const char *wd_settings_model_get_error (WdSettingsModel *self);

/* Hides `widget` on the lock screen, or shows it again: returns at once. */
void        wd_settings_model_set_hidden (WdSettingsModel *self, const char *widget, gboolean hidden);

/* Reads everything again (after an error, or widgets added). */
void        wd_settings_model_reload (WdSettingsModel *self);

G_END_DECLS
