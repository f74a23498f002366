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
 * - An entry with layout roles is drawn from them (DESIGN §12), without field names;
 *   one without is drawn as before. Dates tick only while their label is mapped.
 * - Actions (DESIGN §13) are performed on connections of their own, asynchronously:
 *   widgetd decides what runs; the card only shows what it answered (held, expired)
 *   and a delivered toggle's new state until the provider's timeline follows.
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
#define LIST_MAX_PAGES 16
/* How often the first page is listed again for widgets stored since, with a widgetd
 * that has no Host.WatchWidgets (older than this plugin). */
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

typedef enum {
  ACTION_IDLE,
  /* PerformAction sent, no outcome yet. */
  ACTION_SENT,
  /* Held: it waits for an unlock. */
  ACTION_HELD,
  ACTION_EXPIRED,
} ActionState;

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
  /* Host.WatchWidgets: new, removed and changed widgets, as widgetd stores them; and
  * whether one came during the discovery. */
  WdStream   *widget_events;
  gboolean    changed;
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
  /* The presentation drawn (redrawn when an action's state changes). */
  WdPresentation         *drawn;
  /* The action performed last: its connection (which holds it while it waits for an
   * unlock), its id and state, and for a toggle the state it sets. */
  WdStream               *action_stream;
  char                   *action_id;
  ActionState             action_state;
  gboolean                action_toggles;
  gboolean                action_toggle_to;
  /* Toggles' states set by delivered actions (id → isOn), shown until the provider's
   * new timeline arrives. */
  GHashTable             *toggled;
  guint                   redraw_idle;
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
  ".widgetd-card .widgetd-title { font-weight: bold; }\n"
  ".widgetd-card .widgetd-big { font-size: 200%; font-weight: bold; }\n"
  ".widgetd-card.accessoryRectangular .widgetd-value { font-size: larger; }\n"
  ".widgetd-card .widgetd-detail { font-size: smaller; opacity: 0.8; }\n"
  ".widgetd-card .widgetd-inside { font-weight: bold; font-size: smaller; }\n"
  ".widgetd-card .widgetd-actions { margin-top: 6px; }\n"
  ".widgetd-card .widgetd-action { border-radius: 12px; padding: 2px 10px; min-height: 24px; }\n"
  ".widgetd-card .widgetd-action.widgetd-held { border: 1px dashed @theme_fg_color; }\n"
  ".widgetd-card .widgetd-action:checked { background-color: alpha(@theme_fg_color, 0.85); color: @theme_bg_color; }\n"
  ".widgetd-empty { opacity: 0.6; }\n";

static void restart (PhoshWidgetdLockscreen *self);


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

/* --- layout roles (DESIGN §12) ------------------------------------------------------ */

/*
 * A gauge drawn as a ring (accessoryCircular): a GtkLevelBar that draws itself as an
 * arc, so that its accessible object is the level bar's, whose AtkValue gives the
 * value, minimum and maximum.
 */
#define WD_TYPE_RING (wd_ring_get_type ())
G_DECLARE_FINAL_TYPE (WdRing, wd_ring, WD, RING, GtkLevelBar)

struct _WdRing {
  GtkLevelBar parent;
};

G_DEFINE_TYPE (WdRing, wd_ring, GTK_TYPE_LEVEL_BAR)

#define RING_SIZE 60
#define RING_WIDTH 5.0

