/*
 * The widgetd plugin's preferences (GTK 4, libadwaita), a GIO module phosh's settings
 * app (phosh-mobile-settings) loads from phosh's prefs plugin directory through the
 * extension point "phosh-lockscreen-widget-prefs": one page, "Hidden on the Lock
 * Screen", with a switch per widget. A widget switched on is in widgetd's
 * `hiddenLockScreenWidgets` (DESIGN §4 rule 5): its sensitive values are redacted on
 * the locked lock screen even while lock-screen widgets are allowed. Every change goes
 * to widgetd with SetSettings through WdSettingsModel, asynchronously: the window never
 * waits on widgetd.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "widgetd-prefs.h"

#include "widgetd-settings.h"
#include "widgetd-stream.h"

#include <adwaita.h>
#include <phosh-plugin.h>

struct _PhoshWidgetdPrefs {
  AdwPreferencesWindow parent_instance;

  WdSettingsModel *model;
  AdwPreferencesGroup *group;
  /* The rows shown (AdwActionRow), and the switch of each widget id. */
  GPtrArray       *rows;
  GHashTable      *switches;
  /* The row saying widgetd's state (loading, unavailable, no widgets, access off). */
  AdwActionRow    *status;
  gboolean         updating;
};

G_DEFINE_TYPE (PhoshWidgetdPrefs, phosh_widgetd_prefs, ADW_TYPE_PREFERENCES_WINDOW)

static void
on_switch_active (GtkSwitch *toggle, GParamSpec *pspec, gpointer data)
{
  PhoshWidgetdPrefs *self = data;
  const char *widget = g_object_get_data (G_OBJECT (toggle), "widgetd-widget");

  (void) pspec;
  if (self->updating)
    return;
  wd_settings_model_set_hidden (self->model, widget, gtk_switch_get_active (toggle));
}

static void
clear_rows (PhoshWidgetdPrefs *self)
{
  for (guint i = 0; i < self->rows->len; i++)
    adw_preferences_group_remove (self->group, g_ptr_array_index (self->rows, i));
  g_ptr_array_set_size (self->rows, 0);
  g_hash_table_remove_all (self->switches);
}

static void
add_row (PhoshWidgetdPrefs *self, const char *widget)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *toggle = gtk_switch_new ();

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), widget);
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  gtk_widget_set_valign (toggle, GTK_ALIGN_CENTER);
  g_object_set_data_full (G_OBJECT (toggle), "widgetd-widget", g_strdup (widget), g_free);
  /* The switch's accessible name is the widget's id (the row's title). */
  gtk_accessible_update_property (GTK_ACCESSIBLE (toggle), GTK_ACCESSIBLE_PROPERTY_LABEL, widget, -1);
  gtk_widget_set_name (toggle, widget);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), toggle);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), toggle);
  g_signal_connect (toggle, "notify::active", G_CALLBACK (on_switch_active), self);
  adw_preferences_group_add (self->group, row);
  g_ptr_array_add (self->rows, row);
  g_hash_table_insert (self->switches, g_strdup (widget), toggle);
}

static void
update_status (PhoshWidgetdPrefs *self)
{
  const char *error = wd_settings_model_get_error (self->model);
  const char *text = NULL;

  if (error != NULL)
    text = error;
  else if (!wd_settings_model_get_loaded (self->model))
    text = "Reading widgetd's settings…";
  else if (wd_settings_model_get_widgets (self->model)->len == 0)
    text = "widgetd has no widgets yet";
  else if (!wd_settings_model_get_access (self->model))
    text = "Lock-screen widgets are off: every widget is redacted while locked";
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->status), text != NULL ? text : "");
  gtk_widget_set_visible (GTK_WIDGET (self->status), text != NULL);
}

/* Shows what the model holds: a row per widget, each switch as the model says. */
static void
on_model_changed (WdSettingsModel *model, gpointer data)
{
  PhoshWidgetdPrefs *self = data;
  GPtrArray *widgets = wd_settings_model_get_widgets (model);
  gboolean same = widgets->len == g_hash_table_size (self->switches);

  for (guint i = 0; same && i < widgets->len; i++)
    same = g_hash_table_contains (self->switches, g_ptr_array_index (widgets, i));
  self->updating = TRUE;
  if (!same) {
    clear_rows (self);
    for (guint i = 0; i < widgets->len; i++)
      add_row (self, g_ptr_array_index (widgets, i));
  }
  for (guint i = 0; i < widgets->len; i++) {
    const char *widget = g_ptr_array_index (widgets, i);
    GtkSwitch *toggle = g_hash_table_lookup (self->switches, widget);
    gtk_switch_set_active (toggle, wd_settings_model_is_hidden (model, widget));
  }
  self->updating = FALSE;
  update_status (self);
}

