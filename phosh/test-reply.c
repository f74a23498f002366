/*
 * The reply parser's rules (widgetd-reply.h), one test each; scripts/test-phosh runs
 * them under valgrind too.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "widgetd-reply.h"

#include <string.h>

static WdReply *
parse (const char *text)
{
  g_autoptr (GError) error = NULL;
  WdReply *reply = wd_reply_parse (text, strlen (text), &error);

  g_assert_no_error (error);
  g_assert_nonnull (reply);
  return reply;
}

static WdPresentation *
presentation (const char *text)
{
  g_autoptr (WdReply) reply = parse (text);
  g_autoptr (GError) error = NULL;
  WdPresentation *result = wd_presentation_from_reply (reply, &error);

  g_assert_no_error (error);
  g_assert_nonnull (result);
  return result;
}

static void
refused (const char *text, gsize len, WdReplyError code)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (WdReply) reply = wd_reply_parse (text, len, &error);

  g_assert_null (reply);
  g_assert_error (error, WD_REPLY_ERROR, (gint) code);
}

static const char heart[] =
  "{\"parameters\":{\"presentation\":{\"widget\":\"com.example.health/heart\",\"surface\":\"lockScreen\","
  "\"mode\":\"%s\",\"reasons\":[],\"luminanceReduced\":false,\"stale\":%s,"
  "\"entry\":{\"date\":\"2026-11-29T14:00:00Z\",\"relevance\":{\"score\":0.5,\"duration\":60},\"fields\":{"
  "\"title\":{\"value\":\"Heart\",\"privacy\":\"public\"},"
  "\"heartRate\":%s,"
  "\"trend\":{\"value\":{\"min\":58,\"max\":91}},"
  "\"steps\":{\"value\":4210.5}}}}},\"continues\":true}";

static void
test_content_fields_keep_the_timeline_order (void)
{
  g_autofree char *text = g_strdup_printf (heart, "content", "false", "{\"value\":64,\"privacy\":\"sensitive\"}");
  g_autoptr (WdPresentation) p = presentation (text);
  static const char *const names[] = { "title", "heartRate", "trend", "steps" };
  static const char *const texts[] = { "Heart", "64", "{\"min\":58,\"max\":91}", "4210.5" };

  g_assert_cmpstr (p->widget, ==, "com.example.health/heart");
  g_assert_cmpint (p->mode, ==, WD_MODE_CONTENT);
  g_assert_false (p->stale);
  g_assert_true (p->has_relevance);
  g_assert_cmpfloat (p->relevance, ==, 0.5);
  g_assert_cmpuint (p->fields->len, ==, G_N_ELEMENTS (names));
  for (guint i = 0; i < G_N_ELEMENTS (names); i++) {
    WdField *field = g_ptr_array_index (p->fields, i);
    g_assert_cmpstr (field->name, ==, names[i]);
    g_assert_cmpstr (field->text, ==, texts[i]);
    g_assert_false (field->redacted);
  }
}

static void
test_a_redacted_field_keeps_no_text (void)
{
  g_autofree char *text = g_strdup_printf (heart, "redacted", "true", "{\"value\":\"--\",\"redacted\":true}");
  g_autoptr (WdPresentation) p = presentation (text);
  WdField *field = g_ptr_array_index (p->fields, 1);

  g_assert_cmpint (p->mode, ==, WD_MODE_REDACTED);
  g_assert_true (p->stale);
  g_assert_cmpstr (field->name, ==, "heartRate");
  g_assert_true (field->redacted);
  g_assert_null (field->text);
}

static void
test_a_placeholder_shows_only_public_values (void)
{
  /* Even a reply that marks no field redacted: a placeholder's values are samples. */
  g_autofree char *text = g_strdup_printf (heart, "placeholder", "false", "{\"value\":\"--\"}");
  g_autoptr (WdPresentation) p = presentation (text);

  g_assert_cmpint (p->mode, ==, WD_MODE_PLACEHOLDER);
  for (guint i = 0; i < p->fields->len; i++) {
    WdField *field = g_ptr_array_index (p->fields, i);
    g_assert_cmpint (field->redacted, ==, i != 0);
    g_assert_cmpint (field->text == NULL, ==, i != 0);
  }
}

static void
test_a_reply_longer_than_the_bound_is_refused (void)
{
  gsize len = WD_REPLY_MAX + 1;
  g_autofree char *text = g_malloc (len);

  memset (text, ' ', len);
  text[0] = '{';
  text[len - 1] = '}';
  refused (text, len, WD_REPLY_ERROR_TOO_LARGE);
}

