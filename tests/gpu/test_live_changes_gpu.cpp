/* Properties that shape the caps or the frame layout, changed while
 * PLAYING on the GPU (backend=cuda): cudaharris's `output`, cudaflow's
 * `output` and `mode`, set between two frames of a running appsrc !
 * element ! appsink pipeline, out in system memory and in device frames
 * (memory:CudaVisionMemory); the held frames of latency-frames=1 (device
 * memory on both pads) across a renegotiation. Every buffer must agree
 * with the caps it arrives with (system memory: its size the caps' frame
 * size; device frames: a video meta of the caps' format whose planes lie
 * in the buffer), its bytes the output those caps describe (the input
 * frame, the response map of its luma within a grey level of OpenCV's,
 * the flow colours of its own vectors), a change applying from the next
 * frame on; a change the element cannot make is refused with a warning
 * naming the property. tests/gst/test_live_changes_cpu.cpp is the CPU
 * backend's counterpart (exact there). Skips (exit 77) without a CUDA
 * device. */
#include "../common/flow_ref.h"
#include "../common/harris_ref.h"
#include "../common/test_util.h"

#include "../../cpu/flow_cpu.h"
#include "gstcvflowmeta.h"
#include "gstcvkeypointsmeta.h"
#include "gstcvmemory.h"

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include <functional>

using namespace cvtest;
using cudavision::FlowParams;
using cudavision::FlowVector;

namespace {

constexpr int kWidth = 160, kHeight = 120;
constexpr size_t kFrames = 9;
/* cudaflow's dense settings in these tests */
constexpr int kStep = 6;
constexpr float kMaxFlow = 4.f;

/* Where the frames go out: system memory or our device frames. */
struct OutMemory {
  const char *name;
  const char *tail;
  bool device;
};
const OutMemory kOutMemories[] = {
  { "system memory", "video/x-raw ! ", false },
  { "device memory", "video/x-raw(" GST_CAPS_FEATURE_MEMORY_CUDAVISION ") ! ", true },
};

/* kFrames crops of a colour picture moving 2 px left and 1 px up a frame. */
std::vector<cv::Mat>
moving_pictures ()
{
  static const cv::Mat photo = load_rgb (data_path ("astronaut.png"));
  std::vector<cv::Mat> v;
  for (size_t k = 0; k < kFrames; k++)
    v.push_back (photo (cv::Rect (180 + 2 * (int) k, 120 + (int) k, kWidth, kHeight)).clone ());
  return v;
}

/* What an appsink received, and what the bus said. */
struct LiveRun {
  std::vector<GstSample *> samples;
  std::vector<std::string> errors, warnings;
  /* samples out once each frame was pushed */
  std::vector<size_t> out_when_pushed;

  LiveRun () = default;
  LiveRun (const LiveRun &) = delete;
  LiveRun & operator= (const LiveRun &) = delete;
  ~LiveRun ()
  {
    for (GstSample *s : samples)
      gst_sample_unref (s);
  }
  GstBuffer *buffer (size_t k) const { return gst_sample_get_buffer (samples[k]); }
  GstCaps *caps (size_t k) const { return gst_sample_get_caps (samples[k]); }
  GstVideoInfo info (size_t k) const
  {
    GstVideoInfo i;
    gst_video_info_init (&i);
    EXPECT_TRUE (gst_video_info_from_caps (&i, caps (k)));
    return i;
  }
  bool has_warning_containing (const std::string & s) const
  {
    for (const std::string & w : warnings)
      if (w.find (s) != std::string::npos)
        return true;
    return false;
  }
  std::string first_error () const { return errors.empty () ? "no error" : errors[0]; }
};

/* Errors and warnings posted so far into `r`; true once there was an error. */
bool
drain_bus (GstBus * bus, LiveRun * r)
{
  while (GstMessage *m = gst_bus_pop_filtered (bus, (GstMessageType) (GST_MESSAGE_ERROR | GST_MESSAGE_WARNING))) {
    GError *e = nullptr;
    gchar *dbg = nullptr;
    const bool is_error = GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR;
    if (is_error)
      gst_message_parse_error (m, &e, &dbg);
    else
      gst_message_parse_warning (m, &e, &dbg);
    const std::string text = std::string (GST_OBJECT_NAME (GST_MESSAGE_SRC (m))) + ": " + e->message + " | " +
        (dbg ? dbg : "");
    (is_error ? r->errors : r->warnings).push_back (text);
    g_clear_error (&e);
    g_free (dbg);
    gst_message_unref (m);
  }
  return !r->errors.empty ();
}

/* The next sample; nullptr at EOS, after an error or a timeout. */
GstSample *
pull (GstElement * sink, GstBus * bus, LiveRun * r)
{
  const gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  while (g_get_monotonic_time () < deadline) {
    if (GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 20 * GST_MSECOND))
      return s;
    if (gst_app_sink_is_eos (GST_APP_SINK (sink)) || drain_bus (bus, r))
      return nullptr;
  }
  r->errors.push_back ("timeout");
  return nullptr;
}