static gboolean
wd_ring_draw (GtkWidget *widget, cairo_t *cr)
{
  GtkLevelBar *bar = GTK_LEVEL_BAR (widget);
  GtkStyleContext *context = gtk_widget_get_style_context (widget);
  double low = gtk_level_bar_get_min_value (bar), high = gtk_level_bar_get_max_value (bar);
  double fraction = high > low ? (gtk_level_bar_get_value (bar) - low) / (high - low) : 0;
  double width = gtk_widget_get_allocated_width (widget), height = gtk_widget_get_allocated_height (widget);
  double radius = MIN (width, height) / 2 - RING_WIDTH / 2;
  GdkRGBA colour;

  gtk_style_context_get_color (context, gtk_style_context_get_state (context), &colour);
  cairo_set_line_width (cr, RING_WIDTH);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  cairo_set_source_rgba (cr, colour.red, colour.green, colour.blue, colour.alpha * 0.25);
  cairo_arc (cr, width / 2, height / 2, radius, 0, 2 * G_PI);
  cairo_stroke (cr);
  if (fraction > 0) {
    cairo_set_source_rgba (cr, colour.red, colour.green, colour.blue, colour.alpha);
    cairo_arc (cr, width / 2, height / 2, radius, -G_PI / 2, -G_PI / 2 + 2 * G_PI * CLAMP (fraction, 0, 1));
    cairo_stroke (cr);
  }
  return FALSE;
}

static void
wd_ring_measure (GtkWidget *widget, int *minimum, int *natural)
{
  (void) widget;
  *minimum = *natural = RING_SIZE;
}

static void
wd_ring_class_init (WdRingClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  widget_class->draw = wd_ring_draw;
  widget_class->get_preferred_width = wd_ring_measure;
  widget_class->get_preferred_height = wd_ring_measure;
}

static void
wd_ring_init (WdRing *self)
{
  (void) self;
}

/* A gauge: a ring or a bar whose AtkValue is the field's; a redacted one is empty and
 * named "redacted". */
static GtkWidget *
gauge_widget (const WdField *field, gboolean ring)
{
  GtkWidget *gauge = ring ? g_object_new (WD_TYPE_RING, NULL) : gtk_level_bar_new ();

  gtk_level_bar_set_min_value (GTK_LEVEL_BAR (gauge), field->gauge_min);
  gtk_level_bar_set_max_value (GTK_LEVEL_BAR (gauge), field->gauge_max);
  gtk_level_bar_set_value (GTK_LEVEL_BAR (gauge), field->has_gauge ? field->gauge : field->gauge_min);
  gtk_style_context_add_class (gtk_widget_get_style_context (gauge), "widgetd-gauge");
  if (!ring)
    gtk_widget_set_valign (gauge, GTK_ALIGN_CENTER);
  set_accessible_name (gauge, field->redacted ? "redacted" : field->name);
  return gauge;
}

/* A date label keeps its date and style, and ticks while it is mapped. */
typedef struct {
  GDateTime  *date;
  WdDateStyle style;
  guint       source;
} DateTick;

static void
date_tick_free (gpointer data)
{
  DateTick *tick = data;

  g_clear_handle_id (&tick->source, g_source_remove);
  g_date_time_unref (tick->date);
  g_free (tick);
}

