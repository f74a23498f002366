/*
 * Bounded parsing of widgetd's Varlink replies (widgetd-reply.h).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "widgetd-reply.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK (wd-reply-error-quark, wd_reply_error)

static gboolean
malformed (GError **error, const char *what)
{
  g_set_error (error, WD_REPLY_ERROR, WD_REPLY_ERROR_MALFORMED, "malformed reply: %s", what);
  return FALSE;
}

/* Where a strict scan stands: what may come next. */
typedef enum {
  SCAN_VALUE,
  /* After "[": a value or "]". */
  SCAN_VALUE_OR_END,
  /* After "{": a key or "}". */
  SCAN_KEY_OR_END,
  /* After "," in an object. */
  SCAN_KEY,
  SCAN_COLON,
  SCAN_AFTER_VALUE,
} ScanState;

static gboolean
is_space (char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Skips a string whose opening quote is at text[*i]; *i ends on its closing quote. */
static gboolean
scan_string (const char *text, gsize len, gsize *i)
{
  for (gsize j = *i + 1; j < len; j++) {
    guchar c = (guchar) text[j];

    if (c == '"') {
      *i = j;
      return TRUE;
    }
    if (c < 0x20)
      return FALSE;
    if (c != '\\')
      continue;
    if (++j >= len)
      return FALSE;
    switch (text[j]) {
    case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
      break;
    case 'u':
      for (int k = 0; k < 4; k++)
        if (++j >= len || !g_ascii_isxdigit (text[j]))
          return FALSE;
      break;
    default:
      return FALSE;
    }
  }
  return FALSE;
}

/* Skips a number starting at text[*i]; *i ends on its last character. */
static gboolean
scan_number (const char *text, gsize len, gsize *i)
{
  gsize j = *i;

  if (text[j] == '-')
    j++;
  if (j >= len || !g_ascii_isdigit (text[j]))
    return FALSE;
  if (text[j] == '0')
    j++;
  else
    while (j < len && g_ascii_isdigit (text[j]))
      j++;
  if (j < len && text[j] == '.') {
    if (++j >= len || !g_ascii_isdigit (text[j]))
      return FALSE;
    while (j < len && g_ascii_isdigit (text[j]))
      j++;
  }
  if (j < len && (text[j] == 'e' || text[j] == 'E')) {
    j++;
    if (j < len && (text[j] == '+' || text[j] == '-'))
      j++;
    if (j >= len || !g_ascii_isdigit (text[j]))
      return FALSE;
    while (j < len && g_ascii_isdigit (text[j]))
      j++;
  }
  *i = j - 1;
  return TRUE;
}

static gboolean
scan_word (const char *text, gsize len, gsize *i, const char *word)
{
  gsize n = strlen (word);

  if (len - *i < n || memcmp (text + *i, word, n) != 0)
    return FALSE;
  *i += n - 1;
  return TRUE;
}

gboolean
wd_json_depth_within (const char *text, gsize len, guint max_depth)
{
  /* Whether each open container is an object. */
  g_autofree gboolean *objects = g_new0 (gboolean, max_depth + 1);
  ScanState state = SCAN_VALUE;
  guint depth = 0;

  /* json-glib's parser recurses once per level and ignores what follows the first
   * value, but it also reads what JSON is not: comments, single-quoted strings, hex
   * numbers. A scan that knew only where double-quoted strings are would lose track
   * of the nesting behind a comment holding a quote (slash, star, quote, star, slash). So the text is read as strict
   * JSON (RFC 8259) here first, and anything else refused: what passes, json-glib
   * reads with exactly the nesting counted. */
  for (gsize i = 0; i < len; i++) {
    char c = text[i];

    if (is_space (c))
      continue;
    switch (state) {
    case SCAN_COLON:
      if (c != ':')
        return FALSE;
      state = SCAN_VALUE;
      continue;
    case SCAN_KEY_OR_END:
    case SCAN_KEY:
      if (c == '}' && state == SCAN_KEY_OR_END)
        goto close;
      if (c != '"' || !scan_string (text, len, &i))
        return FALSE;
      state = SCAN_COLON;
      continue;
    case SCAN_AFTER_VALUE:
      if (depth == 0)
        return FALSE;
      if (c == ',') {
        state = objects[depth] ? SCAN_KEY : SCAN_VALUE;
        continue;
      }
      if (c == (objects[depth] ? '}' : ']'))
        goto close;
      return FALSE;
    case SCAN_VALUE_OR_END:
      if (c == ']')
        goto close;
      G_GNUC_FALLTHROUGH;
    case SCAN_VALUE:
      break;
    }
    /* A value. */
    switch (c) {
    case '{':
    case '[':
      if (++depth > max_depth)
        return FALSE;
      objects[depth] = c == '{';
      state = c == '{' ? SCAN_KEY_OR_END : SCAN_VALUE_OR_END;
      continue;
    case '"':
      if (!scan_string (text, len, &i))
        return FALSE;
      break;
    case 't':
      if (!scan_word (text, len, &i, "true"))
        return FALSE;
      break;
    case 'f':
      if (!scan_word (text, len, &i, "false"))
        return FALSE;
      break;
    case 'n':
      if (!scan_word (text, len, &i, "null"))
        return FALSE;
      break;
    default:
      if (c != '-' && !g_ascii_isdigit (c))
        return FALSE;
      if (!scan_number (text, len, &i))
        return FALSE;
      break;
    }
    state = SCAN_AFTER_VALUE;
    continue;
  close:
    depth--;
    state = SCAN_AFTER_VALUE;
  }
  return state == SCAN_AFTER_VALUE && depth == 0;
}

WdReply *
wd_reply_parse (const char *text, gsize len, GError **error)
{
  g_autoptr (JsonParser) parser = NULL;
  g_autoptr (WdReply) reply = NULL;
  JsonObject *root;
  JsonNode *member;

  if (len > WD_REPLY_MAX) {
    g_set_error (error, WD_REPLY_ERROR, WD_REPLY_ERROR_TOO_LARGE, "reply longer than %d bytes", WD_REPLY_MAX);
    return NULL;
  }
  if (memchr (text, '\0', len) != NULL || !g_utf8_validate_len (text, len, NULL)) {
    malformed (error, "not UTF-8");
    return NULL;
  }
  if (!wd_json_depth_within (text, len, WD_REPLY_MAX_DEPTH)) {
    malformed (error, "not strict JSON, nested too deeply, or more than one value");
    return NULL;
  }

  parser = json_parser_new_immutable ();
  if (!json_parser_load_from_data (parser, text, (gssize) len, NULL)) {
    malformed (error, "not JSON");
    return NULL;
  }
  if (json_parser_get_root (parser) == NULL || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser))) {
    malformed (error, "not an object");
    return NULL;
  }
  root = json_node_get_object (json_parser_get_root (parser));

  reply = g_new0 (WdReply, 1);
  member = json_object_get_member (root, "error");
  if (member != NULL) {
    if (!JSON_NODE_HOLDS_VALUE (member) || json_node_get_value_type (member) != G_TYPE_STRING) {
      malformed (error, "error is not a string");
      return NULL;
    }
    reply->error = g_strdup (json_node_get_string (member));
  }
  member = json_object_get_member (root, "continues");
  if (member != NULL) {
    if (!JSON_NODE_HOLDS_VALUE (member) || json_node_get_value_type (member) != G_TYPE_BOOLEAN) {
      malformed (error, "continues is not a boolean");
      return NULL;
    }
    reply->continues = json_node_get_boolean (member);
  }
  member = json_object_get_member (root, "parameters");
  if (member != NULL && !JSON_NODE_HOLDS_NULL (member)) {
    if (!JSON_NODE_HOLDS_OBJECT (member)) {
      malformed (error, "parameters is not an object");
      return NULL;
    }
    reply->parameters = json_object_ref (json_node_get_object (member));
  } else {
    reply->parameters = json_object_new ();
  }
  return g_steal_pointer (&reply);
}