/* A property change before frame k is pushed. */
using Change = std::function<void (size_t k, GstElement * element)>;

/* `seq`'s frames through "appsrc ! `element` ! `tail` appsink" (the last
 * element of `element` is the one changed), one at a time: frame k is
 * pushed, after `change (k, element)`, once frame k - 1 - `held` is out
 * (`held` = 1: latency-frames=1 keeps one frame back), so that a change
 * made there applies from frame k on, while the pipeline plays (held:
 * the frame held back when a renegotiation comes leaves before the new
 * frame is processed, so changes lie two frames apart at least). Stops
 * at an error. */
void
run_live (LiveRun * r, const std::string & element, const FrameSequence & seq, const Change & change,
    const std::string & tail, size_t held = 0)
{
  const std::string desc = "appsrc name=src format=time caps=\"" + seq.caps + "\" ! " + element + " name=el ! " +
      tail + "appsink name=out sync=false";
  GError *err = nullptr;
  GstElement *pipe = gst_parse_launch (desc.c_str (), &err);
  if (!pipe || err) {
    ADD_FAILURE () << "cannot build " << desc << ": " << (err ? err->message : "?");
    g_clear_error (&err);
    if (pipe)
      gst_object_unref (pipe);
    return;
  }
  if (shared_context ())
    gst_element_set_context (pipe, shared_context ());
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  GstElement *el = gst_bin_get_by_name (GST_BIN (pipe), "el");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "out");
  GstBus *bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  std::vector<FlowInput> inputs = seq.inputs ();
  bool stopped = false;
  for (size_t k = 0; k < inputs.size (); k++) {
    GstBuffer *b = inputs[k].buffer;
    inputs[k].buffer = nullptr;
    if (stopped) {
      gst_buffer_unref (b);
      continue;
    }
    change (k, el);
    GST_BUFFER_PTS (b) = k * 40 * GST_MSECOND;
    GST_BUFFER_DURATION (b) = 40 * GST_MSECOND;
    gst_app_src_push_buffer (GST_APP_SRC (src), b);
    if (k >= held) {
      if (GstSample *s = pull (sink, bus, r))
        r->samples.push_back (s);
      else
        stopped = true;
    }
    r->out_when_pushed.push_back (r->samples.size ());
  }
  if (!stopped) {
    gst_app_src_end_of_stream (GST_APP_SRC (src));
    while (GstSample *s = pull (sink, bus, r))
      r->samples.push_back (s);
  }
  /* before NULL, which flushes the bus */
  drain_bus (bus, r);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (el);
  gst_object_unref (src);
  gst_object_unref (pipe);
}

/* `property` set before frame k when k is one of `at`, alternating
 * between `first` and `second`: first at at[0], second at at[1], ... */
Change
switch_at (const char *property, std::vector<size_t> at, const char *first, const char *second)
{
  return [=] (size_t k, GstElement * e) {
    for (size_t i = 0; i < at.size (); i++)
      if (at[i] == k)
        gst_util_set_object_arg (G_OBJECT (e), property, i % 2 == 0 ? first : second);
  };
}

GstVideoFormat
format_of (const LiveRun & r, size_t k)
{
  const GstVideoInfo info = r.info (k);
  return GST_VIDEO_INFO_FORMAT (&info);
}

/* Buffer k holds a frame of its caps: in system memory exactly the
 * caps' frame size; a device frame (pitched rows) with a video meta of
 * the caps' format and size whose planes lie inside the buffer. */
