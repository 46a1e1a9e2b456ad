/**
 * SECTION:element-cudaflow
 * @title: cudaflow
 *
 * Pyramidal Lucas-Kanade optical flow on an NVIDIA GPU, with the results of
 * OpenCV's cv::calcOpticalFlowPyrLK (same `window-size`, `max-level`,
 * `iterations`, `epsilon`, `min-eig-threshold`).
 *
 * `mode=sparse` follows Shi-Tomasi corners (cv::goodFeaturesToTrack with
 * `max-corners`, `quality-level`, `min-distance`, found by cudaharris's
 * detector, or taken from a #GstCvKeypointsMeta on the input buffer) from
 * frame to frame, and finds new ones every `redetect-interval` frames or
 * when fewer than half of them are still tracked. `mode=dense` runs the
 * same tracker on a grid of points every `grid-step` pixels.
 *
 * The element keeps the previous frame (its pyramid, on the GPU) and the
 * points, and starts again on a flush, a new segment, a DISCONT buffer, new
 * caps or a gap of more than 3 frame durations between timestamps.
 *
 * Input is GRAY8, or RGBA / BGRA / RGBx / BGRx whose BT.601 luma (as
 * cv::cvtColor computes it) is tracked. The output is the input frame
 * (`output=passthrough`; `draw=true` draws the motion vectors) or, in dense
 * mode, an RGBA image of the flow (`output=flow-color`: hue = direction,
 * saturation = magnitude up to `max-flow` pixels). Each output buffer
 * carries a #GstCvFlowMeta with the point pairs; with `post-messages=true`
 * an element message "cudaflow" gives the count, mean and median
 * displacement.
 *
 * Without a usable GPU the element runs on OpenCV and says so on the bus.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! video/x-raw,format=BGRx ! cudaflow draw=true ! videoconvert ! autovideosink
 * ]|
 * |[
 * gst-launch-1.0 filesrc location=clip.mp4 ! qtdemux ! h264parse ! avdec_h264 ! videoconvert ! \
 *     video/x-raw,format=RGBA ! cudaflow mode=dense output=flow-color ! videoconvert ! autovideosink
 * ]|
 * |[
 * gst-launch-1.0 -m videotestsrc pattern=ball num-buffers=30 ! video/x-raw,format=GRAY8 ! \
 *     cudaflow post-messages=true ! fakesink
 * ]|
 */
#include "gstcudaflow.h"

#include "gstcvflowmeta.h"
#include "gstcvframemessage.h"
#include "gstcvkeypointsmeta.h"
#include "gstcvlumainput.h"

#include "../cpu/flow_cpu.h"
#include "../cpu/gray_cpu.h"
#include "../cpu/harris_cpu.h"
#include "../cuda/flow/flow.h"
#include "../cuda/gray/gray.h"
#include "../cuda/harris/harris.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <vector>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_flow_debug);
#define GST_CAT_DEFAULT gst_cuda_flow_debug

#define FLOW_FORMATS "{ GRAY8, RGBA, BGRA, RGBx, BGRx }"
/* A gap between timestamps beyond this many frame durations restarts. */
#define FLOW_GAP_FRAMES 3

enum {
  PROP_0,
  PROP_MODE,
  PROP_OUTPUT,
  PROP_MAX_CORNERS,
  PROP_QUALITY_LEVEL,
  PROP_MIN_DISTANCE,
  PROP_REDETECT_INTERVAL,
  PROP_GRID_STEP,
  PROP_WINDOW_SIZE,
  PROP_MAX_LEVEL,
  PROP_ITERATIONS,
  PROP_EPSILON,
  PROP_MIN_EIG_THRESHOLD,
  PROP_MAX_FLOW,
  PROP_DRAW,
  PROP_POST_MESSAGES,
};

#define DEFAULT_MODE GST_CUDA_FLOW_MODE_SPARSE
#define DEFAULT_OUTPUT GST_CUDA_FLOW_OUTPUT_PASSTHROUGH
#define DEFAULT_MAX_CORNERS 500
#define DEFAULT_QUALITY_LEVEL 0.01
#define DEFAULT_MIN_DISTANCE 10.0
#define DEFAULT_REDETECT_INTERVAL 10
#define DEFAULT_GRID_STEP 8
#define DEFAULT_MAX_FLOW 8.0

