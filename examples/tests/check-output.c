/* check-output — decodes pictures or videos that an example wrote and
 * checks that they hold real content, not an empty or blank file.
 *
 *   check-output [--min-frames N] [--binary]
 *                [--color RRGGBB [--tolerance T] [--box X,Y,W,H]... [--slack S] [--color-frames K]]
 *                FILE...
 *
 * Every FILE goes through `uridecodebin ! videoconvert ! RGBA ! appsink`,
 * so a file GStreamer cannot decode fails. Checks, over all files:
 *   - at least N frames in all (default 1);
 *   - every frame has non-constant luma (a blank output fails);
 *   - --binary: every pixel is black or white (Canny, Otsu outputs);
 *   - --color: frames have pixels of exactly that colour (the red crosses
 *     cudaharris draws, for example): every frame, or at least K of them
 *     with --color-frames K (cudaflow draws nothing on its first frame);
 *   - --tolerance T: a pixel is of the colour when each of R, G, B is within
 *     T of it (default 0: exactly), for frames that went through a lossy
 *     codec;
 *   - --box X,Y,W,H (repeatable): the colour must outline that rectangle,
 *     as cudafacedetect draws a face: on each of its four sides, at least
 *     90% of the positions along the side (less S at each end) have a pixel
 *     of the colour within S pixels across the side (--slack S, default 4:
 *     a detection a few pixels off, codec blur), and at least 90% of the
 *     frame's pixels of the colour lie within S of a side of some box (the
 *     colour is the boxes', not the picture's). A frame that fails counts
 *     as a frame without the colour.
 * Prints one line per file; exit 0 when all checks pass, 1 otherwise. */
#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BOXES 16
#define BOX_MIN_COVER 0.9       /* of the positions along each side */
#define BOX_MIN_ON_BORDER 0.9   /* of the frame's pixels of the colour */

typedef struct {
  gint x, y, w, h;
} Box;

typedef struct {
  gboolean binary;
  gboolean want_color;
  guint8 color[3];
  gint tolerance;    /* per channel */
  gint color_frames; /* frames that must have the colour; -1 = all */
  Box boxes[MAX_BOXES];
  gint n_boxes;
  gint slack;
} Checks;

typedef struct {
  guint frames;
  guint constant_frames;   /* frames whose luma has one value only */
  guint nonbinary_frames;  /* frames with a pixel other than black or white */
  guint colorless_frames;  /* frames without a pixel of the wanted colour */
  guint min_luma, max_luma;
  guint64 color_pixels;
  guint box_fail_frames;   /* frames whose boxes are not outlined in the colour */
  gdouble min_cover;       /* lowest coverage of a box side over the frames */
  gdouble min_on_border;   /* lowest share of the colour on the boxes' borders */
  gint width, height;
} Stats;

/* BT.601 luma, integer, as cudagray computes it (only compared with itself). */
static guint
luma (const guint8 * p)
{
  return (9798u * p[0] + 19235u * p[1] + 3735u * p[2] + (1u << 14)) >> 15;
}

static gboolean
is_color (const guint8 * p, const Checks * c)
{
  for (int i = 0; i < 3; i++)
    if (ABS ((gint) p[i] - (gint) c->color[i]) > c->tolerance)
      return FALSE;
  return TRUE;
}

/* Share of the positions along one side of a box (from (x0, y0), `len`
 * steps of (dx, dy), less `slack` at each end) with a pixel of the colour
 * within `slack` across it. */
static gdouble
side_cover (const GstVideoFrame * f, const Checks * c, gint x0, gint y0, gint dx, gint dy, gint len)
{
  const gint w = GST_VIDEO_FRAME_WIDTH (f), h = GST_VIDEO_FRAME_HEIGHT (f);
  const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (f, 0);
  const guint8 *base = GST_VIDEO_FRAME_PLANE_DATA (f, 0);
  const gint s = c->slack;
  gint positions = 0, hits = 0;
  for (gint i = s; i < len - s; i++) {
    const gint x = x0 + i * dx, y = y0 + i * dy;
    gboolean hit = FALSE;
    for (gint k = -s; k <= s && !hit; k++) {
      const gint px = x + k * dy, py = y + k * dx;   /* across the side */
      if (px >= 0 && py >= 0 && px < w && py < h)
        hit = is_color (base + (gsize) py * stride + 4 * px, c);
    }
    positions++;
    hits += hit;
  }
  return positions ? (gdouble) hits / positions : 0.0;
}

/* Within `slack` of a side of one of the boxes (the border is 2 pixels
 * wide, inside the rectangle). */
static gboolean
on_a_border (const Checks * c, gint x, gint y)
{
  const gint s = c->slack;
  for (gint i = 0; i < c->n_boxes; i++) {
    const Box *b = &c->boxes[i];
    const gint l = b->x, r = b->x + b->w - 1, t = b->y, btm = b->y + b->h - 1;
    if (x < l - s || x > r + s || y < t - s || y > btm + s)
      continue;   /* outside the outer rectangle */
    if (x <= l + 1 + s || x >= r - 1 - s || y <= t + 1 + s || y >= btm - 1 - s)
      return TRUE;   /* not inside the inner one */
  }
  return FALSE;
}

