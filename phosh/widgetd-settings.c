/*
 * widgetd's lock-screen settings for the preferences page (widgetd-settings.h).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "widgetd-settings.h"

#include "widgetd-stream.h"

#include <string.h>

/* Widgets read per ListWidgets page, and pages read at most (beyond: not offered). */
#define MAX_PAGES 16

typedef enum {
  STEP_IDLE,
  STEP_SETTINGS,
  STEP_LIST,
  STEP_SET,
} Step;

struct _WdSettingsModel {
  GObject    parent_instance;

  char      *socket_path;
  /* The connection calls go on, one at a time; NULL until the first, or after it failed. */
  WdStream  *stream;
  Step       step;
  guint      pages;
  /* Widget ids as listed so far, then the choice offered: listed and hidden, sorted. */
  GPtrArray *listed;
  GPtrArray *widgets;
  /* The hidden widgets as widgetd last said, the list on its way to it, and the list
   * to send next (NULL: none). */
  GPtrArray *hidden;
  GPtrArray *sent;
  GPtrArray *wanted;
  gboolean   access;
  gboolean   loaded;
  char      *error;
};

G_DEFINE_TYPE (WdSettingsModel, wd_settings_model, G_TYPE_OBJECT)

enum {
  SIGNAL_CHANGED,
  N_SIGNALS,
};
static guint signals[N_SIGNALS];

static void on_reply (WdStream *stream, const WdReply *reply, const GError *error, gpointer data);

static void
changed (WdSettingsModel *self)
{
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

static gboolean
contains (GPtrArray *list, const char *widget)
{
  return list != NULL && g_ptr_array_find_with_equal_func (list, widget, g_str_equal, NULL);
}

static int
compare_ids (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The choice offered: every widget listed, and every hidden one (so it can be shown again). */
static void
rebuild_widgets (WdSettingsModel *self)
{
  g_autoptr (GPtrArray) widgets = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < self->listed->len; i++)
    if (!contains (widgets, g_ptr_array_index (self->listed, i)))
      g_ptr_array_add (widgets, g_strdup (g_ptr_array_index (self->listed, i)));
  for (guint i = 0; self->hidden != NULL && i < self->hidden->len; i++)
    if (!contains (widgets, g_ptr_array_index (self->hidden, i)))
      g_ptr_array_add (widgets, g_strdup (g_ptr_array_index (self->hidden, i)));
  g_ptr_array_sort (widgets, compare_ids);
  g_ptr_array_unref (self->widgets);
  self->widgets = g_steal_pointer (&widgets);
}

static void
set_error (WdSettingsModel *self, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
set_error (WdSettingsModel *self, const char *format, ...)
{
  va_list args;

  g_free (self->error);
  va_start (args, format);
  self->error = g_strdup_vprintf (format, args);
  va_end (args);
}

/* What the page shows: what was last asked for, else what widgetd said. */
static GPtrArray *
shown_hidden (WdSettingsModel *self)
{
  return self->wanted != NULL ? self->wanted : self->sent != NULL ? self->sent : self->hidden;
}

/* Sends a call, on a new connection if the last one failed. */
static void
call (WdSettingsModel *self, Step step, const char *method, JsonNode *parameters)
{
  if (self->stream == NULL)
    self->stream = wd_stream_new (self->socket_path, on_reply, self);
  self->step = step;
  wd_stream_call (self->stream, method, parameters, FALSE);
}

static void
list_page (WdSettingsModel *self, const char *after)
{
  if (self->stream == NULL)
    self->stream = wd_stream_new (self->socket_path, on_reply, self);
  self->step = STEP_LIST;
  self->pages++;
  wd_stream_list_widgets (self->stream, after);
}

/* Sends the wanted list, if any. */
static void
send_wanted (WdSettingsModel *self)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonNode) parameters = NULL;
  g_autoptr (GPtrArray) wanted = g_steal_pointer (&self->wanted);

  if (wanted == NULL)
    return;
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "hiddenLockScreenWidgets");
  json_builder_begin_array (builder);
  for (guint i = 0; i < wanted->len; i++)
    json_builder_add_string_value (builder, g_ptr_array_index (wanted, i));
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  parameters = json_builder_get_root (builder);
  g_clear_pointer (&self->sent, g_ptr_array_unref);
  self->sent = g_steal_pointer (&wanted);
  call (self, STEP_SET, "io.widgetd.Device.SetSettings", parameters);
}

static gboolean
take_settings (WdSettingsModel *self, const WdReply *reply)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) hidden = NULL;
  gboolean access;

  if (!wd_settings_from_reply (reply, &access, &hidden, &error)) {
    set_error (self, "widgetd's settings could not be read: %s", error->message);
    return FALSE;
  }
  g_clear_pointer (&self->hidden, g_ptr_array_unref);
  self->hidden = g_steal_pointer (&hidden);
  self->access = access;
  self->loaded = TRUE;
  return TRUE;
}

