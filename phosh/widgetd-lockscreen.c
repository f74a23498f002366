/*
 * The lock-screen widget (widgetd-lockscreen.h).
 *
 * Rules it keeps:
 * - Nothing here waits: widgetd is reached only through WdStream's asynchronous
 *   calls, and a widgetd that is absent, restarting or failing costs phosh one timer.
 * - What a card draws comes only from the latest reply of its own Watch stream, and
 *   every reply drawn rebuilds the card's fields: a label that showed content is
 *   cleared and destroyed as soon as a reply no longer allows it, never merely hidden.
 * - A card is redrawn at most once per frame of phosh's frame clock: a reply that
 *   shows no less than what is drawn waits for the next frame if the card was redrawn
 *   in this one (a newer reply replaces it meanwhile). One that shows less (a lock's
 *   placeholder, a redaction) is drawn at once, whatever the frame: hiding never waits.
 *   With replies read below drawing's priority (WdStream), a listener that floods
 *   valid replies costs a card one rebuild per frame and never holds a frame back.
 * - Losing widgetd drops every card's content at once (the lock state is then
 *   unknown), shows a neutral empty state, and retries with a growing delay.
 * - A redacted field is a bar whose accessible name is "redacted": neither the
 *   hidden value nor the placeholder's sample ever sits where the value would be.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "widgetd-lockscreen.h"
#include "widgetd-reply.h"
#include "widgetd-stream.h"

#include <string.h>
#include <unistd.h>

/* The first retry after losing widgetd, and the longest wait between retries. */
#define BACKOFF_FIRST_MS 250
#define BACKOFF_MAX_MS (30 * 1000)
/* ListWidgets pages read to find the widgets to show. */
#define LIST_PAGE 64
#define LIST_MAX_PAGES 16
/* How often the first page is listed again for widgets stored since: widgetd
 * announces no new widget to hosts. */
#define RESCAN_MS (30 * 1000)
/* The surface this host draws. */
#define SURFACE "lockScreen"

typedef enum {
  PHASE_IDLE,
  /* ListWidgets pages. */
  PHASE_LIST,
  /* GetPresentation of each candidate, for its relevance (nothing picked). */
  PHASE_RANK,
  PHASE_WATCHING,
} Phase;

typedef struct _Card Card;

struct _PhoshWidgetdLockscreen {
  GtkBox      parent;

  GSettings  *settings;
  char       *socket_path;
  /* The picked widget ids (the "widgets" setting), empty: every allowed one. */
  GStrv       picked;
  guint       max_widgets;

  Phase       phase;
  WdStream   *discovery;
  guint       pages;
  /* WdWidgetInfo of every widget seen (families), and the candidates to rank. */
  GPtrArray  *listed;
  GPtrArray  *candidates;
  guint       ranked;

  /* Card, in the order shown. */
  GPtrArray  *cards;
  GtkWidget  *cards_box;
  GtkWidget  *empty;

  guint       backoff_ms;
  guint       retry_source;
  guint       rescan_source;
  WdStream   *probe;
};

G_DEFINE_TYPE (PhoshWidgetdLockscreen, phosh_widgetd_lockscreen, GTK_TYPE_BOX)

struct _Card {
  PhoshWidgetdLockscreen *owner;
  char                   *widget;
  char                   *family;
  /* The candidate's relevance while ranking. */
  gboolean                has_relevance;
  double                  relevance;
  GtkWidget              *frame;
  GtkWidget              *fields;
  GtkWidget              *stale;
  WdStream               *watch;
  /* The latest reply not drawn yet (it waits for the next frame), and its wait. */
  WdPresentation         *pending;
  guint                   tick;
  guint                   idle;
  /* The mode drawn (-1: none), and the frame clock's frame it was drawn in. */
  int                     drawn_mode;
  gint64                  drawn_frame;
};

/* The families DESIGN names, each drawn by one layout. */
typedef enum {
  LAYOUT_SMALL,
  LAYOUT_MEDIUM,
  LAYOUT_LARGE,
  LAYOUT_RECTANGULAR,
  LAYOUT_CIRCULAR,
  LAYOUT_INLINE,
} Layout;

