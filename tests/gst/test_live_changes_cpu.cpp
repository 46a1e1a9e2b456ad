/* Properties that shape the caps or the frame layout, changed while
 * PLAYING on the CPU backend (runs in CI): cudaharris's `output`,
 * cudaflow's `output` and `mode`, set between two frames of a running
 * appsrc ! element ! appsink pipeline. Every buffer must agree with the
 * caps it arrives with (its size the caps' frame size, its bytes the
 * output those caps describe: the input frame, the response map of its
 * luma, the flow colours of its own vectors), a change applies from the
 * next frame on, downstream (videoconvert) follows the new caps, and a
 * change the element cannot make is refused with a warning naming the
 * property. */
#include "../common/flow_ref.h"
#include "../common/harris_ref.h"
#include "../common/test_util.h"

#include "../../cpu/flow_cpu.h"
#include "gstcvflowmeta.h"
#include "gstcvkeypointsmeta.h"

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

/* `seq`'s frames through "appsrc ! `element` ! `tail` appsink", one at a
 * time: frame k is pushed, after `change (k, element)`, once frame k - 1
 * is out, so that a change made there applies from frame k on, while the
 * pipeline plays. Stops at an error. */
void
run_live (LiveRun * r, const std::string & element, const FrameSequence & seq, const Change & change,
    const std::string & tail = "")
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
    GstSample *s = pull (sink, bus, r);
    if (s)
      r->samples.push_back (s);
    else
      stopped = true;
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

/* `property` set to `nick` before frame k when k is one of `at`, alternating
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

/* The frame size, the buffer's size: the bytes cannot disagree with it. */
void
expect_frame_size (const LiveRun & r, size_t k)
{
  const GstVideoInfo info = r.info (k);
  EXPECT_EQ (GST_VIDEO_INFO_WIDTH (&info), kWidth);
  EXPECT_EQ (GST_VIDEO_INFO_HEIGHT (&info), kHeight);
  EXPECT_EQ (gst_buffer_get_size (r.buffer (k)), GST_VIDEO_INFO_SIZE (&info));
}

GstVideoFormat
format_of (const LiveRun & r, size_t k)
{
  const GstVideoInfo info = r.info (k);
  return GST_VIDEO_INFO_FORMAT (&info);
}

/* ---------------------------------------------------------------- harris */

/* output=response on frames 3 to 5, passthrough before and after, set
 * while playing: the response map (GRAY8, new caps unless the input is
 * GRAY8 already) exactly from frame 3, the input frame again from frame
 * 6 in its own caps; the corners on every frame. */
TEST (LiveChangesCpu, HarrisOutputFollowsTheProperty)
{
  const std::vector<cv::Mat> pictures = moving_pictures ();
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12 }) {
    const FrameSequence seq ("astronaut", pictures, f);
    SCOPED_TRACE (seq.what);
    LiveRun r;
    run_live (&r, "cudaharris backend=cpu", seq, switch_at ("output", { 3, 6 }, "response", "passthrough"));
    ASSERT_EQ (r.samples.size (), kFrames) << r.first_error ();
    EXPECT_TRUE (r.errors.empty ()) << r.first_error ();
    for (size_t k = 0; k < kFrames; k++) {
      SCOPED_TRACE ("frame " + std::to_string (k));
      const bool response = k >= 3 && k < 6;
      EXPECT_EQ (format_of (r, k), response ? GST_VIDEO_FORMAT_GRAY8 : f);
      expect_frame_size (r, k);
      const std::vector<cv::Mat> planes = buffer_planes (r.buffer (k), r.caps (k));
      if (response) {
        ASSERT_EQ (planes.size (), 1u);
        const cv::Mat want = opencv_normalized_response (seq.luma[k], cudavision::CornerParams ());
        EXPECT_EQ (compare (planes[0], want).differing, 0);
      } else {
        EXPECT_EQ (diff_planes (planes, seq.planes[k]), "");
      }
      EXPECT_NE (gst_buffer_get_cv_keypoints_meta (r.buffer (k)), nullptr);
    }
  }
}

