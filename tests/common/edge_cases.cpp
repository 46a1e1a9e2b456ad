#include "edge_cases.h"

#include "gstcvflowmeta.h"
#include "gstcvkeypointsmeta.h"
#include "gstcvotsumeta.h"
#include "temp_file.h"

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/check/gstharness.h>
#include <gst/video/gstvideometa.h>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <malloc.h>
#include <opencv2/imgproc.hpp>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace cvtest {

const std::vector<EdgeElement> &
edge_elements ()
{
  constexpr GstVideoFormat GRAY8 = GST_VIDEO_FORMAT_GRAY8, RGBA = GST_VIDEO_FORMAT_RGBA, NV12 = GST_VIDEO_FORMAT_NV12;
  static const std::vector<EdgeElement> all = {
    { "cudagray", "", RGBA, GST_VIDEO_FORMAT_I420, NV12, RGBA },
    { "cudablur", "sigma=1.5", GRAY8, RGBA, NV12, RGBA },
    { "cudaotsu", "", GRAY8, GRAY8, NV12, GRAY8 },
    { "cudacanny", "low-threshold=40 high-threshold=120", GRAY8, GRAY8, NV12, GRAY8 },
    { "cudaharris", "method=shi-tomasi draw=true", GRAY8, RGBA, NV12, RGBA },
    { "cudaflow", "draw=true", GRAY8, GST_VIDEO_FORMAT_BGRx, NV12, RGBA },
    { "cudafacedetect", "draw=true", RGBA, GRAY8, NV12, RGBA },
  };
  return all;
}

std::vector<GstVideoFormat>
EdgeElement::formats () const
{
  std::vector<GstVideoFormat> out = { fmt_a };
  if (fmt_b != fmt_a)
    out.push_back (fmt_b);
  out.push_back (fmt_yuv);
  return out;
}

/* ------------------------------------------------------------- outputs */

static std::string
hexfloat (float v)
{
  char buf[48];
  std::snprintf (buf, sizeof buf, "%a", (double) v);
  return buf;
}

Output
describe_output (GstBuffer * buf, GstCaps * caps)
{
  Output o;
  GstVideoInfo info;
  if (!caps || !gst_video_info_from_caps (&info, caps)) {
    o.caps = "(no video caps)";
    return o;
  }
  o.caps = std::string (GST_VIDEO_INFO_NAME (&info)) + " " + std::to_string (info.width) + "x" +
      std::to_string (info.height);
  GstVideoFrame f;
  if (!gst_video_frame_map (&f, &info, buf, GST_MAP_READ)) {
    o.caps += " (unmappable)";
    return o;
  }
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&f); p++) {
    gint comps[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component (info.finfo, p, comps);
    const size_t row = (size_t) GST_VIDEO_FRAME_COMP_WIDTH (&f, comps[0]) * GST_VIDEO_FRAME_COMP_PSTRIDE (&f, comps[0]);
    const int rows = GST_VIDEO_FRAME_COMP_HEIGHT (&f, comps[0]);
    const uint8_t *base = (const uint8_t *) GST_VIDEO_FRAME_PLANE_DATA (&f, p);
    for (int y = 0; y < rows; y++) {
      const uint8_t *r = base + (size_t) y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, p);
      o.bytes.insert (o.bytes.end (), r, r + row);
    }
  }
  gst_video_frame_unmap (&f);

  std::ostringstream m;
  gpointer state = nullptr;
  while (GstMeta *meta = gst_buffer_iterate_meta (buf, &state)) {
    const GType api = meta->info->api;
    if (api == GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE) {
      auto *r = (GstVideoRegionOfInterestMeta *) meta;
      m << "roi " << g_quark_to_string (r->roi_type) << " " << r->x << "," << r->y << " " << r->w << "x" << r->h
        << "; ";
    } else if (api == GST_CV_KEYPOINTS_META_API_TYPE) {
      auto *k = (GstCvKeypointsMeta *) meta;
      m << "keypoints " << k->n << ":";
      for (guint i = 0; i < k->n; i++)
        m << " " << hexfloat (k->points[i].x) << "," << hexfloat (k->points[i].y) << "," << hexfloat (k->points[i].score);
      m << "; ";
    } else if (api == GST_CV_FLOW_META_API_TYPE) {
      auto *fl = (GstCvFlowMeta *) meta;
      m << "flow " << fl->n << " grid " << fl->grid_step << ":";
      for (guint i = 0; i < fl->n; i++) {
        const GstCvFlowVector & v = fl->vectors[i];
        m << " " << hexfloat (v.prev_x) << "," << hexfloat (v.prev_y) << ">" << hexfloat (v.x) << "," << hexfloat (v.y)
          << "/" << (int) v.status;
      }
      m << "; ";
    } else if (api == GST_CV_OTSU_META_API_TYPE) {
      m << "otsu " << (int) ((GstCvOtsuMeta *) meta)->threshold << "; ";
    }
  }
  o.metas = m.str ();
  return o;
}

