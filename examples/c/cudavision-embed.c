/* cudavision-embed — cudavision inside an application.
 *
 * The application owns the frames (here a picture decoded once, or a
 * synthetic pattern, moved a little on every frame as a camera would) and
 * pushes them from memory into
 *
 *   appsrc ! [cudafacedetect !] cudagray ! cudaharris ! [cudaflow !]
 *       cudaotsu attach-meta=true ! appsink
 *
 * then reads back, for every frame: the binarized picture, the metas the
 * elements attached (face regions of interest, corners, the Otsu threshold,
 * the flow; any other meta by name) and the element messages on the bus.
 * Elements still missing from the plugin (in brackets) are left out.
 *
 *   cudavision-embed [--backend auto|cuda|cpu] [--frames N] [--check] [PICTURE]
 *
 * --backend defaults to $CUDAVISION_BACKEND, else auto (the GPU when there
 * is one). --check exits 1 unless every frame came back binarized (black
 * and white both present) with its metas, every meta agrees with the
 * element's message about that frame (each face reached by its own id),
 * and cudaflow measured the motion the program applied.
 *
 * How the metas are read: through libgstcudavision-1.0, the library the
 * plugin itself links (pkg-config gstreamer-cudavision-1.0). Its functions
 * (gst_buffer_get_cv_keypoints_meta (), ...) and struct layouts are the
 * plugin's own, and a process registers each meta once, whether the
 * program or the plugin makes the first one. The face regions are
 * GStreamer's own GstVideoRegionOfInterestMeta (libgstvideo), one per face
 * with its own id (gst_buffer_get_video_region_of_interest_meta_id ()
 * reaches each) and a "detection" parameter: the raw windows grouped into
 * the face (`neighbors`, the detector's confidence) and its `scale`.
 * Messages are plain GstStructures: "cudaharris", "cudaotsu", "facedetect",
 * "cudaflow".
 *
 *   cc cudavision-embed.c $(pkg-config --cflags --libs gstreamer-cudavision-1.0 \
 *       gstreamer-app-1.0 gstreamer-video-1.0) -lm */
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>

/* The library's API may still change (0.x): say that we know. */
#ifndef GST_USE_UNSTABLE_API
#define GST_USE_UNSTABLE_API
#endif
#include <gst/cudavision/cudavision.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FPS 30

typedef struct {
  gint width, height;
  guint8 *rgba; /* width * 4 bytes per row */
} Picture;

/* What the frames and the messages said about one timestamp, compared at
 * the end (the bus and the appsink are read in the order things arrive). */
typedef struct {
  gboolean got_frame, got_otsu_meta, got_keypoints_meta;
  double white; /* share of 255 pixels in the binarized frame */
  guint meta_threshold, meta_corners;
  gboolean got_otsu_msg, got_harris_msg;
  guint msg_threshold, msg_corners;
  guint faces_meta, faces_by_id; /* face regions, and those reached by their id */
  gboolean got_faces_msg;
  guint msg_faces;
  gboolean got_flow_meta; /* cudaflow in the pipeline */
  guint flow_tracked;
  double flow_dx, flow_dy; /* mean motion of the tracked points */
} FrameRecord;

/* ---------------------------------------------------------------- input */