/* A downstream converter gets the new caps: BGRx in, RGBA after
 * videoconvert, whose frames are the input's colours, then the grey of
 * the response map, then the colours again. */
TEST (LiveChangesCpu, HarrisOutputReachesVideoconvert)
{
  const FrameSequence seq ("astronaut", moving_pictures (), GST_VIDEO_FORMAT_BGRx);
  LiveRun r;
  run_live (&r, "cudaharris backend=cpu", seq, switch_at ("output", { 3, 6 }, "response", "passthrough"),
      "videoconvert ! video/x-raw,format=RGBA ! ");
  ASSERT_EQ (r.samples.size (), kFrames) << r.first_error ();
  for (size_t k = 0; k < kFrames; k++) {
    SCOPED_TRACE ("frame " + std::to_string (k));
    EXPECT_EQ (format_of (r, k), GST_VIDEO_FORMAT_RGBA);
    expect_frame_size (r, k);
    const cv::Mat out = buffer_to_mat (r.buffer (k), r.caps (k));
    std::vector<cv::Mat> ch;
    cv::split (out, ch);
    if (k >= 3 && k < 6) {
      const cv::Mat want = opencv_normalized_response (seq.luma[k], cudavision::CornerParams ());
      for (int c = 0; c < 3; c++)
        EXPECT_EQ (compare (ch[c], want).differing, 0) << "channel " << c;
    } else {
      cv::Mat rgb;
      cv::merge (std::vector<cv::Mat> { ch[0], ch[1], ch[2] }, rgb);
      EXPECT_EQ (compare (rgb, seq.rgb[k]).differing, 0);
    }
  }
}

/* Downstream that cannot take the new format: the renegotiation fails
 * with GStreamer's not-negotiated error; every frame that came out is
 * the input frame in the caps it was negotiated with. */
TEST (LiveChangesCpu, HarrisOutputDownstreamRefusesIsAnError)
{
  const FrameSequence seq ("astronaut", moving_pictures (), GST_VIDEO_FORMAT_RGBA);
  LiveRun r;
  run_live (&r, "cudaharris backend=cpu", seq, switch_at ("output", { 2 }, "response", "passthrough"),
      "video/x-raw,format=RGBA ! ");
  EXPECT_FALSE (r.errors.empty ());
  EXPECT_TRUE (r.has_warning_containing ("el: not negotiated")) << r.warnings.size () << " warnings";
  EXPECT_LT (r.samples.size (), kFrames);
  for (size_t k = 0; k < r.samples.size (); k++) {
    SCOPED_TRACE ("frame " + std::to_string (k));
    EXPECT_EQ (format_of (r, k), GST_VIDEO_FORMAT_RGBA);
    expect_frame_size (r, k);
    EXPECT_EQ (diff_planes (buffer_planes (r.buffer (k), r.caps (k)), seq.planes[k]), "");
  }
}

/* ------------------------------------------------------------------ flow */

const std::string kDense = "cudaflow backend=cpu mode=dense grid-step=" + std::to_string (kStep) + " max-flow=4";

/* The grid's vectors on frame k (from frame k - 1), as cudaflow's CPU
 * backend gives them. */
std::vector<FlowVector>
dense_reference (const FrameSequence & s, size_t k)
{
  return clipped (opencv_lk (s.luma[k - 1], s.luma[k], grid_points (kWidth, kHeight, kStep), FlowParams ()), kWidth,
      kHeight);
}

/* Sparse tracking from frame `first` (detected there) up to frame `last`:
 * the element's rule (test_flow_cpu.cpp's reference_sparse), 500
 * corners, a new detection every 10 frames. */