void
wd_reply_free (WdReply *reply)
{
  if (reply == NULL)
    return;
  g_free (reply->error);
  g_clear_pointer (&reply->parameters, json_object_unref);
  g_free (reply);
}

static const char *
string_member (JsonObject *object, const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

/* `text` cut to WD_MAX_TEXT characters (an ellipsis marks the cut), newlines as spaces. */
static char *
bounded_text (const char *text)
{
  glong length = g_utf8_strlen (text, -1);
  GString *out;

  if (length > WD_MAX_TEXT) {
    const char *end = g_utf8_offset_to_pointer (text, WD_MAX_TEXT - 1);
    out = g_string_new_len (text, end - text);
    g_string_append (out, "…");
  } else {
    out = g_string_new (text);
  }
  for (gsize i = 0; i < out->len; i++)
    if (out->str[i] == '\n' || out->str[i] == '\r' || out->str[i] == '\t')
      out->str[i] = ' ';
  return g_string_free (out, FALSE);
}

/* A field's value as drawn: strings as they are, numbers and booleans in JSON's
 * spelling, null as nothing, objects and arrays as compact JSON. */
static char *
value_text (JsonNode *value)
{
  g_autofree char *raw = NULL;

  if (value == NULL || JSON_NODE_HOLDS_NULL (value))
    return g_strdup ("");
  if (JSON_NODE_HOLDS_VALUE (value)) {
    switch (json_node_get_value_type (value)) {
    case G_TYPE_STRING:
      return bounded_text (json_node_get_string (value));
    case G_TYPE_INT64:
      return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (value));
    case G_TYPE_DOUBLE: {
      char buffer[G_ASCII_DTOSTR_BUF_SIZE];
      return g_strdup (g_ascii_formatd (buffer, sizeof buffer, "%g", json_node_get_double (value)));
    }
    case G_TYPE_BOOLEAN:
      return g_strdup (json_node_get_boolean (value) ? "true" : "false");
    default:
      return g_strdup ("");
    }
  }
  raw = json_to_string (value, FALSE);
  return bounded_text (raw);
}