/* Properties as one value, copied under the object lock once per frame. */
struct FlowSettings {
  GstCudaFlowMode mode = DEFAULT_MODE;
  GstCudaFlowOutput output = DEFAULT_OUTPUT;
  cudavision::CornerDetectParams detect;
  int redetect_interval = DEFAULT_REDETECT_INTERVAL;
  int grid_step = DEFAULT_GRID_STEP;
  cudavision::FlowParams lk;
  double max_flow = DEFAULT_MAX_FLOW;
  bool draw = false;
  bool post_messages = false;

  FlowSettings ()
  {
    /* goodFeaturesToTrack's defaults: Shi-Tomasi, blockSize 3, Sobel 3 */
    detect.corner.method = cudavision::CornerMethod::ShiTomasi;
    detect.max_corners = DEFAULT_MAX_CORNERS;
    detect.quality_level = DEFAULT_QUALITY_LEVEL;
    detect.min_distance = DEFAULT_MIN_DISTANCE;
  }
};

/* What the element remembers between frames, on both backends. */
struct FlowState {
  /* the stream */
  bool reset_pending = true;
  GstClockTime last_pts = GST_CLOCK_TIME_NONE;
  /* sparse tracking: frames since the last detection, points it gave */
  int frames_since_detect = 0;
  size_t detected = 0;
  /* this frame's results, for the meta and the message */
  std::vector<cudavision::FlowVector> results;
  int grid_step = 0; /* dense: the step of `results` */
  /* GPU backend */
  cudavision::FlowSession session;
  cudavision::CornerDetector detector;
  /* CPU backend: the previous luma and the points to track */
  std::vector<uint8_t> cpu_prev, cpu_cur;
  int cpu_w = 0, cpu_h = 0;
  bool cpu_has_prev = false;
  std::vector<float> cpu_points;

  void reset ()
  {
    reset_pending = false;
    last_pts = GST_CLOCK_TIME_NONE;
    frames_since_detect = 0;
    detected = 0;
    session.reset ();
    cpu_has_prev = false;
    cpu_points.clear ();
  }
};

struct _GstCudaFlow {
  GstCvBaseFilter parent;
  FlowSettings *settings; /* properties, under the object lock */
  FlowState *state;       /* streaming thread only */
  GstCvLumaInput luma;    /* GRAY8 or a packed RGB layout */
};

G_DEFINE_TYPE (GstCudaFlow, gst_cuda_flow, GST_TYPE_CV_BASE_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cudaflow, "cudaflow", GST_RANK_NONE, GST_TYPE_CUDA_FLOW);

GType
gst_cuda_flow_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    { GST_CUDA_FLOW_MODE_SPARSE, "Track Shi-Tomasi corners (cv::goodFeaturesToTrack + cv::calcOpticalFlowPyrLK)",
      "sparse" },
    { GST_CUDA_FLOW_MODE_DENSE, "The same Lucas-Kanade on a grid of points every grid-step pixels", "dense" },
    { 0, nullptr, nullptr },
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCudaFlowMode", values));
  return type;
}

GType
gst_cuda_flow_output_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    { GST_CUDA_FLOW_OUTPUT_PASSTHROUGH, "The input frame (motion vectors drawn with draw=true)", "passthrough" },
    { GST_CUDA_FLOW_OUTPUT_FLOW_COLOR, "Dense mode: RGBA, hue = direction, saturation = magnitude / max-flow",
      "flow-color" },
    { 0, nullptr, nullptr },
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCudaFlowOutput", values));
  return type;
}

static FlowSettings
snapshot (GstCudaFlow * self)
{
  GST_OBJECT_LOCK (self);
  FlowSettings s = *self->settings;
  GST_OBJECT_UNLOCK (self);
  return s;
}

/* ------------------------------------------------------------------ caps */