std::string
difference (const Output & a, const Output & b)
{
  if (a.caps != b.caps)
    return "caps " + a.caps + " vs " + b.caps;
  if (a.bytes.size () != b.bytes.size ())
    return "sizes " + std::to_string (a.bytes.size ()) + " vs " + std::to_string (b.bytes.size ());
  size_t n = 0, first = a.bytes.size ();
  for (size_t i = 0; i < a.bytes.size (); i++)
    if (a.bytes[i] != b.bytes[i] && n++ == 0)
      first = i;
  std::string s;
  if (n)
    s += std::to_string (n) + " bytes differ, first at " + std::to_string (first) + " (" +
        std::to_string (a.bytes[first]) + " vs " + std::to_string (b.bytes[first]) + "); ";
  if (a.metas != b.metas)
    s += "metas differ: [" + a.metas.substr (0, 300) + "] vs [" + b.metas.substr (0, 300) + "]";
  return s.empty () ? "identical" : s;
}

/* -------------------------------------------------------------- inputs */

static const cv::Mat &
source_image ()
{
  static const cv::Mat img = load_rgb (data_path ("grace_hopper.jpg"));
  return img;
}

GstBuffer *
make_frame (const InFrame & f)
{
  cv::Mat scaled, moved;
  cv::resize (source_image (), scaled, cv::Size (f.width, f.height), 0, 0, cv::INTER_AREA);
  const cv::Mat shift = (cv::Mat_<double> (2, 3) << 1, 0, f.shift, 0, 1, f.shift);
  cv::warpAffine (scaled, moved, shift, scaled.size (), cv::INTER_NEAREST, cv::BORDER_REFLECT_101);
  return rgb_to_buffer (moved, f.format);
}

std::string
frame_caps (const InFrame & f)
{
  return caps_string (f.format, f.width, f.height);
}

static GstElement *
parse_element (const std::string & element)
{
  GError *err = nullptr;
  GstElement *e = gst_parse_launch (element.c_str (), &err);
  if (err) {
    ADD_FAILURE () << "cannot parse " << element << ": " << err->message;
    g_clear_error (&err);
  }
  if (e && shared_context ())
    gst_element_set_context (e, shared_context ());
  return e;
}

std::vector<Output>
run_frames (const std::string & element, const std::vector<InFrame> & frames, const char *out_feature,
    FrameMaker make)
{
  std::vector<Output> out;
  GstElement *e = parse_element (element);
  if (!e)
    return out;
  GstHarness *h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_set_sink_caps_str (h, out_feature ? (std::string ("video/x-raw(") + out_feature + ")").c_str ()
                                                : "video/x-raw");
  std::string current;
  for (size_t i = 0; i < frames.size (); i++) {
    const std::string caps = frame_caps (frames[i]);
    if (current.empty ()) {
      gst_harness_set_src_caps_str (h, caps.c_str ());  /* caps and a segment */
    } else if (caps != current) {
      /* mid-stream renegotiation: new caps, no new segment */
      if (!gst_harness_push_event (h, gst_event_new_caps (gst_caps_from_string (caps.c_str ()))))
        break;
    }
    current = caps;
    GstBuffer *in = make ? make (frames[i]) : make_frame (frames[i]);
    GST_BUFFER_PTS (in) = (GstClockTime) i * 33 * GST_MSECOND;
    GST_BUFFER_DURATION (in) = 33 * GST_MSECOND;
    if (gst_harness_push (h, in) != GST_FLOW_OK)
      break;
    GstBuffer *o = gst_harness_pull (h);
    if (!o)
      break;
    GstCaps *oc = gst_pad_get_current_caps (h->sinkpad);
    out.push_back (describe_output (o, oc));
    if (oc)
      gst_caps_unref (oc);
    gst_buffer_unref (o);
  }
  gst_harness_teardown (h);
  return out;
}

/* -------------------------------------------------- mid-stream changes */

/* Three frames at each of: A; B, another size and (where `fmt_b` is
 * another) format; C, B's size in A's format (a format change alone); A
 * again. Each segment's output must be what a fresh element gives. */