static void
field_free (gpointer data)
{
  WdField *field = data;

  g_free (field->name);
  g_free (field->text);
  g_free (field->icon);
  g_clear_pointer (&field->date, g_date_time_unref);
  g_free (field);
}

static void
action_free (gpointer data)
{
  WdAction *action = data;

  g_free (action->id);
  g_free (action->title);
  g_free (action->icon);
  g_free (action);
}

gboolean
wd_icon_name_is_plain (const char *name)
{
  gsize length = name != NULL ? strlen (name) : 0;

  if (length == 0 || length > WD_MAX_ICON)
    return FALSE;
  for (gsize i = 0; i < length; i++)
    if (!g_ascii_islower (name[i]) && !g_ascii_isdigit (name[i]) && name[i] != '-')
      return FALSE;
  return TRUE;
}

static gboolean
number_member (JsonNode *node, double *number)
{
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  switch (json_node_get_value_type (node)) {
  case G_TYPE_INT64:
  case G_TYPE_DOUBLE:
    *number = json_node_get_double (node);
    return isfinite (*number);
  default:
    return FALSE;
  }
}

static gboolean
boolean_member (JsonObject *object, const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_BOOLEAN &&
         json_node_get_boolean (node);
}

static WdRole
role_named (const char *role)
{
  static const struct { const char *name; WdRole role; } roles[] = {
    { "title", WD_ROLE_TITLE }, { "value", WD_ROLE_VALUE }, { "detail", WD_ROLE_DETAIL },
    { "icon", WD_ROLE_ICON },   { "gauge", WD_ROLE_GAUGE }, { "date", WD_ROLE_DATE },
  };

  if (role == NULL)
    return WD_ROLE_NONE;
  for (guint i = 0; i < G_N_ELEMENTS (roles); i++)
    if (g_str_equal (roles[i].name, role))
      return roles[i].role;
  return WD_ROLE_OTHER;
}