static GstCaps *
gst_cuda_flow_transform_video_caps (GstCvBaseFilter * base, GstPadDirection direction, GstCaps * caps)
{
  GstCudaFlow *self = GST_CUDA_FLOW (base);
  if (snapshot (self).output != GST_CUDA_FLOW_OUTPUT_FLOW_COLOR)
    return caps;
  GstCaps *res = gst_caps_make_writable (caps);
  for (guint i = 0; i < gst_caps_get_size (res); i++) {
    GstStructure *s = gst_caps_get_structure (res, i);
    gst_structure_remove_fields (s, "format", "colorimetry", "chroma-site", nullptr);
    /* the flow image is RGBA whatever came in */
    if (direction == GST_PAD_SINK)
      gst_structure_set (s, "format", G_TYPE_STRING, "RGBA", nullptr);
  }
  return gst_caps_simplify (res);
}

static gboolean
gst_cuda_flow_set_info (GstCvBaseFilter * base, const GstVideoInfo * in, const GstVideoInfo * out)
{
  GstCudaFlow *self = GST_CUDA_FLOW (base);
  const FlowSettings s = snapshot (self);
  if (s.output == GST_CUDA_FLOW_OUTPUT_FLOW_COLOR && s.mode != GST_CUDA_FLOW_MODE_DENSE) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("output=flow-color needs mode=dense"),
        ("sparse mode has no flow at every pixel; draw=true shows its vectors on the frame"));
    return FALSE;
  }
  if (s.output == GST_CUDA_FLOW_OUTPUT_FLOW_COLOR && GST_VIDEO_INFO_FORMAT (out) != GST_VIDEO_FORMAT_RGBA) {
    GST_ERROR_OBJECT (self, "output=flow-color gives RGBA, not %s", GST_VIDEO_INFO_NAME (out));
    return FALSE;
  }
  if (!gst_cv_luma_input_set (&self->luma, in)) {
    GST_ERROR_OBJECT (self, "unsupported input %s", GST_VIDEO_INFO_NAME (in));
    return FALSE;
  }
  /* new caps: the previous frame is of no use any more */
  self->state->reset_pending = true;
  return TRUE;
}

/* ------------------------------------------------------------ tracking */

static size_t
tracked_count (const std::vector<cudavision::FlowVector> & v)
{
  return (size_t) std::count_if (v.begin (), v.end (), [] (const cudavision::FlowVector & f) { return f.status; });
}

/* Sparse mode, after this frame's tracking: find new points when nothing
 * was tracked into this frame (first frame), none is left, the interval is
 * over, or fewer than half of those detected are still tracked. */
static bool
need_detection (FlowState & st, const FlowSettings & s, bool tracked_frame)
{
  if (!tracked_frame)
    return true;
  st.frames_since_detect++;
  const size_t alive = tracked_count (st.results);
  return alive == 0 || (s.redetect_interval > 0 && st.frames_since_detect >= s.redetect_interval) ||
      alive * 2 < st.detected;
}

/* The points a detection gives: the input's keypoints meta when it has one
 * (cudaharris upstream), at most max-corners of them, strongest first;
 * false without one: the caller detects. */
static bool
points_from_meta (GstBuffer * inbuf, const FlowSettings & s, std::vector<float> * xy)
{
  const GstCvKeypointsMeta *m = gst_buffer_get_cv_keypoints_meta (inbuf);
  if (!m)
    return false;
  guint n = m->n;
  if (s.detect.max_corners > 0)
    n = MIN (n, (guint) s.detect.max_corners);
  xy->resize ((size_t) n * 2);
  for (guint i = 0; i < n; i++) {
    (*xy)[2 * i] = m->points[i].x;
    (*xy)[2 * i + 1] = m->points[i].y;
  }
  return true;
}

static std::vector<float>
corners_xy (const std::vector<cudavision::Corner> & corners)
{
  std::vector<float> xy (corners.size () * 2);
  for (size_t i = 0; i < corners.size (); i++) {
    xy[2 * i] = corners[i].x;
    xy[2 * i + 1] = corners[i].y;
  }
  return xy;
}