static void
update_date_label (GtkWidget *label)
{
  DateTick *tick = g_object_get_data (G_OBJECT (label), "widgetd-date");
  g_autoptr (GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *text = wd_date_text (tick->style, tick->date, now);

  /* The label's text is what is drawn: AT-SPI reads the same. */
  gtk_label_set_text (GTK_LABEL (label), text);
}

static gboolean
on_date_tick (gpointer data)
{
  update_date_label (data);
  return G_SOURCE_CONTINUE;
}

static void
on_date_mapped (GtkWidget *label, gpointer data)
{
  DateTick *tick = g_object_get_data (G_OBJECT (label), "widgetd-date");
  guint seconds = wd_date_tick_seconds (tick->style);

  (void) data;
  update_date_label (label);
  if (seconds != 0 && tick->source == 0)
    tick->source = seconds == 1 ? g_timeout_add (1000, on_date_tick, label)
                                : g_timeout_add_seconds (seconds, on_date_tick, label);
}

static void
on_date_unmapped (GtkWidget *label, gpointer data)
{
  DateTick *tick = g_object_get_data (G_OBJECT (label), "widgetd-date");

  (void) data;
  g_clear_handle_id (&tick->source, g_source_remove);
}

/* A date field's label: drawn in its style, ticking (timer, relative) only while it is
 * mapped. A redacted date (or one that is not RFC 3339) is neither shown nor ticking. */
static GtkWidget *
date_label (const WdField *field, Layout layout, gboolean large)
{
  DateTick *tick;
  GtkWidget *label;

  if (field->date == NULL)
    return value_label (field, layout);
  label = gtk_label_new ("");
  gtk_style_context_add_class (gtk_widget_get_style_context (label), large ? "widgetd-big" : "widgetd-detail");
  gtk_label_set_xalign (GTK_LABEL (label), layout == LAYOUT_CIRCULAR ? 0.5f : 0.0f);
  tick = g_new0 (DateTick, 1);
  tick->date = g_date_time_ref (field->date);
  tick->style = field->style;
  g_object_set_data_full (G_OBJECT (label), "widgetd-date", tick, date_tick_free);
  g_signal_connect (label, "map", G_CALLBACK (on_date_mapped), NULL);
  g_signal_connect (label, "unmap", G_CALLBACK (on_date_unmapped), NULL);
  update_date_label (label);
  return label;
}

/* A text field in a role: its value (or a redaction bar) in the role's style. */
static GtkWidget *
role_label (const WdField *field, Layout layout, const char *style)
{
  GtkWidget *label = value_label (field, layout);

  if (!field->redacted) {
    gtk_style_context_remove_class (gtk_widget_get_style_context (label), "widgetd-value");
    gtk_style_context_add_class (gtk_widget_get_style_context (label), style);
  }
  return label;
}

static GtkWidget *
icon_image (const char *icon, GtkIconSize size)
{
  /* Icon names only, from the theme: never a file. */
  GtkWidget *image = gtk_image_new_from_icon_name (icon, size);

  gtk_style_context_add_class (gtk_widget_get_style_context (image), "widgetd-icon");
  return image;
}

typedef struct {
  const WdField *title, *value, *icon, *gauge;
  /* Details and dates (other than one drawn as the value), in field order. */
  const WdField *details[WD_MAX_FIELDS];
  guint          n_details;
} Roles;

static void
gather_roles (const WdPresentation *presentation, Roles *roles)
{
  memset (roles, 0, sizeof *roles);
  for (guint i = 0; i < presentation->fields->len; i++) {
    const WdField *field = g_ptr_array_index (presentation->fields, i);

    switch (field->role) {
    case WD_ROLE_TITLE:
      if (roles->title == NULL)
        roles->title = field;
      break;
    case WD_ROLE_VALUE:
      if (roles->value == NULL)
        roles->value = field;
      break;
    case WD_ROLE_ICON:
      if (roles->icon == NULL)
        roles->icon = field;
      break;
    case WD_ROLE_GAUGE:
      if (roles->gauge == NULL)
        roles->gauge = field;
      break;
    case WD_ROLE_DETAIL:
    case WD_ROLE_DATE:
      roles->details[roles->n_details++] = field;
      break;
    default:
      /* No role, or one unknown: data for custom hosts, not drawn. */
      break;
    }
  }
  /* A date with no value beside it is the main figure. */
  if (roles->value == NULL)
    for (guint i = 0; i < roles->n_details; i++)
      if (roles->details[i]->role == WD_ROLE_DATE) {
        roles->value = roles->details[i];
        memmove (&roles->details[i], &roles->details[i + 1], (roles->n_details - i - 1) * sizeof roles->details[0]);
        roles->n_details--;
        break;
      }
}

static GtkWidget *
field_widget (const WdField *field, Layout layout, const char *style)
{
  if (field->role == WD_ROLE_DATE)
    return date_label (field, layout, g_str_equal (style, "widgetd-big"));
  return role_label (field, layout, style);
}

/* Draws an entry whose fields have roles, in the family's terms (DESIGN §12): no
 * field's name; fields without a role are not drawn. */
static void
draw_roles (Card *card, const WdPresentation *presentation)
{
  guint index = family_index (card->family);
  Layout layout = families[index].layout;
  GtkContainer *box = GTK_CONTAINER (card->fields);
  Roles roles;
  guint lines;

  gather_roles (presentation, &roles);
  switch (layout) {
  case LAYOUT_INLINE:
    /* Icon and value (or title) on one line. */
    if (roles.icon != NULL && roles.icon->icon != NULL)
      gtk_container_add (box, icon_image (roles.icon->icon, GTK_ICON_SIZE_MENU));
    if (roles.value != NULL || roles.title != NULL)
      gtk_container_add (box, field_widget (roles.value != NULL ? roles.value : roles.title, layout, "widgetd-inline"));
    break;
  case LAYOUT_CIRCULAR: {
    /* A gauge ring with the value or the icon inside. */
    GtkWidget *overlay = gtk_overlay_new (), *inside = NULL;

    gtk_widget_set_halign (overlay, GTK_ALIGN_CENTER);
    if (roles.gauge != NULL)
      gtk_container_add (GTK_CONTAINER (overlay), gauge_widget (roles.gauge, TRUE));
    if (roles.value != NULL)
      inside = field_widget (roles.value, layout, "widgetd-inside");
    else if (roles.icon != NULL && roles.icon->icon != NULL)
      inside = icon_image (roles.icon->icon, GTK_ICON_SIZE_LARGE_TOOLBAR);
    if (inside != NULL) {
      gtk_widget_set_halign (inside, GTK_ALIGN_CENTER);
      gtk_widget_set_valign (inside, GTK_ALIGN_CENTER);
      if (roles.gauge != NULL)
        gtk_overlay_add_overlay (GTK_OVERLAY (overlay), inside);
      else
        gtk_container_add (GTK_CONTAINER (overlay), inside);
    }
    gtk_container_add (box, overlay);
    break;
  }
  case LAYOUT_RECTANGULAR:
    /* Title, then value and details: three lines at most. */
    lines = 0;
    if (roles.title != NULL && lines < 3) {
      gtk_container_add (box, field_widget (roles.title, layout, "widgetd-title"));
      lines++;
    }
    if (roles.value != NULL && lines < 3) {
      gtk_container_add (box, field_widget (roles.value, layout, "widgetd-value"));
      lines++;
    }
    for (guint i = 0; i < roles.n_details && lines < 3; i++, lines++)
      gtk_container_add (box, field_widget (roles.details[i], layout, "widgetd-detail"));
    if (roles.gauge != NULL && lines < 3)
      gtk_container_add (box, gauge_widget (roles.gauge, FALSE));
    break;
  case LAYOUT_SMALL:
  case LAYOUT_MEDIUM:
  case LAYOUT_LARGE: {
    /* Title with the icon beside it, the value large, the details, the gauge as a bar. */
    GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
    guint max_details = layout == LAYOUT_SMALL ? 2 : layout == LAYOUT_MEDIUM ? 3 : WD_MAX_FIELDS;

    if (roles.title != NULL) {
      GtkWidget *title = field_widget (roles.title, layout, "widgetd-title");
      gtk_widget_set_hexpand (title, TRUE);
      gtk_container_add (GTK_CONTAINER (header), title);
    }
    if (roles.icon != NULL && roles.icon->icon != NULL) {
      GtkWidget *image = icon_image (roles.icon->icon, GTK_ICON_SIZE_LARGE_TOOLBAR);
      gtk_widget_set_halign (image, GTK_ALIGN_END);
      gtk_widget_set_hexpand (image, roles.title == NULL);
      gtk_container_add (GTK_CONTAINER (header), image);
    }
    gtk_container_add (box, header);
    if (roles.value != NULL)
      gtk_container_add (box, field_widget (roles.value, layout, "widgetd-big"));
    for (guint i = 0; i < roles.n_details && i < max_details; i++)
      gtk_container_add (box, field_widget (roles.details[i], layout, "widgetd-detail"));
    if (roles.gauge != NULL)
      gtk_container_add (box, gauge_widget (roles.gauge, FALSE));
    break;
  }
  }
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

/* --- actions (DESIGN §13) ----------------------------------------------------------- */

static void present (Card *card, WdPresentation *presentation);

/* Redraws the card from its drawn presentation (an action's state changed). */
static void
redraw (Card *card)
{
  if (card->drawn != NULL)
    present (card, g_steal_pointer (&card->drawn));
}

static gboolean
on_redraw_idle (gpointer data)
{
  Card *card = data;

  card->redraw_idle = 0;
  redraw (card);
  return G_SOURCE_REMOVE;
}

static const WdAction *
find_action (const WdPresentation *presentation, const char *id)
{
  for (guint i = 0; presentation != NULL && i < presentation->actions->len; i++) {
    const WdAction *action = g_ptr_array_index (presentation->actions, i);
    if (g_str_equal (action->id, id))
      return action;
  }
  return NULL;
}

/* The state a toggle shows: the one it was set to by a delivered action, until the
 * provider's new timeline arrives; else the presentation's. */
static gboolean
shown_is_on (Card *card, const WdAction *action)
{
  gpointer value;

  if (g_hash_table_lookup_extended (card->toggled, action->id, NULL, &value))
    return GPOINTER_TO_INT (value);
  return action->is_on;
}

/* A new presentation: a toggle's own state is shown again once the provider answered
 * (the presentation agrees with it, or no longer waits: not invalidated). */
static void
settle_toggles (Card *card, const WdPresentation *presentation)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, card->toggled);
  while (g_hash_table_iter_next (&iter, &key, &value)) {
    const WdAction *action = find_action (presentation, key);
    if (action == NULL || action->is_on == GPOINTER_TO_INT (value) || !presentation->invalidated)
      g_hash_table_iter_remove (&iter);
  }
}

