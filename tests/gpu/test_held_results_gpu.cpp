/* latency-frames=1 on the GPU (cudaharris, cudafacedetect, cudaflow):
 * every frame still leaves, in order, with its own results (the same
 * metas, messages and drawn pixels as latency-frames=0, frame by frame),
 * EOS pushes the held frame, the latency query reports one frame more, and
 * a frame is really held (it leaves only once the next has entered).
 * Frames differ from one to the next, so a result attached to the wrong
 * frame shows. cudaflow's sparse mode also decides when to detect again
 * from each frame's tracked count: the frames below make it detect after
 * some frames and not after others (noise every third frame loses the
 * points). cudaflow's metas hold the vectors the GPU wrote, without a
 * copy: a run that keeps every output buffer and reads the metas only
 * once the pipeline is gone finds them as a run that reads each at once.
 * Skips (exit 77) without a CUDA device. */
#include "../common/edge_cases.h"
#include "../../frames/face_inputs.h"
#include "../../frames/gst_frames.h"
#include "gstcvflowmeta.h"
#include "gstcvkeypointsmeta.h"
#include "gstcvmemory.h"

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <opencv2/imgproc.hpp>

#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

using namespace cvtest;

namespace {

constexpr int kW = 640, kH = 480, kFrames = 9;

/* What one output frame carried. */
struct FrameOut {
  GstClockTime pts = GST_CLOCK_TIME_NONE;
  std::string results;  /* the element's metas, as text */
  cv::Mat pixels;       /* plane 0, downloaded */
};

std::string
describe_results (GstBuffer * buf, const std::string & element)
{
  std::ostringstream o;
  if (element == "cudaflow") {
    GstCvFlowMeta *m = gst_buffer_get_cv_flow_meta (buf);
    if (!m)
      return "no flow meta";
    o << m->n << ": grid " << m->grid_step << " " << m->grid_cols << "x" << m->grid_rows << std::setprecision (9);
    for (guint i = 0; i < m->n; i++) {
      const GstCvFlowVector & v = m->vectors[i];
      o << " " << v.prev_x << "," << v.prev_y << ">" << v.x << "," << v.y << ":" << (int) v.status;
    }
    return o.str ();
  }
  if (element == "cudaharris") {
    GstCvKeypointsMeta *m = gst_buffer_get_cv_keypoints_meta (buf);
    if (!m)
      return "no keypoints meta";
    o << m->n << ":";
    for (guint i = 0; i < m->n; i++)
      o << " " << m->points[i].x << "," << m->points[i].y << "," << m->points[i].score;
  } else {
    gpointer state = nullptr;
    GstMeta *meta;
    int n = 0;
    while ((meta = gst_buffer_iterate_meta_filtered (buf, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
      auto *r = (GstVideoRegionOfInterestMeta *) meta;
      if (r->roi_type != g_quark_from_static_string ("face"))
        continue;
      o << " " << r->x << "," << r->y << "," << r->w << "x" << r->h;
      n++;
    }
    return std::to_string (n) + ":" + o.str ();
  }
  return o.str ();
}

/* kFrames RGBA frames that differ: the LFW mosaic shifted a little more
 * each frame (faces and corners move), every third frame noise. */
std::vector<cv::Mat>
make_frames ()
{
  const cv::Mat mosaic = face_input_at (face_input_source ("mosaic"), kW + 64, kH + 64);
  const cv::Mat noise = face_input_at (cv::Mat (), kW, kH);
  std::vector<cv::Mat> frames;
  for (int i = 0; i < kFrames; i++) {
    const cv::Mat gray = i % 3 == 2 ? noise : mosaic (cv::Rect (i * 7, i * 5, kW, kH));
    cv::Mat rgba;
    cv::cvtColor (gray, rgba, cv::COLOR_GRAY2RGBA);
    frames.push_back (rgba);
  }
  return frames;
}

/* appsrc (RGBA, system memory) ! UPSTREAM (uploads; passes the frame on
 * in device memory; by default cudaharris) ! ELEMENT latency-frames=N !
 * device frames ! appsink, pushing the frames one at a time, then EOS.
 * `latency` gets the element's answer to a latency query while playing,
 * `out_when_pushed` the count of frames out once each frame was in,
 * `messages` the element's messages in the order they came. With `keep`
 * the output samples are kept and their metas read only once the
 * pipeline is gone (the results of each frame must survive the frames
 * after it, and the element). */
std::vector<FrameOut>
run (const std::string & element, const std::string & props, int latency_frames, const std::vector<cv::Mat> & in,
    GstClockTime * latency, std::vector<int> * out_when_pushed, std::vector<std::string> * messages,
    std::string * error, const std::string & upstream, bool keep = false)
{
  const std::string desc = "appsrc name=src format=time caps=video/x-raw,format=RGBA,width=" + std::to_string (kW) +
      ",height=" + std::to_string (kH) + ",framerate=30/1 ! " + upstream + " ! " + element +
      " name=e backend=cuda latency-frames=" + std::to_string (latency_frames) + " " + props +
      " ! video/x-raw(" GST_CAPS_FEATURE_MEMORY_CUDAVISION ") ! appsink name=out sync=false wait-on-eos=false";
  GError *err = nullptr;
  GstElement *pipe = gst_parse_launch (desc.c_str (), &err);
  if (!pipe) {
    *error = std::string ("cannot build: ") + (err ? err->message : desc);
    g_clear_error (&err);
    return {};
  }
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "out");
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), "e");
  std::vector<FrameOut> out;
  std::vector<GstSample *> kept;
  auto drain = [&] (GstClockTime timeout) {
    while (GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), timeout)) {
      GstBuffer *b = gst_sample_get_buffer (s);
      FrameOut f;
      f.pts = GST_BUFFER_PTS (b);
      if (!keep)
        f.results = describe_results (b, element);
      f.pixels = buffer_to_mat (b, gst_sample_get_caps (s)).clone ();
      out.push_back (std::move (f));
      if (keep)
        kept.push_back (s);
      else
        gst_sample_unref (s);
      timeout = 0;
    }
  };
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (size_t i = 0; i < in.size (); i++) {
    GstBuffer *b = gst_buffer_new_memdup (in[i].data, in[i].total () * in[i].elemSize ());
    GST_BUFFER_PTS (b) = gst_util_uint64_scale (i, GST_SECOND, 30);
    GST_BUFFER_DURATION (b) = GST_SECOND / 30;
    if (gst_app_src_push_buffer (GST_APP_SRC (src), b) != GST_FLOW_OK) {
      *error = "push failed";
      break;
    }
    /* what came out of the frames pushed so far (all of them, or all but
     * the held one) */
    drain (2 * GST_SECOND);
    out_when_pushed->push_back ((int) out.size ());
    if (i == 1) {
      /* the element's answer, upstream's latency included */
      GstQuery *q = gst_query_new_latency ();
      GstPad *pad = gst_element_get_static_pad (e, "src");
      if (gst_pad_query (pad, q)) {
        gboolean live = FALSE;
        GstClockTime min = 0, max = 0;
        gst_query_parse_latency (q, &live, &min, &max);
        *latency = min;
      }
      gst_object_unref (pad);
      gst_query_unref (q);
    }
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *m = nullptr;
  while ((m = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
              (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT)))) {
    if (GST_MESSAGE_TYPE (m) != GST_MESSAGE_ELEMENT)
      break;
    const GstStructure *st = gst_message_get_structure (m);
    if (GST_MESSAGE_SRC (m) == GST_OBJECT (e) && st) {
      gchar *text = gst_structure_to_string (st);
      messages->push_back (text);
      g_free (text);
    }
    gst_message_unref (m);
  }
  if (!m) {
    *error = "no EOS within 60 s";
  } else if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    GError *e2 = nullptr;
    gst_message_parse_error (m, &e2, nullptr);
    *error = e2->message;
    g_clear_error (&e2);
  }
  if (m)
    gst_message_unref (m);
  drain (0);
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (e);
  gst_object_unref (sink);
  gst_object_unref (src);
  gst_object_unref (pipe);
  for (size_t i = 0; i < kept.size (); i++) {
    out[i].results = describe_results (gst_sample_get_buffer (kept[i]), element);
    gst_sample_unref (kept[i]);
  }
  return out;
}