static void
check_caps_changes (const std::string & desc, GstVideoFormat fmt_a, GstVideoFormat fmt_b, const char *out_feature)
{
  const std::string what = desc + " (" + gst_video_format_to_string (fmt_a) + " / " +
      gst_video_format_to_string (fmt_b) + ")";
  const std::vector<InFrame> a = { { fmt_a, 322, 242, 0 }, { fmt_a, 322, 242, 2 }, { fmt_a, 322, 242, 4 } };
  const std::vector<InFrame> b = { { fmt_b, 199, 151, 0 }, { fmt_b, 199, 151, 1 }, { fmt_b, 199, 151, 2 } };
  const std::vector<InFrame> c = { { fmt_a, 199, 151, 0 }, { fmt_a, 199, 151, 1 }, { fmt_a, 199, 151, 2 } };
  std::vector<std::vector<InFrame>> segments = { a, b };
  if (fmt_a != fmt_b)
    segments.push_back (c);
  segments.push_back (a);
  std::vector<InFrame> all;
  for (const auto & seg : segments)
    all.insert (all.end (), seg.begin (), seg.end ());

  const std::vector<Output> got = run_frames (desc, all, out_feature);
  ASSERT_EQ (got.size (), all.size ()) << what << ": a frame was refused after a caps change";
  size_t i = 0;
  for (const auto & seg : segments) {
    const std::vector<Output> fresh = run_frames (desc, seg, out_feature);
    ASSERT_EQ (fresh.size (), seg.size ()) << what;
    for (size_t k = 0; k < seg.size (); k++, i++)
      EXPECT_TRUE (got[i] == fresh[k]) << what << ", frame " << i << " (" << frame_caps (all[i])
                                       << "): not what a fresh element gives: " << difference (got[i], fresh[k]);
  }
  /* the change really reached the output */
  EXPECT_NE (got[2].caps, got[3].caps) << what;
}

void
check_mid_stream_caps_changes (const std::string & backend, const char *out_feature)
{
  for (const EdgeElement & el : edge_elements ()) {
    const std::string desc = el.description (backend);
    check_caps_changes (desc, el.fmt_a, el.fmt_b, out_feature);
    /* NV12 first: its chroma plane changes size (161x121 to 100x76 pairs),
     * a decoder's frames turn into packed ones at another size, then into
     * NV12 again at the same size (the plane layout alone changes) */
    check_caps_changes (desc, el.fmt_yuv, el.yuv_peer, out_feature);
  }
}

/* ---------------------------------------------------- EOS, no buffers */