static void
end_action (Card *card)
{
  if (card->action_stream != NULL) {
    wd_stream_close (card->action_stream);
    g_clear_object (&card->action_stream);
  }
}

static void
on_action_reply (WdStream *stream, const WdReply *reply, const GError *error, gpointer data)
{
  Card *card = data;
  WdOutcome outcome;

  (void) stream;
  if (error != NULL || reply->error != NULL || !wd_outcome_from_reply (reply, &outcome, NULL)) {
    /* Not available any more, no provider, widgetd gone: nothing runs, nothing waits. */
    g_debug ("widgetd: %s: action %s: %s", card->widget, card->action_id,
             error != NULL ? error->message : reply->error != NULL ? reply->error : "no outcome");
    card->action_state = ACTION_IDLE;
    if (error == NULL)
      end_action (card);
    else
      g_clear_object (&card->action_stream);
    redraw (card);
    return;
  }
  switch (outcome) {
  case WD_OUTCOME_DELIVERED:
    if (card->action_toggles)
      g_hash_table_insert (card->toggled, g_strdup (card->action_id), GINT_TO_POINTER (card->action_toggle_to));
    card->action_state = ACTION_IDLE;
    break;
  case WD_OUTCOME_HELD:
    card->action_state = ACTION_HELD;
    break;
  case WD_OUTCOME_EXPIRED:
    card->action_state = ACTION_EXPIRED;
    break;
  }
  if (!reply->continues)
    end_action (card);
  redraw (card);
}