static GstFlowReturn
gst_cuda_flow_process_gpu (GstCvBaseFilter * base, GstBuffer * inbuf, GstVideoFrame * in, GstVideoFrame * out)
{
  GstCudaFlow *self = GST_CUDA_FLOW (base);
  FlowState & st = *self->state;
  const FlowSettings s = snapshot (self);
  cudaStream_t stream = gst_cv_base_filter_stream (base);
  const cudavision::LaunchPolicy & policy = gst_cv_base_filter_policy (base);
  const cudavision::ConstImage8 src = gst_cv_frame_const_plane (in, 0);
  cudavision::Image8 dst = gst_cv_frame_plane (out, 0);
  const cudavision::CornerInput input { src, self->luma.gray, self->luma.layout };
  const bool dense = s.mode == GST_CUDA_FLOW_MODE_DENSE;
  const bool color = s.output == GST_CUDA_FLOW_OUTPUT_FLOW_COLOR;

  /* The frame first: the copy overlaps the pyramid on the same stream. */
  GstFlowReturn ret = GST_FLOW_OK;
  if (!color)
    ret = gst_cv_base_filter_check (base, cudavision::copy_plane (src, dst, src.width * self->luma.bpp, stream),
        "frame copy");
  if (ret == GST_FLOW_OK)
    ret = gst_cv_base_filter_check (base, st.session.push_frame (input, s.lk, policy, stream), "pyramid");
  if (ret != GST_FLOW_OK)
    return ret;
  const bool tracked_frame = st.session.has_previous ();
  if (dense) {
    st.grid_step = s.grid_step;
    ret = gst_cv_base_filter_check (base, st.session.track_dense (s.grid_step, s.lk, policy, stream, &st.results),
        "dense flow");
  } else {
    ret = gst_cv_base_filter_check (base, st.session.track_sparse (s.lk, policy, stream, &st.results),
        "sparse flow");
  }
  if (ret == GST_FLOW_OK && color)
    ret = gst_cv_base_filter_check (base, st.session.color (s.grid_step, (float) s.max_flow, dst, policy, stream),
        "flow colours");
  else if (ret == GST_FLOW_OK && s.draw)
    ret = gst_cv_base_filter_check (base, st.session.draw (dst, self->luma.gray, self->luma.layout, !dense, policy, stream),
        "flow drawing");
  if (ret != GST_FLOW_OK || dense || !need_detection (st, s, tracked_frame))
    return ret;

  /* after the drawing: set_points replaces the lists it reads */
  std::vector<float> xy;
  if (!points_from_meta (inbuf, s, &xy)) {
    std::vector<cudavision::Corner> corners;
    ret = gst_cv_base_filter_check (base, st.detector.detect (input, s.detect, policy, stream, &corners),
        "corner detection");
    if (ret != GST_FLOW_OK)
      return ret;
    xy = corners_xy (corners);
  }
  st.detected = xy.size () / 2;
  st.frames_since_detect = 0;
  GST_LOG_OBJECT (self, "%zu points to track", st.detected);
  return gst_cv_base_filter_check (base, st.session.set_points (xy, stream), "point upload");
}