static WdDateStyle
style_named (const char *style)
{
  if (style != NULL && g_str_equal (style, "date"))
    return WD_DATE_DATE;
  if (style != NULL && g_str_equal (style, "relative"))
    return WD_DATE_RELATIVE;
  if (style != NULL && g_str_equal (style, "timer"))
    return WD_DATE_TIMER;
  return WD_DATE_TIME;
}

/* Reads what a field's role needs: its icon, gauge or date. A value that does not fit
 * its role (widgetd refuses those at write time) is drawn as nothing. */
static void
read_role (WdField *field, JsonObject *object)
{
  JsonNode *value = json_object_get_member (object, "value");
  JsonNode *range = json_object_get_member (object, "range");
  const char *text = value != NULL && JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_STRING
                       ? json_node_get_string (value)
                       : NULL;

  field->role = role_named (string_member (object, "role"));
  switch (field->role) {
  case WD_ROLE_ICON:
    /* A redacted icon is drawn as the placeholder's: the value widgetd put in its
     * place is that sample, never the hidden one. */
    if (wd_icon_name_is_plain (text))
      field->icon = g_strdup (text);
    break;
  case WD_ROLE_GAUGE:
    field->gauge_min = 0;
    field->gauge_max = 1;
    if (range != NULL && JSON_NODE_HOLDS_ARRAY (range) && json_array_get_length (json_node_get_array (range)) == 2) {
      double low, high;
      if (number_member (json_array_get_element (json_node_get_array (range), 0), &low) &&
          number_member (json_array_get_element (json_node_get_array (range), 1), &high) && low < high) {
        field->gauge_min = low;
        field->gauge_max = high;
      }
    }
    if (!field->redacted && number_member (value, &field->gauge)) {
      field->gauge = CLAMP (field->gauge, field->gauge_min, field->gauge_max);
      field->has_gauge = TRUE;
    }
    break;
  case WD_ROLE_DATE:
    field->style = style_named (string_member (object, "style"));
    if (!field->redacted && text != NULL)
      field->date = g_date_time_new_from_iso8601 (text, NULL);
    break;
  default:
    break;
  }
}

static WdAction *
read_action (JsonObject *object)
{
  const char *id = string_member (object, "id");
  const char *title = string_member (object, "title");
  const char *icon = string_member (object, "icon");
  const char *kind = string_member (object, "kind");
  const char *requires = string_member (object, "requires");
  WdAction *action;

  if (id == NULL || kind == NULL)
    return NULL;
  action = g_new0 (WdAction, 1);
  action->id = bounded_text (id);
  action->redacted = boolean_member (object, "redacted");
  /* A redacted title is the placeholder's (a sample), or none. */
  if (title != NULL)
    action->title = bounded_text (title);
  if (wd_icon_name_is_plain (icon))
    action->icon = g_strdup (icon);
  action->toggle = g_str_equal (kind, "toggle");
  action->is_on = boolean_member (object, "isOn");
  action->available = boolean_member (object, "available");
  action->requires_unlock = !action->available && requires != NULL && g_str_equal (requires, "unlock");
  return action;
}