/* Performs an action of the drawn presentation: asynchronously, with "more" so that a
 * held action's final outcome comes on the same connection (which holds it). */
static void
perform (Card *card, const WdAction *action)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonNode) parameters = NULL;

  /* A newer action replaces one that waits (widgetd expires it with its connection). */
  end_action (card);
  g_free (card->action_id);
  card->action_id = g_strdup (action->id);
  card->action_toggles = action->toggle;
  card->action_toggle_to = !shown_is_on (card, action);
  card->action_state = ACTION_SENT;
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "widget");
  json_builder_add_string_value (builder, card->widget);
  json_builder_set_member_name (builder, "surface");
  json_builder_add_string_value (builder, SURFACE);
  json_builder_set_member_name (builder, "action");
  json_builder_add_string_value (builder, action->id);
  json_builder_end_object (builder);
  parameters = json_builder_get_root (builder);
  card->action_stream = wd_stream_new (card->owner->socket_path, on_action_reply, card);
  wd_stream_call (card->action_stream, "io.widgetd.Host.PerformAction", parameters, TRUE);
}

static void
on_action_clicked (GtkButton *button, gpointer data)
{
  Card *card = data;
  const WdAction *action = find_action (card->drawn, g_object_get_data (G_OBJECT (button), "widgetd-action"));

  if (action != NULL)
    perform (card, action);
  /* The button shows what the outcome says, not GTK's own flip of a toggle; redrawn
   * once this click's handlers are done with the button. */
  if (card->redraw_idle == 0)
    card->redraw_idle = g_idle_add_full (G_PRIORITY_HIGH_IDLE, on_redraw_idle, card, NULL);
}