void
check_eos_without_buffers (const std::string & backend)
{
  for (const EdgeElement & el : edge_elements ()) {
    const std::string desc = el.description (backend);
    const std::string caps = caps_string (el.fmt_a, 320, 240);
    /* caps negotiated, then EOS */
    BusResult r = run_pipeline ("videotestsrc num-buffers=0 ! " + caps + " ! " + desc + " ! fakesink", 30);
    EXPECT_TRUE (r.eos) << desc << " (negotiated, no buffer)";
    EXPECT_TRUE (r.errors.empty ()) << desc << ": " << (r.errors.empty () ? "" : r.errors[0]);

    /* EOS before any caps: appsrc ends at once */
    GstElement *pipe = gst_parse_launch (("appsrc name=src caps=\"" + caps + "\" format=time ! " + desc +
                                             " ! fakesink name=sink signal-handoffs=true")
                                             .c_str (),
        nullptr);
    ASSERT_TRUE (pipe) << desc;
    if (shared_context ())
      gst_element_set_context (pipe, shared_context ());
    GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
    GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
    int buffers = 0;
    g_signal_connect (sink, "handoff", G_CALLBACK (+[] (GstElement *, GstBuffer *, GstPad *, gpointer n) {
      (*(int *) n)++;
    }), &buffers);
    gst_element_set_state (pipe, GST_STATE_PLAYING);
    gst_app_src_end_of_stream (GST_APP_SRC (src));
    GstBus *bus = gst_element_get_bus (pipe);
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
        (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    ASSERT_TRUE (m) << desc << ": neither EOS nor an error";
    EXPECT_EQ (GST_MESSAGE_TYPE (m), GST_MESSAGE_EOS) << desc << " (EOS before caps)";
    gst_message_unref (m);
    gst_element_set_state (pipe, GST_STATE_NULL);
    EXPECT_EQ (buffers, 0) << desc;
    gst_object_unref (bus);
    gst_object_unref (sink);
    gst_object_unref (src);
    gst_object_unref (pipe);
  }
}

/* ------------------------------------------- read-only and padded input */

/* The frame's bytes in memory flagged read-only (as a demuxer's or a
 * shared-memory source's would be), video meta kept. */
static GstBuffer *
read_only_frame (const InFrame & f)
{
  GstBuffer *src = make_frame (f);
  GstMapInfo map;
  gst_buffer_map (src, &map, GST_MAP_READ);
  gpointer copy = g_memdup2 (map.data, map.size);
  GstBuffer *ro = gst_buffer_new_wrapped_full (GST_MEMORY_FLAG_READONLY, copy, map.size, 0, map.size, copy, g_free);
  gst_buffer_unmap (src, &map);
  gst_buffer_copy_into (ro, src, GST_BUFFER_COPY_METADATA, 0, -1);
  gst_buffer_unref (src);
  return ro;
}

void
check_read_only_input (const std::string & backend)
{
  for (const EdgeElement & el : edge_elements ()) {
    const std::string desc = el.description (backend);
    for (const GstVideoFormat fmt : el.formats ()) {
      const std::vector<InFrame> frames = { { fmt, 256, 200, 0 }, { fmt, 256, 200, 3 } };
      const std::vector<Output> want = run_frames (desc, frames);
      const std::vector<Output> got = run_frames (desc, frames, nullptr, read_only_frame);
      ASSERT_EQ (want.size (), frames.size ()) << desc;
      ASSERT_EQ (got.size (), frames.size ()) << desc << " " << gst_video_format_to_string (fmt)
                                              << ": read-only input refused";
      for (size_t i = 0; i < frames.size (); i++)
        EXPECT_TRUE (got[i] == want[i]) << desc << " " << gst_video_format_to_string (fmt) << ", frame " << i
                                        << ": " << difference (got[i], want[i]);
    }
    /* and the input is left as it was */
    GstBuffer *in = read_only_frame ({ el.fmt_a, 256, 200, 0 });
    GstMapInfo map;
    gst_buffer_map (in, &map, GST_MAP_READ);
    const std::vector<uint8_t> before (map.data, map.data + map.size);
    gst_buffer_unmap (in, &map);
    GstElement *e = parse_element (desc);
    ASSERT_TRUE (e);
    GstHarness *h = gst_harness_new_with_element (e, "sink", "src");
    gst_object_unref (e);
    gst_harness_set_caps_str (h, frame_caps ({ el.fmt_a, 256, 200, 0 }).c_str (), "video/x-raw");
    GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    ASSERT_TRUE (out) << desc;
    gst_buffer_unref (out);
    gst_harness_teardown (h);
    gst_buffer_map (in, &map, GST_MAP_READ);
    EXPECT_TRUE (std::equal (before.begin (), before.end (), map.data)) << desc << " wrote into its input";
    gst_buffer_unmap (in, &map);
    gst_buffer_unref (in);
  }
}

template <int Pad>
static GstBuffer *
padded_frame (const InFrame & f)
{
  return with_row_padding (make_frame (f), f.format, f.width, f.height, Pad);
}

void
check_padded_input (const std::string & backend)
{
  for (const EdgeElement & el : edge_elements ()) {
    const std::string desc = el.description (backend);
    for (const GstVideoFormat fmt : el.formats ()) {
      const std::vector<InFrame> frames = { { fmt, 201, 117, 0 }, { fmt, 201, 117, 2 } };
      const std::vector<Output> want = run_frames (desc, frames);
      ASSERT_EQ (want.size (), frames.size ()) << desc;
      for (const FrameMaker make : { (FrameMaker) padded_frame<1>, (FrameMaker) padded_frame<13>,
               (FrameMaker) padded_frame<64> }) {
        const std::vector<Output> got = run_frames (desc, frames, nullptr, make);
        ASSERT_EQ (got.size (), frames.size ()) << desc << ": padded input refused";
        for (size_t i = 0; i < frames.size (); i++)
          EXPECT_TRUE (got[i] == want[i]) << desc << " " << gst_video_format_to_string (fmt) << ", frame " << i
                                          << ", padded rows: " << difference (got[i], want[i]);
      }
    }
  }
}

/* Every frame an appsink named "out" receives, described. */
static std::vector<Output>
pull_outputs (const std::string & description, int timeout_s = 60)
{
  std::vector<Output> out;
  GstElement *pipe = gst_parse_launch (description.c_str (), nullptr);
  if (!pipe) {
    ADD_FAILURE () << "cannot build " << description;
    return out;
  }
  if (shared_context ())
    gst_element_set_context (pipe, shared_context ());
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "out");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while (GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), (GstClockTime) timeout_s * GST_SECOND)) {
    out.push_back (describe_output (gst_sample_get_buffer (s), gst_sample_get_caps (s)));
    gst_sample_unref (s);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  return out;
}

