/*
 * The widget phosh puts on its lock screen: one card per widgetd widget, each drawn
 * from that widget's io.widgetd.Host.Watch stream on the surface "lockScreen".
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* The plugin's settings (DESIGN §11): "widgets", "socket", "max-widgets". */
#define WD_SETTINGS_SCHEMA "sm.puri.phosh.plugins.widgetd"

#define PHOSH_TYPE_WIDGETD_LOCKSCREEN (phosh_widgetd_lockscreen_get_type ())
G_DECLARE_FINAL_TYPE (PhoshWidgetdLockscreen, phosh_widgetd_lockscreen, PHOSH, WIDGETD_LOCKSCREEN, GtkBox)

G_END_DECLS