void
expect_layout (const LiveRun & r, size_t k, bool device)
{
  const GstVideoInfo info = r.info (k);
  EXPECT_EQ (GST_VIDEO_INFO_WIDTH (&info), kWidth);
  EXPECT_EQ (GST_VIDEO_INFO_HEIGHT (&info), kHeight);
  EXPECT_EQ (gst_caps_features_contains (gst_caps_get_features (r.caps (k), 0), GST_CAPS_FEATURE_MEMORY_CUDAVISION),
      device);
  GstBuffer *b = r.buffer (k);
  const gsize size = gst_buffer_get_size (b);
  if (!device) {
    EXPECT_EQ (size, GST_VIDEO_INFO_SIZE (&info));
    return;
  }
  const GstVideoMeta *m = gst_buffer_get_video_meta (b);
  ASSERT_NE (m, nullptr);
  EXPECT_EQ (m->format, GST_VIDEO_INFO_FORMAT (&info));
  EXPECT_EQ ((int) m->width, kWidth);
  EXPECT_EQ ((int) m->height, kHeight);
  ASSERT_EQ (m->n_planes, GST_VIDEO_INFO_N_PLANES (&info));
  for (guint p = 0; p < m->n_planes; p++) {
    gint comps[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component (info.finfo, p, comps);
    const gsize rows = (gsize) GST_VIDEO_INFO_COMP_HEIGHT (&info, comps[0]);
    const gsize row_bytes = (gsize) GST_VIDEO_INFO_COMP_WIDTH (&info, comps[0]) *
        (gsize) GST_VIDEO_INFO_COMP_PSTRIDE (&info, comps[0]);
    EXPECT_GE ((gsize) m->stride[p], row_bytes) << "plane " << p;
    EXPECT_LE (m->offset[p] + (gsize) m->stride[p] * rows, size) << "plane " << p;
  }
}

/* The GRAY8 response map of `luma`: within one grey level of OpenCV's (1e-4
 * of the maximum can move a rounding), on nearly all pixels exactly. */
void
expect_response (const cv::Mat & got, const cv::Mat & luma)
{
  const cv::Mat want = opencv_normalized_response (luma, cudavision::CornerParams ());
  const Diff d = compare (got, want);
  EXPECT_LE (d.max_abs, 1);
  EXPECT_LE (d.differing, (long) want.total () / 1000 + 1);
}

/* ---------------------------------------------------------------- harris */

/* output=response on frames 3 to 5, passthrough before and after, set
 * while playing, out in system and device memory: the response map
 * (GRAY8, new caps unless the input is GRAY8 already) from frame 3, the
 * input frame again from frame 6 in its own caps; the corners on every
 * frame. */
TEST (LiveChangesGpu, HarrisOutputFollowsTheProperty)
{
  const std::vector<cv::Mat> pictures = moving_pictures ();
  for (const OutMemory & mem : kOutMemories) {
    for (GstVideoFormat f : { GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12 }) {
      const FrameSequence seq ("astronaut", pictures, f);
      SCOPED_TRACE (seq.what + ", " + mem.name);
      LiveRun r;
      run_live (&r, "cudaharris backend=cuda", seq, switch_at ("output", { 3, 6 }, "response", "passthrough"),
          mem.tail);
      ASSERT_EQ (r.samples.size (), kFrames) << r.first_error ();
      EXPECT_TRUE (r.errors.empty ()) << r.first_error ();
      for (size_t k = 0; k < kFrames; k++) {
        SCOPED_TRACE ("frame " + std::to_string (k));
        const bool response = k >= 3 && k < 6;
        EXPECT_EQ (format_of (r, k), response ? GST_VIDEO_FORMAT_GRAY8 : f);
        expect_layout (r, k, mem.device);
        const std::vector<cv::Mat> planes = buffer_planes (r.buffer (k), r.caps (k));
        if (response) {
          ASSERT_EQ (planes.size (), 1u);
          expect_response (planes[0], seq.luma[k]);
        } else {
          EXPECT_EQ (diff_planes (planes, seq.planes[k]), "");
        }
        EXPECT_NE (gst_buffer_get_cv_keypoints_meta (r.buffer (k)), nullptr);
      }
    }
  }
}

/* ------------------------------------------------------------------ flow */

const std::string kDense = "cudaflow backend=cuda mode=dense grid-step=" + std::to_string (kStep) + " max-flow=4";

/* Vectors against OpenCV's on the same points: status agreement >= 98%,
 * median endpoint error <= 0.1 px, most points tracked (test_flow_gpu's
 * bounds). */
void
expect_like_opencv (const std::vector<FlowVector> & got, const std::vector<FlowVector> & ref)
{
  const FlowCompare c = compare_flow (got, ref);
  EXPECT_GE (c.agreement (), 0.98) << c.str ();
  EXPECT_LE (c.median, 0.1) << c.str ();
  EXPECT_GT (c.both, c.n / 2) << c.str ();
}

/* Frame k's grid vectors (from frame k - 1) against OpenCV's. */
void
expect_dense (const FrameSequence & s, size_t k, const FlowFrame & got)
{
  EXPECT_EQ (got.grid_step, (unsigned) kStep);
  const std::vector<FlowVector> ref =
      clipped (opencv_lk (s.luma[k - 1], s.luma[k], grid_points (kWidth, kHeight, kStep), FlowParams ()), kWidth,
          kHeight);
  EXPECT_EQ (got.vectors.size (), ref.size ());
  expect_like_opencv (got.vectors, ref);
}

/* Frame k's sparse vectors: their own starting points tracked as OpenCV
 * tracks them, and, on the first frame tracked after a (re)start, those
 * points goodFeaturesToTrack's of frame k - 1. */
void
expect_sparse (const FrameSequence & s, size_t k, const FlowFrame & got, bool first_tracked)
{
  EXPECT_EQ (got.grid_step, 0u);
  ASSERT_FALSE (got.vectors.empty ());
  const cv::Mat & a = s.luma[k - 1], & b = s.luma[k];
  expect_like_opencv (got.vectors, clipped (opencv_lk (a, b, prev_points (got.vectors), FlowParams ()), kWidth,
      kHeight));
  if (first_tracked) {
    std::vector<cudavision::Corner> pts, want;
    for (const FlowVector & v : got.vectors)
      pts.push_back ({ v.prev_x, v.prev_y, 0 });
    for (const cv::Point2f & q : opencv_features (a, 500))
      want.push_back ({ q.x, q.y, 0 });
    EXPECT_GE (recall (pts, want, 1.0), 0.95) << pts.size () << " points vs OpenCV's " << want.size ();
  }
}

/* output=flow-color as the GPU paints it from the vectors on the buffer:
 * the CPU backend's colours within one level on 99% of the pixels (the
 * hue's float arithmetic differs). */
void
expect_flow_colours (const cv::Mat & got, const std::vector<FlowVector> & v)
{
  cv::Mat want (kHeight, kWidth, CV_8UC4);
  cudavision::cpu::flow_color (v, kStep, kMaxFlow, { want.data, want.step, want.cols, want.rows });
  const Diff d = compare (got, want);
  EXPECT_LE (d.max_abs, 1);
  EXPECT_LE (d.differing, (long) want.total () / 100);
}

/* Dense flow, output=flow-color on frames 3 to 5, set while playing, out
 * in system and device memory: RGBA (new caps unless the input is RGBA),
 * the colours of the frame's own vectors, then the input frame again in
 * its own caps. The input caps stay, so the tracking goes on across the
 * switches. The GRAY8 case colours RGBA rows into GRAY8 frames without
 * the fix (issue 36). */
TEST (LiveChangesGpu, FlowOutputFollowsTheProperty)
{
  const std::vector<cv::Mat> pictures = moving_pictures ();
  for (const OutMemory & mem : kOutMemories) {
    for (GstVideoFormat f : { GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12 }) {
      const FrameSequence seq ("astronaut", pictures, f);
      SCOPED_TRACE (seq.what + ", " + mem.name);
      LiveRun r;
      run_live (&r, kDense, seq, switch_at ("output", { 3, 6 }, "flow-color", "passthrough"), mem.tail);
      ASSERT_EQ (r.samples.size (), kFrames) << r.first_error ();
      EXPECT_TRUE (r.errors.empty ()) << r.first_error ();
      for (size_t k = 0; k < kFrames; k++) {
        SCOPED_TRACE ("frame " + std::to_string (k));
        const bool colour = k >= 3 && k < 6;
        EXPECT_EQ (format_of (r, k), colour ? GST_VIDEO_FORMAT_RGBA : f);
        expect_layout (r, k, mem.device);
        const FlowFrame got = flow_frame (r.buffer (k), r.caps (k));
        EXPECT_TRUE (got.has_meta);
        if (k > 0)
          expect_dense (seq, k, got);
        else
          EXPECT_TRUE (got.vectors.empty ());
        if (colour)
          expect_flow_colours (got.out, got.vectors);
        else
          EXPECT_EQ (diff_planes (got.planes, seq.planes[k]), "");
      }
    }
  }
}

/* mode=dense on frames 3 to 5, sparse before and after, set while playing
 * (output=passthrough: the caps stay): each change starts the tracking
 * again; the frame of the change has no vectors, the next ones those of
 * the new mode (the session's points and its pending decision to detect
 * are the other mode's no more). */
TEST (LiveChangesGpu, FlowModeChangeStartsAgain)
{
  const std::vector<cv::Mat> pictures = moving_pictures ();
  for (const OutMemory & mem : kOutMemories) {
    for (GstVideoFormat f : { GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_RGBA }) {
      const FrameSequence seq ("astronaut", pictures, f);
      SCOPED_TRACE (seq.what + ", " + mem.name);
      LiveRun r;
      run_live (&r, "cudaflow backend=cuda grid-step=" + std::to_string (kStep), seq,
          switch_at ("mode", { 3, 6 }, "dense", "sparse"), mem.tail);
      ASSERT_EQ (r.samples.size (), kFrames) << r.first_error ();
      EXPECT_TRUE (r.errors.empty ()) << r.first_error ();
      for (size_t k = 0; k < kFrames; k++) {
        SCOPED_TRACE ("frame " + std::to_string (k));
        EXPECT_EQ (format_of (r, k), f);
        expect_layout (r, k, mem.device);
        const FlowFrame got = flow_frame (r.buffer (k), r.caps (k));
        EXPECT_TRUE (got.has_meta);
        EXPECT_EQ (diff_planes (got.planes, seq.planes[k]), "");
        if (k == 0 || k == 3 || k == 6)
          EXPECT_TRUE (got.vectors.empty ());
        else if (k > 3 && k < 6)
          expect_dense (seq, k, got);
        else
          expect_sparse (seq, k, got, k == 1 || k == 7);
      }
    }
  }
}

/* Flow colours come from the dense grid: while playing, output=flow-color
 * in sparse mode and mode=sparse with output=flow-color are refused with a
 * warning naming the property, which keeps its value; dense mode then
 * flow colours, in that order, are taken. */
TEST (LiveChangesGpu, FlowRefusesColoursWithoutTheGrid)
{
  const FrameSequence seq ("astronaut", moving_pictures (), GST_VIDEO_FORMAT_GRAY8);
  for (const OutMemory & mem : kOutMemories) {
    SCOPED_TRACE (mem.name);
    LiveRun r;
    std::vector<std::string> seen;
    auto property = [] (GstElement * e, const char *name) {
      GValue v = G_VALUE_INIT;
      g_object_get_property (G_OBJECT (e), name, &v);
      gchar *s = gst_value_serialize (&v);
      std::string out = s ? s : "";
      g_free (s);
      g_value_unset (&v);
      return out;
    };
    run_live (&r, "cudaflow backend=cuda grid-step=" + std::to_string (kStep) + " max-flow=4", seq,
        [&] (size_t k, GstElement * e) {
          if (k == 2) {
            gst_util_set_object_arg (G_OBJECT (e), "output", "flow-color");
            seen.push_back (property (e, "output"));
          } else if (k == 4) {
            gst_util_set_object_arg (G_OBJECT (e), "mode", "dense");
            gst_util_set_object_arg (G_OBJECT (e), "output", "flow-color");
            seen.push_back (property (e, "output"));
          } else if (k == 6) {
            gst_util_set_object_arg (G_OBJECT (e), "mode", "sparse");
            seen.push_back (property (e, "mode"));
          }
        },
        mem.tail);
    ASSERT_EQ (r.samples.size (), kFrames) << r.first_error ();
    EXPECT_TRUE (r.errors.empty ()) << r.first_error ();
    EXPECT_EQ (seen, (std::vector<std::string> { "passthrough", "flow-color", "dense" }));
    EXPECT_TRUE (r.has_warning_containing ("output=flow-color")) << r.warnings.size () << " warnings";
    EXPECT_TRUE (r.has_warning_containing ("mode=sparse")) << r.warnings.size () << " warnings";
    for (size_t k = 0; k < kFrames; k++) {
      SCOPED_TRACE ("frame " + std::to_string (k));
      const bool colour = k >= 4;
      EXPECT_EQ (format_of (r, k), colour ? GST_VIDEO_FORMAT_RGBA : GST_VIDEO_FORMAT_GRAY8);
      expect_layout (r, k, mem.device);
      const FlowFrame got = flow_frame (r.buffer (k), r.caps (k));
      if (colour)
        expect_flow_colours (got.out, got.vectors);
      else
        EXPECT_EQ (diff_planes (got.planes, seq.planes[k]), "");
    }
  }
}

/* ------------------------------------------------- held frames, renegotiated */

/* latency-frames=1 with device memory on both pads (an upstream element
 * of ours passes the frames through on the device): a frame leaves once
 * the next one is in. The renegotiation a change asks for pushes the held
 * frame first, in the caps it was made for; the next frames come in the
 * new caps, each with its own output. cudaharris on RGBA (response: GRAY8)
 * and cudaflow on GRAY8 (flow-color: RGBA). */
TEST (LiveChangesGpu, HeldFramesLeaveInTheirOwnCaps)
{
  const std::vector<cv::Mat> pictures = moving_pictures ();
  const std::string device = "video/x-raw(" GST_CAPS_FEATURE_MEMORY_CUDAVISION ") ! ";
  {
    SCOPED_TRACE ("cudaharris");
    const FrameSequence seq ("astronaut", pictures, GST_VIDEO_FORMAT_RGBA);
    LiveRun r;
    run_live (&r, "cudaharris backend=cuda ! " + device + "cudaharris backend=cuda latency-frames=1", seq,
        switch_at ("output", { 3, 6 }, "response", "passthrough"), device, 1);
    ASSERT_EQ (r.samples.size (), kFrames) << r.first_error ();
    EXPECT_TRUE (r.errors.empty ()) << r.first_error ();
    for (size_t k = 0; k < r.out_when_pushed.size (); k++)
      EXPECT_EQ (r.out_when_pushed[k], k) << "after frame " << k << ": one frame held";
    for (size_t k = 0; k < kFrames; k++) {
      SCOPED_TRACE ("frame " + std::to_string (k));
      const bool response = k >= 3 && k < 6;
      EXPECT_EQ (format_of (r, k), response ? GST_VIDEO_FORMAT_GRAY8 : GST_VIDEO_FORMAT_RGBA);
      expect_layout (r, k, true);
      const std::vector<cv::Mat> planes = buffer_planes (r.buffer (k), r.caps (k));
      if (response) {
        ASSERT_EQ (planes.size (), 1u);
        expect_response (planes[0], seq.luma[k]);
      } else {
        EXPECT_EQ (diff_planes (planes, seq.planes[k]), "");
      }
    }
  }
  {
    SCOPED_TRACE ("cudaflow");
    const FrameSequence seq ("astronaut", pictures, GST_VIDEO_FORMAT_GRAY8);
    LiveRun r;
    run_live (&r, "cudaflow backend=cuda mode=dense grid-step=64 ! " + device + kDense + " latency-frames=1", seq,
        switch_at ("output", { 3, 6 }, "flow-color", "passthrough"), device, 1);
    ASSERT_EQ (r.samples.size (), kFrames) << r.first_error ();
    EXPECT_TRUE (r.errors.empty ()) << r.first_error ();
    for (size_t k = 0; k < r.out_when_pushed.size (); k++)
      EXPECT_EQ (r.out_when_pushed[k], k) << "after frame " << k << ": one frame held";
    for (size_t k = 0; k < kFrames; k++) {
      SCOPED_TRACE ("frame " + std::to_string (k));
      const bool colour = k >= 3 && k < 6;
      EXPECT_EQ (format_of (r, k), colour ? GST_VIDEO_FORMAT_RGBA : GST_VIDEO_FORMAT_GRAY8);
      expect_layout (r, k, true);
      const FlowFrame got = flow_frame (r.buffer (k), r.caps (k));
      if (k > 0)
        expect_dense (seq, k, got);
      if (colour)
        expect_flow_colours (got.out, got.vectors);
      else
        EXPECT_EQ (diff_planes (got.planes, seq.planes[k]), "");
    }
  }
}

}  // namespace