static const struct {
  const char *family;
  Layout      layout;
  int         width;
  int         height;
  /* Fields drawn at most (the rest are dropped, as a small widget shows less). */
  guint       max_fields;
} families[] = {
  { "systemSmall", LAYOUT_SMALL, 150, 150, 4 },
  { "systemMedium", LAYOUT_MEDIUM, 312, 150, 6 },
  { "systemLarge", LAYOUT_LARGE, 312, 320, WD_MAX_FIELDS },
  { "systemExtraLarge", LAYOUT_LARGE, 312, 320, WD_MAX_FIELDS },
  { "accessoryRectangular", LAYOUT_RECTANGULAR, 150, -1, 3 },
  { "accessoryCircular", LAYOUT_CIRCULAR, 72, 72, 1 },
  { "accessoryInline", LAYOUT_INLINE, -1, -1, 2 },
};

static const char css[] =
  ".widgetd-card { background-color: alpha(@theme_fg_color, 0.10); border-radius: 18px; padding: 12px; }\n"
  ".widgetd-card.accessoryRectangular, .widgetd-card.accessoryInline { background-color: transparent; padding: 2px; }\n"
  ".widgetd-card.accessoryCircular { border-radius: 36px; padding: 6px; }\n"
  ".widgetd-card.placeholder { background-color: alpha(@theme_fg_color, 0.04);"
  " border: 1px dashed alpha(@theme_fg_color, 0.40); }\n"
  ".widgetd-card.placeholder .widgetd-value { opacity: 0.6; }\n"
  ".widgetd-card .widgetd-name { font-size: smaller; opacity: 0.7; }\n"
  ".widgetd-card .widgetd-value { font-weight: bold; }\n"
  ".widgetd-card .widgetd-redacted { background-color: alpha(@theme_fg_color, 0.35); border-radius: 4px;"
  " min-width: 64px; min-height: 12px; margin: 3px 0; }\n"
  ".widgetd-card .widgetd-stale { font-size: smaller; color: @warning_color; }\n"
  ".widgetd-empty { opacity: 0.6; }\n";

static void restart (PhoshWidgetdLockscreen *self);

char *
phosh_widgetd_default_socket (void)
{
  const char *variable = g_getenv ("WIDGETD_SOCKET");
  const char *runtime;

  if (variable != NULL && *variable != '\0')
    return g_strdup (variable);
  if (getuid () == 0)
    return g_strdup ("/run/widgetd/widgetd.sock");
  runtime = g_getenv ("XDG_RUNTIME_DIR");
  if (runtime != NULL && runtime[0] == '/')
    return g_build_filename (runtime, "widgetd", "widgetd.sock", NULL);
  return g_strdup_printf ("/run/user/%u/widgetd/widgetd.sock", (unsigned) getuid ());
}

static guint
family_index (const char *family)
{
  for (guint i = 0; family != NULL && i < G_N_ELEMENTS (families); i++)
    if (g_str_equal (families[i].family, family))
      return i;
  return 0;
}

/* The widget id's kind (after the provider's "/"), for the card's spoken name. */
static const char *
widget_kind (const char *widget)
{
  const char *slash = strrchr (widget, '/');

  return slash != NULL && slash[1] != '\0' ? slash + 1 : widget;
}

/* Empties a box of labels: each label's text is cleared before it is destroyed. */
static void
clear_box (GtkWidget *box)
{
  g_autoptr (GList) children = gtk_container_get_children (GTK_CONTAINER (box));

  for (GList *l = children; l != NULL; l = l->next) {
    if (GTK_IS_LABEL (l->data))
      gtk_label_set_text (GTK_LABEL (l->data), "");
    else if (GTK_IS_CONTAINER (l->data))
      clear_box (l->data);
    gtk_widget_destroy (l->data);
  }
}

static void
set_accessible_name (GtkWidget *widget, const char *name)
{
  atk_object_set_name (gtk_widget_get_accessible (widget), name);
}

/* The card's spoken name: the widget, and what the lock screen may show of it. */
static void
name_card (Card *card, const char *state, gboolean stale)
{
  g_autofree char *name = g_strdup_printf ("%s widget, %s%s", widget_kind (card->widget), state,
                                           stale ? ", out of date" : "");

  set_accessible_name (card->frame, name);
}