static void
on_reload (PhoshWidgetdPrefs *self)
{
  wd_settings_model_reload (self->model);
}

static void
phosh_widgetd_prefs_dispose (GObject *object)
{
  PhoshWidgetdPrefs *self = PHOSH_WIDGETD_PREFS (object);

  if (self->model != NULL)
    g_signal_handlers_disconnect_by_data (self->model, self);
  g_clear_object (&self->model);
  G_OBJECT_CLASS (phosh_widgetd_prefs_parent_class)->dispose (object);
}

static void
phosh_widgetd_prefs_finalize (GObject *object)
{
  PhoshWidgetdPrefs *self = PHOSH_WIDGETD_PREFS (object);

  g_ptr_array_unref (self->rows);
  g_hash_table_unref (self->switches);
  G_OBJECT_CLASS (phosh_widgetd_prefs_parent_class)->finalize (object);
}

static void
phosh_widgetd_prefs_class_init (PhoshWidgetdPrefsClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = phosh_widgetd_prefs_dispose;
  G_OBJECT_CLASS (klass)->finalize = phosh_widgetd_prefs_finalize;
}

static void
phosh_widgetd_prefs_init (PhoshWidgetdPrefs *self)
{
  GtkWidget *page = adw_preferences_page_new ();
  GtkWidget *reload = gtk_button_new_from_icon_name ("view-refresh-symbolic");
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr (GSettingsSchema) schema = NULL;
  g_autoptr (GSettings) settings = NULL;
  g_autofree char *socket = NULL;

  self->rows = g_ptr_array_new ();
  self->switches = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gtk_window_set_title (GTK_WINDOW (self), "Widgets");
  adw_preferences_page_set_title (ADW_PREFERENCES_PAGE (page), "Lock Screen");
  adw_preferences_page_set_icon_name (ADW_PREFERENCES_PAGE (page), "system-lock-screen-symbolic");
  self->group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (self->group, "Hidden on the Lock Screen");
  adw_preferences_group_set_description (self->group,
                                         "A hidden widget's sensitive values are redacted while the device is "
                                         "locked; its other values still show.");
  gtk_widget_set_valign (reload, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (reload, "Read widgetd's widgets again");
  gtk_accessible_update_property (GTK_ACCESSIBLE (reload), GTK_ACCESSIBLE_PROPERTY_LABEL, "Reload", -1);
  gtk_widget_add_css_class (reload, "flat");
  gtk_widget_set_name (reload, "widgetd-reload");
  g_signal_connect_swapped (reload, "clicked", G_CALLBACK (on_reload), self);
  adw_preferences_group_set_header_suffix (self->group, reload);
  self->status = ADW_ACTION_ROW (adw_action_row_new ());
  gtk_widget_set_name (GTK_WIDGET (self->status), "widgetd-status");
  adw_preferences_group_add (self->group, GTK_WIDGET (self->status));
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), self->group);
  adw_preferences_window_add (ADW_PREFERENCES_WINDOW (self), ADW_PREFERENCES_PAGE (page));

  /* The socket the lock-screen plugin uses (its GSettings), else widgetctl's default. */
  schema = source != NULL ? g_settings_schema_source_lookup (source, "sm.puri.phosh.plugins.widgetd", TRUE) : NULL;
  if (schema != NULL) {
    settings = g_settings_new ("sm.puri.phosh.plugins.widgetd");
    socket = g_settings_get_string (settings, "socket");
  }
  if (socket == NULL || *socket == '\0') {
    g_free (socket);
    socket = wd_default_socket ();
  }
  self->model = wd_settings_model_new (socket);
  g_signal_connect (self->model, "changed", G_CALLBACK (on_model_changed), self);
  update_status (self);
}

/* Exported: the only symbols the module's users need (-fvisibility=hidden hides the rest). */
#define WD_EXPORT __attribute__ ((visibility ("default")))

WD_EXPORT void g_io_module_load (GIOModule *module);
WD_EXPORT void g_io_module_unload (GIOModule *module);
WD_EXPORT char **g_io_phosh_plugin_prefs_widgetd_query (void);

void
g_io_module_load (GIOModule *module)
{
  /* The module stays loaded: GType registrations cannot be undone. */
  g_type_module_use (G_TYPE_MODULE (module));
  g_io_extension_point_implement (PHOSH_PLUGIN_EXTENSION_POINT_LOCKSCREEN_WIDGET_PREFS, PHOSH_TYPE_WIDGETD_PREFS,
                                  "widgetd-prefs", 10);
}

void
g_io_module_unload (GIOModule *module)
{
  (void) module;
}

char **
g_io_phosh_plugin_prefs_widgetd_query (void)
{
  char *extension_points[] = { (char *) PHOSH_PLUGIN_EXTENSION_POINT_LOCKSCREEN_WIDGET_PREFS, NULL };

  return g_strdupv (extension_points);
}