WdPresentation *
wd_presentation_from_reply (const WdReply *reply, GError **error)
{
  g_autoptr (WdPresentation) presentation = NULL;
  JsonObject *object, *entry, *fields;
  JsonNode *node;
  const char *widget, *mode;
  g_autoptr (GList) names = NULL;

  node = json_object_get_member (reply->parameters, "presentation");
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node)) {
    malformed (error, "no presentation");
    return NULL;
  }
  object = json_node_get_object (node);
  widget = string_member (object, "widget");
  mode = string_member (object, "mode");
  if (widget == NULL || mode == NULL) {
    malformed (error, "presentation without widget or mode");
    return NULL;
  }

  presentation = g_new0 (WdPresentation, 1);
  presentation->widget = g_strdup (widget);
  presentation->fields = g_ptr_array_new_with_free_func (field_free);
  presentation->actions = g_ptr_array_new_with_free_func (action_free);
  if (g_str_equal (mode, "content")) {
    presentation->mode = WD_MODE_CONTENT;
  } else if (g_str_equal (mode, "redacted")) {
    presentation->mode = WD_MODE_REDACTED;
  } else if (g_str_equal (mode, "placeholder")) {
    presentation->mode = WD_MODE_PLACEHOLDER;
  } else {
    malformed (error, "unknown mode");
    return NULL;
  }

  node = json_object_get_member (object, "stale");
  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_BOOLEAN)
    presentation->stale = json_node_get_boolean (node);

  node = json_object_get_member (object, "reasons");
  if (node != NULL && JSON_NODE_HOLDS_ARRAY (node)) {
    JsonArray *reasons = json_node_get_array (node);
    for (guint i = 0; i < json_array_get_length (reasons); i++) {
      JsonNode *reason = json_array_get_element (reasons, i);
      if (JSON_NODE_HOLDS_VALUE (reason) && json_node_get_value_type (reason) == G_TYPE_STRING &&
          g_str_equal (json_node_get_string (reason), "invalidated"))
        presentation->invalidated = TRUE;
    }
  }

  node = json_object_get_member (object, "actions");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node)) {
    JsonArray *actions;

    if (!JSON_NODE_HOLDS_ARRAY (node)) {
      malformed (error, "actions is not an array");
      return NULL;
    }
    actions = json_node_get_array (node);
    for (guint i = 0; i < json_array_get_length (actions) && presentation->actions->len < WD_MAX_ACTIONS; i++) {
      JsonNode *element = json_array_get_element (actions, i);
      WdAction *action = JSON_NODE_HOLDS_OBJECT (element)
                           ? read_action (json_node_get_object (element))
                           : NULL;
      if (action == NULL) {
        malformed (error, "action without id or kind");
        return NULL;
      }
      g_ptr_array_add (presentation->actions, action);
    }
  }

  node = json_object_get_member (object, "entry");
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node)) {
    malformed (error, "presentation without entry");
    return NULL;
  }
  entry = json_node_get_object (node);

  node = json_object_get_member (entry, "relevance");
  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node)) {
    JsonNode *score = json_object_get_member (json_node_get_object (node), "score");
    if (score != NULL && JSON_NODE_HOLDS_VALUE (score) &&
        (json_node_get_value_type (score) == G_TYPE_DOUBLE || json_node_get_value_type (score) == G_TYPE_INT64)) {
      presentation->has_relevance = TRUE;
      presentation->relevance = json_node_get_double (score);
    }
  }

  node = json_object_get_member (entry, "fields");
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node)) {
    malformed (error, "entry without fields");
    return NULL;
  }
  fields = json_node_get_object (node);
  /* json-glib keeps members in the order they were read: the timeline's order. */
  names = json_object_get_members (fields);
  for (GList *l = names; l != NULL && presentation->fields->len < WD_MAX_FIELDS; l = l->next) {
    const char *name = l->data;
    JsonNode *field_node = json_object_get_member (fields, name);
    JsonObject *field_object;
    JsonNode *redacted;
    WdField *field;

    if (field_node == NULL || !JSON_NODE_HOLDS_OBJECT (field_node)) {
      malformed (error, "field is not an object");
      return NULL;
    }
    field_object = json_node_get_object (field_node);
    field = g_new0 (WdField, 1);
    field->name = bounded_text (name);
    redacted = json_object_get_member (field_object, "redacted");
    field->redacted = redacted != NULL && JSON_NODE_HOLDS_VALUE (redacted) &&
                      json_node_get_value_type (redacted) == G_TYPE_BOOLEAN && json_node_get_boolean (redacted);
    /* A placeholder shows no field's value but a public one's, whatever the reply
     * says of each field: its values are samples, never data. */
    if (presentation->mode == WD_MODE_PLACEHOLDER && !field->redacted) {
      const char *privacy = string_member (field_object, "privacy");
      if (privacy == NULL || !g_str_equal (privacy, "public"))
        field->redacted = TRUE;
    }
    if (!field->redacted)
      field->text = value_text (json_object_get_member (field_object, "value"));
    read_role (field, field_object);
    if (field->role != WD_ROLE_NONE)
      presentation->has_roles = TRUE;
    g_ptr_array_add (presentation->fields, field);
  }
  return g_steal_pointer (&presentation);
}