static GtkWidget *
value_label (const WdField *field, Layout layout)
{
  GtkWidget *label;

  if (field->redacted) {
    /* The redaction bar: a label with no text, drawn as a bar, named "redacted". */
    label = gtk_label_new ("");
    gtk_style_context_add_class (gtk_widget_get_style_context (label), "widgetd-redacted");
    gtk_widget_set_halign (label, layout == LAYOUT_CIRCULAR ? GTK_ALIGN_CENTER : GTK_ALIGN_START);
    set_accessible_name (label, "redacted");
  } else {
    label = gtk_label_new (field->text);
    gtk_style_context_add_class (gtk_widget_get_style_context (label), "widgetd-value");
    gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
    gtk_label_set_xalign (GTK_LABEL (label), layout == LAYOUT_CIRCULAR ? 0.5f : 0.0f);
  }
  return label;
}

static GtkWidget *
name_label (const WdField *field)
{
  GtkWidget *label = gtk_label_new (field->name);

  gtk_style_context_add_class (gtk_widget_get_style_context (label), "widgetd-name");
  gtk_label_set_xalign (GTK_LABEL (label), 0.0f);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  return label;
}

/* Lays the fields out in the family's terms, in the order the presentation gives. */
static void
draw_fields (Card *card, const WdPresentation *presentation)
{
  guint index = family_index (card->family);
  Layout layout = families[index].layout;
  guint count = MIN (presentation->fields->len, families[index].max_fields);
  GtkWidget *grid = NULL;

  if (layout == LAYOUT_MEDIUM || layout == LAYOUT_LARGE) {
    grid = gtk_grid_new ();
    gtk_grid_set_column_spacing (GTK_GRID (grid), 12);
    gtk_grid_set_row_spacing (GTK_GRID (grid), 4);
    gtk_container_add (GTK_CONTAINER (card->fields), grid);
  }
  for (guint i = 0; i < count; i++) {
    const WdField *field = g_ptr_array_index (presentation->fields, i);

    switch (layout) {
    case LAYOUT_MEDIUM:
    case LAYOUT_LARGE:
      gtk_grid_attach (GTK_GRID (grid), name_label (field), 0, (int) i, 1, 1);
      gtk_grid_attach (GTK_GRID (grid), value_label (field, layout), 1, (int) i, 1, 1);
      break;
    case LAYOUT_SMALL:
      gtk_container_add (GTK_CONTAINER (card->fields), name_label (field));
      gtk_container_add (GTK_CONTAINER (card->fields), value_label (field, layout));
      break;
    case LAYOUT_RECTANGULAR:
    case LAYOUT_CIRCULAR:
    case LAYOUT_INLINE:
      /* Accessories are too small for names: values only. */
      gtk_container_add (GTK_CONTAINER (card->fields), value_label (field, layout));
      break;
    }
  }
  gtk_widget_show_all (card->fields);
}

static void
set_class (GtkWidget *widget, const char *name, gboolean on)
{
  GtkStyleContext *context = gtk_widget_get_style_context (widget);

  if (on)
    gtk_style_context_add_class (context, name);
  else
    gtk_style_context_remove_class (context, name);
}

/* Draws a presentation, or (NULL) the neutral state of a card without one. */
static void
present (Card *card, const WdPresentation *presentation)
{
  static const char *const states[] = {
    [WD_MODE_CONTENT] = "content",
    [WD_MODE_REDACTED] = "sensitive values hidden",
    [WD_MODE_PLACEHOLDER] = "locked, placeholder",
  };

  card->drawn_mode = presentation != NULL ? (int) presentation->mode : -1;
  clear_box (card->fields);
  set_class (card->frame, "placeholder", presentation != NULL && presentation->mode == WD_MODE_PLACEHOLDER);
  set_class (card->frame, "redacted", presentation != NULL && presentation->mode == WD_MODE_REDACTED);
  set_class (card->frame, "stale", presentation != NULL && presentation->stale);
  gtk_widget_set_visible (card->stale, presentation != NULL && presentation->stale);
  if (presentation == NULL) {
    name_card (card, "unavailable", FALSE);
    return;
  }
  draw_fields (card, presentation);
  name_card (card, states[presentation->mode], presentation->stale);
}

/* How much a mode shows: a reply that shows less is drawn at once. */
static int
openness (int mode)
{
  switch (mode) {
  case WD_MODE_CONTENT:
    return 3;
  case WD_MODE_REDACTED:
    return 2;
  case WD_MODE_PLACEHOLDER:
    return 1;
  default:
    return 0;
  }
}

static void
cancel_pending (Card *card)
{
  if (card->tick != 0) {
    gtk_widget_remove_tick_callback (card->frame, card->tick);
    card->tick = 0;
  }
  g_clear_handle_id (&card->idle, g_source_remove);
  g_clear_pointer (&card->pending, wd_presentation_free);
}

