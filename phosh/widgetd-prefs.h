/*
 * The widgetd plugin's preferences window (widgetd-prefs.c).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define PHOSH_TYPE_WIDGETD_PREFS (phosh_widgetd_prefs_get_type ())
G_DECLARE_FINAL_TYPE (PhoshWidgetdPrefs, phosh_widgetd_prefs, PHOSH, WIDGETD_PREFS, AdwPreferencesWindow)

G_END_DECLS