void
check_padding_elements_upstream (const std::string & backend)
{
  GstElementFactory *box = gst_element_factory_find ("videobox");
  GstElementFactory *crop = gst_element_factory_find ("videocrop");
  ASSERT_TRUE (crop) << "videocrop (gst-plugins-good) is missing";
  const std::string img = data_path ("grace_hopper.jpg");
  for (const EdgeElement & el : edge_elements ()) {
    const std::string desc = el.description (backend);
    for (const GstVideoFormat fmt : el.formats ()) {
      const std::string f = gst_video_format_to_string (fmt);
      const std::string head = "filesrc location=" + img + " ! jpegdec ! videoconvert ! videoscale ! "
          "video/x-raw,width=240,height=180 ! imagefreeze num-buffers=2 ! videoconvert ! video/x-raw,format=" + f +
          " ! ";
      /* NV12 cropped to 233x177: luma rows of 233 bytes and chroma rows
       * of 117 pairs, each padded, the chroma cut at an odd left and top;
       * videobox takes no NV12 */
      std::vector<std::string> padders = { "videocrop left=3 top=2 right=4 bottom=1" };
      GstCaps *caps = gst_caps_from_string (("video/x-raw,format=" + f).c_str ());
      if (box && gst_element_factory_can_sink_any_caps (box, caps))
        padders.push_back ("videobox left=-3 top=-1 right=2 bottom=-2");
      gst_caps_unref (caps);
      for (const std::string & padder : padders) {
        /* The padder writes an odd-width frame straight into whatever
         * buffer our element's allocation offers (pitched rows) or its own
         * (rows padded to 4 bytes). The reference: the same frame written
         * into plain buffers (identity drops the allocation query). */
        const std::vector<Output> got = pull_outputs (head + padder + " ! " + desc + " ! appsink name=out sync=false");
        const std::vector<Output> want = pull_outputs (head + padder + " ! identity drop-allocation=true ! " + desc +
            " ! appsink name=out sync=false");
        ASSERT_EQ (got.size (), 2u) << desc << " " << f << " after " << padder;
        ASSERT_EQ (want.size (), 2u) << desc << " " << f << " after " << padder;
        for (size_t i = 0; i < got.size (); i++)
          EXPECT_TRUE (got[i] == want[i]) << desc << " " << f << " after " << padder << ", frame " << i << ": "
                                          << difference (got[i], want[i]);
      }
    }
  }
  if (box)
    gst_object_unref (box);
  gst_object_unref (crop);
}

/* ------------------------------------------------------ flushing seeks */

/* A playing pipeline ending in appsink "out" (one buffer at a time). */
struct SeekPipe {
  GstElement *pipe = nullptr, *sink = nullptr;
  explicit SeekPipe (const std::string & description)
  {
    pipe = gst_parse_launch (description.c_str (), nullptr);
    if (!pipe)
      return;
    if (shared_context ())
      gst_element_set_context (pipe, shared_context ());
    sink = gst_bin_get_by_name (GST_BIN (pipe), "out");
    g_object_set (sink, "max-buffers", 1, "sync", FALSE, nullptr);
    gst_element_set_state (pipe, GST_STATE_PLAYING);
  }
  ~SeekPipe ()
  {
    if (pipe)
      gst_element_set_state (pipe, GST_STATE_NULL);
    if (sink)
      gst_object_unref (sink);
    if (pipe)
      gst_object_unref (pipe);
  }
  /* n outputs, with their timestamps */
  std::vector<Output> pull (int n, std::vector<GstClockTime> *pts = nullptr)
  {
    std::vector<Output> out;
    for (int i = 0; i < n; i++) {
      GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 30 * GST_SECOND);
      if (!s)
        break;
      GstBuffer *b = gst_sample_get_buffer (s);
      if (pts)
        pts->push_back (GST_BUFFER_PTS (b));
      out.push_back (describe_output (b, gst_sample_get_caps (s)));
      gst_sample_unref (s);
    }
    return out;
  }
  bool seek (GstClockTime t)
  {
    return gst_element_seek_simple (pipe, GST_FORMAT_TIME,
        (GstSeekFlags) (GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE), (gint64) t);
  }
  std::string error ()
  {
    GstBus *bus = gst_element_get_bus (pipe);
    std::string e;
    if (GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR)) {
      GError *err = nullptr;
      gst_message_parse_error (m, &err, nullptr);
      e = err->message;
      g_clear_error (&err);
      gst_message_unref (m);
    }
    gst_object_unref (bus);
    return e;
  }
};

static int
flow_points (const Output & o)
{
  /* "flow N grid G: ..." */
  const size_t p = o.metas.find ("flow ");
  return p == std::string::npos ? -1 : std::atoi (o.metas.c_str () + p + 5);
}