static void
on_reply (WdStream *stream, const WdReply *reply, const GError *error, gpointer data)
{
  WdSettingsModel *self = data;
  Step step = self->step;

  self->step = STEP_IDLE;
  g_clear_pointer (&self->sent, g_ptr_array_unref);
  if (error != NULL) {
    /* The stream is closed: the next call opens another (the async operations in
     * flight hold their own references, so dropping ours here is safe). */
    g_clear_object (&self->stream);
    (void) stream;
    set_error (self, "widgetd is not available: %s", error->message);
    g_clear_pointer (&self->wanted, g_ptr_array_unref);
    rebuild_widgets (self);
    changed (self);
    return;
  }
  if (reply->error != NULL) {
    /* Refused (permission denied, a widget id it does not accept): what it holds stays. */
    set_error (self, "widgetd refused the change: %s", reply->error);
    if (step == STEP_LIST || step == STEP_SETTINGS) {
      rebuild_widgets (self);
      changed (self);
      return;
    }
  } else {
    switch (step) {
    case STEP_SETTINGS:
      if (!take_settings (self, reply)) {
        changed (self);
        return;
      }
      g_ptr_array_set_size (self->listed, 0);
      self->pages = 0;
      list_page (self, NULL);
      return;
    case STEP_LIST: {
      g_autoptr (GError) list_error = NULL;
      g_autofree char *next = NULL;
      g_autoptr (GPtrArray) page = wd_widget_list_from_reply (reply, &next, &list_error);

      if (page == NULL) {
        set_error (self, "widgetd's widgets could not be read: %s", list_error->message);
        break;
      }
      for (guint i = 0; i < page->len; i++)
        g_ptr_array_add (self->listed, g_strdup (((WdWidgetInfo *) g_ptr_array_index (page, i))->widget));
      if (next != NULL && self->pages < MAX_PAGES) {
        list_page (self, next);
        return;
      }
      g_clear_pointer (&self->error, g_free);
      break;
    }
    case STEP_SET:
      if (take_settings (self, reply))
        g_clear_pointer (&self->error, g_free);
      break;
    case STEP_IDLE:
    default:
      break;
    }
  }
  rebuild_widgets (self);
  send_wanted (self);
  changed (self);
}

static void
wd_settings_model_dispose (GObject *object)
{
  WdSettingsModel *self = WD_SETTINGS_MODEL (object);

  if (self->stream != NULL) {
    wd_stream_close (self->stream);
    g_clear_object (&self->stream);
  }
  G_OBJECT_CLASS (wd_settings_model_parent_class)->dispose (object);
}

static void
wd_settings_model_finalize (GObject *object)
{
  WdSettingsModel *self = WD_SETTINGS_MODEL (object);

  g_free (self->socket_path);
  g_free (self->error);
  g_ptr_array_unref (self->listed);
  g_ptr_array_unref (self->widgets);
  g_clear_pointer (&self->hidden, g_ptr_array_unref);
  g_clear_pointer (&self->sent, g_ptr_array_unref);
  g_clear_pointer (&self->wanted, g_ptr_array_unref);
  G_OBJECT_CLASS (wd_settings_model_parent_class)->finalize (object);
}

static void
wd_settings_model_class_init (WdSettingsModelClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = wd_settings_model_dispose;
  G_OBJECT_CLASS (klass)->finalize = wd_settings_model_finalize;
  signals[SIGNAL_CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                          NULL, G_TYPE_NONE, 0);
}

static void
wd_settings_model_init (WdSettingsModel *self)
{
  self->listed = g_ptr_array_new_with_free_func (g_free);
  self->widgets = g_ptr_array_new_with_free_func (g_free);
}

WdSettingsModel *
wd_settings_model_new (const char *socket_path)
{
  WdSettingsModel *self = g_object_new (WD_TYPE_SETTINGS_MODEL, NULL);

  self->socket_path = g_strdup (socket_path);
  wd_settings_model_reload (self);
  return self;
}

void
wd_settings_model_reload (WdSettingsModel *self)
{
  g_return_if_fail (WD_IS_SETTINGS_MODEL (self));

  if (self->step != STEP_IDLE)
    return;
  call (self, STEP_SETTINGS, "io.widgetd.Device.GetSettings", NULL);
}

GPtrArray *
wd_settings_model_get_widgets (WdSettingsModel *self)
{
  g_return_val_if_fail (WD_IS_SETTINGS_MODEL (self), NULL);
  return self->widgets;
}

gboolean
wd_settings_model_is_hidden (WdSettingsModel *self, const char *widget)
{
  g_return_val_if_fail (WD_IS_SETTINGS_MODEL (self), FALSE);
  return contains (shown_hidden (self), widget);
}

gboolean
wd_settings_model_get_access (WdSettingsModel *self)
{
  g_return_val_if_fail (WD_IS_SETTINGS_MODEL (self), FALSE);
  return self->access;
}

gboolean
wd_settings_model_get_loaded (WdSettingsModel *self)
{
  g_return_val_if_fail (WD_IS_SETTINGS_MODEL (self), FALSE);
  return self->loaded;
}

gboolean
wd_settings_model_get_busy (WdSettingsModel *self)
{
  g_return_val_if_fail (WD_IS_SETTINGS_MODEL (self), FALSE);
  return self->sent != NULL || self->wanted != NULL;
}

const char *
wd_settings_model_get_error (WdSettingsModel *self)
{
  g_return_val_if_fail (WD_IS_SETTINGS_MODEL (self), NULL);
  return self->error;
}

void
wd_settings_model_set_hidden (WdSettingsModel *self, const char *widget, gboolean hidden)
{
  GPtrArray *from;
  g_autoptr (GPtrArray) wanted = g_ptr_array_new_with_free_func (g_free);

  g_return_if_fail (WD_IS_SETTINGS_MODEL (self));
  g_return_if_fail (widget != NULL);

  if (!self->loaded || wd_settings_model_is_hidden (self, widget) == !!hidden)
    return;
  /* From what was last asked for (a change still on its way), else what widgetd said. */
  from = shown_hidden (self);
  for (guint i = 0; from != NULL && i < from->len; i++)
    if (hidden || strcmp (g_ptr_array_index (from, i), widget) != 0)
      g_ptr_array_add (wanted, g_strdup (g_ptr_array_index (from, i)));
  if (hidden)
    g_ptr_array_add (wanted, g_strdup (widget));
  g_clear_pointer (&self->wanted, g_ptr_array_unref);
  self->wanted = g_steal_pointer (&wanted);
  if (self->step == STEP_IDLE)
    send_wanted (self);
  changed (self);
}