/* `keep`: the latency-frames=1 run keeps its output (run ()). */
void
check_held_equals_immediate (const std::string & element, const std::string & props,
    const std::string & upstream = "cudaharris backend=cuda max-corners=5", bool keep = false)
{
  const std::vector<cv::Mat> in = make_frames ();
  std::string err0, err1;
  GstClockTime lat0 = GST_CLOCK_TIME_NONE, lat1 = GST_CLOCK_TIME_NONE;
  std::vector<int> paced0, paced1;
  std::vector<std::string> msg0, msg1;
  const std::vector<FrameOut> now = run (element, props, 0, in, &lat0, &paced0, &msg0, &err0, upstream);
  const std::vector<FrameOut> held = run (element, props, 1, in, &lat1, &paced1, &msg1, &err1, upstream, keep);
  ASSERT_EQ (err0, "");
  ASSERT_EQ (err1, "");
  /* the element's messages, frame by frame (with post-messages=true) */
  ASSERT_EQ (msg0.size (), msg1.size ());
  for (size_t i = 0; i < msg0.size (); i++) {
    EXPECT_EQ (msg1[i], msg0[i]) << element << " message " << i;
  }
  if (props.find ("post-messages=true") != std::string::npos) {
    EXPECT_EQ (msg0.size (), in.size ());
  }
  ASSERT_EQ (now.size (), in.size ());
  ASSERT_EQ (held.size (), in.size ()) << "EOS must push the held frame";
  /* with 0 every frame is out once pushed; with 1 all but the last */
  for (size_t i = 0; i < in.size (); i++) {
    EXPECT_EQ (paced0[i], (int) i + 1) << "latency-frames=0, frame " << i;
    EXPECT_EQ (paced1[i], (int) i) << "latency-frames=1, frame " << i;
  }
  ASSERT_TRUE (GST_CLOCK_TIME_IS_VALID (lat0) && GST_CLOCK_TIME_IS_VALID (lat1));
  EXPECT_EQ (lat1 - lat0, gst_util_uint64_scale_int (GST_SECOND, 1, 30));
  int with_results = 0;
  for (size_t i = 0; i < in.size (); i++) {
    SCOPED_TRACE (element + " frame " + std::to_string (i));
    EXPECT_EQ (now[i].pts, gst_util_uint64_scale (i, GST_SECOND, 30));
    EXPECT_EQ (held[i].pts, now[i].pts);
    EXPECT_EQ (held[i].results, now[i].results);
    ASSERT_EQ (held[i].pixels.size (), now[i].pixels.size ());
    EXPECT_EQ (cv::norm (held[i].pixels, now[i].pixels, cv::NORM_INF), 0.0);
    with_results += now[i].results.rfind ("0:", 0) != 0;
  }
  /* the frames must give results for the comparison to mean anything */
  EXPECT_GE (with_results, 3) << now[0].results;
  /* and the frames' results differ, so a shifted list would show */
  EXPECT_NE (now[0].results, now[1].results);
}

}  // namespace