/* Decodes a picture file once, with GStreamer, into RGBA rows. */
static gboolean
load_picture (const gchar * path, Picture * pic)
{
  GError *err = NULL;
  GstElementFactory *decodebin = gst_element_factory_find ("decodebin");
  if (!decodebin) {
    /* a minimal GStreamer (a GPU host's bundle): nothing to decode with */
    fprintf (stderr, "skipped: decodebin is not available\n");
    exit (77);
  }
  gst_object_unref (decodebin);
  GstElement *pipe = gst_parse_launch ("filesrc name=file ! decodebin ! videoconvert ! "
      "video/x-raw,format=RGBA ! appsink name=sink", &err);
  if (!pipe) {
    fprintf (stderr, "cannot decode %s: %s\n", path, err->message);
    g_error_free (err);
    return FALSE;
  }
  GstElement *file = gst_bin_get_by_name (GST_BIN (pipe), "file");
  g_object_set (file, "location", path, NULL); /* a property: no quoting of the path */
  gst_object_unref (file);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  /* The first frame, or NULL on EOS, on an error (unreadable file), or
   * after 10 s. */
  GstBus *bus = gst_element_get_bus (pipe);
  GstSample *sample = NULL;
  for (int tries = 0; !sample && tries < 100; tries++) {
    sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 100 * GST_MSECOND);
    GstMessage *error = sample ? NULL : gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    if (error)
      gst_message_unref (error);
    if (!sample && (error || gst_app_sink_is_eos (GST_APP_SINK (sink))))
      break;
  }
  gst_object_unref (bus);
  gboolean ok = FALSE;
  GstVideoInfo info;
  GstVideoFrame frame;
  if (sample && gst_video_info_from_caps (&info, gst_sample_get_caps (sample)) &&
      gst_video_frame_map (&frame, &info, gst_sample_get_buffer (sample), GST_MAP_READ)) {
    pic->width = GST_VIDEO_FRAME_WIDTH (&frame);
    pic->height = GST_VIDEO_FRAME_HEIGHT (&frame);
    pic->rgba = g_malloc ((gsize) pic->width * pic->height * 4);
    for (gint y = 0; y < pic->height; y++)
      memcpy (pic->rgba + (gsize) y * pic->width * 4,
          (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0),
          (gsize) pic->width * 4);
    gst_video_frame_unmap (&frame);
    ok = TRUE;
  } else {
    fprintf (stderr, "cannot decode %s (not a picture GStreamer reads?)\n", path);
  }
  if (sample)
    gst_sample_unref (sample);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  return ok;
}

/* Bright squares on a dark, slightly graded background: 4 corners per
 * square for cudaharris, two grey levels for cudaotsu. */
static void
make_pattern (Picture * pic)
{
  pic->width = 320;
  pic->height = 240;
  pic->rgba = g_malloc ((gsize) pic->width * pic->height * 4);
  for (gint y = 0; y < pic->height; y++) {
    for (gint x = 0; x < pic->width; x++) {
      const gboolean square = (x % 64) >= 16 && (x % 64) < 48 && (y % 64) >= 16 && (y % 64) < 48;
      const guint8 v = square ? (guint8) (200 + y / 8) : (guint8) (30 + x / 16);
      guint8 *p = pic->rgba + ((gsize) y * pic->width + x) * 4;
      p[0] = v;
      p[1] = v;
      p[2] = square ? (guint8) (v - 40) : v;
      p[3] = 255;
    }
  }
}

/* Frame i: the picture moved right by i and down by i/2 pixels (wrapping),
 * as a slowly panning camera would see it. The motion is known, so --check
 * can hold cudaflow's measurement against it. */
#define SHIFT_X(i) ((gint) (i))
#define SHIFT_Y(i) ((gint) (i) / 2)

static GstBuffer *
make_frame (const Picture * pic, guint i)
{
  const gsize row = (gsize) pic->width * 4;
  GstBuffer *buf = gst_buffer_new_allocate (NULL, row * pic->height, NULL);
  GstMapInfo map;
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  const gint dx = SHIFT_X (i) % pic->width, dy = SHIFT_Y (i) % pic->height;
  for (gint y = 0; y < pic->height; y++) {
    const guint8 *src = pic->rgba + (gsize) ((y - dy + pic->height) % pic->height) * row;
    guint8 *dst = map.data + (gsize) y * row;
    memcpy (dst + (gsize) dx * 4, src, row - (gsize) dx * 4);
    memcpy (dst, src + row - (gsize) dx * 4, (gsize) dx * 4);
  }
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale (i, GST_SECOND, FPS);
  GST_BUFFER_DURATION (buf) = gst_util_uint64_scale (1, GST_SECOND, FPS);
  return buf;
}

/* --------------------------------------------------------------- output */

static FrameRecord *
record_for (GHashTable * records, GstClockTime ts)
{
  FrameRecord *r = g_hash_table_lookup (records, &ts);
  if (!r) {
    guint64 *key = g_new (guint64, 1);
    *key = ts;
    r = g_new0 (FrameRecord, 1);
    g_hash_table_insert (records, key, r);
  }
  return r;
}

/* Share of white (255) pixels of a GRAY8 frame: reading the pixels on the
 * host, which for a device frame is one download, at this edge only. */