static GstFlowReturn
gst_cuda_flow_process_cpu (GstCvBaseFilter * base, GstBuffer * inbuf, GstVideoFrame * in, GstVideoFrame * out)
{
  GstCudaFlow *self = GST_CUDA_FLOW (base);
  FlowState & st = *self->state;
  const FlowSettings s = snapshot (self);
  const cudavision::ConstImage8 src = gst_cv_frame_const_plane (in, 0);
  cudavision::Image8 dst = gst_cv_frame_plane (out, 0);
  const bool dense = s.mode == GST_CUDA_FLOW_MODE_DENSE;
  const int w = src.width, h = src.height;
  try {
    /* this frame's luma, kept as the next frame's previous one */
    st.cpu_cur.resize ((size_t) w * h);
    const cudavision::Image8 cur { st.cpu_cur.data (), (size_t) w, w, h };
    if (self->luma.gray)
      cudavision::cpu::copy_plane (src, cur);
    else
      cudavision::cpu::rgb_to_gray (src, self->luma.layout, cur);
    const cudavision::ConstImage8 cur_c { cur.data, cur.pitch, w, h };
    const cudavision::ConstImage8 prev_c { st.cpu_prev.data (), (size_t) w, w, h };

    const bool tracked_frame = st.cpu_has_prev && st.cpu_w == w && st.cpu_h == h;
    st.results.clear ();
    if (tracked_frame && dense) {
      st.grid_step = s.grid_step;
      st.results = cudavision::cpu::track_lk (prev_c, cur_c, cudavision::cpu::grid_points (w, h, s.grid_step), s.lk,
          true);
    } else if (tracked_frame) {
      st.results = cudavision::cpu::track_lk (prev_c, cur_c, st.cpu_points, s.lk, true);
    }

    if (s.output == GST_CUDA_FLOW_OUTPUT_FLOW_COLOR) {
      cudavision::cpu::flow_color (st.results, s.grid_step, (float) s.max_flow, dst);
    } else {
      gst_cv_luma_input_copy_cpu (self->luma, src, dst);
      if (s.draw)
        cudavision::cpu::draw_flow (dst, self->luma.gray, self->luma.layout, st.results, !dense);
    }

    if (!dense) {
      /* the tracked points go on; lost ones are dropped */
      st.cpu_points.clear ();
      for (const auto & v : st.results) {
        if (v.status) {
          st.cpu_points.push_back (v.x);
          st.cpu_points.push_back (v.y);
        }
      }
      if (need_detection (st, s, tracked_frame)) {
        if (!points_from_meta (inbuf, s, &st.cpu_points))
          st.cpu_points = corners_xy (cudavision::cpu::good_features (cur_c, s.detect));
        st.detected = st.cpu_points.size () / 2;
        st.frames_since_detect = 0;
      }
    }
    std::swap (st.cpu_prev, st.cpu_cur);
    st.cpu_w = w;
    st.cpu_h = h;
    st.cpu_has_prev = true;
  } catch (const std::exception & e) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("OpenCV failed on a %dx%d frame", w, h), ("%s", e.what ()));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

/* ---------------------------------------------------- results and resets */

static void
post_flow_message (GstCudaFlow * self, GstBuffer * inbuf)
{
  const std::vector<cudavision::FlowVector> & r = self->state->results;
  std::vector<double> d;
  d.reserve (r.size ());
  for (const auto & v : r)
    if (v.status)
      d.push_back (std::hypot ((double) v.x - v.prev_x, (double) v.y - v.prev_y));
  double mean = 0, median = 0;
  if (!d.empty ()) {
    for (double x : d)
      mean += x;
    mean /= (double) d.size ();
    /* the lower median for even counts: a value that occurred */
    auto mid = d.begin () + (d.size () - 1) / 2;
    std::nth_element (d.begin (), mid, d.end ());
    median = *mid;
  }
  GstStructure *st = gst_cv_frame_message_new (GST_BASE_TRANSFORM (self), "cudaflow", inbuf);
  gst_structure_set (st, "points", G_TYPE_UINT, (guint) r.size (), "count", G_TYPE_UINT, (guint) d.size (), "mean",
      G_TYPE_DOUBLE, mean, "median", G_TYPE_DOUBLE, median, nullptr);
  gst_cv_post_frame_message (GST_BASE_TRANSFORM (self), st);
}

/* A frame that does not follow the previous one: DISCONT, or a timestamp
 * jump back or more than FLOW_GAP_FRAMES frame durations ahead. */
