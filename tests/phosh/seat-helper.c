/*
 * A virtual pointer for headless phoc (scripts/test-phosh). Headless phoc creates
 * seat0 only once an input device exists, and phosh aborts without a seat: this
 * client creates one through zwlr_virtual_pointer_manager_v1, moves it once, prints
 * "ready", and then follows commands on standard input, one per line:
 *
 *   move X Y      the pointer to X,Y of the 720x1440 output
 *   swipe DX      a finger scroll of DX (negative: content moves right), as a swipe
 *   frames MS     counts, for MS milliseconds, the frames in which the output changed
 *                 (wlr-screencopy's copy_with_damage), and prints "frames N"
 *
 * It exits at the end of its input.
 */
#define _GNU_SOURCE
#include "wlr-screencopy-unstable-v1-client-protocol.h"
#include "wlr-virtual-pointer-unstable-v1-client-protocol.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>

#define AXIS_HORIZONTAL 1 /* WL_POINTER_AXIS_HORIZONTAL_SCROLL */
#define SOURCE_FINGER 1   /* WL_POINTER_AXIS_SOURCE_FINGER */

static struct zwlr_virtual_pointer_manager_v1 *manager;
static struct zwlr_screencopy_manager_v1 *screencopy;
static struct wl_shm *shm;
static struct wl_output *output;

static void
on_global (void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version)
{
  (void) data;
  if (strcmp (interface, zwlr_virtual_pointer_manager_v1_interface.name) == 0)
    manager = wl_registry_bind (registry, name, &zwlr_virtual_pointer_manager_v1_interface, 1);
  else if (strcmp (interface, zwlr_screencopy_manager_v1_interface.name) == 0 && version >= 2)
    screencopy = wl_registry_bind (registry, name, &zwlr_screencopy_manager_v1_interface, 2);
  else if (strcmp (interface, wl_shm_interface.name) == 0)
    shm = wl_registry_bind (registry, name, &wl_shm_interface, 1);
  else if (strcmp (interface, wl_output_interface.name) == 0 && output == NULL)
    output = wl_registry_bind (registry, name, &wl_output_interface, 1);
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

/* --- counting frames ------------------------------------------------------------ */

static struct {
  struct zwlr_screencopy_frame_v1 *frame;
  struct wl_buffer                *buffer;
  uint32_t                         format, width, height, stride;
  unsigned                         ready;
  int                              failed;
} copy;

static void
on_frame_buffer (void *data, struct zwlr_screencopy_frame_v1 *frame, uint32_t format, uint32_t width,
                 uint32_t height, uint32_t stride)
{
  (void) data;
  if (copy.buffer == NULL) {
    size_t size = (size_t) stride * height;
    int fd = memfd_create ("seat-helper-frame", MFD_CLOEXEC);
    struct wl_shm_pool *pool;

    if (fd < 0 || ftruncate (fd, (off_t) size) != 0) {
      copy.failed = 1;
      return;
    }
    pool = wl_shm_create_pool (shm, fd, (int32_t) size);
    copy.buffer = wl_shm_pool_create_buffer (pool, 0, (int32_t) width, (int32_t) height, (int32_t) stride, format);
    wl_shm_pool_destroy (pool);
    close (fd);
    copy.format = format;
    copy.width = width;
    copy.height = height;
    copy.stride = stride;
  }
  /* The first copy is of whatever is shown; each next one waits for a change. */
  zwlr_screencopy_frame_v1_copy_with_damage (frame, copy.buffer);
}

static void
on_frame_flags (void *data, struct zwlr_screencopy_frame_v1 *frame, uint32_t flags)
{
  (void) data;
  (void) frame;
  (void) flags;
}

static void capture (void);

static void
on_frame_ready (void *data, struct zwlr_screencopy_frame_v1 *frame, uint32_t sec_hi, uint32_t sec_lo, uint32_t nsec)
{
  (void) data;
  (void) sec_hi;
  (void) sec_lo;
  (void) nsec;
  zwlr_screencopy_frame_v1_destroy (frame);
  copy.frame = NULL;
  copy.ready++;
  capture ();
}

static void
on_frame_failed (void *data, struct zwlr_screencopy_frame_v1 *frame)
{
  (void) data;
  zwlr_screencopy_frame_v1_destroy (frame);
  copy.frame = NULL;
  copy.failed = 1;
}

static void
on_frame_damage (void *data, struct zwlr_screencopy_frame_v1 *frame, uint32_t x, uint32_t y, uint32_t width,
                 uint32_t height)
{
  (void) data;
  (void) frame;
  (void) x;
  (void) y;
  (void) width;
  (void) height;
}

static const struct zwlr_screencopy_frame_v1_listener frame_listener = {
  on_frame_buffer, on_frame_flags, on_frame_ready, on_frame_failed, on_frame_damage,
};

static void
capture (void)
{
  copy.frame = zwlr_screencopy_manager_v1_capture_output (screencopy, 0, output);
  zwlr_screencopy_frame_v1_add_listener (copy.frame, &frame_listener, NULL);
}

/* The frames in which the output changed during `ms` milliseconds (the first copy,
 * of what was already shown, not counted), or -1. */
static long
count_frames (struct wl_display *display, long ms)
{
  uint32_t end = now_ms () + (uint32_t) ms;
  unsigned first;

  if (screencopy == NULL || shm == NULL || output == NULL)
    return -1;
  copy.ready = 0;
  copy.failed = 0;
  capture ();
  /* The first copy: what is on the output now. */
  while (copy.ready == 0 && !copy.failed)
    if (wl_display_dispatch (display) < 0)
      return -1;
  first = copy.ready;
  end = now_ms () + (uint32_t) ms;
  while (!copy.failed && (int32_t) (end - now_ms ()) > 0) {
    struct pollfd fd = { wl_display_get_fd (display), POLLIN, 0 };

    while (wl_display_prepare_read (display) != 0)
      wl_display_dispatch_pending (display);
    wl_display_flush (display);
    if (poll (&fd, 1, (int) (int32_t) (end - now_ms ())) > 0) {
      if (wl_display_read_events (display) < 0)
        return -1;
    } else {
      wl_display_cancel_read (display);
    }
    wl_display_dispatch_pending (display);
  }
  if (copy.failed)
    return -1;
  /* The capture still waiting for a change is left to end on its own: destroyed. */
  if (copy.frame != NULL) {
    zwlr_screencopy_frame_v1_destroy (copy.frame);
    copy.frame = NULL;
  }
  return (long) (copy.ready - first);
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
    long ms;

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
    } else if (sscanf (line, "frames %ld", &ms) == 1) {
      printf ("frames %ld\n", count_frames (display, ms));
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