/* The actions as buttons and toggles, each named by its title (or "redacted"). One
 * that needs an unlock carries a lock emblem and says so in its description; the one
 * performed shows that it waits for the unlock, or that it expired. */
static void
draw_actions (Card *card, const WdPresentation *presentation)
{
  Layout layout = families[family_index (card->family)].layout;
  GtkWidget *row;
  const char *status = NULL;

  /* Inline and circular accessories are too small for buttons. */
  if (presentation->actions->len == 0 || layout == LAYOUT_INLINE || layout == LAYOUT_CIRCULAR)
    return;
  row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_style_context_add_class (gtk_widget_get_style_context (row), "widgetd-actions");
  for (guint i = 0; i < presentation->actions->len; i++) {
    const WdAction *action = g_ptr_array_index (presentation->actions, i);
    gboolean mine = card->action_id != NULL && g_str_equal (card->action_id, action->id);
    GtkWidget *button = action->toggle ? gtk_toggle_button_new () : gtk_button_new ();
    GtkWidget *content = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
    GtkWidget *label;
    const char *name;
    g_autofree char *description = NULL;

    if (action->requires_unlock)
      gtk_container_add (GTK_CONTAINER (content), icon_image ("changes-prevent-symbolic", GTK_ICON_SIZE_MENU));
    if (action->icon != NULL)
      gtk_container_add (GTK_CONTAINER (content), icon_image (action->icon, GTK_ICON_SIZE_MENU));
    if (action->redacted && action->title == NULL) {
      label = gtk_label_new ("");
      gtk_style_context_add_class (gtk_widget_get_style_context (label), "widgetd-redacted");
    } else {
      label = gtk_label_new (action->title != NULL ? action->title : action->id);
      /* A long title does not widen the card: it ends in an ellipsis (the accessible
       * name keeps it whole). */
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
      gtk_label_set_max_width_chars (GTK_LABEL (label), 18);
    }
    gtk_container_add (GTK_CONTAINER (content), label);
    gtk_container_add (GTK_CONTAINER (button), content);
    gtk_style_context_add_class (gtk_widget_get_style_context (button), "widgetd-action");
    set_class (button, "widgetd-held", mine && card->action_state == ACTION_HELD);
    if (action->toggle)
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (button), shown_is_on (card, action));
    /* The accessible name is the title drawn (a redacted action's is the placeholder's
     * sample), "redacted" when there is none: never the hidden one. */
    name = action->title != NULL ? action->title : action->redacted ? "redacted" : action->id;
    set_accessible_name (button, name);
    set_accessible_name (label, name);
    if (mine && card->action_state == ACTION_HELD)
      description = g_strdup ("Waiting for unlock");
    else if (action->requires_unlock)
      description = g_strdup_printf ("Unlock to %s", action->title != NULL ? action->title : action->redacted ? "use" : action->id);
    if (description != NULL) {
      atk_object_set_description (gtk_widget_get_accessible (button), description);
      gtk_widget_set_tooltip_text (button, description);
    }
    atk_object_set_accessible_id (gtk_widget_get_accessible (button), action->id);
    g_object_set_data_full (G_OBJECT (button), "widgetd-action", g_strdup (action->id), g_free);
    g_signal_connect (button, "clicked", G_CALLBACK (on_action_clicked), card);
    gtk_container_add (GTK_CONTAINER (row), button);
    if (mine && card->action_state == ACTION_HELD)
      status = "Waiting for unlock";
    else if (mine && card->action_state == ACTION_EXPIRED)
      status = "Expired";
  }
  gtk_container_add (GTK_CONTAINER (card->fields), row);
  if (status != NULL) {
    GtkWidget *label = gtk_label_new (status);
    gtk_style_context_add_class (gtk_widget_get_style_context (label), "widgetd-detail");
    gtk_label_set_xalign (GTK_LABEL (label), 0.0f);
    atk_object_set_accessible_id (gtk_widget_get_accessible (label), "widgetd-action-status");
    gtk_container_add (GTK_CONTAINER (card->fields), label);
  }
}