static void
test_nesting_deeper_than_the_bound_is_refused_unparsed (void)
{
  GString *deep = g_string_new ("{\"parameters\":");
  g_autofree char *shallow = NULL;

  /* Well-formed, so that only the depth refuses it. */
  for (int i = 0; i < WD_REPLY_MAX_DEPTH; i++)
    g_string_append_c (deep, '[');
  for (int i = 0; i < WD_REPLY_MAX_DEPTH; i++)
    g_string_append_c (deep, ']');
  g_string_append_c (deep, '}');
  refused (deep->str, deep->len, WD_REPLY_ERROR_MALFORMED);
  g_string_free (deep, TRUE);
  /* Brackets inside strings are not nesting. */
  shallow = g_strdup_printf ("{\"error\":\"%s\"}", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\\"{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{");
  g_autoptr (WdReply) reply = parse (shallow);
  g_assert_nonnull (reply->error);
}

/* A reply nested `depth` deep behind `prefix` (inside the parameters object). */
static GString *
deep_behind (const char *prefix, int depth)
{
  GString *text = g_string_new ("{\"parameters\":{\"presentation\":");

  g_string_append (text, prefix);
  for (int i = 0; i < depth; i++)
    g_string_append_c (text, '[');
  for (int i = 0; i < depth; i++)
    g_string_append_c (text, ']');
  g_string_append (text, "}}");
  return text;
}

static void
test_comments_cannot_hide_nesting (void)
{
  /* json-glib skips C comments: a scan that took the quote inside one for a string
   * counted none of what follows, and json-glib recursed 32,600 levels deep (a crash
   * under a 4 MiB stack). */
  static const char *const prefixes[] = { "/*\"*/", "/*\"*/ /*\"*/", "//\"\n", "'\"'," };

  for (guint i = 0; i < G_N_ELEMENTS (prefixes); i++) {
    GString *deep = deep_behind (prefixes[i], 100);
    refused (deep->str, deep->len, WD_REPLY_ERROR_MALFORMED);
    g_string_free (deep, TRUE);
  }
  {
    GString *deep = deep_behind ("/*\"*/", 32600);
    refused (deep->str, deep->len, WD_REPLY_ERROR_MALFORMED);
    g_string_free (deep, TRUE);
  }
}

static void
test_only_strict_json_is_read (void)
{
  /* What json-glib reads beyond RFC 8259 is refused, whatever it holds. */
  static const char *const cases[] = {
    "{\"error\":\"a\"/**/}",
    "{\"error\":\"a\"}/**/",
    "{/**/\"error\":\"a\"}",
    "{\"error\":'a'}",
    "{'error':\"a\"}",
    "{\"parameters\":{\"n\":0x10}}",
    "{\"parameters\":{\"n\":.5}}",
    "{\"parameters\":{\"n\":01}}",
    "{\"parameters\":{\"n\":1.}}",
    "{\"parameters\":{\"n\":1e}}",
    "{\"parameters\":{\"n\":-}}",
    "{\"parameters\":{\"n\":tru}}",
    "{\"parameters\":{\"n\":[1,]}}",
    "{\"parameters\":{\"n\":1,}}",
    "{\"parameters\":{\"n\" 1}}",
    "{\"parameters\":{\"n\":[1}}",
    "{\"parameters\":{\"n\":{]}}",
    "{\"error\":\"\\x41\"}",
    "{\"error\":\"\\'\"}",
    "{\"error\":\"\\u12\"}",
    "{\"error\":\"a\tb\"}",
    "{\"error\":\"a\"",
    "{\"error\":\"a\\\"}",
    "{\"error\":\"a\"}}",
  };
  /* And what it allows is read. */
  static const char *const allowed[] = {
    " {\"parameters\":{\"n\":[-0.5e+3,1E-2,0,true,false,null,\"\\u00e9\\n\\/\",{},[]]}} \r\n",
    "{\"error\":\"a/**/b\"}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_test_message ("refused: %s", cases[i]);
    refused (cases[i], strlen (cases[i]), WD_REPLY_ERROR_MALFORMED);
  }
  for (guint i = 0; i < G_N_ELEMENTS (allowed); i++) {
    g_autoptr (WdReply) reply = parse (allowed[i]);
    g_assert_nonnull (reply);
  }
}