/* Draws the pending reply, noting the frame it is drawn in. */
static void
draw_pending (Card *card)
{
  g_autoptr (WdPresentation) presentation = g_steal_pointer (&card->pending);
  GdkFrameClock *clock = gtk_widget_get_frame_clock (card->frame);

  cancel_pending (card);
  card->drawn_frame = clock != NULL ? gdk_frame_clock_get_frame_counter (clock) : -1;
  present (card, presentation);
}

static gboolean
on_card_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  Card *card = data;

  (void) widget;
  (void) clock;
  card->tick = 0;
  draw_pending (card);
  return G_SOURCE_REMOVE;
}

static gboolean
on_card_idle (gpointer data)
{
  Card *card = data;

  card->idle = 0;
  draw_pending (card);
  return G_SOURCE_REMOVE;
}

/* Draws `presentation` (taken) now, or at the next frame if the card was drawn in this
 * one and it shows no less than what is drawn. */
static void
schedule_present (Card *card, WdPresentation *presentation)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (card->frame);

  g_clear_pointer (&card->pending, wd_presentation_free);
  card->pending = presentation;
  if (openness (presentation->mode) < openness (card->drawn_mode) ||
      (clock != NULL && gdk_frame_clock_get_frame_counter (clock) != card->drawn_frame)) {
    draw_pending (card);
    return;
  }
  if (card->tick != 0 || card->idle != 0)
    return;
  if (clock != NULL)
    card->tick = gtk_widget_add_tick_callback (card->frame, on_card_tick, card, NULL);
  else
    /* Not realized, so not drawn: once per batch of replies read (reads come below). */
    card->idle = g_idle_add_full (G_PRIORITY_HIGH_IDLE + 30, on_card_idle, card, NULL);
}

static Card *
card_new (PhoshWidgetdLockscreen *owner, const char *widget, const char *family)
{
  Card *card = g_new0 (Card, 1);
  guint index = family_index (family);
  Layout layout = families[index].layout;

  card->owner = owner;
  card->drawn_mode = -1;
  card->drawn_frame = -1;
  card->widget = g_strdup (widget);
  card->family = g_strdup (families[index].family);
  card->frame = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  gtk_style_context_add_class (gtk_widget_get_style_context (card->frame), "widgetd-card");
  gtk_style_context_add_class (gtk_widget_get_style_context (card->frame), card->family);
  gtk_widget_set_size_request (card->frame, families[index].width, families[index].height);
  gtk_widget_set_halign (card->frame, GTK_ALIGN_CENTER);
  card->fields = gtk_box_new (layout == LAYOUT_INLINE ? GTK_ORIENTATION_HORIZONTAL : GTK_ORIENTATION_VERTICAL,
                              layout == LAYOUT_INLINE ? 6 : 1);
  gtk_widget_set_valign (card->fields, layout == LAYOUT_CIRCULAR ? GTK_ALIGN_CENTER : GTK_ALIGN_START);
  gtk_widget_set_vexpand (card->fields, TRUE);
  gtk_container_add (GTK_CONTAINER (card->frame), card->fields);
  card->stale = gtk_label_new ("Out of date");
  gtk_style_context_add_class (gtk_widget_get_style_context (card->stale), "widgetd-stale");
  gtk_label_set_xalign (GTK_LABEL (card->stale), 0.0f);
  gtk_container_add (GTK_CONTAINER (card->frame), card->stale);
  gtk_widget_show_all (card->frame);
  gtk_widget_hide (card->stale);
  /* Screen readers and tests find the card by the widget's id. */
  atk_object_set_accessible_id (gtk_widget_get_accessible (card->frame), widget);
  name_card (card, "waiting for widgetd", FALSE);
  return card;
}

static void
card_free (gpointer data)
{
  Card *card = data;

  if (card->watch != NULL) {
    wd_stream_close (card->watch);
    g_clear_object (&card->watch);
  }
  if (card->frame != NULL) {
    cancel_pending (card);
    clear_box (card->fields);
    gtk_widget_destroy (card->frame);
  }
  g_free (card->widget);
  g_free (card->family);
  g_free (card);
}

static void
update_empty (PhoshWidgetdLockscreen *self, const char *text)
{
  gtk_label_set_text (GTK_LABEL (self->empty), text);
  gtk_widget_set_visible (self->empty, self->cards->len == 0);
}