TEST (HeldResultsGpu, HarrisFramesLeaveWithTheirOwnCorners)
{
  check_held_equals_immediate ("cudaharris", "max-corners=200 draw=true post-messages=true");
}

TEST (HeldResultsGpu, FacesLeaveWithTheirOwnBoxes)
{
  check_held_equals_immediate ("cudafacedetect", "draw=true post-messages=true");
}

/* Sparse flow on RGBA without keypoints upstream (cudablur passes the
 * frames on): the element's own detection, after the first frame, after
 * the noise frames (points lost) and every 4th tracked frame. */
TEST (HeldResultsGpu, FlowSparseFramesLeaveWithTheirOwnVectors)
{
  check_held_equals_immediate ("cudaflow", "redetect-interval=4 draw=true post-messages=true",
      "cudablur backend=cuda kernel-size=3 sigma=0.8");
}

/* GRAY8 input, the defaults (redetect-interval 10); and the points from
 * cudaharris's keypoints meta instead of a detection. */
TEST (HeldResultsGpu, FlowSparseGrayAndKeypointsInput)
{
  check_held_equals_immediate ("cudaflow", "post-messages=true", "cudagray backend=cuda");
  check_held_equals_immediate ("cudaflow", "max-corners=40 draw=true post-messages=true",
      "cudaharris backend=cuda method=shi-tomasi max-corners=60");
}

TEST (HeldResultsGpu, FlowDenseFramesLeaveWithTheirOwnGrid)
{
  check_held_equals_immediate ("cudaflow", "mode=dense grid-step=12 draw=true post-messages=true",
      "cudablur backend=cuda kernel-size=3 sigma=0.8");
  check_held_equals_immediate ("cudaflow", "mode=dense output=flow-color grid-step=16 post-messages=true",
      "cudablur backend=cuda kernel-size=3 sigma=0.8");
}

/* The metas hold the GPU's vectors without a copy: kept until the
 * pipeline is gone, every frame's are still its own (sparse and dense). */
TEST (HeldResultsGpu, FlowMetasOutliveLaterFramesAndTheElement)
{
  check_held_equals_immediate ("cudaflow", "mode=dense grid-step=12 post-messages=true",
      "cudablur backend=cuda kernel-size=3 sigma=0.8", true);
  check_held_equals_immediate ("cudaflow", "redetect-interval=4 post-messages=true",
      "cudablur backend=cuda kernel-size=3 sigma=0.8", true);
}

/* Pipelines of held frames started and stopped again and again, the
 * results kept past the pipeline: once every element has run (warm-up),
 * nothing GStreamer made during the cycles outlives them (the leaks
 * tracer: meson runs this program under GST_TRACERS=leaks). */
TEST (HeldResultsGpu, CyclesLeaveNoObjects)
{
  const std::vector<cv::Mat> in = make_frames ();
  struct Case {
    const char *element, *props, *upstream;
  };
  const Case cases[] = {
    { "cudaharris", "max-corners=200 draw=true post-messages=true", "cudaharris backend=cuda max-corners=5" },
    { "cudafacedetect", "draw=true post-messages=true", "cudaharris backend=cuda max-corners=5" },
    { "cudaflow", "redetect-interval=4 draw=true post-messages=true", "cudablur backend=cuda kernel-size=3 sigma=0.8" },
  };
  auto once = [&] (const Case & c, bool keep) {
    GstClockTime latency = GST_CLOCK_TIME_NONE;
    std::vector<int> paced;
    std::vector<std::string> messages;
    std::string error;
    const std::vector<FrameOut> out = run (c.element, c.props, 1, in, &latency, &paced, &messages, &error, c.upstream,
        keep);
    EXPECT_EQ (error, "") << c.element;
    return error.empty () && out.size () == in.size ();
  };
  for (const Case & c : cases)
    ASSERT_TRUE (once (c, false)) << c.element;
  check_cycles_leave_nothing ([&] (int i) { return once (cases[i % 3], i % 2 == 0); }, 6);
}