static void
scan_frame (const GstVideoFrame * f, const Checks * c, Stats * s)
{
  const gint w = GST_VIDEO_FRAME_WIDTH (f), h = GST_VIDEO_FRAME_HEIGHT (f);
  const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (f, 0);
  const guint8 *base = GST_VIDEO_FRAME_PLANE_DATA (f, 0);
  guint lo = 255, hi = 0;
  gboolean nonbinary = FALSE;
  guint64 colored = 0, on_border = 0;
  for (gint y = 0; y < h; y++) {
    const guint8 *row = base + (gsize) y * stride;
    for (gint x = 0; x < w; x++) {
      const guint8 *p = row + 4 * x;
      const guint l = luma (p);
      lo = MIN (lo, l);
      hi = MAX (hi, l);
      const gboolean black = p[0] == 0 && p[1] == 0 && p[2] == 0;
      const gboolean white = p[0] == 255 && p[1] == 255 && p[2] == 255;
      if (!black && !white)
        nonbinary = TRUE;
      if (c->want_color && is_color (p, c)) {
        colored++;
        on_border += c->n_boxes > 0 && on_a_border (c, x, y);
      }
    }
  }
  gboolean boxes_ok = TRUE;
  for (gint i = 0; i < c->n_boxes; i++) {
    const Box *b = &c->boxes[i];
    const gint r = b->x + b->w - 1, btm = b->y + b->h - 1;
    const gdouble cover[4] = {
      side_cover (f, c, b->x, b->y, 1, 0, b->w),   /* top */
      side_cover (f, c, b->x, btm, 1, 0, b->w),    /* bottom */
      side_cover (f, c, b->x, b->y, 0, 1, b->h),   /* left */
      side_cover (f, c, r, b->y, 0, 1, b->h),      /* right */
    };
    for (int k = 0; k < 4; k++) {
      s->min_cover = MIN (s->min_cover, cover[k]);
      boxes_ok &= cover[k] >= BOX_MIN_COVER;
    }
  }
  if (c->n_boxes > 0) {
    const gdouble share = colored ? (gdouble) on_border / colored : 0.0;
    s->min_on_border = MIN (s->min_on_border, share);
    boxes_ok &= share >= BOX_MIN_ON_BORDER;
    s->box_fail_frames += !boxes_ok;
  }
  s->frames++;
  s->constant_frames += lo == hi;
  s->nonbinary_frames += nonbinary;
  s->colorless_frames += c->want_color && (colored == 0 || !boxes_ok);
  s->color_pixels += colored;
  s->min_luma = MIN (s->min_luma, lo);
  s->max_luma = MAX (s->max_luma, hi);
  s->width = w;
  s->height = h;
}

/* Decodes `path` and scans every frame; FALSE (with a message) when
 * GStreamer cannot read it. */
static gboolean
scan_file (const gchar * path, const Checks * c, Stats * s)
{
  GError *err = NULL;
  gchar *uri = gst_filename_to_uri (path, &err);
  GstElement *pipe = uri ? gst_parse_launch ("uridecodebin name=dec ! videoconvert ! video/x-raw,format=RGBA ! "
      "appsink name=sink sync=false", &err) : NULL;
  if (!pipe) {
    fprintf (stderr, "%s: cannot build the decoder: %s\n", path, err ? err->message : "?");
    g_clear_error (&err);
    g_free (uri);
    return FALSE;
  }
  GstElement *dec = gst_bin_get_by_name (GST_BIN (pipe), "dec");
  g_object_set (dec, "uri", uri, NULL);
  gst_object_unref (dec);
  g_free (uri);
  GstAppSink *sink = GST_APP_SINK (gst_bin_get_by_name (GST_BIN (pipe), "sink"));
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg = NULL;
  /* A decoding error stops the stream without an EOS: wait in steps and
   * look at the bus in between. */
  for (;;) {
    GstSample *sample = gst_app_sink_try_pull_sample (sink, 100 * GST_MSECOND);
    if (!sample) {
      if (gst_app_sink_is_eos (sink) || (msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR)))
        break;
      continue;
    }
    GstVideoInfo info;
    GstVideoFrame frame;
    if (gst_video_info_from_caps (&info, gst_sample_get_caps (sample)) &&
        gst_video_frame_map (&frame, &info, gst_sample_get_buffer (sample), GST_MAP_READ)) {
      scan_frame (&frame, c, s);
      gst_video_frame_unmap (&frame);
    }
    gst_sample_unref (sample);
  }
  gboolean ok = TRUE;
  if (msg) {
    gst_message_parse_error (msg, &err, NULL);
    fprintf (stderr, "%s: cannot decode: %s\n", path, err->message);
    g_clear_error (&err);
    gst_message_unref (msg);
    ok = FALSE;
  }
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  return ok;
}