static double
white_share (GstBuffer * buf, const GstVideoInfo * info)
{
  GstVideoFrame f;
  if (GST_VIDEO_INFO_FORMAT (info) != GST_VIDEO_FORMAT_GRAY8 || !gst_video_frame_map (&f, info, buf, GST_MAP_READ))
    return -1;
  const guint8 *base = GST_VIDEO_FRAME_PLANE_DATA (&f, 0);
  guint64 white = 0;
  for (gint y = 0; y < GST_VIDEO_FRAME_HEIGHT (&f); y++) {
    const guint8 *row = base + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);
    for (gint x = 0; x < GST_VIDEO_FRAME_WIDTH (&f); x++)
      white += row[x] == 255;
  }
  const double share = (double) white / ((double) GST_VIDEO_FRAME_WIDTH (&f) * GST_VIDEO_FRAME_HEIGHT (&f));
  gst_video_frame_unmap (&f);
  return share;
}

static void
print_metas (GstBuffer * buf, FrameRecord * r)
{
  const GstCvKeypointsMeta *kp = gst_buffer_get_cv_keypoints_meta (buf);
  if (kp) {
    printf ("  corners (GstCvKeypointsMeta): %u", kp->n);
    for (guint i = 0; i < kp->n && i < 3; i++)
      printf ("%s(%.0f, %.0f) score %.4g", i ? ", " : "; strongest ", kp->points[i].x, kp->points[i].y,
          kp->points[i].score);
    printf ("\n");
    r->got_keypoints_meta = TRUE;
    r->meta_corners = kp->n;
  }

  const GstCvOtsuMeta *otsu = gst_buffer_get_cv_otsu_meta (buf);
  if (otsu) {
    printf ("  Otsu threshold (GstCvOtsuMeta): %u\n", otsu->threshold);
    r->got_otsu_meta = TRUE;
    r->meta_threshold = otsu->threshold;
  }

  /* Each face by its id, as an application that keeps ids would look it
   * up, with what the detector says of it. */
  gpointer state = NULL;
  GstMeta *m;
  while ((m = gst_buffer_iterate_meta_filtered (buf, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) m;
    r->faces_meta++;
    if (gst_buffer_get_video_region_of_interest_meta_id (buf, roi->id) == roi)
      r->faces_by_id++;
    printf ("  region of interest %d: %s at (%u, %u) %ux%u", roi->id, g_quark_to_string (roi->roi_type), roi->x,
        roi->y, roi->w, roi->h);
    GstStructure *detection = gst_video_region_of_interest_meta_get_param (roi, "detection");
    gint neighbors;
    gdouble scale;
    if (detection && gst_structure_get_int (detection, "neighbors", &neighbors) &&
        gst_structure_get_double (detection, "scale", &scale))
      printf (", %d neighbors, scale %.2f", neighbors, scale);
    printf ("\n");
  }
  if (r->faces_meta)
    printf ("  regions of interest: %u, %u reached by their id\n", r->faces_meta, r->faces_by_id);

  const GstCvFlowMeta *flow = gst_buffer_get_cv_flow_meta (buf);
  if (flow) {
    guint tracked = 0;
    double sx = 0, sy = 0;
    for (guint i = 0; i < flow->n; i++) {
      const GstCvFlowVector *v = &flow->vectors[i];
      if (v->status) {
        tracked++;
        sx += v->x - v->prev_x;
        sy += v->y - v->prev_y;
      }
    }
    printf ("  flow (GstCvFlowMeta): %u points, %u tracked", flow->n, tracked);
    if (tracked)
      printf (", mean motion (%.2f, %.2f) px", sx / tracked, sy / tracked);
    printf ("\n");
    r->got_flow_meta = TRUE;
    r->flow_tracked = tracked;
    r->flow_dx = tracked ? sx / tracked : 0;
    r->flow_dy = tracked ? sy / tracked : 0;
  }

  /* Anything else by its API name. */
  state = NULL;
  while ((m = gst_buffer_iterate_meta (buf, &state))) {
    const GType api = m->info->api;
    if (api != GST_CV_KEYPOINTS_META_API_TYPE && api != GST_CV_OTSU_META_API_TYPE &&
        api != GST_CV_FLOW_META_API_TYPE && api != GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE &&
        api != GST_VIDEO_META_API_TYPE)
      printf ("  other meta: %s\n", g_type_name (api));
  }
}

static void
print_message (GstMessage * msg, GHashTable * records)
{
  const GstStructure *s = gst_message_get_structure (msg);
  const gchar *name = gst_structure_get_name (s);
  guint64 ts = GST_CLOCK_TIME_NONE;
  gst_structure_get_uint64 (s, "timestamp", &ts);
  guint v;
  if (gst_structure_has_name (s, "cudaotsu") && gst_structure_get_uint (s, "threshold", &v)) {
    printf ("message cudaotsu    %" GST_TIME_FORMAT ": threshold %u\n", GST_TIME_ARGS (ts), v);
    FrameRecord *r = record_for (records, ts);
    r->got_otsu_msg = TRUE;
    r->msg_threshold = v;
  } else if (gst_structure_has_name (s, "cudaharris") && gst_structure_get_uint (s, "count", &v)) {
    printf ("message cudaharris  %" GST_TIME_FORMAT ": %u corners\n", GST_TIME_ARGS (ts), v);
    FrameRecord *r = record_for (records, ts);
    r->got_harris_msg = TRUE;
    r->msg_corners = v;
  } else if (gst_structure_has_name (s, "cudaflow") && gst_structure_get_uint (s, "count", &v)) {
    gdouble mean = NAN, median = NAN;
    gst_structure_get_double (s, "mean", &mean);
    gst_structure_get_double (s, "median", &median);
    printf ("message cudaflow    %" GST_TIME_FORMAT ": %u tracked, displacement mean %.2f median %.2f px\n",
        GST_TIME_ARGS (ts), v, mean, median);
  } else if (gst_structure_has_name (s, "facedetect")) {
    const GValue *faces = gst_structure_get_value (s, "faces");
    const guint n = faces && GST_VALUE_HOLDS_LIST (faces) ? gst_value_list_get_size (faces) : 0;
    printf ("message facedetect  %" GST_TIME_FORMAT ": %u face(s)\n", GST_TIME_ARGS (ts), n);
    FrameRecord *r = record_for (records, ts);
    r->got_faces_msg = TRUE;
    r->msg_faces = n;
  } else {
    /* Other elements' messages (cudaflow's motion summary, ...) verbatim. */
    gchar *str = gst_structure_to_string (s);
    printf ("message %s: %s\n", name, str);
    g_free (str);
  }
}

/* Prints the bus's pending messages; FALSE after an error. */
static gboolean
drain_bus (GstBus * bus, GHashTable * records)
{
  gboolean ok = TRUE;
  GstMessage *msg;
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING))) {
    GError *err = NULL;
    gchar *dbg = NULL;
    switch (GST_MESSAGE_TYPE (msg)) {
      case GST_MESSAGE_ELEMENT:
        print_message (msg, records);
        break;
      case GST_MESSAGE_WARNING: /* e.g. backend=auto without a GPU: "running on the CPU" */
        gst_message_parse_warning (msg, &err, &dbg);
        printf ("warning from %s: %s\n", GST_OBJECT_NAME (msg->src), err->message);
        break;
      default:
        gst_message_parse_error (msg, &err, &dbg);
        fprintf (stderr, "error from %s: %s\n  %s\n", GST_OBJECT_NAME (msg->src), err->message, dbg ? dbg : "");
        ok = FALSE;
        break;
    }
    g_clear_error (&err);
    g_free (dbg);
    gst_message_unref (msg);
  }
  return ok;
}

