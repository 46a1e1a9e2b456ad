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
 * input caps, a change of `mode` or a gap of more than 3 frame durations
 * between timestamps.
 *
 * `output` and `mode` may change while playing. A new `output` renegotiates
 * the source pad before the next frame, which comes in the new caps (an
 * RGBA input keeps its caps: the next frame is the other output), and the
 * tracking goes on; downstream that cannot take the new format fails the
 * renegotiation with a not-negotiated error. Flow colours need the dense
 * mode: while playing, `output=flow-color` in sparse mode and `mode=sparse`
 * with `output=flow-color` are refused with a warning (set `mode=dense`
 * first, `output=passthrough` first).
 *
 * Input is GRAY8, NV12 or I420, whose luma plane is tracked where it lies
 * (no conversion), or packed RGB (RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, xRGB,
 * xBGR, RGB, BGR) whose BT.601 luma (as cv::cvtColor computes it) is
 * tracked. The output is the input frame (`output=passthrough`;
 * `draw=true` draws the motion vectors in `color` and, in sparse mode, a
 * cross at each tracked point in `marker-color`; white on GRAY8) or, in dense
 * mode, an RGBA image of the flow (`output=flow-color`: hue = direction,
 * saturation = magnitude up to `max-flow` pixels). Each output buffer
 * carries a #GstCvFlowMeta with the point pairs; with `post-messages=true`
 * an element message "cudaflow" gives the count, mean and median
 * displacement.
 *
 * Without a usable GPU the element runs on OpenCV and says so on the bus.
 *
 * The meta must carry the vectors when a buffer leaves, so by default the
 * streaming thread waits for the GPU once per frame. With
 * `latency-frames=1` (device memory on both pads) a frame leaves when the
 * next one's work is queued: the thread no longer waits while the GPU
 * works, for one frame of latency (reported in the latency query); EOS,
 * new caps and other serialized events push the held frame first. The
 * metas and messages are those of `latency-frames=0`: the tracked points
 * stay on the GPU from frame to frame, and the decision to detect new
 * corners after a frame (from its tracked count) is taken when the next
 * frame comes, the detection running then on the kept luma of the frame
 * it is for.
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
 * Tracks on a decoder's NV12 frames, on the GPU:
 * |[
 * gst-launch-1.0 filesrc location=clip.mp4 ! qtdemux ! h264parse ! nvh264dec ! \
 *     cudaflow draw=true ! cudadownload ! videoconvert ! autovideosink
 * ]|
 */
#include "gstcudaflow.h"

#include "gstcvcaps.h"
#include "gstcvcontext.h"
#include "gstcvflowmeta.h"
#include "gstcvframemessage.h"
#include "gstcvkeypointsmeta.h"
#include "gstcvlumainput.h"
#include "gstcvoverlay.h"
#include "gstcvpendingresults.h"

#include "../cpu/flow_cpu.h"
#include "../cpu/gray_cpu.h"
#include "../cpu/harris_cpu.h"
#include "../cuda/flow/flow.h"
#include "../cuda/common/luma.h"
#include "../core/draw/corner_marker.h"
#include "../cuda/harris/harris.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <exception>
#include <utility>
#include <vector>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_flow_debug);
#define GST_CAT_DEFAULT gst_cuda_flow_debug

#define FLOW_FORMATS "{ GRAY8, NV12, I420, RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, xRGB, xBGR, RGB, BGR }"
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
  PROP_LATENCY_FRAMES,
  PROP_COLOR,
  PROP_MARKER_COLOR,
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
  guint32 color = cudavision::kFlowLineColor;
  guint32 marker_color = cudavision::kCornerMarkerColor;
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

/* A frame processed but not finished (GstCvBaseFilterClass::finish_frame):
 * on the GPU the session's results slot that will hold its vectors (-1
 * for none), on the CPU the vectors. */
struct FlowPending {
  int slot = -1;
  int grid_step = 0; /* dense: the step of the vectors */
  std::vector<cudavision::FlowVector> cpu;
};