void
wd_presentation_free (WdPresentation *presentation)
{
  if (presentation == NULL)
    return;
  g_free (presentation->widget);
  g_clear_pointer (&presentation->fields, g_ptr_array_unref);
  g_clear_pointer (&presentation->actions, g_ptr_array_unref);
  g_free (presentation);
}

GPtrArray *
wd_widget_list_from_reply (const WdReply *reply, char **next, GError **error)
{
  g_autoptr (GPtrArray) list = g_ptr_array_new_with_free_func ((GDestroyNotify) wd_widget_info_free);
  JsonNode *node = json_object_get_member (reply->parameters, "widgets");
  JsonArray *widgets;
  const char *cursor;

  *next = NULL;
  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node)) {
    malformed (error, "no widgets");
    return NULL;
  }
  widgets = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (widgets) && list->len < WD_MAX_CANDIDATES; i++) {
    JsonNode *element = json_array_get_element (widgets, i);
    const char *widget, *family;
    WdWidgetInfo *info;

    if (!JSON_NODE_HOLDS_OBJECT (element)) {
      malformed (error, "widget is not an object");
      return NULL;
    }
    widget = string_member (json_node_get_object (element), "widget");
    if (widget == NULL) {
      malformed (error, "widget without id");
      return NULL;
    }
    family = string_member (json_node_get_object (element), "family");
    info = g_new0 (WdWidgetInfo, 1);
    info->widget = g_strdup (widget);
    info->family = g_strdup (family);
    g_ptr_array_add (list, info);
  }
  cursor = string_member (reply->parameters, "next");
  if (cursor != NULL)
    *next = g_strdup (cursor);
  return g_steal_pointer (&list);
}

gboolean
wd_settings_from_reply (const WdReply *reply, gboolean *access, GPtrArray **hidden, GError **error)
{
  g_autoptr (GPtrArray) list = g_ptr_array_new_with_free_func (g_free);
  JsonNode *node = json_object_get_member (reply->parameters, "settings");
  JsonObject *settings;
  JsonArray *array;

  *hidden = NULL;
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return malformed (error, "no settings");
  settings = json_node_get_object (node);
  node = json_object_get_member (settings, "lockScreenWidgetsAccess");
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return malformed (error, "no lockScreenWidgetsAccess");
  *access = json_node_get_boolean (node);
  node = json_object_get_member (settings, "hiddenLockScreenWidgets");
  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return malformed (error, "no hiddenLockScreenWidgets");
  array = json_node_get_array (node);
  if (json_array_get_length (array) > WD_MAX_HIDDEN)
    return malformed (error, "too many hidden widgets");
  for (guint i = 0; i < json_array_get_length (array); i++) {
    JsonNode *element = json_array_get_element (array, i);
    const char *widget;

    if (!JSON_NODE_HOLDS_VALUE (element) || json_node_get_value_type (element) != G_TYPE_STRING)
      return malformed (error, "a hidden widget is not a string");
    widget = json_node_get_string (element);
    if (*widget == '\0' || strlen (widget) > WD_MAX_WIDGET_ID || strchr (widget, '/') == NULL)
      return malformed (error, "a hidden widget is not a widget id");
    g_ptr_array_add (list, g_strdup (widget));
  }
  *hidden = g_steal_pointer (&list);
  return TRUE;
}

void
wd_widget_info_free (WdWidgetInfo *info)
{
  if (info == NULL)
    return;
  g_free (info->widget);
  g_free (info->family);
  g_free (info);
}