static void
close_discovery (PhoshWidgetdLockscreen *self)
{
  if (self->discovery != NULL) {
    wd_stream_close (self->discovery);
    g_clear_object (&self->discovery);
  }
}

static void
close_probe (PhoshWidgetdLockscreen *self)
{
  if (self->probe != NULL) {
    wd_stream_close (self->probe);
    g_clear_object (&self->probe);
  }
}

/* Drops every card and stream; nothing of what was shown is left. */
static void
reset (PhoshWidgetdLockscreen *self)
{
  close_discovery (self);
  close_probe (self);
  g_clear_handle_id (&self->rescan_source, g_source_remove);
  g_ptr_array_set_size (self->cards, 0);
  g_ptr_array_set_size (self->listed, 0);
  g_ptr_array_set_size (self->candidates, 0);
  self->phase = PHASE_IDLE;
  self->pages = 0;
  self->ranked = 0;
}

static gboolean
on_retry (gpointer data)
{
  PhoshWidgetdLockscreen *self = data;

  self->retry_source = 0;
  restart (self);
  return G_SOURCE_REMOVE;
}

/* widgetd is unreachable or failing: drop everything, show the empty state, and try
 * again later, each wait twice the last up to BACKOFF_MAX_MS. */
static void
lost (PhoshWidgetdLockscreen *self, const char *why)
{
  reset (self);
  update_empty (self, "Widgets unavailable");
  if (self->retry_source != 0)
    return;
  g_debug ("widgetd: %s; retrying in %u ms", why, self->backoff_ms);
  self->retry_source = g_timeout_add (self->backoff_ms, on_retry, self);
  self->backoff_ms = MIN (self->backoff_ms * 2, BACKOFF_MAX_MS);
}

static void
remove_card (PhoshWidgetdLockscreen *self, Card *card)
{
  g_ptr_array_remove (self->cards, card);
  update_empty (self, "No widgets");
}

static void
on_watch (WdStream *stream, const WdReply *reply, const GError *error, gpointer data)
{
  Card *card = data;
  PhoshWidgetdLockscreen *self = card->owner;
  g_autoptr (WdPresentation) presentation = NULL;
  g_autoptr (GError) parse_error = NULL;

  (void) stream;
  if (error != NULL) {
    if (g_error_matches (error, WD_REPLY_ERROR, WD_REPLY_ERROR_MALFORMED) ||
        g_error_matches (error, WD_REPLY_ERROR, WD_REPLY_ERROR_TOO_LARGE)) {
      /* A bad reply drops its own stream; the card keeps nothing of it. */
      g_debug ("widgetd: %s: %s", card->widget, error->message);
      g_clear_object (&card->watch);
      cancel_pending (card);
      present (card, NULL);
      return;
    }
    lost (self, error->message);
    return;
  }
  if (reply->error != NULL) {
    if (g_str_equal (reply->error, "io.widgetd.WidgetNotFound") ||
        g_str_equal (reply->error, "io.widgetd.UnavailableOnSurface")) {
      remove_card (self, card);
      return;
    }
    lost (self, reply->error);
    return;
  }
  presentation = wd_presentation_from_reply (reply, &parse_error);
  if (presentation == NULL || !g_str_equal (presentation->widget, card->widget)) {
    g_debug ("widgetd: %s: %s", card->widget, parse_error != NULL ? parse_error->message : "another widget's reply");
    wd_stream_close (card->watch);
    g_clear_object (&card->watch);
    cancel_pending (card);
    present (card, NULL);
    return;
  }
  self->backoff_ms = BACKOFF_FIRST_MS;
  schedule_present (card, g_steal_pointer (&presentation));
}

static void
show_card (PhoshWidgetdLockscreen *self, const char *widget, const char *family)
{
  Card *card = card_new (self, widget, family);
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonNode) parameters = NULL;

  gtk_container_add (GTK_CONTAINER (self->cards_box), card->frame);
  g_ptr_array_add (self->cards, card);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "widget");
  json_builder_add_string_value (builder, widget);
  json_builder_set_member_name (builder, "surface");
  json_builder_add_string_value (builder, SURFACE);
  json_builder_end_object (builder);
  parameters = json_builder_get_root (builder);
  card->watch = wd_stream_new (self->socket_path, on_watch, card);
  wd_stream_call (card->watch, "io.widgetd.Host.Watch", parameters, TRUE);
}

