/* check-output — decodes pictures or videos that an example wrote and
 * checks that they hold real content, not an empty or blank file.
 *
 *   check-output [--min-frames N] [--binary] [--color RRGGBB [--color-frames K]] FILE...
 *
 * Every FILE goes through `uridecodebin ! videoconvert ! RGBA ! appsink`,
 * so a file GStreamer cannot decode fails. Checks, over all files:
 *   - at least N frames in all (default 1);
 *   - every frame has non-constant luma (a blank output fails);
 *   - --binary: every pixel is black or white (Canny, Otsu outputs);
 *   - --color: frames have pixels of exactly that colour (the red crosses
 *     cudaharris draws, for example): every frame, or at least K of them
 *     with --color-frames K (cudaflow draws nothing on its first frame).
 * Prints one line per file; exit 0 when all checks pass, 1 otherwise. */
#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  gboolean binary;
  gboolean want_color;
  guint8 color[3];
  gint color_frames; /* frames that must have the colour; -1 = all */
} Checks;

typedef struct {
  guint frames;
  guint constant_frames;   /* frames whose luma has one value only */
  guint nonbinary_frames;  /* frames with a pixel other than black or white */
  guint colorless_frames;  /* frames without a pixel of the wanted colour */
  guint min_luma, max_luma;
  guint64 color_pixels;
  gint width, height;
} Stats;

/* BT.601 luma, integer, as cudagray computes it (only compared with itself). */
static guint
luma (const guint8 * p)
{
  return (9798u * p[0] + 19235u * p[1] + 3735u * p[2] + (1u << 14)) >> 15;
}

static void
scan_frame (const GstVideoFrame * f, const Checks * c, Stats * s)
{
  const gint w = GST_VIDEO_FRAME_WIDTH (f), h = GST_VIDEO_FRAME_HEIGHT (f);
  const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (f, 0);
  const guint8 *base = GST_VIDEO_FRAME_PLANE_DATA (f, 0);
  guint lo = 255, hi = 0;
  gboolean nonbinary = FALSE;
  guint64 colored = 0;
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
      if (c->want_color && p[0] == c->color[0] && p[1] == c->color[1] && p[2] == c->color[2])
        colored++;
    }
  }
  s->frames++;
  s->constant_frames += lo == hi;
  s->nonbinary_frames += nonbinary;
  s->colorless_frames += c->want_color && colored == 0;
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

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  Checks c = { FALSE, FALSE, { 0, 0, 0 }, -1 };
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
    } else {
      fprintf (stderr, "usage: %s [--min-frames N] [--binary] [--color RRGGBB [--color-frames K]] FILE...\n",
          argv[0]);
      return 2;
    }
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
    if (!scan_file (argv[i], &c, &s)) {
      ok = FALSE;
      continue;
    }
    total += s.frames;
    colorless += s.colorless_frames;
    printf ("%s: %u frame(s) %dx%d, luma %u..%u", argv[i], s.frames, s.width, s.height, s.min_luma, s.max_luma);
    if (c.want_color)
      printf (", %" G_GUINT64_FORMAT " pixels of #%02x%02x%02x", s.color_pixels, c.color[0], c.color[1], c.color[2]);
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
    fprintf (stderr, "FAIL: %u of %u frame(s) have pixels of #%02x%02x%02x, expected %s%d\n", colored, total,
        c.color[0], c.color[1], c.color[2], c.color_frames < 0 ? "all " : "at least ",
        c.color_frames < 0 ? (int) total : c.color_frames);
    ok = FALSE;
  }
  if (total < min_frames) {
    fprintf (stderr, "FAIL: %u frame(s) in all, expected at least %u\n", total, min_frames);
    ok = FALSE;
  }
  return ok ? 0 : 1;
}
