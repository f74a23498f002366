/*
 * libFuzzer harness of the plugin's reply parser (scripts/fuzz phosh-reply): any
 * bytes, as one reply, through every parser the plugin applies to a reply.
 *
 * It also checks that the strict scan which guards json-glib agrees with it: whatever
 * the scan lets through, json-glib reads no deeper than WD_REPLY_MAX_DEPTH (json-glib
 * reads comments and single-quoted strings, behind which a scan that knew less would
 * lose count). A disagreement aborts, and libFuzzer keeps the input.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "widgetd-reply.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static guint
depth_of (JsonNode *node)
{
  guint deepest = 0, depth;

  if (JSON_NODE_HOLDS_OBJECT (node)) {
    g_autoptr (GList) members = json_object_get_values (json_node_get_object (node));
    for (GList *l = members; l != NULL; l = l->next)
      if ((depth = depth_of (l->data)) > deepest)
        deepest = depth;
    return deepest + 1;
  }
  if (JSON_NODE_HOLDS_ARRAY (node)) {
    JsonArray *array = json_node_get_array (node);
    for (guint i = 0; i < json_array_get_length (array); i++)
      if ((depth = depth_of (json_array_get_element (array, i))) > deepest)
        deepest = depth;
    return deepest + 1;
  }
  return 0;
}

static void
check_scan_agrees (const char *text, size_t size)
{
  g_autoptr (JsonParser) parser = NULL;

  if (size > WD_REPLY_MAX || memchr (text, '\0', size) != NULL || !g_utf8_validate_len (text, size, NULL) ||
      !wd_json_depth_within (text, size, WD_REPLY_MAX_DEPTH))
    return;
  parser = json_parser_new_immutable ();
  /* json-glib may refuse what the scan allows (a lone surrogate escape): that is safe. */
  if (json_parser_load_from_data (parser, text, (gssize) size, NULL) && json_parser_get_root (parser) != NULL &&
      depth_of (json_parser_get_root (parser)) > WD_REPLY_MAX_DEPTH)
    abort ();
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (WdReply) reply = NULL;
  g_autoptr (WdPresentation) presentation = NULL;
  g_autoptr (GPtrArray) list = NULL;
  g_autoptr (WdWidgetInfo) event = NULL;
  g_autofree char *next = NULL;
  WdWidgetEventKind kind;
  WdOutcome outcome;
  g_autoptr (GPtrArray) hidden = NULL;
  gboolean access;

  check_scan_agrees ((const char *) data, size);
  reply = wd_reply_parse ((const char *) data, size, NULL);
  if (reply == NULL)
    return 0;
  presentation = wd_presentation_from_reply (reply, NULL);
  list = wd_widget_list_from_reply (reply, &next, NULL);
  event = wd_widget_event_from_reply (reply, &kind, NULL);
  (void) wd_outcome_from_reply (reply, &outcome, NULL);
  if (wd_settings_from_reply (reply, &access, &hidden, NULL) && hidden->len > WD_MAX_HIDDEN)
    abort ();
  return 0;
}