/* Draws a presentation (taken), or (NULL) the neutral state of a card without one. */
static void
present (Card *card, WdPresentation *presentation)
{
  static const char *const states[] = {
    [WD_MODE_CONTENT] = "content",
    [WD_MODE_REDACTED] = "sensitive values hidden",
    [WD_MODE_PLACEHOLDER] = "locked, placeholder",
  };

  card->drawn_mode = presentation != NULL ? (int) presentation->mode : -1;
  clear_box (card->fields);
  g_clear_pointer (&card->drawn, wd_presentation_free);
  card->drawn = presentation;
  set_class (card->frame, "placeholder", presentation != NULL && presentation->mode == WD_MODE_PLACEHOLDER);
  set_class (card->frame, "redacted", presentation != NULL && presentation->mode == WD_MODE_REDACTED);
  /* "Out of date" as iOS 17 means it: invalidated (an action waits for its provider's
   * answer, or a due reload went unanswered for long), not merely due for a reload. */
  set_class (card->frame, "invalidated", presentation != NULL && presentation->invalidated);
  gtk_widget_set_visible (card->stale, presentation != NULL && presentation->invalidated);
  if (presentation == NULL) {
    name_card (card, "unavailable", FALSE);
    return;
  }
  if (presentation->has_roles)
    draw_roles (card, presentation);
  else
    draw_fields (card, presentation);
  draw_actions (card, presentation);
  gtk_widget_show_all (card->fields);
  name_card (card, states[presentation->mode], presentation->invalidated);
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
  WdPresentation *presentation = g_steal_pointer (&card->pending);
  GdkFrameClock *clock = gtk_widget_get_frame_clock (card->frame);

  cancel_pending (card);
  card->drawn_frame = clock != NULL ? gdk_frame_clock_get_frame_counter (clock) : -1;
  settle_toggles (card, presentation);
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
  card->toggled = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
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
    end_action (card);
    g_clear_handle_id (&card->redraw_idle, g_source_remove);
    clear_box (card->fields);
    gtk_widget_destroy (card->frame);
  }
  g_clear_pointer (&card->drawn, wd_presentation_free);
  g_clear_pointer (&card->toggled, g_hash_table_unref);
  g_free (card->action_id);
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

static void
close_widget_events (PhoshWidgetdLockscreen *self)
{
  if (self->widget_events != NULL) {
    wd_stream_close (self->widget_events);
    g_clear_object (&self->widget_events);
  }
}