std::vector<std::vector<FlowVector>>
sparse_reference (const FrameSequence & s, size_t first, size_t last)
{
  std::vector<std::vector<FlowVector>> out (last + 1);
  std::vector<cv::Point2f> pts = opencv_features (s.luma[first], 500);
  size_t detected = pts.size ();
  int since = 0;
  for (size_t k = first + 1; k <= last; k++) {
    out[k] = clipped (opencv_lk (s.luma[k - 1], s.luma[k], pts, FlowParams ()), kWidth, kHeight);
    since++;
    pts.clear ();
    for (const FlowVector & v : out[k])
      if (v.status)
        pts.emplace_back (v.x, v.y);
    if (pts.empty () || since >= 10 || pts.size () * 2 < detected) {
      pts = opencv_features (s.luma[k], 500);
      detected = pts.size ();
      since = 0;
    }
  }
  return out;
}

/* output=flow-color as cudaflow paints it from the vectors on the buffer. */
cv::Mat
flow_colours (const std::vector<FlowVector> & v)
{
  cv::Mat m (kHeight, kWidth, CV_8UC4);
  cudavision::cpu::flow_color (v, kStep, kMaxFlow, { m.data, m.step, m.cols, m.rows });
  return m;
}

/* Dense flow, output=flow-color on frames 3 to 5, set while playing: RGBA
 * (new caps unless the input is RGBA), the colours of the frame's own
 * vectors, then the input frame again in its own caps. The input caps
 * stay, so the tracking goes on across the switches: every frame after
 * the first has the grid's vectors. The GRAY8 case wrote RGBA rows into
 * GRAY8 buffers (heap overflow, issue 36). */
TEST (LiveChangesCpu, FlowOutputFollowsTheProperty)
{
  const std::vector<cv::Mat> pictures = moving_pictures ();
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12 }) {
    const FrameSequence seq ("astronaut", pictures, f);
    SCOPED_TRACE (seq.what);
    LiveRun r;
    run_live (&r, kDense, seq, switch_at ("output", { 3, 6 }, "flow-color", "passthrough"));
    ASSERT_EQ (r.samples.size (), kFrames) << r.first_error ();
    EXPECT_TRUE (r.errors.empty ()) << r.first_error ();
    for (size_t k = 0; k < kFrames; k++) {
      SCOPED_TRACE ("frame " + std::to_string (k));
      const bool colour = k >= 3 && k < 6;
      EXPECT_EQ (format_of (r, k), colour ? GST_VIDEO_FORMAT_RGBA : f);
      expect_frame_size (r, k);
      const FlowFrame got = flow_frame (r.buffer (k), r.caps (k));
      EXPECT_TRUE (got.has_meta);
      if (k > 0) {
        EXPECT_EQ (got.grid_step, (unsigned) kStep);
        EXPECT_EQ (diff_vectors (got.vectors, dense_reference (seq, k)), "");
      } else {
        EXPECT_TRUE (got.vectors.empty ());
      }
      if (colour)
        EXPECT_EQ (compare (got.out, flow_colours (got.vectors)).differing, 0);
      else
        EXPECT_EQ (diff_planes (got.planes, seq.planes[k]), "");
    }
  }
}

/* mode=dense on frames 3 to 5, sparse before and after, set while playing
 * (output=passthrough: the caps stay): each change starts the tracking
 * again, as new caps do; the frame of the change has no vectors, the
 * next ones those of the new mode from there. */
TEST (LiveChangesCpu, FlowModeChangeStartsAgain)
{
  const std::vector<cv::Mat> pictures = moving_pictures ();
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_RGBA }) {
    const FrameSequence seq ("astronaut", pictures, f);
    SCOPED_TRACE (seq.what);
    LiveRun r;
    run_live (&r, "cudaflow backend=cpu draw=false grid-step=" + std::to_string (kStep), seq,
        switch_at ("mode", { 3, 6 }, "dense", "sparse"));
    ASSERT_EQ (r.samples.size (), kFrames) << r.first_error ();
    EXPECT_TRUE (r.errors.empty ()) << r.first_error ();
    const auto before = sparse_reference (seq, 0, 2), after = sparse_reference (seq, 6, 8);
    for (size_t k = 0; k < kFrames; k++) {
      SCOPED_TRACE ("frame " + std::to_string (k));
      EXPECT_EQ (format_of (r, k), f);
      expect_frame_size (r, k);
      const FlowFrame got = flow_frame (r.buffer (k), r.caps (k));
      EXPECT_TRUE (got.has_meta);
      EXPECT_EQ (diff_planes (got.planes, seq.planes[k]), "");
      if (k == 0 || k == 3 || k == 6) {
        EXPECT_TRUE (got.vectors.empty ());
      } else if (k < 3) {
        EXPECT_EQ (got.grid_step, 0u);
        EXPECT_EQ (diff_vectors (got.vectors, before[k]), "");
      } else if (k < 6) {
        EXPECT_EQ (got.grid_step, (unsigned) kStep);
        EXPECT_EQ (diff_vectors (got.vectors, dense_reference (seq, k)), "");
      } else {
        EXPECT_EQ (got.grid_step, 0u);
        EXPECT_EQ (diff_vectors (got.vectors, after[k]), "");
      }
    }
  }
}