/* Sparse mode on the GPU: whether new corners must be found after a frame
 * depends on how many of its points were tracked, known once its results
 * are. The decision is taken when the next frame comes (before its
 * tracking), and the detection then runs on the luma of the frame it is
 * for (kept in the session's previous pyramid): the points, and so every
 * result, are those of deciding at once, without waiting for the frame's
 * results before the next one is queued. */
struct FlowDetectPending {
  bool valid = false;
  bool tracked = false;        /* the frame was tracked from one before */
  int slot = -1;               /* its results */
  bool has_meta = false;       /* its input carried a keypoints meta: */
  std::vector<float> meta_xy;  /* those points (at most max-corners) */
  cudavision::CornerDetectParams detect; /* its settings */
  int redetect_interval = 0;
};

/* What the element remembers between frames, on both backends. */
struct FlowState {
  /* the stream */
  bool reset_pending = true;
  GstClockTime last_pts = GST_CLOCK_TIME_NONE;
  /* the caps: the input negotiated last (new input caps start again), and
   * the output the current caps were made for */
  GstVideoInfo in_info;
  bool has_in_info = false;
  GstCudaFlowOutput negotiated = DEFAULT_OUTPUT;
  /* the frame being processed: its settings (frame_settings), and the
   * mode of the frame before (a new mode starts again) */
  FlowSettings frame;
  GstCudaFlowMode mode = DEFAULT_MODE;
  /* sparse tracking: frames since the last detection, points it gave
   * (CPU backend; the GPU's list keeps its own length) */
  int frames_since_detect = 0;
  size_t detected = 0;
  /* frames processed, not finished yet (two with latency-frames=1) */
  GstCvPendingResults<FlowPending> pending;
  /* GPU backend */
  cudavision::FlowSession session;
  cudavision::CornerDetector detector;
  FlowDetectPending decide;
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
    decide.valid = false;
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
  /* the flow image is RGBA whatever came in */
  return gst_cv_caps_map_to_format (direction, caps, "RGBA");
}

/* Whether `output` gives frames of the negotiated formats: flow colours
 * are RGBA, the passthrough frame the input's format (RGBA in: both do). */
static bool
output_fits (GstCudaFlowOutput output, const GstVideoInfo * in, const GstVideoInfo * out)
{
  if (output == GST_CUDA_FLOW_OUTPUT_FLOW_COLOR)
    return GST_VIDEO_INFO_FORMAT (out) == GST_VIDEO_FORMAT_RGBA;
  return GST_VIDEO_INFO_FORMAT (out) == GST_VIDEO_INFO_FORMAT (in);
}

static gboolean
gst_cuda_flow_set_info (GstCvBaseFilter * base, const GstVideoInfo * in, const GstVideoInfo * out)
{
  GstCudaFlow *self = GST_CUDA_FLOW (base);
  FlowState & st = *self->state;
  const FlowSettings s = snapshot (self);
  if (s.output == GST_CUDA_FLOW_OUTPUT_FLOW_COLOR && s.mode != GST_CUDA_FLOW_MODE_DENSE) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("output=flow-color needs mode=dense"),
        ("sparse mode has no flow at every pixel; draw=true shows its vectors on the frame"));
    return FALSE;
  }
  /* The output these caps were made for: the property's, or the other one
   * when the property changed while they were being negotiated (its own
   * renegotiation then follows). */
  GstCudaFlowOutput output = s.output;
  if (!output_fits (output, in, out))
    output = output == GST_CUDA_FLOW_OUTPUT_FLOW_COLOR ? GST_CUDA_FLOW_OUTPUT_PASSTHROUGH
                                                       : GST_CUDA_FLOW_OUTPUT_FLOW_COLOR;
  if (!output_fits (output, in, out)) {
    GST_ERROR_OBJECT (self, "%s -> %s is no output of ours", GST_VIDEO_INFO_NAME (in), GST_VIDEO_INFO_NAME (out));
    return FALSE;
  }
  if (output != s.output)
    gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
  if (!gst_cv_luma_input_set (&self->luma, in)) {
    GST_ERROR_OBJECT (self, "unsupported input %s", GST_VIDEO_INFO_NAME (in));
    return FALSE;
  }
  st.negotiated = output;
  /* new input caps: the previous frame is of no use any more (the same
   * input renegotiated for another output keeps it) */
  if (!st.has_in_info || !gst_video_info_is_equal (in, &st.in_info)) {
    st.reset_pending = true;
    st.in_info = *in;
    st.has_in_info = true;
  }
  return TRUE;
}