static void
test_what_is_not_one_utf8_json_object_is_refused (void)
{
  static const struct { const char *text; gsize len; } cases[] = {
    { "", 0 },
    { "[]", 2 },
    { "\"parameters\"", 12 },
    { "{\"parameters\":", 14 },
    { "{\"parameters\":[]}", 17 },
    { "{\"error\":1}", 11 },
    { "{\"continues\":\"yes\"}", 19 },
    { "{\"error\":\"a\xff\"}", 14 },
    { "{\"error\":\"a\0b\"}", 15 },
    { "{} {}", 5 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    refused (cases[i].text, cases[i].len, WD_REPLY_ERROR_MALFORMED);
}

static void
test_a_presentation_without_its_members_is_refused (void)
{
  static const char *const cases[] = {
    "{\"parameters\":{}}",
    "{\"parameters\":{\"presentation\":[]}}",
    "{\"parameters\":{\"presentation\":{\"widget\":\"w\",\"mode\":\"content\"}}}",
    "{\"parameters\":{\"presentation\":{\"widget\":\"w\",\"mode\":\"shown\",\"entry\":{\"fields\":{}}}}}",
    "{\"parameters\":{\"presentation\":{\"mode\":\"content\",\"entry\":{\"fields\":{}}}}}",
    "{\"parameters\":{\"presentation\":{\"widget\":\"w\",\"mode\":\"content\",\"entry\":{\"fields\":{\"a\":1}}}}}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (WdReply) reply = parse (cases[i]);
    g_autoptr (GError) error = NULL;
    g_autoptr (WdPresentation) p = wd_presentation_from_reply (reply, &error);
    g_assert_null (p);
    g_assert_error (error, WD_REPLY_ERROR, WD_REPLY_ERROR_MALFORMED);
  }
}

static void
test_values_and_fields_are_cut_to_their_bounds (void)
{
  GString *text = g_string_new ("{\"parameters\":{\"presentation\":{\"widget\":\"w\",\"mode\":\"content\","
                                "\"entry\":{\"fields\":{");
  g_autoptr (WdPresentation) p = NULL;
  WdField *first;

  for (int i = 0; i < WD_MAX_FIELDS + 5; i++) {
    g_string_append_printf (text, "%s\"f%d\":{\"value\":\"", i ? "," : "", i);
    for (int j = 0; j < WD_MAX_TEXT * 2; j++)
      g_string_append (text, "é");
    g_string_append (text, "\\nx\"}");
  }
  g_string_append (text, "}}}}}");
  p = presentation (text->str);
  g_string_free (text, TRUE);
  g_assert_cmpuint (p->fields->len, ==, WD_MAX_FIELDS);
  first = g_ptr_array_index (p->fields, 0);
  g_assert_cmpint (g_utf8_strlen (first->text, -1), ==, WD_MAX_TEXT);
  g_assert_true (g_str_has_suffix (first->text, "…"));
}

static void
test_a_widget_list_gives_ids_families_and_the_next_page (void)
{
  g_autoptr (WdReply) reply = parse ("{\"parameters\":{\"widgets\":["
                                     "{\"widget\":\"a/x\",\"provider\":\"a\",\"kind\":\"x\",\"family\":\"systemMedium\","
                                     "\"class\":\"complete\",\"generation\":1},"
                                     "{\"widget\":\"b/y\",\"provider\":\"b\",\"kind\":\"y\",\"class\":\"none\",\"generation\":2}"
                                     "],\"next\":\"b/y\"}}");
  g_autoptr (GError) error = NULL;
  g_autofree char *next = NULL;
  g_autoptr (GPtrArray) list = wd_widget_list_from_reply (reply, &next, &error);
  WdWidgetInfo *first, *second;

  g_assert_no_error (error);
  g_assert_cmpuint (list->len, ==, 2);
  first = g_ptr_array_index (list, 0);
  second = g_ptr_array_index (list, 1);
  g_assert_cmpstr (first->widget, ==, "a/x");
  g_assert_cmpstr (first->family, ==, "systemMedium");
  g_assert_cmpstr (second->widget, ==, "b/y");
  g_assert_null (second->family);
  g_assert_cmpstr (next, ==, "b/y");
}

static void
test_a_widget_list_is_cut_to_the_candidate_bound (void)
{
  GString *text = g_string_new ("{\"parameters\":{\"widgets\":[");
  g_autoptr (WdReply) reply = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *next = NULL;
  g_autoptr (GPtrArray) list = NULL;

  for (int i = 0; i < WD_MAX_CANDIDATES * 2; i++)
    g_string_append_printf (text, "%s{\"widget\":\"p/%d\"}", i ? "," : "", i);
  g_string_append (text, "]}}");
  reply = parse (text->str);
  g_string_free (text, TRUE);
  list = wd_widget_list_from_reply (reply, &next, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (list->len, ==, WD_MAX_CANDIDATES);
  g_assert_null (next);
}

static void
test_a_call_escapes_its_parameters (void)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonNode) parameters = NULL;
  g_autofree char *text = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "widget");
  json_builder_add_string_value (builder, "a\"}/b");
  json_builder_end_object (builder);
  parameters = json_builder_get_root (builder);
  text = wd_call_text ("io.widgetd.Host.Watch", parameters, TRUE);
  g_assert_cmpstr (text, ==, "{\"method\":\"io.widgetd.Host.Watch\",\"parameters\":{\"widget\":\"a\\\"}/b\"},\"more\":true}");
}