static WdWidgetInfo *
find_listed (PhoshWidgetdLockscreen *self, const char *widget)
{
  for (guint i = 0; i < self->listed->len; i++) {
    WdWidgetInfo *info = g_ptr_array_index (self->listed, i);
    if (g_str_equal (info->widget, widget))
      return info;
  }
  return NULL;
}

static const char *
listed_family (PhoshWidgetdLockscreen *self, const char *widget)
{
  WdWidgetInfo *info = find_listed (self, widget);

  return info != NULL ? info->family : NULL;
}

/* Most relevant first; those without a relevance after, in id order (stable sort). */
static gint
by_relevance (gconstpointer a, gconstpointer b)
{
  const Card *left = *(Card *const *) a, *right = *(Card *const *) b;

  if (left->has_relevance != right->has_relevance)
    return left->has_relevance ? -1 : 1;
  if (!left->has_relevance || left->relevance == right->relevance)
    return 0;
  return left->relevance > right->relevance ? -1 : 1;
}

static void schedule_rescan (PhoshWidgetdLockscreen *self);

static void
start_watches (PhoshWidgetdLockscreen *self)
{
  close_discovery (self);
  self->phase = PHASE_WATCHING;
  schedule_rescan (self);
  if (self->picked != NULL && self->picked[0] != NULL) {
    for (guint i = 0; self->picked[i] != NULL && i < self->max_widgets; i++)
      show_card (self, self->picked[i], listed_family (self, self->picked[i]));
  } else {
    g_autoptr (GPtrArray) ranked = g_ptr_array_new ();

    for (guint i = 0; i < self->candidates->len; i++) {
      Card *candidate = g_ptr_array_index (self->candidates, i);
      if (candidate->frame == NULL && candidate->widget != NULL)
        g_ptr_array_add (ranked, candidate);
    }
    g_ptr_array_sort (ranked, by_relevance);
    for (guint i = 0; i < ranked->len && i < self->max_widgets; i++) {
      Card *candidate = g_ptr_array_index (ranked, i);
      show_card (self, candidate->widget, candidate->family);
    }
  }
  update_empty (self, "No widgets");
}

static void
rank_next (PhoshWidgetdLockscreen *self)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonNode) parameters = NULL;
  Card *candidate;

  if (self->ranked >= self->candidates->len) {
    start_watches (self);
    return;
  }
  candidate = g_ptr_array_index (self->candidates, self->ranked);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "widget");
  json_builder_add_string_value (builder, candidate->widget);
  json_builder_set_member_name (builder, "surface");
  json_builder_add_string_value (builder, SURFACE);
  json_builder_end_object (builder);
  parameters = json_builder_get_root (builder);
  wd_stream_call (self->discovery, "io.widgetd.Host.GetPresentation", parameters, FALSE);
}

static void
list_page (PhoshWidgetdLockscreen *self, const char *after)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonNode) parameters = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "limit");
  json_builder_add_int_value (builder, LIST_PAGE);
  if (after != NULL) {
    json_builder_set_member_name (builder, "after");
    json_builder_add_string_value (builder, after);
  }
  json_builder_end_object (builder);
  parameters = json_builder_get_root (builder);
  self->pages++;
  wd_stream_call (self->discovery, "io.widgetd.Host.ListWidgets", parameters, FALSE);
}

static gboolean
all_picked_listed (PhoshWidgetdLockscreen *self)
{
  for (guint i = 0; self->picked[i] != NULL && i < self->max_widgets; i++)
    if (find_listed (self, self->picked[i]) == NULL)
      return FALSE;
  return TRUE;
}

static void
on_listed (PhoshWidgetdLockscreen *self, const WdReply *reply)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *next = NULL;
  g_autoptr (GPtrArray) page = wd_widget_list_from_reply (reply, &next, &error);
  gboolean picking = self->picked != NULL && self->picked[0] != NULL;

  if (page == NULL) {
    lost (self, error->message);
    return;
  }
  while (page->len > 0) {
    WdWidgetInfo *info = g_ptr_array_steal_index (page, 0);

    if (!picking && self->candidates->len < WD_MAX_CANDIDATES) {
      Card *candidate = g_new0 (Card, 1);
      candidate->widget = g_strdup (info->widget);
      candidate->family = g_strdup (info->family);
      g_ptr_array_add (self->candidates, candidate);
    }
    g_ptr_array_add (self->listed, info);
  }
  if (next != NULL && self->pages < LIST_MAX_PAGES &&
      (picking ? !all_picked_listed (self) : self->candidates->len < WD_MAX_CANDIDATES)) {
    list_page (self, next);
    return;
  }
  if (picking) {
    start_watches (self);
    return;
  }
  self->phase = PHASE_RANK;
  rank_next (self);
}