char *
wd_date_text (WdDateStyle style, GDateTime *date, GDateTime *now)
{
  g_autoptr (GDateTime) local = g_date_time_to_timezone (date, g_date_time_get_timezone (now));
  gint64 seconds = g_date_time_to_unix (date) - g_date_time_to_unix (now);
  gint64 span = ABS (seconds);

  switch (style) {
  case WD_DATE_TIME:
    return g_date_time_format (local, "%H:%M");
  case WD_DATE_DATE:
    return g_date_time_format (local, "%-d %b %Y");
  case WD_DATE_RELATIVE: {
    g_autofree char *amount = NULL;

    if (span < 60)
      return g_strdup ("now");
    if (span < 3600)
      amount = g_strdup_printf ("%" G_GINT64_FORMAT " min", span / 60);
    else if (span < 86400)
      amount = g_strdup_printf ("%" G_GINT64_FORMAT " h", span / 3600);
    else
      amount = g_strdup_printf ("%" G_GINT64_FORMAT " d", span / 86400);
    return seconds > 0 ? g_strdup_printf ("in %s", amount) : g_strdup_printf ("%s ago", amount);
  }
  case WD_DATE_TIMER:
  default:
    if (span >= 3600)
      return g_strdup_printf ("%" G_GINT64_FORMAT ":%02d:%02d", span / 3600, (int) (span / 60 % 60), (int) (span % 60));
    return g_strdup_printf ("%02d:%02d", (int) (span / 60), (int) (span % 60));
  }
}

guint
wd_date_tick_seconds (WdDateStyle style)
{
  switch (style) {
  case WD_DATE_TIMER:
    return 1;
  case WD_DATE_RELATIVE:
    return 60;
  default:
    return 0;
  }
}

gboolean
wd_outcome_from_reply (const WdReply *reply, WdOutcome *outcome, GError **error)
{
  const char *text = string_member (reply->parameters, "outcome");

  if (text != NULL && g_str_equal (text, "delivered"))
    *outcome = WD_OUTCOME_DELIVERED;
  else if (text != NULL && g_str_equal (text, "held"))
    *outcome = WD_OUTCOME_HELD;
  else if (text != NULL && g_str_equal (text, "expired"))
    *outcome = WD_OUTCOME_EXPIRED;
  else
    return malformed (error, "no outcome");
  return TRUE;
}

WdWidgetInfo *
wd_widget_event_from_reply (const WdReply *reply, WdWidgetEventKind *kind, GError **error)
{
  const char *event = string_member (reply->parameters, "event");
  JsonNode *node = json_object_get_member (reply->parameters, "widget");
  const char *widget;
  WdWidgetInfo *info;

  if (event != NULL && g_str_equal (event, "added"))
    *kind = WD_WIDGET_ADDED;
  else if (event != NULL && g_str_equal (event, "removed"))
    *kind = WD_WIDGET_REMOVED;
  else if (event != NULL && g_str_equal (event, "changed"))
    *kind = WD_WIDGET_CHANGED;
  else {
    malformed (error, "no event");
    return NULL;
  }
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node) ||
      (widget = string_member (json_node_get_object (node), "widget")) == NULL) {
    malformed (error, "event without widget");
    return NULL;
  }
  info = g_new0 (WdWidgetInfo, 1);
  info->widget = g_strdup (widget);
  info->family = g_strdup (string_member (json_node_get_object (node), "family"));
  return info;
}

char *
wd_call_text (const char *method, JsonNode *parameters, gboolean more)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonNode) root = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "method");
  json_builder_add_string_value (builder, method);
  json_builder_set_member_name (builder, "parameters");
  if (parameters != NULL) {
    json_builder_add_value (builder, json_node_copy (parameters));
  } else {
    json_builder_begin_object (builder);
    json_builder_end_object (builder);
  }
  if (more) {
    json_builder_set_member_name (builder, "more");
    json_builder_add_boolean_value (builder, TRUE);
  }
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  return json_to_string (root, FALSE);
}