/* A presentation as widgetd writes it with roles and actions (DESIGN §12, §13). */
static const char ring[] =
  "{\"parameters\":{\"presentation\":{\"actions\":["
  "{\"authentication\":\"alwaysAllowed\",\"available\":true,\"icon\":\"media-playback-start-symbolic\","
  "\"id\":\"play\",\"isOn\":false,\"kind\":\"toggle\",\"title\":\"Play\"},"
  "{\"authentication\":\"requiresAuthentication\",\"available\":false,\"id\":\"open\",\"kind\":\"button\","
  "\"redacted\":true,\"requires\":\"unlock\",\"title\":null},"
  "{\"authentication\":\"requiresAuthentication\",\"available\":false,\"icon\":\"/etc/passwd\",\"id\":\"reply\","
  "\"kind\":\"button\",\"requires\":\"unlock\",\"title\":\"Reply\"}],"
  "\"entry\":{\"date\":\"2026-11-29T14:00:00Z\",\"fields\":{"
  "\"name\":{\"role\":\"title\",\"value\":\"Battery\"},"
  "\"percent\":{\"role\":\"value\",\"value\":\"80 %%\"},"
  "\"level\":{\"range\":[0,100],\"role\":\"gauge\",\"value\":%s},"
  "\"until\":{\"role\":\"date\",\"style\":\"%s\",\"value\":\"%s\"},"
  "\"state\":{\"role\":\"detail\",\"value\":\"Discharging\"},"
  "\"glyph\":{\"role\":\"icon\",\"value\":\"%s\"},"
  "\"raw\":{\"value\":42},"
  "\"future\":{\"role\":\"sparkline\",\"value\":[1,2]}}},"
  "\"luminanceReduced\":false,\"mode\":\"%s\",\"reasons\":[%s],\"stale\":false,\"surface\":\"lockScreen\","
  "\"widget\":\"org.example.power/battery\"}},\"continues\":true}";

static WdPresentation *
ring_presentation (const char *gauge, const char *style, const char *date, const char *icon, const char *mode,
                   const char *reasons)
{
  g_autofree char *text = g_strdup_printf (ring, gauge, style, date, icon, mode, reasons);

  return presentation (text);
}

static WdField *
field_named (WdPresentation *p, const char *name)
{
  for (guint i = 0; i < p->fields->len; i++) {
    WdField *field = g_ptr_array_index (p->fields, i);
    if (g_str_equal (field->name, name))
      return field;
  }
  g_assert_not_reached ();
}

static void
test_roles_are_read_with_their_values (void)
{
  g_autoptr (WdPresentation) p =
    ring_presentation ("80", "timer", "2026-11-29T14:05:00+01:00", "battery-good-symbolic", "content", "");
  WdField *field;

  g_assert_true (p->has_roles);
  g_assert_false (p->invalidated);
  g_assert_cmpint (field_named (p, "name")->role, ==, WD_ROLE_TITLE);
  g_assert_cmpstr (field_named (p, "name")->text, ==, "Battery");
  g_assert_cmpint (field_named (p, "percent")->role, ==, WD_ROLE_VALUE);
  g_assert_cmpint (field_named (p, "state")->role, ==, WD_ROLE_DETAIL);
  g_assert_cmpint (field_named (p, "raw")->role, ==, WD_ROLE_NONE);
  g_assert_cmpint (field_named (p, "future")->role, ==, WD_ROLE_OTHER);

  field = field_named (p, "level");
  g_assert_cmpint (field->role, ==, WD_ROLE_GAUGE);
  g_assert_true (field->has_gauge);
  g_assert_cmpfloat (field->gauge, ==, 80);
  g_assert_cmpfloat (field->gauge_min, ==, 0);
  g_assert_cmpfloat (field->gauge_max, ==, 100);

  field = field_named (p, "until");
  g_assert_cmpint (field->role, ==, WD_ROLE_DATE);
  g_assert_cmpint (field->style, ==, WD_DATE_TIMER);
  g_assert_nonnull (field->date);
  g_assert_cmpint (g_date_time_to_unix (field->date), ==, 1795957500);

  field = field_named (p, "glyph");
  g_assert_cmpint (field->role, ==, WD_ROLE_ICON);
  g_assert_cmpstr (field->icon, ==, "battery-good-symbolic");
}