/* Flow colours come from the dense grid: while playing, output=flow-color
 * in sparse mode and mode=sparse with output=flow-color are refused with
 * a warning naming the property, which keeps its value; dense mode then
 * flow colours, in that order, are taken. */
TEST (LiveChangesCpu, FlowRefusesColoursWithoutTheGrid)
{
  const FrameSequence seq ("astronaut", moving_pictures (), GST_VIDEO_FORMAT_GRAY8);
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
  run_live (&r, "cudaflow backend=cpu grid-step=" + std::to_string (kStep) + " max-flow=4", seq,
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
      });
  ASSERT_EQ (r.samples.size (), kFrames) << r.first_error ();
  EXPECT_TRUE (r.errors.empty ()) << r.first_error ();
  EXPECT_EQ (seen, (std::vector<std::string> { "passthrough", "flow-color", "dense" }));
  EXPECT_TRUE (r.has_warning_containing ("output=flow-color")) << r.warnings.size () << " warnings";
  EXPECT_TRUE (r.has_warning_containing ("mode=sparse")) << r.warnings.size () << " warnings";
  for (size_t k = 0; k < kFrames; k++) {
    SCOPED_TRACE ("frame " + std::to_string (k));
    const bool colour = k >= 4;
    EXPECT_EQ (format_of (r, k), colour ? GST_VIDEO_FORMAT_RGBA : GST_VIDEO_FORMAT_GRAY8);
    expect_frame_size (r, k);
    const FlowFrame got = flow_frame (r.buffer (k), r.caps (k));
    if (colour)
      EXPECT_EQ (compare (got.out, flow_colours (got.vectors)).differing, 0);
    else
      EXPECT_EQ (diff_planes (got.planes, seq.planes[k]), "");
  }
}

/* The flow colours through videoconvert (BGRx): GRAY8 frames as grey,
 * then the colours, then grey again, as the caps change. */
TEST (LiveChangesCpu, FlowOutputReachesVideoconvert)
{
  const FrameSequence seq ("astronaut", moving_pictures (), GST_VIDEO_FORMAT_GRAY8);
  LiveRun r;
  run_live (&r, kDense, seq, switch_at ("output", { 3, 6 }, "flow-color", "passthrough"),
      "videoconvert ! video/x-raw,format=BGRx ! ");
  ASSERT_EQ (r.samples.size (), kFrames) << r.first_error ();
  for (size_t k = 0; k < kFrames; k++) {
    SCOPED_TRACE ("frame " + std::to_string (k));
    EXPECT_EQ (format_of (r, k), GST_VIDEO_FORMAT_BGRx);
    expect_frame_size (r, k);
    std::vector<cv::Mat> ch;
    cv::split (buffer_to_mat (r.buffer (k), r.caps (k)), ch);
    if (k >= 3 && k < 6) {
      std::vector<cv::Mat> want;
      cv::split (flow_colours (dense_reference (seq, k)), want);
      for (int c = 0; c < 3; c++)
        EXPECT_EQ (compare (ch[2 - c], want[c]).differing, 0) << "channel " << c;
    } else {
      for (int c = 0; c < 3; c++)
        EXPECT_EQ (compare (ch[c], seq.luma[k]).differing, 0) << "channel " << c;
    }
  }
}

}  // namespace
