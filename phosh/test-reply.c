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
  return g_test_run ();
}
