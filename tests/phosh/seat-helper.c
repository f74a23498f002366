/*
 * A virtual pointer for headless phoc (scripts/test-phosh). Headless phoc creates
 * seat0 only once an input device exists, and phosh aborts without a seat: this
 * client creates one through zwlr_virtual_pointer_manager_v1, moves it once, prints
 * "ready", and then follows commands on standard input, one per line:
 *
 *   move X Y      the pointer to X,Y of the 720x1440 output
 *   swipe DX      a finger scroll of DX (negative: content moves right), as a swipe
 *
 * It exits at the end of its input.
 */
#include "wlr-virtual-pointer-unstable-v1-client-protocol.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wayland-client.h>

#define AXIS_HORIZONTAL 1 /* WL_POINTER_AXIS_HORIZONTAL_SCROLL */
#define SOURCE_FINGER 1   /* WL_POINTER_AXIS_SOURCE_FINGER */

static struct zwlr_virtual_pointer_manager_v1 *manager;

static void
on_global (void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version)
{
  (void) data;
  (void) version;
  if (strcmp (interface, zwlr_virtual_pointer_manager_v1_interface.name) == 0)
    manager = wl_registry_bind (registry, name, &zwlr_virtual_pointer_manager_v1_interface, 1);
}

static void
on_global_remove (void *data, struct wl_registry *registry, uint32_t name)
{
  (void) data;
  (void) registry;
  (void) name;
}

static const struct wl_registry_listener registry_listener = { on_global, on_global_remove };

static uint32_t
now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint32_t) (ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

static void
sleep_ms (long ms)
{
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

  nanosleep (&ts, NULL);
}

int
main (void)
{
  struct wl_display *display = wl_display_connect (NULL);
  struct zwlr_virtual_pointer_v1 *pointer;
  char line[128];

  if (display == NULL) {
    fprintf (stderr, "seat-helper: no Wayland display\n");
    return 1;
  }
  wl_registry_add_listener (wl_display_get_registry (display), &registry_listener, NULL);
  wl_display_roundtrip (display);
  if (manager == NULL) {
    fprintf (stderr, "seat-helper: the compositor has no zwlr_virtual_pointer_manager_v1\n");
    return 1;
  }
  pointer = zwlr_virtual_pointer_manager_v1_create_virtual_pointer (manager, NULL);
  zwlr_virtual_pointer_v1_motion (pointer, now_ms (), wl_fixed_from_int (1), wl_fixed_from_int (1));
  zwlr_virtual_pointer_v1_frame (pointer);
  wl_display_roundtrip (display);
  printf ("ready\n");
  fflush (stdout);

  while (fgets (line, sizeof line, stdin) != NULL) {
    unsigned x, y;
    int dx;

    if (sscanf (line, "move %u %u", &x, &y) == 2) {
      zwlr_virtual_pointer_v1_motion_absolute (pointer, now_ms (), x, y, 720, 1440);
      zwlr_virtual_pointer_v1_frame (pointer);
    } else if (sscanf (line, "swipe %d", &dx) == 1) {
      /* A finger scroll in steps, then its stop: GTK reads it as a touchpad swipe. */
      for (int i = 0; i < 10; i++) {
        zwlr_virtual_pointer_v1_axis_source (pointer, SOURCE_FINGER);
        zwlr_virtual_pointer_v1_axis (pointer, now_ms (), AXIS_HORIZONTAL, wl_fixed_from_int (dx / 10));
        zwlr_virtual_pointer_v1_frame (pointer);
        wl_display_flush (display);
        sleep_ms (16);
      }
      zwlr_virtual_pointer_v1_axis_source (pointer, SOURCE_FINGER);
      zwlr_virtual_pointer_v1_axis_stop (pointer, now_ms (), AXIS_HORIZONTAL);
      zwlr_virtual_pointer_v1_frame (pointer);
    } else {
      fprintf (stderr, "seat-helper: unknown command: %s", line);
      continue;
    }
    wl_display_roundtrip (display);
    printf ("done\n");
    fflush (stdout);
  }
  zwlr_virtual_pointer_v1_destroy (pointer);
  wl_display_roundtrip (display);
  wl_display_disconnect (display);
  return 0;
}