void
check_flow_flushing_seeks (const std::string & backend)
{
  const std::string desc = "filesrc location=" + data_path ("realshort.mp4") +
      " ! decodebin ! videoconvert ! video/x-raw,format=GRAY8 ! cudaflow " + backend +
      " draw=true ! appsink name=out";
  SeekPipe p (desc);
  ASSERT_TRUE (p.pipe) << desc;
  std::vector<GstClockTime> pts;
  const std::vector<Output> first = p.pull (8, &pts);
  ASSERT_EQ (first.size (), 8u) << p.error ();
  /* from the start, tracks begin on the first frame and follow after */
  EXPECT_EQ (flow_points (first[0]), 0) << first[0].metas.substr (0, 200);
  EXPECT_GT (flow_points (first[1]), 10);

  /* back to the start: the same outputs, tracks found again from scratch
   * (not followed from frame 7 to frame 0) */
  ASSERT_TRUE (p.seek (0));
  const std::vector<Output> again = p.pull (8);
  ASSERT_EQ (again.size (), 8u) << p.error ();
  for (size_t i = 0; i < again.size (); i++)
    EXPECT_TRUE (again[i] == first[i]) << "cudaflow after a flushing seek to 0, frame " << i << ": "
                                       << difference (again[i], first[i]);

  /* into the middle: the first frame there starts new tracks */
  ASSERT_TRUE (p.seek (pts[4]));
  std::vector<GstClockTime> pts_mid;
  const std::vector<Output> mid = p.pull (3, &pts_mid);
  ASSERT_EQ (mid.size (), 3u) << p.error ();
  EXPECT_EQ (pts_mid[0], pts[4]);
  EXPECT_GT (flow_points (first[4]), 0) << "frame 4 followed tracks on the first pass";
  EXPECT_EQ (flow_points (mid[0]), 0) << "tracks were not restarted by the seek: " << mid[0].metas.substr (0, 200);
  EXPECT_GT (flow_points (mid[1]), 10);
}

/* A short raw-video Matroska file of faces: grace_hopper and astronaut,
 * moving, 10 frames/s. */