static bool
discontinuous (GstCudaFlow * self, GstBuffer * inbuf)
{
  FlowState & st = *self->state;
  if (GST_BUFFER_IS_DISCONT (inbuf))
    return true;
  const GstClockTime pts = GST_BUFFER_PTS (inbuf);
  if (!GST_CLOCK_TIME_IS_VALID (pts) || !GST_CLOCK_TIME_IS_VALID (st.last_pts))
    return false;
  GstClockTime dur = GST_BUFFER_DURATION (inbuf);
  const GstVideoInfo *info = gst_cv_base_filter_in_info (GST_CV_BASE_FILTER (self));
  if (!GST_CLOCK_TIME_IS_VALID (dur) && info->fps_n > 0)
    dur = gst_util_uint64_scale_int (GST_SECOND, info->fps_d, info->fps_n);
  if (!GST_CLOCK_TIME_IS_VALID (dur) || dur == 0)
    return pts < st.last_pts;
  return pts < st.last_pts || pts - st.last_pts > FLOW_GAP_FRAMES * dur;
}

/* The base class runs the frame; the vectors then go on the output buffer,
 * which process_gpu does not see (it gets a staging frame at system-memory
 * edges). */
static GstFlowReturn
gst_cuda_flow_transform (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstCudaFlow *self = GST_CUDA_FLOW (trans);
  FlowState & st = *self->state;
  if (st.reset_pending || discontinuous (self, inbuf)) {
    GST_DEBUG_OBJECT (self, "starting again at %" GST_TIME_FORMAT, GST_TIME_ARGS (GST_BUFFER_PTS (inbuf)));
    st.reset ();
  }
  st.results.clear ();
  st.grid_step = 0;
  GstFlowReturn ret = GST_BASE_TRANSFORM_CLASS (gst_cuda_flow_parent_class)->transform (trans, inbuf, outbuf);
  if (ret != GST_FLOW_OK) {
    st.reset_pending = true;
    return ret;
  }
  st.last_pts = GST_BUFFER_PTS (inbuf);

  std::vector<GstCvFlowVector> v (st.results.size ());
  for (size_t i = 0; i < v.size (); i++) {
    const cudavision::FlowVector & f = st.results[i];
    v[i] = { f.prev_x, f.prev_y, f.x, f.y, f.status };
  }
  GstCvFlowMeta *m = gst_buffer_add_cv_flow_meta (outbuf, v.data (), (guint) v.size ());
  if (m && st.grid_step > 0 && !v.empty ()) {
    const GstVideoInfo *info = gst_cv_base_filter_in_info (GST_CV_BASE_FILTER (self));
    m->grid_step = (guint) st.grid_step;
    m->grid_cols = (guint) cudavision::flow_grid_cols (GST_VIDEO_INFO_WIDTH (info), st.grid_step);
    m->grid_rows = (guint) cudavision::flow_grid_rows (GST_VIDEO_INFO_HEIGHT (info), st.grid_step);
  }
  if (snapshot (self).post_messages)
    post_flow_message (self, inbuf);
  return GST_FLOW_OK;
}

static gboolean
gst_cuda_flow_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  /* serialized with the buffers: the next one starts again */
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP || GST_EVENT_TYPE (event) == GST_EVENT_SEGMENT)
    GST_CUDA_FLOW (trans)->state->reset_pending = true;
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_flow_parent_class)->sink_event (trans, event);
}

static void
gst_cuda_flow_release_device (GstCvBaseFilter * base)
{
  FlowState & st = *GST_CUDA_FLOW (base)->state;
  st.session.release ();
  st.detector.release ();
  st.reset_pending = true;
}

/* ----------------------------------------------------------- properties */