/* Drops every card and stream; nothing of what was shown is left. */
static void
reset (PhoshWidgetdLockscreen *self)
{
  close_discovery (self);
  close_probe (self);
  close_widget_events (self);
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
static void follow_widgets (PhoshWidgetdLockscreen *self);

static void
start_watches (PhoshWidgetdLockscreen *self)
{
  close_discovery (self);
  self->phase = PHASE_WATCHING;
  if (self->widget_events == NULL)
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
  if (self->changed) {
    /* A widget was stored or deleted while the discovery ran: once more. */
    g_debug ("widgetd: widgets changed during the discovery");
    restart (self);
  }
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
  self->pages++;
  wd_stream_list_widgets (self->discovery, after);
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

  self->rescan_source = 0;
  if (self->phase != PHASE_WATCHING)
    return G_SOURCE_REMOVE;
  self->probe = wd_stream_new (self->socket_path, on_probe, self);
  wd_stream_list_widgets (self->probe, NULL);
  return G_SOURCE_REMOVE;
}

static void
schedule_rescan (PhoshWidgetdLockscreen *self)
{
  if (self->rescan_source == 0 && self->probe == NULL)
    self->rescan_source = g_timeout_add (RESCAN_MS, on_rescan, self);
}

static Card *
find_card (PhoshWidgetdLockscreen *self, const char *widget)
{
  for (guint i = 0; i < self->cards->len; i++) {
    Card *card = g_ptr_array_index (self->cards, i);
    if (g_str_equal (card->widget, widget))
      return card;
  }
  return NULL;
}

/* A WatchWidgets event: a widget that would be shown and is not (picked, or room left
 * for it), or a shown one whose family changed or that went (another may take its
 * place), starts the discovery again. */
static void
on_widget_event (WdStream *stream, const WdReply *reply, const GError *error, gpointer data)
{
  PhoshWidgetdLockscreen *self = data;
  gboolean picking = self->picked != NULL && self->picked[0] != NULL;
  g_autoptr (WdWidgetInfo) info = NULL;
  WdWidgetEventKind kind;
  gboolean shown;

  (void) stream;
  if (error == NULL && reply->error == NULL)
    info = wd_widget_event_from_reply (reply, &kind, NULL);
  if (info != NULL && self->phase != PHASE_WATCHING) {
    /* During the discovery: it starts again once it is done. */
    self->changed = TRUE;
    return;
  }
  if (info == NULL) {
    /* A widgetd without WatchWidgets, or this stream failed (the cards' own streams
     * notice a lost widgetd): list again now and then instead. */
    g_debug ("widgetd: WatchWidgets: %s", error != NULL ? error->message : reply->error != NULL ? reply->error : "malformed event");
    if (error == NULL)
      close_widget_events (self);
    else
      g_clear_object (&self->widget_events);
    if (self->phase == PHASE_WATCHING)
      schedule_rescan (self);
    return;
  }
  shown = find_card (self, info->widget) != NULL;
  switch (kind) {
  case WD_WIDGET_ADDED:
    if (shown || !(picking ? is_picked (self, info->widget) : self->cards->len < self->max_widgets))
      return;
    break;
  case WD_WIDGET_CHANGED:
    if (!shown && !(picking ? is_picked (self, info->widget) : self->cards->len < self->max_widgets))
      return;
    break;
  case WD_WIDGET_REMOVED:
    if (!shown || picking)
      return;
    break;
  }
  g_debug ("widgetd: %s was %s", info->widget,
           kind == WD_WIDGET_ADDED ? "added" : kind == WD_WIDGET_REMOVED ? "removed" : "changed");
  restart (self);
}

static void
follow_widgets (PhoshWidgetdLockscreen *self)
{
  close_widget_events (self);
  self->widget_events = wd_stream_new (self->socket_path, on_widget_event, self);
  wd_stream_call (self->widget_events, "io.widgetd.Host.WatchWidgets", NULL, TRUE);
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
  self->socket_path = socket != NULL && *socket != '\0' ? g_steal_pointer (&socket) : wd_default_socket ();
}

static void
restart (PhoshWidgetdLockscreen *self)
{
  reset (self);
  self->changed = FALSE;
  g_clear_handle_id (&self->retry_source, g_source_remove);
  read_settings (self);
  update_empty (self, "Widgets unavailable");
  self->phase = PHASE_LIST;
  /* Widgets stored from now on are told before the listing starts, so that none falls
   * between the two (widgetd reads the connections in the order they wrote). */
  follow_widgets (self);
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