static void
test_values_that_do_not_fit_their_role_are_not_drawn (void)
{
  /* A gauge outside its range is clamped; one that is no number, an icon that is a path
   * or a URL, a date that is not RFC 3339: nothing drawn of them. */
  g_autoptr (WdPresentation) high = ring_presentation ("250", "time", "now", "/usr/share/icons/x.png", "content", "");
  g_autoptr (WdPresentation) text = ring_presentation ("\"full\"", "bogus", "2026-11-29", "https://e.org/i", "content", "");
  g_autoptr (WdPresentation) upper = ring_presentation ("1", "relative", "2026-11-29T14:00:00Z", "Battery", "content", "");

  g_assert_cmpfloat (field_named (high, "level")->gauge, ==, 100);
  g_assert_null (field_named (high, "until")->date);
  g_assert_null (field_named (high, "glyph")->icon);
  g_assert_false (field_named (text, "level")->has_gauge);
  g_assert_cmpint (field_named (text, "until")->style, ==, WD_DATE_TIME);
  g_assert_null (field_named (text, "until")->date);
  g_assert_null (field_named (text, "glyph")->icon);
  g_assert_cmpint (field_named (upper, "until")->style, ==, WD_DATE_RELATIVE);
  g_assert_null (field_named (upper, "glyph")->icon);
  g_assert_false (wd_icon_name_is_plain (""));
  g_assert_false (wd_icon_name_is_plain ("a.b"));
  g_assert_true (wd_icon_name_is_plain ("mail-unread-symbolic"));
  {
    g_autofree char *long_name = g_strnfill (WD_MAX_ICON + 1, 'a');
    g_assert_false (wd_icon_name_is_plain (long_name));
    long_name[WD_MAX_ICON] = '\0';
    g_assert_true (wd_icon_name_is_plain (long_name));
  }
}

static void
test_redaction_keeps_the_role_and_nothing_hidden (void)
{
  /* In placeholder mode every field but a public one is redacted: the gauge is empty,
   * the date neither kept nor ticking, the text gone; the icon is the placeholder's. */
  g_autoptr (WdPresentation) p =
    ring_presentation ("0.5", "timer", "2026-11-29T14:05:00Z", "battery-missing-symbolic", "placeholder", "\"placeholder\"");
  WdField *level = field_named (p, "level"), *until = field_named (p, "until"), *glyph = field_named (p, "glyph");

  g_assert_true (p->has_roles);
  g_assert_cmpint (level->role, ==, WD_ROLE_GAUGE);
  g_assert_true (level->redacted);
  g_assert_false (level->has_gauge);
  g_assert_cmpfloat (level->gauge_max, ==, 100);
  g_assert_cmpint (until->role, ==, WD_ROLE_DATE);
  g_assert_true (until->redacted);
  g_assert_null (until->date);
  g_assert_null (until->text);
  g_assert_true (glyph->redacted);
  g_assert_null (glyph->text);
  g_assert_cmpstr (glyph->icon, ==, "battery-missing-symbolic");
}