/* --check: every frame back, with both metas, each equal to its message;
 * with cudaflow, the measured motion equal to the one applied (points
 * crossing the wrapping seam are a small minority: 0.25 px of slack). */
static gboolean
check_records (GHashTable * records, guint frames, gboolean with_faces, gboolean with_flow)
{
  guint complete = 0;
  gboolean ok = TRUE;
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, records);
  while (g_hash_table_iter_next (&it, &key, &value)) {
    const FrameRecord *r = value;
    const GstClockTime ts = *(guint64 *) key;
    if (!r->got_frame || !r->got_keypoints_meta || !r->got_otsu_meta || !r->got_harris_msg || !r->got_otsu_msg) {
      fprintf (stderr, "CHECK %" GST_TIME_FORMAT ": frame %d, corners meta %d, Otsu meta %d, cudaharris message %d, "
          "cudaotsu message %d\n", GST_TIME_ARGS (ts), r->got_frame, r->got_keypoints_meta, r->got_otsu_meta,
          r->got_harris_msg, r->got_otsu_msg);
      ok = FALSE;
      continue;
    }
    if (r->white <= 0 || r->white >= 1) {
      fprintf (stderr, "CHECK %" GST_TIME_FORMAT ": binarized frame %.1f%% white: one class is empty\n",
          GST_TIME_ARGS (ts), 100 * r->white);
      ok = FALSE;
      continue;
    }
    if (r->meta_corners != r->msg_corners || r->meta_threshold != r->msg_threshold || r->meta_corners == 0) {
      fprintf (stderr, "CHECK %" GST_TIME_FORMAT ": meta says %u corners, threshold %u; messages say %u, %u\n",
          GST_TIME_ARGS (ts), r->meta_corners, r->meta_threshold, r->msg_corners, r->msg_threshold);
      ok = FALSE;
      continue;
    }
    if (with_faces && (!r->got_faces_msg || r->faces_meta != r->msg_faces || r->faces_by_id != r->faces_meta)) {
      fprintf (stderr, "CHECK %" GST_TIME_FORMAT ": %u face regions, %u reached by their id; facedetect message %d "
          "with %u faces\n", GST_TIME_ARGS (ts), r->faces_meta, r->faces_by_id, r->got_faces_msg, r->msg_faces);
      ok = FALSE;
      continue;
    }
    const guint i = (guint) gst_util_uint64_scale_round (ts, FPS, GST_SECOND);
    if (with_flow && i > 0) {
      const double want_dx = SHIFT_X (i) - SHIFT_X (i - 1), want_dy = SHIFT_Y (i) - SHIFT_Y (i - 1);
      if (!r->got_flow_meta || r->flow_tracked == 0 || fabs (r->flow_dx - want_dx) > 0.25 ||
          fabs (r->flow_dy - want_dy) > 0.25) {
        fprintf (stderr, "CHECK frame %u: flow meta %d, %u tracked, mean motion (%.3f, %.3f), applied (%.0f, %.0f)\n",
            i, r->got_flow_meta, r->flow_tracked, r->flow_dx, r->flow_dy, want_dx, want_dy);
        ok = FALSE;
        continue;
      }
    }
    complete++;
  }
  if (complete != frames) {
    fprintf (stderr, "CHECK: %u of %u frames came back complete and consistent\n", complete, frames);
    ok = FALSE;
  }
  return ok;
}