static gboolean
parse_color (const gchar * s, guint8 rgb[3])
{
  if (strlen (s) != 6)
    return FALSE;
  for (int i = 0; i < 3; i++) {
    gchar hex[3] = { s[2 * i], s[2 * i + 1], 0 };
    gchar *end;
    const long v = strtol (hex, &end, 16);
    if (*end)
      return FALSE;
    rgb[i] = (guint8) v;
  }
  return TRUE;
}

static gboolean
parse_box (const gchar * s, Box * b)
{
  return sscanf (s, "%d,%d,%d,%d", &b->x, &b->y, &b->w, &b->h) == 4 && b->x >= 0 && b->y >= 0 && b->w > 0 &&
      b->h > 0;
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  Checks c = { 0 };
  c.color_frames = -1;
  c.slack = 4;
  guint min_frames = 1;
  int first = 1;
  for (; first < argc && g_str_has_prefix (argv[first], "--"); first++) {
    if (!strcmp (argv[first], "--binary"))
      c.binary = TRUE;
    else if (!strcmp (argv[first], "--min-frames") && first + 1 < argc)
      min_frames = (guint) atoi (argv[++first]);
    else if (!strcmp (argv[first], "--color") && first + 1 < argc && parse_color (argv[first + 1], c.color)) {
      c.want_color = TRUE;
      first++;
    } else if (!strcmp (argv[first], "--color-frames") && first + 1 < argc) {
      c.color_frames = atoi (argv[++first]);
    } else if (!strcmp (argv[first], "--tolerance") && first + 1 < argc) {
      c.tolerance = atoi (argv[++first]);
    } else if (!strcmp (argv[first], "--slack") && first + 1 < argc) {
      c.slack = atoi (argv[++first]);
    } else if (!strcmp (argv[first], "--box") && first + 1 < argc && c.n_boxes < MAX_BOXES &&
        parse_box (argv[first + 1], &c.boxes[c.n_boxes])) {
      c.n_boxes++;
      first++;
    } else {
      fprintf (stderr, "usage: %s [--min-frames N] [--binary] [--color RRGGBB [--tolerance T] [--box X,Y,W,H]... "
          "[--slack S] [--color-frames K]] FILE...\n", argv[0]);
      return 2;
    }
  }
  if (c.n_boxes > 0 && !c.want_color) {
    fprintf (stderr, "check-output: --box needs --color\n");
    return 2;
  }
  if (first == argc) {
    fprintf (stderr, "check-output: no files given (the example wrote nothing?)\n");
    return 1;
  }
  gboolean ok = TRUE;
  guint total = 0, colorless = 0;
  for (int i = first; i < argc; i++) {
    Stats s = { 0 };
    s.min_luma = 255;
    s.min_cover = s.min_on_border = 1.0;
    if (!scan_file (argv[i], &c, &s)) {
      ok = FALSE;
      continue;
    }
    total += s.frames;
    colorless += s.colorless_frames;
    printf ("%s: %u frame(s) %dx%d, luma %u..%u", argv[i], s.frames, s.width, s.height, s.min_luma, s.max_luma);
    if (c.want_color)
      printf (", %" G_GUINT64_FORMAT " pixels of #%02x%02x%02x", s.color_pixels, c.color[0], c.color[1], c.color[2]);
    if (c.want_color && c.tolerance)
      printf (" (+-%d)", c.tolerance);
    if (c.n_boxes)
      printf ("; boxes: sides covered >= %.0f%%, %.0f%% of the colour on the borders (worst frame), %u frame(s) "
          "failing", 100 * s.min_cover, 100 * s.min_on_border, s.box_fail_frames);
    printf ("\n");
    if (s.frames == 0) {
      fprintf (stderr, "  FAIL: no frame decoded\n");
      ok = FALSE;
    }
    if (s.constant_frames) {
      fprintf (stderr, "  FAIL: %u frame(s) of one grey level only (blank output)\n", s.constant_frames);
      ok = FALSE;
    }
    if (c.binary && s.nonbinary_frames) {
      fprintf (stderr, "  FAIL: %u frame(s) with pixels other than black and white\n", s.nonbinary_frames);
      ok = FALSE;
    }
  }
  const guint colored = total - colorless;
  if (c.want_color && colored < (c.color_frames < 0 ? total : (guint) c.color_frames)) {
    fprintf (stderr, "FAIL: %u of %u frame(s) have pixels of #%02x%02x%02x%s, expected %s%d\n", colored, total,
        c.color[0], c.color[1], c.color[2], c.n_boxes ? " outlining the boxes" : "",
        c.color_frames < 0 ? "all " : "at least ",
        c.color_frames < 0 ? (int) total : c.color_frames);
    ok = FALSE;
  }
  if (total < min_frames) {
    fprintf (stderr, "FAIL: %u frame(s) in all, expected at least %u\n", total, min_frames);
    ok = FALSE;
  }
  return ok ? 0 : 1;
}