static std::string
make_face_clip (const std::string & path)
{
  const cv::Mat a = load_rgb (data_path ("grace_hopper.jpg")), b = load_rgb (data_path ("astronaut.png"));
  GstElement *pipe = gst_parse_launch (("appsrc name=src format=time caps=\"" +
                                           caps_string (GST_VIDEO_FORMAT_RGB, 256, 256) +
                                           "\" ! matroskamux ! filesink location=" + path)
                                           .c_str (),
      nullptr);
  if (!pipe)
    return "cannot build the muxing pipeline (matroskamux)";
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (int i = 0; i < 12; i++) {
    cv::Mat scaled, moved;
    cv::resize (i % 3 == 2 ? b : a, scaled, cv::Size (256, 256), 0, 0, cv::INTER_AREA);
    const cv::Mat shift = (cv::Mat_<double> (2, 3) << 1, 0, 2 * (i % 5), 0, 1, i % 4);
    cv::warpAffine (scaled, moved, shift, scaled.size (), cv::INTER_NEAREST, cv::BORDER_REFLECT_101);
    GstBuffer *buf = rgb_to_buffer (moved, GST_VIDEO_FORMAT_RGB);
    GST_BUFFER_PTS (buf) = (GstClockTime) i * 100 * GST_MSECOND;
    GST_BUFFER_DURATION (buf) = 100 * GST_MSECOND;
    gst_app_src_push_buffer (GST_APP_SRC (src), buf);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  std::string err;
  if (!m || GST_MESSAGE_TYPE (m) != GST_MESSAGE_EOS)
    err = "writing the clip failed";
  if (m)
    gst_message_unref (m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (pipe);
  return err;
}

void
check_face_flushing_seeks (const std::string & backend)
{
  const std::string path = (std::filesystem::temp_directory_path () /
      ("cudavision-faces-" + std::to_string (::getpid ()) + ".mkv"))
                               .string ();
  const std::string err = make_face_clip (path);
  ASSERT_EQ (err, "");
  struct Remove {
    std::string p;
    ~Remove () { std::filesystem::remove (p); }
  } remove { path };
  const std::string desc = "filesrc location=" + path + " ! matroskademux ! videoconvert ! video/x-raw,format=RGBA ! "
      "cudafacedetect " + backend + " draw=true ! appsink name=out";
  SeekPipe p (desc);
  ASSERT_TRUE (p.pipe) << desc;
  std::vector<GstClockTime> pts;
  const std::vector<Output> first = p.pull (12, &pts);
  ASSERT_EQ (first.size (), 12u) << p.error ();
  int with_faces = 0;
  for (const Output & o : first)
    with_faces += o.metas.find ("roi face") != std::string::npos;
  EXPECT_GE (with_faces, 10) << "the clip's faces were not found";

  for (const int at : { 0, 5, 9 }) {
    ASSERT_TRUE (p.seek (pts[at])) << "seek to frame " << at;
    std::vector<GstClockTime> got_pts;
    const std::vector<Output> again = p.pull (3, &got_pts);
    ASSERT_EQ (again.size (), 3u) << "after a seek to frame " << at << ": " << p.error ();
    for (size_t i = 0; i < again.size (); i++) {
      EXPECT_EQ (got_pts[i], pts[at + i]);
      EXPECT_TRUE (again[i] == first[at + i]) << "cudafacedetect after a flushing seek to frame " << at << ", frame "
                                              << at + i << ": " << difference (again[i], first[at + i]);
    }
  }
}

/* ------------------------------------------------- start / stop cycles */

GstTracer *
leaks_tracer ()
{
  GstTracer *found = nullptr;
  GList *tracers = gst_tracing_get_active_tracers ();
  for (GList *l = tracers; l; l = l->next) {
    if (!found && g_str_equal (G_OBJECT_TYPE_NAME (l->data), "GstLeaksTracer"))
      found = GST_TRACER (l->data);
    else
      gst_object_unref (l->data);
  }
  g_list_free (tracers);
  return found;
}

double
resident_mib ()
{
  std::ifstream f ("/proc/self/statm");
  long pages = 0, rss = 0;
  f >> pages >> rss;
  return rss * (double) sysconf (_SC_PAGESIZE) / (1024.0 * 1024.0);
}

static double
device_used_mib ()
{
  size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo (&free_b, &total_b) != cudaSuccess) {
    cudaGetLastError ();
    return -1;
  }
  return (double) (total_b - free_b) / (1024.0 * 1024.0);
}

struct Memory {
  double rss = 0, heap = 0, dev = 0;
};

static Memory
memory_now (bool device)
{
  malloc_trim (0);
  Memory m;
  m.rss = resident_mib ();
  const struct mallinfo2 mi = mallinfo2 ();
  m.heap = (double) (mi.uordblks + mi.hblkhd) / (1024.0 * 1024.0);
  m.dev = device ? device_used_mib () : 0;
  return m;
}

/* Objects the leaks tracer saw created since tracking started and not
 * destroyed, by type name (addresses may be reused, hence counts). */
static std::map<std::string, int>
survivors (GstTracer * tracer)
{
  GstStructure *cp = nullptr;
  g_signal_emit_by_name (tracer, "activity-get-checkpoint", &cp);
  std::map<std::string, int> per_address;
  std::map<std::string, std::string> type_of;
  for (const char *field : { "objects-created-list", "objects-removed-list" }) {
    const GValue *list = gst_structure_get_value (cp, field);
    const int sign = g_str_equal (field, "objects-created-list") ? 1 : -1;
    for (guint i = 0; list && i < gst_value_list_get_size (list); i++) {
      const GstStructure *s = gst_value_get_structure (gst_value_list_get_value (list, i));
      const std::string addr = gst_structure_get_string (s, "address");
      per_address[addr] += sign;
      type_of[addr] = gst_structure_get_string (s, "type-name");
    }
  }
  gst_structure_free (cp);
  std::map<std::string, int> out;
  for (const auto & [addr, n] : per_address)
    if (n > 0)
      out[type_of[addr]] += n;
  return out;
}

void
check_start_stop_cycles (const std::string & backend, int cycles, int w, int h, const CycleLimits & limits)
{
  const std::string b = " " + backend + " ";
  const std::string desc = "videotestsrc num-buffers=2 pattern=ball ! video/x-raw,format=RGBA,width=" +
      std::to_string (w) + ",height=" + std::to_string (h) + ",framerate=30/1 ! cudafacedetect" + b +
      "! cudablur" + b + "! cudaflow" + b + "! cudagray" + b + "! cudaotsu" + b + "! cudacanny" + b + "! cudaharris" + b +
      "! fakesink";
  GstElement *pipe = gst_parse_launch (desc.c_str (), nullptr);
  ASSERT_TRUE (pipe) << desc;
  if (shared_context ())
    gst_element_set_context (pipe, shared_context ());
  GstBus *bus = gst_element_get_bus (pipe);
  auto cycle = [&] (int i) {
    if (gst_element_set_state (pipe, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
      ADD_FAILURE () << "cycle " << i << ": could not start";
      return false;
    }
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
        (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    const bool eos = m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS;
    if (!eos) {
      GError *err = nullptr;
      if (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR)
        gst_message_parse_error (m, &err, nullptr);
      ADD_FAILURE () << "cycle " << i << ": " << (err ? err->message : "no EOS within 60 s");
      g_clear_error (&err);
    }
    if (m)
      gst_message_unref (m);
    gst_element_set_state (pipe, GST_STATE_NULL);
    return eos;
  };
  const bool device = limits.device_mib >= 0;
  ASSERT_TRUE (cycle (0));
  /* Memory first, without the tracer's bookkeeping (while tracking, it
   * keeps a record of every object created and destroyed, which grows).
   * Two measures, after malloc_trim (free heap pages handed back, so what
   * malloc keeps for reuse does not look like a leak): the resident set
   * (heap, pinned host memory, the driver's) and the heap in use. */
  const Memory m0 = memory_now (device);
  std::vector<Memory> trail;
  for (int i = 1; i <= cycles; i++) {
    if (!cycle (i))
      break;
    if (i % std::max (1, cycles / 4) == 0)
      trail.push_back (memory_now (device));
  }
  const Memory m1 = memory_now (device);
  std::printf ("%d cycles of %dx%d through every element (%s): resident %.1f -> %.1f MiB, heap in use %.1f -> %.1f "
               "MiB",
      cycles, w, h, backend.c_str (), m0.rss, m1.rss, m0.heap, m1.heap);
  if (device)
    std::printf (", device memory in use %.1f -> %.1f MiB", m0.dev, m1.dev);
  std::printf ("\n  resident after each quarter:");
  for (const Memory & m : trail)
    std::printf (" %.1f", m.rss);
  std::printf (" MiB\n");
  /* Growth is judged from the first quarter on: the first cycles grow the
   * process once (the CUDA modules the first cycle did not touch load
   * lazily, caches fill; docs/RELIABILITY.md "The GPU suite, soak and
   * streams"), a leak grows it every cycle. */
  const Memory base = trail.empty () ? m0 : trail.front ();
#if defined(__SANITIZE_ADDRESS__)
  /* ASan holds freed memory in quarantine (the resident set grows) and
   * has its own allocator (mallinfo2 reads 0); LeakSanitizer checks leaks
   * at exit instead */
  std::printf ("  AddressSanitizer build: memory growth not checked here, LeakSanitizer does\n");
#else
  EXPECT_LE (m1.rss - base.rss, limits.rss_mib) << "resident memory grew over the last 3/4 of " << cycles
                                                << " cycles";
  EXPECT_LE (m1.heap - base.heap, limits.rss_mib) << "heap in use grew over the last 3/4 of " << cycles << " cycles";
#endif
  if (device) {
    EXPECT_LE (m1.dev - base.dev, limits.device_mib) << "device memory grew over the last 3/4 of " << cycles
                                                     << " cycles";
  }
  /* Then every GStreamer object made during as many cycles again must be
   * gone at the end. */
  check_cycles_leave_nothing ([&] (int i) { return cycle (cycles + i); }, cycles);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

void
check_cycles_leave_nothing (const std::function<bool (int)> & cycle, int cycles)
{
  GstTracer *tracer = leaks_tracer ();
  const gchar *wanted = g_getenv ("GST_TRACERS");
  if (!tracer) {
    if (wanted && std::strstr (wanted, "leaks"))
      ADD_FAILURE () << "GST_TRACERS=" << wanted << " but the leaks tracer is not loaded (no coretracers plugin?): "
                     << "the objects cannot be checked";
    else
      std::printf ("leaks tracer not active (GST_TRACERS=leaks): objects not checked\n");
    for (int i = 1; i <= cycles; i++)
      if (!cycle (i))
        break;
    return;
  }
  g_signal_emit_by_name (tracer, "activity-start-tracking");
  int done = 0;
  while (done < cycles && cycle (done + 1))
    done++;
  /* a stopped pad task is released by its pool thread a moment later:
   * wait for those threads, as GStreamer's own leaks tests do */
  gst_task_cleanup_all ();
  const std::map<std::string, int> left = survivors (tracer);
  std::string list;
  for (const auto & [type, n] : left)
    list += type + " x" + std::to_string (n) + " ";
  EXPECT_TRUE (left.empty ()) << "GStreamer objects created during the cycles and still alive: " << list;
  std::printf ("leaks tracer: %d cycles, %zu object types left over\n", done, left.size ());
  g_signal_emit_by_name (tracer, "activity-stop-tracking");
  gst_object_unref (tracer);
}

}  // namespace cvtest