static void
test_actions_are_read_with_their_availability (void)
{
  g_autoptr (WdPresentation) p =
    ring_presentation ("1", "time", "2026-11-29T14:05:00Z", "battery", "content", "\"invalidated\"");
  WdAction *play, *open, *reply;

  g_assert_true (p->invalidated);
  g_assert_cmpuint (p->actions->len, ==, 3);
  play = g_ptr_array_index (p->actions, 0);
  open = g_ptr_array_index (p->actions, 1);
  reply = g_ptr_array_index (p->actions, 2);
  g_assert_cmpstr (play->id, ==, "play");
  g_assert_cmpstr (play->title, ==, "Play");
  g_assert_cmpstr (play->icon, ==, "media-playback-start-symbolic");
  g_assert_true (play->toggle);
  g_assert_false (play->is_on);
  g_assert_true (play->available);
  g_assert_false (play->requires_unlock);
  g_assert_cmpstr (open->id, ==, "open");
  g_assert_null (open->title);
  g_assert_true (open->redacted);
  g_assert_false (open->toggle);
  g_assert_false (open->available);
  g_assert_true (open->requires_unlock);
  g_assert_null (reply->icon);
  g_assert_cmpstr (reply->title, ==, "Reply");
}

static void
test_entries_without_roles_have_none (void)
{
  g_autofree char *text = g_strdup_printf (heart, "content", "false", "{\"value\":64}");
  g_autoptr (WdPresentation) p = presentation (text);

  g_assert_false (p->has_roles);
  g_assert_cmpuint (p->actions->len, ==, 0);
  for (guint i = 0; i < p->fields->len; i++)
    g_assert_cmpint (((WdField *) g_ptr_array_index (p->fields, i))->role, ==, WD_ROLE_NONE);
}

static void
test_bad_actions_are_refused_and_cut_to_the_bound (void)
{
  static const char *const bad[] = {
    "{\"parameters\":{\"presentation\":{\"widget\":\"w\",\"mode\":\"content\",\"actions\":{},\"entry\":{\"fields\":{}}}}}",
    "{\"parameters\":{\"presentation\":{\"widget\":\"w\",\"mode\":\"content\",\"actions\":[1],\"entry\":{\"fields\":{}}}}}",
    "{\"parameters\":{\"presentation\":{\"widget\":\"w\",\"mode\":\"content\",\"actions\":[{\"id\":\"a\"}],"
    "\"entry\":{\"fields\":{}}}}}",
  };
  GString *many = g_string_new ("{\"parameters\":{\"presentation\":{\"widget\":\"w\",\"mode\":\"content\",\"actions\":[");
  g_autoptr (WdPresentation) p = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_autoptr (WdReply) reply = parse (bad[i]);
    g_autoptr (GError) error = NULL;
    g_autoptr (WdPresentation) refused_presentation = wd_presentation_from_reply (reply, &error);
    g_assert_null (refused_presentation);
    g_assert_error (error, WD_REPLY_ERROR, WD_REPLY_ERROR_MALFORMED);
  }
  for (int i = 0; i < WD_MAX_ACTIONS * 2; i++)
    g_string_append_printf (many, "%s{\"id\":\"a%d\",\"kind\":\"button\",\"title\":\"A\",\"available\":true}", i ? "," : "", i);
  g_string_append (many, "],\"entry\":{\"fields\":{}}}}}");
  p = presentation (many->str);
  g_string_free (many, TRUE);
  g_assert_cmpuint (p->actions->len, ==, WD_MAX_ACTIONS);
}