static void
on_ranked (PhoshWidgetdLockscreen *self, const WdReply *reply)
{
  Card *candidate = g_ptr_array_index (self->candidates, self->ranked);

  self->ranked++;
  if (reply->error != NULL) {
    /* Refused on this surface, or gone since it was listed: not a candidate. */
    g_clear_pointer (&candidate->widget, g_free);
  } else {
    g_autoptr (GError) error = NULL;
    g_autoptr (WdPresentation) presentation = wd_presentation_from_reply (reply, &error);

    if (presentation == NULL) {
      lost (self, error->message);
      return;
    }
    candidate->has_relevance = presentation->has_relevance;
    candidate->relevance = presentation->relevance;
  }
  rank_next (self);
}

static void
on_discovery (WdStream *stream, const WdReply *reply, const GError *error, gpointer data)
{
  PhoshWidgetdLockscreen *self = data;

  (void) stream;
  if (error != NULL) {
    lost (self, error->message);
    return;
  }
  if (reply->error != NULL && self->phase == PHASE_LIST) {
    lost (self, reply->error);
    return;
  }
  if (self->phase == PHASE_LIST)
    on_listed (self, reply);
  else if (self->phase == PHASE_RANK)
    on_ranked (self, reply);
}

/* Candidates are Cards without a frame: only their id, family and relevance. */
static void
candidate_free (gpointer data)
{
  Card *candidate = data;

  g_free (candidate->widget);
  g_free (candidate->family);
  g_free (candidate);
}

static gboolean
is_picked (PhoshWidgetdLockscreen *self, const char *widget)
{
  for (guint i = 0; self->picked[i] != NULL && i < self->max_widgets; i++)
    if (g_str_equal (self->picked[i], widget))
      return TRUE;
  return FALSE;
}

/* The probe's page: a widget the last discovery did not list, and that would be shown
 * (picked, or room left for it), starts the discovery again; else the next probe waits. */
static void
on_probe (WdStream *stream, const WdReply *reply, const GError *error, gpointer data)
{
  PhoshWidgetdLockscreen *self = data;
  gboolean picking = self->picked != NULL && self->picked[0] != NULL;
  g_autofree char *next = NULL;
  g_autoptr (GPtrArray) page = NULL;

  (void) stream;
  close_probe (self);
  /* A failure here is the watches' to notice. */
  if (error == NULL && reply->error == NULL)
    page = wd_widget_list_from_reply (reply, &next, NULL);
  for (guint i = 0; page != NULL && i < page->len; i++) {
    WdWidgetInfo *info = g_ptr_array_index (page, i);

    if (find_listed (self, info->widget) != NULL)
      continue;
    if (picking ? is_picked (self, info->widget) : self->cards->len < self->max_widgets) {
      g_debug ("widgetd: %s is new", info->widget);
      restart (self);
      return;
    }
  }
  schedule_rescan (self);
}

static gboolean
on_rescan (gpointer data)
{
  PhoshWidgetdLockscreen *self = data;
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonNode) parameters = NULL;

  self->rescan_source = 0;
  if (self->phase != PHASE_WATCHING)
    return G_SOURCE_REMOVE;
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "limit");
  json_builder_add_int_value (builder, LIST_PAGE);
  json_builder_end_object (builder);
  parameters = json_builder_get_root (builder);
  self->probe = wd_stream_new (self->socket_path, on_probe, self);
  wd_stream_call (self->probe, "io.widgetd.Host.ListWidgets", parameters, FALSE);
  return G_SOURCE_REMOVE;
}

static void
schedule_rescan (PhoshWidgetdLockscreen *self)
{
  if (self->rescan_source == 0 && self->probe == NULL)
    self->rescan_source = g_timeout_add (RESCAN_MS, on_rescan, self);
}

static void
read_settings (PhoshWidgetdLockscreen *self)
{
  g_autofree char *socket = NULL;

  g_clear_pointer (&self->picked, g_strfreev);
  g_clear_pointer (&self->socket_path, g_free);
  if (self->settings != NULL) {
    self->picked = g_settings_get_strv (self->settings, "widgets");
    socket = g_settings_get_string (self->settings, "socket");
    self->max_widgets = (guint) CLAMP (g_settings_get_int (self->settings, "max-widgets"), 1, WD_MAX_CANDIDATES);
  } else {
    self->picked = g_new0 (char *, 1);
    self->max_widgets = 3;
  }
  self->socket_path = socket != NULL && *socket != '\0' ? g_steal_pointer (&socket) : phosh_widgetd_default_socket ();
}