/* ----------------------------------------------------------------- main */

static gboolean
have_element (const gchar * name)
{
  GstElementFactory *f = gst_element_factory_find (name);
  if (f)
    gst_object_unref (f);
  return f != NULL;
}

int
main (int argc, char **argv)
{
  gchar *backend = NULL;
  gint frames = 10;
  gboolean check = FALSE;
  const GOptionEntry entries[] = {
    { "backend", 0, 0, G_OPTION_ARG_STRING, &backend,
      "auto (the GPU when there is one), cuda or cpu (default: $CUDAVISION_BACKEND, else auto)", "NAME" },
    { "frames", 0, 0, G_OPTION_ARG_INT, &frames, "frames to push (default 10)", "N" },
    { "check", 0, 0, G_OPTION_ARG_NONE, &check,
      "exit 1 unless every frame came back with its metas, each equal to its element's message", NULL },
    G_OPTION_ENTRY_NULL,
  };
  /* GStreamer's options (--gst-debug, ...) come with the program's own. */
  GOptionContext *ctx = g_option_context_new ("[PICTURE]");
  g_option_context_set_summary (ctx, "Pushes frames through cudavision elements and reads back their metas.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  GError *err = NULL;
  const gboolean parsed = g_option_context_parse (ctx, &argc, &argv, &err);
  g_option_context_free (ctx);
  if (!parsed || argc > 2) {
    fprintf (stderr, "%s: %s (see --help)\n", g_get_prgname (), err ? err->message : "more than one picture");
    g_clear_error (&err);
    return 2;
  }
  const gchar *path = argc == 2 ? argv[1] : NULL;
  if (!backend)
    backend = g_strdup (g_getenv ("CUDAVISION_BACKEND") ? g_getenv ("CUDAVISION_BACKEND") : "auto");
  /* The elements' "backend" values, from the library's enum. */
  GEnumClass *backends = g_type_class_ref (GST_TYPE_CV_BACKEND);
  const gboolean known_backend = g_enum_get_value_by_nick (backends, backend) != NULL;
  g_type_class_unref (backends);
  if (frames <= 0 || !known_backend) {
    fprintf (stderr, "--frames must be positive, --backend auto, cuda or cpu\n");
    return 2;
  }

  if (!have_element ("cudagray")) {
    fprintf (stderr, "the cudavision plugin was not found: set GST_PLUGIN_PATH to the build's gst/ directory\n");
    return 1;
  }

  Picture pic;
  if (path) {
    if (!load_picture (path, &pic))
      return 1;
  } else {
    make_pattern (&pic);
  }

  /* Elements still being written are left out when the plugin lacks them. */
  const gboolean have_faces = have_element ("cudafacedetect");
  const gboolean have_flow = have_element ("cudaflow");
  gchar *faces = have_faces ? g_strdup_printf ("cudafacedetect post-messages=true backend=%s ! ", backend)
                            : g_strdup ("");
  gchar *flow = have_flow ? g_strdup_printf ("cudaflow post-messages=true backend=%s ! ", backend) : g_strdup ("");
  gchar *desc = g_strdup_printf ("appsrc name=src format=time caps=video/x-raw,format=RGBA,width=%d,height=%d,"
      "framerate=%d/1 ! %scudagray backend=%s ! cudaharris post-messages=true backend=%s ! %s"
      "cudaotsu attach-meta=true post-messages=true backend=%s ! appsink name=sink sync=false",
      pic.width, pic.height, FPS, faces, backend, backend, flow, backend);
  g_free (faces);
  g_free (flow);
  printf ("pipeline: %s\n", desc);
  GstElement *pipe = gst_parse_launch (desc, &err);
  g_free (desc);
  if (!pipe) {
    fprintf (stderr, "cannot build the pipeline: %s\n", err->message);
    g_error_free (err);
    return 1;
  }
  GstAppSrc *src = GST_APP_SRC (gst_bin_get_by_name (GST_BIN (pipe), "src"));
  GstAppSink *sink = GST_APP_SINK (gst_bin_get_by_name (GST_BIN (pipe), "sink"));
  GstBus *bus = gst_element_get_bus (pipe);
  GHashTable *records = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  /* appsrc queues what it is given; the streaming thread takes it from there. */
  for (gint i = 0; i < frames; i++)
    gst_app_src_push_buffer (src, make_frame (&pic, (guint) i)); /* takes the buffer */
  gst_app_src_end_of_stream (src);

  /* Samples as they come, the bus in between; a failing element stops the
   * stream without an EOS, so the wait is bounded and the bus tells. */
  gboolean ok = TRUE;
  guint received = 0;
  for (;;) {
    GstSample *sample = gst_app_sink_try_pull_sample (sink, 100 * GST_MSECOND);
    if (!sample) {
      if (gst_app_sink_is_eos (sink) || !(ok = drain_bus (bus, records)))
        break;
      continue;
    }
    GstBuffer *buf = gst_sample_get_buffer (sample);
    GstVideoInfo info;
    gst_video_info_from_caps (&info, gst_sample_get_caps (sample));
    FrameRecord *r = record_for (records, GST_BUFFER_PTS (buf));
    r->got_frame = TRUE;
    r->white = white_share (buf, &info);
    printf ("frame %u  %" GST_TIME_FORMAT "  %dx%d %s, %.1f%% white\n", received,
        GST_TIME_ARGS (GST_BUFFER_PTS (buf)), GST_VIDEO_INFO_WIDTH (&info), GST_VIDEO_INFO_HEIGHT (&info),
        GST_VIDEO_INFO_NAME (&info), 100 * r->white);
    print_metas (buf, r);
    gst_sample_unref (sample);
    received++;
    ok &= drain_bus (bus, records);
  }
  ok &= drain_bus (bus, records);
  printf ("%u of %d frames came back\n", received, frames);

  if (check && ok)
    ok = check_records (records, (guint) frames, have_faces, have_flow);

  gst_element_set_state (pipe, GST_STATE_NULL);
  g_hash_table_destroy (records);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (pic.rgba);
  g_free (backend);
  return ok && received == (guint) frames ? 0 : 1;
}