static void
gst_cuda_flow_set_property (GObject * object, guint prop_id, const GValue * value, GParamSpec * pspec)
{
  GstCudaFlow *self = GST_CUDA_FLOW (object);
  GST_OBJECT_LOCK (self);
  FlowSettings & s = *self->settings;
  switch (prop_id) {
    case PROP_MODE: s.mode = (GstCudaFlowMode) g_value_get_enum (value); break;
    case PROP_OUTPUT: s.output = (GstCudaFlowOutput) g_value_get_enum (value); break;
    case PROP_MAX_CORNERS: s.detect.max_corners = g_value_get_int (value); break;
    case PROP_QUALITY_LEVEL: s.detect.quality_level = g_value_get_double (value); break;
    case PROP_MIN_DISTANCE: s.detect.min_distance = g_value_get_double (value); break;
    case PROP_REDETECT_INTERVAL: s.redetect_interval = g_value_get_int (value); break;
    case PROP_GRID_STEP: s.grid_step = g_value_get_int (value); break;
    case PROP_WINDOW_SIZE: s.lk.window = g_value_get_int (value); break;
    case PROP_MAX_LEVEL: s.lk.max_level = g_value_get_int (value); break;
    case PROP_ITERATIONS: s.lk.iterations = g_value_get_int (value); break;
    case PROP_EPSILON: s.lk.epsilon = g_value_get_double (value); break;
    case PROP_MIN_EIG_THRESHOLD: s.lk.min_eig = g_value_get_double (value); break;
    case PROP_MAX_FLOW: s.max_flow = g_value_get_double (value); break;
    case PROP_DRAW: s.draw = g_value_get_boolean (value); break;
    case PROP_POST_MESSAGES: s.post_messages = g_value_get_boolean (value); break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_flow_get_property (GObject * object, guint prop_id, GValue * value, GParamSpec * pspec)
{
  GstCudaFlow *self = GST_CUDA_FLOW (object);
  const FlowSettings s = snapshot (self);
  switch (prop_id) {
    case PROP_MODE: g_value_set_enum (value, s.mode); break;
    case PROP_OUTPUT: g_value_set_enum (value, s.output); break;
    case PROP_MAX_CORNERS: g_value_set_int (value, s.detect.max_corners); break;
    case PROP_QUALITY_LEVEL: g_value_set_double (value, s.detect.quality_level); break;
    case PROP_MIN_DISTANCE: g_value_set_double (value, s.detect.min_distance); break;
    case PROP_REDETECT_INTERVAL: g_value_set_int (value, s.redetect_interval); break;
    case PROP_GRID_STEP: g_value_set_int (value, s.grid_step); break;
    case PROP_WINDOW_SIZE: g_value_set_int (value, s.lk.window); break;
    case PROP_MAX_LEVEL: g_value_set_int (value, s.lk.max_level); break;
    case PROP_ITERATIONS: g_value_set_int (value, s.lk.iterations); break;
    case PROP_EPSILON: g_value_set_double (value, s.lk.epsilon); break;
    case PROP_MIN_EIG_THRESHOLD: g_value_set_double (value, s.lk.min_eig); break;
    case PROP_MAX_FLOW: g_value_set_double (value, s.max_flow); break;
    case PROP_DRAW: g_value_set_boolean (value, s.draw); break;
    case PROP_POST_MESSAGES: g_value_set_boolean (value, s.post_messages); break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cuda_flow_finalize (GObject * object)
{
  GstCudaFlow *self = GST_CUDA_FLOW (object);
  delete self->settings;
  delete self->state;
  G_OBJECT_CLASS (gst_cuda_flow_parent_class)->finalize (object);
}

static void
gst_cuda_flow_class_init (GstCudaFlowClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCvBaseFilterClass *cv_class = GST_CV_BASE_FILTER_CLASS (klass);

  gobject_class->set_property = gst_cuda_flow_set_property;
  gobject_class->get_property = gst_cuda_flow_get_property;
  gobject_class->finalize = gst_cuda_flow_finalize;

  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode", "Sparse corners or a dense grid", GST_TYPE_CUDA_FLOW_MODE, DEFAULT_MODE,
          GST_CV_PARAM_RW_READY));
  g_object_class_install_property (gobject_class, PROP_OUTPUT,
      g_param_spec_enum ("output", "Output", "What the source pad carries", GST_TYPE_CUDA_FLOW_OUTPUT,
          DEFAULT_OUTPUT, GST_CV_PARAM_RW_READY));
  g_object_class_install_property (gobject_class, PROP_MAX_CORNERS,
      g_param_spec_int ("max-corners", "Maximum corners",
          "Sparse: track at most the N strongest Shi-Tomasi corners (0 = no limit)", 0, G_MAXINT,
          DEFAULT_MAX_CORNERS, GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_QUALITY_LEVEL,
      g_param_spec_double ("quality-level", "Quality level",
          "Sparse: corners keep responses above quality-level x the frame maximum", 1e-6, 1.0,
          DEFAULT_QUALITY_LEVEL, GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_MIN_DISTANCE,
      g_param_spec_double ("min-distance", "Minimum distance",
          "Sparse: minimum Euclidean distance between detected corners in pixels", 0.0, 16384.0,
          DEFAULT_MIN_DISTANCE, GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_REDETECT_INTERVAL,
      g_param_spec_int ("redetect-interval", "Redetect interval",
          "Sparse: find new corners every N frames (0 = only when fewer than half are still tracked)", 0, G_MAXINT,
          DEFAULT_REDETECT_INTERVAL, GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_GRID_STEP,
      g_param_spec_int ("grid-step", "Grid step", "Dense: one point every N pixels in x and y", 1, 256,
          DEFAULT_GRID_STEP, GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_WINDOW_SIZE,
      g_param_spec_int ("window-size", "Window size", "Lucas-Kanade window in pixels (square; OpenCV's winSize)",
          cudavision::kFlowMinWindow, cudavision::kFlowMaxWindow, 21, GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_MAX_LEVEL,
      g_param_spec_int ("max-level", "Maximum level",
          "Highest pyramid level (0 = no pyramid; OpenCV's maxLevel, lowered while a level would not exceed the "
          "window)",
          0, cudavision::kFlowMaxLevel, 3, GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_ITERATIONS,
      g_param_spec_int ("iterations", "Iterations", "At most this many steps per level (TermCriteria maxCount)", 0,
          100, 30, GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_EPSILON,
      g_param_spec_double ("epsilon", "Epsilon", "Stop when a step is shorter than this, in pixels (TermCriteria epsilon)",
          0.0, 10.0, 0.01, GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_MIN_EIG_THRESHOLD,
      g_param_spec_double ("min-eig-threshold", "Minimum eigenvalue threshold",
          "Lose a point whose window's gradient matrix has a smaller normalized minimum eigenvalue "
          "(OpenCV's minEigThreshold)",
          0.0, G_MAXDOUBLE, 1e-4, GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_MAX_FLOW,
      g_param_spec_double ("max-flow", "Maximum flow",
          "output=flow-color: the displacement in pixels shown at full saturation", 1e-3, 16384.0, DEFAULT_MAX_FLOW,
          GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_DRAW,
      g_param_spec_boolean ("draw", "Draw",
          "Draw the motion vectors (green lines, red crosses at the tracked points in sparse mode; white on GRAY8)",
          FALSE, GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post a \"cudaflow\" element message per frame with the count, mean and median displacement", FALSE,
          GST_CV_PARAM_RW_PLAYING));

  gst_element_class_set_static_metadata (element_class, "CUDA optical flow", "Filter/Analyzer/Video/Hardware",
      "Pyramidal Lucas-Kanade optical flow on an NVIDIA GPU, as OpenCV's calcOpticalFlowPyrLK computes it",
      "cudavision developers");
  gst_cv_base_filter_class_add_pad_templates (element_class, FLOW_FORMATS, FLOW_FORMATS);

  trans_class->transform = gst_cuda_flow_transform;
  trans_class->sink_event = gst_cuda_flow_sink_event;
  cv_class->transform_video_caps = gst_cuda_flow_transform_video_caps;
  cv_class->set_info = gst_cuda_flow_set_info;
  cv_class->process_gpu = gst_cuda_flow_process_gpu;
  cv_class->process_cpu = gst_cuda_flow_process_cpu;
  cv_class->release_device = gst_cuda_flow_release_device;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_flow_debug, "cudaflow", 0, "cudaflow");
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_FLOW_MODE, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_FLOW_OUTPUT, (GstPluginAPIFlags) 0);
}

static void
gst_cuda_flow_init (GstCudaFlow * self)
{
  self->settings = new FlowSettings ();
  self->state = new FlowState ();
  self->luma = GstCvLumaInput ();
}
