/*
 * The GIO module phosh loads from its plugin directory: it implements the extension
 * point "phosh-lockscreen-widget" under the name "widgetd", which
 * `gsettings set sm.puri.phosh.plugins lock-screen "['widgetd']"` enables.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "widgetd-lockscreen.h"

#include <gio/gio.h>
#include <phosh-plugin.h>

/* Exported: the only symbols the module's users need (-fvisibility=hidden hides the rest). */
#define WD_EXPORT __attribute__ ((visibility ("default")))

WD_EXPORT void g_io_module_load (GIOModule *module);
WD_EXPORT void g_io_module_unload (GIOModule *module);
WD_EXPORT char **g_io_phosh_plugin_widgetd_query (void);

void
g_io_module_load (GIOModule *module)
{
  /* The module stays loaded: GType registrations cannot be undone. */
  g_type_module_use (G_TYPE_MODULE (module));
  g_io_extension_point_implement (PHOSH_PLUGIN_EXTENSION_POINT_LOCKSCREEN_WIDGET, PHOSH_TYPE_WIDGETD_LOCKSCREEN,
                                  "widgetd", 10);
}

void
g_io_module_unload (GIOModule *module)
{
  (void) module;
}

char **
g_io_phosh_plugin_widgetd_query (void)
{
  char *extension_points[] = { (char *) PHOSH_PLUGIN_EXTENSION_POINT_LOCKSCREEN_WIDGET, NULL };

  return g_strdupv (extension_points);
}