static void
test_settings_are_read_and_bad_ones_refused (void)
{
  static const char *const bad[] = {
    "{\"parameters\":{}}",
    "{\"parameters\":{\"settings\":{\"hiddenLockScreenWidgets\":[]}}}",
    "{\"parameters\":{\"settings\":{\"lockScreenWidgetsAccess\":\"yes\",\"hiddenLockScreenWidgets\":[]}}}",
    "{\"parameters\":{\"settings\":{\"lockScreenWidgetsAccess\":true}}}",
    "{\"parameters\":{\"settings\":{\"lockScreenWidgetsAccess\":true,\"hiddenLockScreenWidgets\":[1]}}}",
    "{\"parameters\":{\"settings\":{\"lockScreenWidgetsAccess\":true,\"hiddenLockScreenWidgets\":[\"\"]}}}",
    "{\"parameters\":{\"settings\":{\"lockScreenWidgetsAccess\":true,\"hiddenLockScreenWidgets\":[\"noslash\"]}}}",
  };
  g_autoptr (GString) many = g_string_new ("{\"parameters\":{\"settings\":{\"lockScreenWidgetsAccess\":true,"
                                           "\"hiddenLockScreenWidgets\":[");
  g_autoptr (GPtrArray) hidden = NULL;
  gboolean access = FALSE;

  {
    g_autoptr (WdReply) reply = parse ("{\"parameters\":{\"settings\":{\"lockScreenWidgetsAccess\":true,"
                                       "\"hiddenLockScreenWidgets\":[\"b.x/w\",\"a.x/w#1\"],"
                                       "\"hideSensitiveComplications\":\"off\",\"hiddenComplications\":[]}}}");
    g_assert_true (wd_settings_from_reply (reply, &access, &hidden, NULL));
    g_assert_true (access);
    g_assert_cmpuint (hidden->len, ==, 2);
    /* The reply's order. */
    g_assert_cmpstr (g_ptr_array_index (hidden, 0), ==, "b.x/w");
    g_assert_cmpstr (g_ptr_array_index (hidden, 1), ==, "a.x/w#1");
  }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_autoptr (WdReply) reply = parse (bad[i]);
    g_autoptr (GError) error = NULL;
    g_autoptr (GPtrArray) none = NULL;
    g_assert_false (wd_settings_from_reply (reply, &access, &none, &error));
    g_assert_error (error, WD_REPLY_ERROR, WD_REPLY_ERROR_MALFORMED);
    g_assert_null (none);
  }
  /* More than WD_MAX_HIDDEN: refused, not cut (a list cut short would unhide some). */
  for (guint i = 0; i <= WD_MAX_HIDDEN; i++)
    g_string_append_printf (many, "%s\"p/w%u\"", i > 0 ? "," : "", i);
  g_string_append (many, "]}}}");
  {
    g_autoptr (WdReply) reply = parse (many->str);
    g_autoptr (GPtrArray) none = NULL;
    g_assert_false (wd_settings_from_reply (reply, &access, &none, NULL));
  }
}

static void
test_outcomes_and_widget_events_are_read (void)
{
  static const struct { const char *text; WdOutcome outcome; } outcomes[] = {
    { "{\"parameters\":{\"outcome\":\"delivered\"}}", WD_OUTCOME_DELIVERED },
    { "{\"parameters\":{\"outcome\":\"held\"},\"continues\":true}", WD_OUTCOME_HELD },
    { "{\"parameters\":{\"outcome\":\"expired\"}}", WD_OUTCOME_EXPIRED },
  };
  static const char *const events[] = { "added", "removed", "changed" };

  for (guint i = 0; i < G_N_ELEMENTS (outcomes); i++) {
    g_autoptr (WdReply) reply = parse (outcomes[i].text);
    WdOutcome outcome;
    g_assert_true (wd_outcome_from_reply (reply, &outcome, NULL));
    g_assert_cmpint (outcome, ==, outcomes[i].outcome);
  }
  {
    g_autoptr (WdReply) reply = parse ("{\"parameters\":{\"outcome\":\"done\"}}");
    g_autoptr (GError) error = NULL;
    WdOutcome outcome;
    g_assert_false (wd_outcome_from_reply (reply, &outcome, &error));
    g_assert_error (error, WD_REPLY_ERROR, WD_REPLY_ERROR_MALFORMED);
  }
  for (guint i = 0; i < G_N_ELEMENTS (events); i++) {
    g_autofree char *text = g_strdup_printf ("{\"parameters\":{\"event\":\"%s\",\"widget\":{\"widget\":\"a/b\","
                                             "\"provider\":\"a\",\"kind\":\"b\",\"family\":\"systemSmall\","
                                             "\"class\":\"complete\",\"generation\":3}},\"continues\":true}", events[i]);
    g_autoptr (WdReply) reply = parse (text);
    WdWidgetEventKind kind;
    g_autoptr (WdWidgetInfo) info = wd_widget_event_from_reply (reply, &kind, NULL);
    g_assert_nonnull (info);
    g_assert_cmpint (kind, ==, (WdWidgetEventKind) i);
    g_assert_cmpstr (info->widget, ==, "a/b");
    g_assert_cmpstr (info->family, ==, "systemSmall");
  }
  {
    g_autoptr (WdReply) reply = parse ("{\"parameters\":{\"event\":\"added\",\"widget\":{}}}");
    WdWidgetEventKind kind;
    g_autoptr (GError) error = NULL;
    g_autoptr (WdWidgetInfo) info = wd_widget_event_from_reply (reply, &kind, &error);
    g_assert_null (info);
    g_assert_error (error, WD_REPLY_ERROR, WD_REPLY_ERROR_MALFORMED);
  }
}