/* The properties for one frame: the output the property asks for where it
 * fits the negotiated caps, else the one they were made for, until the
 * renegotiation that the change asked for (buffers never disagree with
 * their caps); flow colours come from the dense grid. */
static FlowSettings
frame_settings (GstCudaFlow * self)
{
  GstCvBaseFilter *base = GST_CV_BASE_FILTER (self);
  FlowSettings s = snapshot (self);
  if (!output_fits (s.output, gst_cv_base_filter_in_info (base), gst_cv_base_filter_out_info (base)))
    s.output = self->state->negotiated;
  if (s.output == GST_CUDA_FLOW_OUTPUT_FLOW_COLOR)
    s.mode = GST_CUDA_FLOW_MODE_DENSE;
  return s;
}

/* ------------------------------------------------------------ tracking */

/* Sparse mode, after a frame's tracking: find new points when nothing
 * was tracked into the frame (first frame), none is left, the interval is
 * over, or fewer than half of those detected are still tracked. `alive`:
 * the frame's points still tracked; `detected`: the list's length, set by
 * the last detection. */
static bool
need_detection (int * frames_since_detect, int redetect_interval, bool tracked_frame, size_t alive, size_t detected)
{
  if (!tracked_frame)
    return true;
  (*frames_since_detect)++;
  return alive == 0 || (redetect_interval > 0 && *frames_since_detect >= redetect_interval) || alive * 2 < detected;
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

/* Sparse mode, before a frame's tracking: the decision for the frame
 * before (FlowDetectPending), and its detection, whose points the session
 * takes on the device. */
static GstFlowReturn
detect_for_previous (GstCudaFlow * self, cudaStream_t stream, const cudavision::LaunchPolicy & policy)
{
  GstCvBaseFilter *base = GST_CV_BASE_FILTER (self);
  FlowState & st = *self->state;
  FlowDetectPending & d = st.decide;
  d.valid = false;
  size_t alive = 0, listed = 0;
  if (d.tracked) {
    /* the frame before's results: ready by now unless the GPU is behind */
    const cudavision::FlowResultsHeader *head = nullptr;
    const cudavision::FlowVector *v = nullptr;
    GstFlowReturn ret = gst_cv_base_filter_check (base, st.session.results (d.slot, &head, &v), "flow results");
    if (ret != GST_FLOW_OK)
      return ret;
    alive = head->tracked;
    listed = head->listed;
  }
  if (!need_detection (&st.frames_since_detect, d.redetect_interval, d.tracked, alive, listed))
    return GST_FLOW_OK;
  st.frames_since_detect = 0;
  if (d.has_meta) {
    GST_LOG_OBJECT (self, "%zu points to track", d.meta_xy.size () / 2);
    return gst_cv_base_filter_check (base, st.session.set_points (d.meta_xy, stream), "point upload");
  }
  GstFlowReturn ret = gst_cv_base_filter_check (base,
      st.detector.enqueue (st.session.previous_luma (), d.detect, policy, stream), "corner detection");
  if (ret == GST_FLOW_OK)
    ret = gst_cv_base_filter_check (base, st.session.set_points (st.detector.device_list (), st.detector.device_count (),
        st.detector.list_capacity (), stream), "new points");
  return ret;
}

/* draw=true's canvases on a mapped output frame. */
static cudavision::FlowOverlay
frame_overlay (const FlowSettings & s, GstVideoFrame * frame)
{
  return { gst_cv_frame_canvas (frame, s.color), gst_cv_frame_canvas (frame, s.marker_color) };
}

static GstFlowReturn
gst_cuda_flow_process_gpu (GstCvBaseFilter * base, GstBuffer * inbuf, GstVideoFrame * in, GstVideoFrame * out)
{
  GstCudaFlow *self = GST_CUDA_FLOW (base);
  FlowState & st = *self->state;
  const FlowSettings & s = st.frame;
  cudaStream_t stream = gst_cv_base_filter_stream (base);
  const cudavision::LaunchPolicy & policy = gst_cv_base_filter_policy (base);
  const cudavision::ConstImage8 src = gst_cv_frame_const_plane (in, 0);
  cudavision::Image8 dst = gst_cv_frame_plane (out, 0);
  const cudavision::LumaInput input { src, self->luma.gray, self->luma.layout };
  const bool dense = s.mode == GST_CUDA_FLOW_MODE_DENSE;
  const bool color = s.output == GST_CUDA_FLOW_OUTPUT_FLOW_COLOR;
  st.pending.begin_gpu_frame (gst_cv_base_filter_holds_results (base));
  /* the results blocks that leave in the metas keep the context alive */
  if (!st.session.has_block_memory ())
    st.session.set_block_memory (gst_cv_context_pinned_memory (gst_cv_base_filter_context (base)));

  /* Everything the frame needs from the GPU is queued, in stream order:
   * (sparse) the detection for the frame before when it needs one, then
   * one graph: the frame copy and level 0, the pyramid's other levels, the
   * tracking, the vectors into the frame's results slot (pinned host
   * memory) and their drawing on the copy; then, where the graph could
   * not draw them (the frame not in the graph), the drawing. finish_frame
   * then waits for the slot: at once, or with latency-frames=1 after the
   * next frame is queued. */
  const cudavision::FlowOverlay overlay = frame_overlay (s, out);
  const cudavision::FlowOverlay *draw = s.draw && !color ? &overlay : nullptr;
  /* NV12, I420 passed through: the chroma here, the luma with level 0 */
  GstFlowReturn ret = color ? GST_FLOW_OK
                            : gst_cv_base_filter_check (base,
                                  gst_cv_luma_input_copy_chroma_gpu (self->luma, in, out, stream), "chroma copy");
  if (ret == GST_FLOW_OK)
    ret = gst_cv_base_filter_check (base,
        st.session.push_frame (input, s.lk, policy, stream, color ? nullptr : &dst, true), "pyramid");
  if (ret != GST_FLOW_OK)
    return ret;
  const bool tracked_frame = st.session.has_previous ();
  if (!dense && st.decide.valid && tracked_frame) {
    ret = detect_for_previous (self, stream, policy);
    if (ret != GST_FLOW_OK)
      return ret;
  }
  st.decide.valid = false;
  if (dense)
    ret = gst_cv_base_filter_check (base, st.session.enqueue_dense (s.grid_step, s.lk, policy, stream, draw),
        "dense flow");
  else
    ret = gst_cv_base_filter_check (base, st.session.enqueue_sparse (s.lk, policy, stream, draw), "sparse flow");
  if (ret == GST_FLOW_OK && color)
    ret = gst_cv_base_filter_check (base, st.session.color (s.grid_step, (float) s.max_flow, dst, policy, stream),
        "flow colours");
  else if (ret == GST_FLOW_OK && draw)
    ret = gst_cv_base_filter_check (base, st.session.draw (overlay, !dense, policy, stream), "flow drawing");
  if (ret != GST_FLOW_OK)
    return ret;

  FlowPending frame;
  frame.slot = st.session.frame_slot ();
  frame.grid_step = dense && tracked_frame ? s.grid_step : 0;
  st.pending.push (std::move (frame));
  if (!dense) {
    /* decided when the next frame comes (FlowDetectPending) */
    FlowDetectPending & d = st.decide;
    d.valid = true;
    d.tracked = tracked_frame;
    d.slot = st.session.frame_slot ();
    d.has_meta = points_from_meta (inbuf, s, &d.meta_xy);
    d.detect = s.detect;
    d.redetect_interval = s.redetect_interval;
  }
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_cuda_flow_process_cpu (GstCvBaseFilter * base, GstBuffer * inbuf, GstVideoFrame * in, GstVideoFrame * out)
{
  GstCudaFlow *self = GST_CUDA_FLOW (base);
  FlowState & st = *self->state;
  const FlowSettings & s = st.frame;
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
    FlowPending frame;
    std::vector<cudavision::FlowVector> & results = frame.cpu;
    if (tracked_frame && dense) {
      frame.grid_step = s.grid_step;
      results = cudavision::cpu::track_lk (prev_c, cur_c, cudavision::cpu::grid_points (w, h, s.grid_step), s.lk,
          true);
    } else if (tracked_frame) {
      results = cudavision::cpu::track_lk (prev_c, cur_c, st.cpu_points, s.lk, true);
    }

    if (s.output == GST_CUDA_FLOW_OUTPUT_FLOW_COLOR) {
      cudavision::cpu::flow_color (results, s.grid_step, (float) s.max_flow, dst);
    } else {
      gst_cv_luma_input_copy_cpu (self->luma, src, dst);
      gst_cv_luma_input_copy_chroma_cpu (self->luma, in, out);
      if (s.draw)
        cudavision::cpu::draw_flow (frame_overlay (s, out), results, !dense);
    }

    if (!dense) {
      /* the tracked points go on; lost ones are dropped */
      st.cpu_points.clear ();
      for (const auto & v : results) {
        if (v.status) {
          st.cpu_points.push_back (v.x);
          st.cpu_points.push_back (v.y);
        }
      }
      if (need_detection (&st.frames_since_detect, s.redetect_interval, tracked_frame, st.cpu_points.size () / 2,
              st.detected)) {
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
    st.pending.clear ();
    st.pending.push (std::move (frame));
  } catch (const std::exception & e) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("OpenCV failed on a %dx%d frame", w, h), ("%s", e.what ()));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

/* ---------------------------------------------------- results and resets */

static void
post_flow_message (GstCudaFlow * self, GstBuffer * inbuf, const cudavision::FlowVector * r, size_t n)
{
  std::vector<double> d;
  d.reserve (n);
  for (size_t i = 0; i < n; i++)
    if (r[i].status)
      d.push_back (std::hypot ((double) r[i].x - r[i].prev_x, (double) r[i].y - r[i].prev_y));
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
  gst_structure_set (st, "points", G_TYPE_UINT, (guint) n, "count", G_TYPE_UINT, (guint) d.size (), "mean",
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

/* The base class runs the frame (and finishes it, or holds it with
 * latency-frames=1) with the settings read here once; a restart first
 * where the stream or a new mode asks for one. */
static GstFlowReturn
gst_cuda_flow_transform (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstCudaFlow *self = GST_CUDA_FLOW (trans);
  FlowState & st = *self->state;
  st.frame = frame_settings (self);
  /* the other mode's points, list or decision are no use to this one */
  const bool new_mode = st.frame.mode != st.mode;
  st.mode = st.frame.mode;
  if (st.reset_pending || new_mode || discontinuous (self, inbuf)) {
    GST_DEBUG_OBJECT (self, "starting again at %" GST_TIME_FORMAT "%s", GST_TIME_ARGS (GST_BUFFER_PTS (inbuf)),
        new_mode ? " (new mode)" : "");
    st.reset ();
  }
  GstFlowReturn ret = GST_BASE_TRANSFORM_CLASS (gst_cuda_flow_parent_class)->transform (trans, inbuf, outbuf);
  if (ret != GST_FLOW_OK) {
    st.reset_pending = true;
    return ret;
  }
  st.last_pts = GST_BUFFER_PTS (inbuf);
  return GST_FLOW_OK;
}

/* GstCvFlowVector is FlowVector's layout: the results block (pinned host
 * memory the GPU writes) goes into the meta as it is. */
static_assert (sizeof (GstCvFlowVector) == sizeof (cudavision::FlowVector), "flow vector layout");
static_assert (offsetof (GstCvFlowVector, prev_x) == offsetof (cudavision::FlowVector, prev_x) &&
        offsetof (GstCvFlowVector, prev_y) == offsetof (cudavision::FlowVector, prev_y) &&
        offsetof (GstCvFlowVector, x) == offsetof (cudavision::FlowVector, x) &&
        offsetof (GstCvFlowVector, y) == offsetof (cudavision::FlowVector, y) &&
        offsetof (GstCvFlowVector, status) == offsetof (cudavision::FlowVector, status),
    "flow vector layout");

/* The vectors into `outbuf`'s meta: the GPU's block itself when there is
 * one (the meta gives it back to the pool when freed), else a copy (CPU
 * backend, or the pool had no block left). */
static GstCvFlowMeta *
add_flow_meta (GstBuffer * outbuf, const cudavision::FlowVector * v, size_t n, cudavision::HostBlockPtr block)
{
  const GstCvFlowVector *gv = reinterpret_cast<const GstCvFlowVector *> (v);
  if (!block || n == 0)
    return gst_buffer_add_cv_flow_meta (outbuf, gv, (guint) n);
  /* the meta is now the block's only holder: no one writes it any more */
  return gst_buffer_add_cv_flow_meta_full (outbuf, const_cast<GstCvFlowVector *> (gv), (guint) n,
      cudavision::host_block_release, block.release ());
}

/* The oldest pending frame's vectors onto its output buffer (which
 * process_gpu does not see: it gets a staging frame at system-memory
 * edges), and its message. */
static GstFlowReturn
gst_cuda_flow_finish_frame (GstCvBaseFilter * base, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstCudaFlow *self = GST_CUDA_FLOW (base);
  FlowState & st = *self->state;
  FlowPending frame;
  if (!st.pending.take (base, &frame))
    return GST_FLOW_ERROR;
  const cudavision::FlowVector *v = frame.cpu.data ();
  size_t n = frame.cpu.size ();
  cudavision::HostBlockPtr block;
  if (frame.slot >= 0) {
    const cudavision::FlowResultsHeader *head = nullptr;
    GstFlowReturn ret = gst_cv_base_filter_check (base, st.session.results (frame.slot, &head, &v, &block),
        "flow results");
    if (ret != GST_FLOW_OK)
      return ret;
    n = head->count;
  }
  /* before the meta, which may free the vectors if it cannot be added */
  if (snapshot (self).post_messages)
    post_flow_message (self, inbuf, v, n);
  GstCvFlowMeta *m = add_flow_meta (outbuf, v, n, std::move (block));
  if (m && frame.grid_step > 0 && n > 0) {
    const GstVideoInfo *info = gst_cv_base_filter_in_info (base);
    m->grid_step = (guint) frame.grid_step;
    m->grid_cols = (guint) cudavision::flow_grid_cols (GST_VIDEO_INFO_WIDTH (info), frame.grid_step);
    m->grid_rows = (guint) cudavision::flow_grid_rows (GST_VIDEO_INFO_HEIGHT (info), frame.grid_step);
  }
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
  st.pending.clear ();
  st.decide = FlowDetectPending ();
  st.session.release ();
  st.detector.release ();
  st.reset_pending = true;
}

/* The next run starts from nothing, whatever its caps (release_device
 * runs on the GPU only). */
static gboolean
gst_cuda_flow_stop (GstBaseTransform * trans)
{
  const gboolean ret = GST_BASE_TRANSFORM_CLASS (gst_cuda_flow_parent_class)->stop (trans);
  FlowState & st = *GST_CUDA_FLOW (trans)->state;
  st.reset_pending = true;
  st.has_in_info = false;
  return ret;
}

/* ----------------------------------------------------------- properties */

static void
gst_cuda_flow_set_property (GObject * object, guint prop_id, const GValue * value, GParamSpec * pspec)
{
  GstCudaFlow *self = GST_CUDA_FLOW (object);
  if (prop_id == PROP_LATENCY_FRAMES) {
    gst_cv_base_filter_set_latency_frames (GST_CV_BASE_FILTER (self), value);
    return;
  }
  bool reconfigure = false;
  const gchar *refused = nullptr;
  GST_OBJECT_LOCK (self);
  FlowSettings & s = *self->settings;
  /* Flow colours need the dense grid. Stopped, the pair is checked when
   * the caps are (properties come in any order); running, a change that
   * would break it is refused and the frames go on as they were. */
  const bool running = GST_STATE (self) >= GST_STATE_PAUSED;
  switch (prop_id) {
    case PROP_MODE: {
      const GstCudaFlowMode mode = (GstCudaFlowMode) g_value_get_enum (value);
      if (running && mode != GST_CUDA_FLOW_MODE_DENSE && s.output == GST_CUDA_FLOW_OUTPUT_FLOW_COLOR)
        refused = "mode=sparse while output=flow-color: set output=passthrough first";
      else
        s.mode = mode;
      break;
    }
    case PROP_OUTPUT: {
      const GstCudaFlowOutput output = (GstCudaFlowOutput) g_value_get_enum (value);
      if (running && output == GST_CUDA_FLOW_OUTPUT_FLOW_COLOR && s.mode != GST_CUDA_FLOW_MODE_DENSE) {
        refused = "output=flow-color in sparse mode: set mode=dense first";
      } else {
        reconfigure = output != s.output;
        s.output = output;
      }
      break;
    }
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
    case PROP_COLOR: s.color = g_value_get_uint (value); break;
    case PROP_MARKER_COLOR: s.marker_color = g_value_get_uint (value); break;
    case PROP_POST_MESSAGES: s.post_messages = g_value_get_boolean (value); break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
  if (refused)
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS, ("Refused %s", refused),
        ("flow colours come from the dense mode's grid; the property keeps its value"));
  /* new caps (transform_video_caps) before the next frame */
  if (reconfigure)
    gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
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
    case PROP_COLOR: g_value_set_uint (value, s.color); break;
    case PROP_MARKER_COLOR: g_value_set_uint (value, s.marker_color); break;
    case PROP_POST_MESSAGES: g_value_set_boolean (value, s.post_messages); break;
    case PROP_LATENCY_FRAMES: gst_cv_base_filter_get_latency_frames (GST_CV_BASE_FILTER (self), value); break;
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
      g_param_spec_enum ("mode", "Mode",
          "Sparse corners or a dense grid (a change while playing starts the tracking again; not to sparse while "
          "output=flow-color)",
          GST_TYPE_CUDA_FLOW_MODE, DEFAULT_MODE, GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_OUTPUT,
      g_param_spec_enum ("output", "Output",
          "What the source pad carries (a change while playing renegotiates the caps before the next frame; "
          "flow-color only in dense mode)",
          GST_TYPE_CUDA_FLOW_OUTPUT, DEFAULT_OUTPUT, GST_CV_PARAM_RW_PLAYING));
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
          "Draw the motion vectors (lines in `color`, crosses at the tracked points in `marker-color` in sparse "
          "mode; white on GRAY8)",
          FALSE, GST_CV_PARAM_RW_PLAYING));
  gst_cv_overlay_install_color (gobject_class, PROP_COLOR, cudavision::kFlowLineColor,
      "Colour of the motion vectors, 0xAARRGGBB (opaque: alpha only fills an alpha channel of the frame)");
  g_object_class_install_property (gobject_class, PROP_MARKER_COLOR,
      g_param_spec_uint ("marker-color", "Marker colour",
          "Colour of the crosses at the tracked points (sparse mode), 0xAARRGGBB", 0, G_MAXUINT32,
          cudavision::kCornerMarkerColor, GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post a \"cudaflow\" element message per frame with the count, mean and median displacement", FALSE,
          GST_CV_PARAM_RW_PLAYING));
  gst_cv_base_filter_class_install_latency_frames (gobject_class, PROP_LATENCY_FRAMES);

  gst_element_class_set_static_metadata (element_class, "CUDA optical flow", "Filter/Analyzer/Video/Hardware",
      "Pyramidal Lucas-Kanade optical flow on an NVIDIA GPU, as OpenCV's calcOpticalFlowPyrLK computes it",
      "cudavision developers");
  gst_cv_base_filter_class_add_pad_templates (element_class, FLOW_FORMATS, FLOW_FORMATS);

  trans_class->transform = gst_cuda_flow_transform;
  trans_class->stop = gst_cuda_flow_stop;
  trans_class->sink_event = gst_cuda_flow_sink_event;
  cv_class->transform_video_caps = gst_cuda_flow_transform_video_caps;
  cv_class->set_info = gst_cuda_flow_set_info;
  cv_class->process_gpu = gst_cuda_flow_process_gpu;
  cv_class->process_cpu = gst_cuda_flow_process_cpu;
  cv_class->release_device = gst_cuda_flow_release_device;
  cv_class->finish_frame = gst_cuda_flow_finish_frame;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_flow_debug, "cudavision-flow", 0, "cudaflow element");
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