static void
restart (PhoshWidgetdLockscreen *self)
{
  reset (self);
  g_clear_handle_id (&self->retry_source, g_source_remove);
  read_settings (self);
  update_empty (self, "Widgets unavailable");
  self->phase = PHASE_LIST;
  self->discovery = wd_stream_new (self->socket_path, on_discovery, self);
  list_page (self, NULL);
}

static void
on_settings_changed (GSettings *settings, const char *key, gpointer data)
{
  PhoshWidgetdLockscreen *self = data;

  (void) settings;
  (void) key;
  self->backoff_ms = BACKOFF_FIRST_MS;
  restart (self);
}

static void
phosh_widgetd_lockscreen_dispose (GObject *object)
{
  PhoshWidgetdLockscreen *self = PHOSH_WIDGETD_LOCKSCREEN (object);

  g_clear_handle_id (&self->retry_source, g_source_remove);
  if (self->cards != NULL)
    reset (self);
  g_clear_pointer (&self->cards, g_ptr_array_unref);
  g_clear_pointer (&self->listed, g_ptr_array_unref);
  g_clear_pointer (&self->candidates, g_ptr_array_unref);
  if (self->settings != NULL)
    g_signal_handlers_disconnect_by_data (self->settings, self);
  g_clear_object (&self->settings);
  G_OBJECT_CLASS (phosh_widgetd_lockscreen_parent_class)->dispose (object);
}

static void
phosh_widgetd_lockscreen_finalize (GObject *object)
{
  PhoshWidgetdLockscreen *self = PHOSH_WIDGETD_LOCKSCREEN (object);

  g_strfreev (self->picked);
  g_free (self->socket_path);
  G_OBJECT_CLASS (phosh_widgetd_lockscreen_parent_class)->finalize (object);
}

static void
phosh_widgetd_lockscreen_class_init (PhoshWidgetdLockscreenClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = phosh_widgetd_lockscreen_dispose;
  object_class->finalize = phosh_widgetd_lockscreen_finalize;
  gtk_widget_class_set_css_name (GTK_WIDGET_CLASS (klass), "phosh-widgetd");
}

static void
install_css (void)
{
  static gboolean installed;
  g_autoptr (GtkCssProvider) provider = NULL;

  if (installed || gdk_screen_get_default () == NULL)
    return;
  installed = TRUE;
  provider = gtk_css_provider_new ();
  gtk_css_provider_load_from_data (provider, css, -1, NULL);
  gtk_style_context_add_provider_for_screen (gdk_screen_get_default (), GTK_STYLE_PROVIDER (provider),
                                             GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
}

static void
phosh_widgetd_lockscreen_init (PhoshWidgetdLockscreen *self)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr (GSettingsSchema) schema = NULL;

  install_css ();
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
  gtk_widget_set_valign (GTK_WIDGET (self), GTK_ALIGN_CENTER);
  self->cards = g_ptr_array_new_with_free_func (card_free);
  self->listed = g_ptr_array_new_with_free_func ((GDestroyNotify) wd_widget_info_free);
  self->candidates = g_ptr_array_new_with_free_func (candidate_free);
  self->backoff_ms = BACKOFF_FIRST_MS;

  self->cards_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  gtk_container_add (GTK_CONTAINER (self), self->cards_box);
  self->empty = gtk_label_new ("");
  gtk_style_context_add_class (gtk_widget_get_style_context (self->empty), "widgetd-empty");
  atk_object_set_accessible_id (gtk_widget_get_accessible (self->empty), "widgetd-empty");
  gtk_container_add (GTK_CONTAINER (self), self->empty);
  gtk_widget_show_all (GTK_WIDGET (self));

  /* Without its schema installed the plugin runs on the defaults: a missing schema
   * must not abort phosh, as g_settings_new would. */
  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, WD_SETTINGS_SCHEMA, TRUE);
  if (schema != NULL) {
    self->settings = g_settings_new_full (schema, NULL, NULL);
    g_signal_connect (self->settings, "changed", G_CALLBACK (on_settings_changed), self);
  }
  restart (self);
}