static void
test_dates_are_drawn_in_their_style (void)
{
  g_autoptr (GTimeZone) utc = g_time_zone_new_utc ();
  g_autoptr (GDateTime) date = g_date_time_new (utc, 2026, 11, 29, 14, 5, 0);
  static const struct { WdDateStyle style; int offset; const char *text; } cases[] = {
    { WD_DATE_TIME, 0, "14:05" },
    { WD_DATE_DATE, 0, "29 Nov 2026" },
    { WD_DATE_RELATIVE, -300, "in 5 min" },
    { WD_DATE_RELATIVE, -30, "now" },
    { WD_DATE_RELATIVE, 7200, "2 h ago" },
    { WD_DATE_RELATIVE, -3 * 86400, "in 3 d" },
    { WD_DATE_TIMER, -299, "04:59" },
    { WD_DATE_TIMER, -298, "04:58" },
    { WD_DATE_TIMER, 61, "01:01" },
    { WD_DATE_TIMER, -3899, "1:04:59" },
  };

  /* The clock is given: "now" is the date moved by the offset. */
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (GDateTime) now = g_date_time_add_seconds (date, cases[i].offset);
    g_autofree char *text = wd_date_text (cases[i].style, date, now);
    g_assert_cmpstr (text, ==, cases[i].text);
  }
  g_assert_cmpuint (wd_date_tick_seconds (WD_DATE_TIMER), ==, 1);
  g_assert_cmpuint (wd_date_tick_seconds (WD_DATE_RELATIVE), ==, 60);
  g_assert_cmpuint (wd_date_tick_seconds (WD_DATE_TIME), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/reply/content-fields-keep-the-timeline-order", test_content_fields_keep_the_timeline_order);
  g_test_add_func ("/reply/a-redacted-field-keeps-no-text", test_a_redacted_field_keeps_no_text);
  g_test_add_func ("/reply/a-placeholder-shows-only-public-values", test_a_placeholder_shows_only_public_values);
  g_test_add_func ("/reply/a-reply-longer-than-the-bound-is-refused", test_a_reply_longer_than_the_bound_is_refused);
  g_test_add_func ("/reply/nesting-deeper-than-the-bound-is-refused-unparsed",
                   test_nesting_deeper_than_the_bound_is_refused_unparsed);
  g_test_add_func ("/reply/comments-cannot-hide-nesting", test_comments_cannot_hide_nesting);
  g_test_add_func ("/reply/only-strict-json-is-read", test_only_strict_json_is_read);
  g_test_add_func ("/reply/what-is-not-one-utf8-json-object-is-refused",
                   test_what_is_not_one_utf8_json_object_is_refused);
  g_test_add_func ("/reply/a-presentation-without-its-members-is-refused",
                   test_a_presentation_without_its_members_is_refused);
  g_test_add_func ("/reply/values-and-fields-are-cut-to-their-bounds", test_values_and_fields_are_cut_to_their_bounds);
  g_test_add_func ("/reply/a-widget-list-gives-ids-families-and-the-next-page",
                   test_a_widget_list_gives_ids_families_and_the_next_page);
  g_test_add_func ("/reply/a-widget-list-is-cut-to-the-candidate-bound", test_a_widget_list_is_cut_to_the_candidate_bound);
  g_test_add_func ("/reply/a-call-escapes-its-parameters", test_a_call_escapes_its_parameters);
  g_test_add_func ("/reply/roles-are-read-with-their-values", test_roles_are_read_with_their_values);
  g_test_add_func ("/reply/values-that-do-not-fit-their-role-are-not-drawn",
                   test_values_that_do_not_fit_their_role_are_not_drawn);
  g_test_add_func ("/reply/redaction-keeps-the-role-and-nothing-hidden", test_redaction_keeps_the_role_and_nothing_hidden);
  g_test_add_func ("/reply/actions-are-read-with-their-availability", test_actions_are_read_with_their_availability);
  g_test_add_func ("/reply/entries-without-roles-have-none", test_entries_without_roles_have_none);
  g_test_add_func ("/reply/bad-actions-are-refused-and-cut-to-the-bound", test_bad_actions_are_refused_and_cut_to_the_bound);
  g_test_add_func ("/reply/outcomes-and-widget-events-are-read", test_outcomes_and_widget_events_are_read);
  g_test_add_func ("/reply/dates-are-drawn-in-their-style", test_dates_are_drawn_in_their_style);
  g_test_add_func ("/reply/settings-are-read-and-bad-ones-refused", test_settings_are_read_and_bad_ones_refused);
  return g_test_run ();
}
