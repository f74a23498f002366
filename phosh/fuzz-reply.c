/*
 * libFuzzer harness of the plugin's reply parser (scripts/fuzz phosh-reply): any
 * bytes, as one reply, through every parser the plugin applies to a reply.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "widgetd-reply.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (WdReply) reply = wd_reply_parse ((const char *) data, size, NULL);
  g_autoptr (WdPresentation) presentation = NULL;
  g_autoptr (GPtrArray) list = NULL;
  g_autofree char *next = NULL;

  if (reply == NULL)
    return 0;
  presentation = wd_presentation_from_reply (reply, NULL);
  list = wd_widget_list_from_reply (reply, &next, NULL);
  return 0;
}
