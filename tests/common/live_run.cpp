/* cudavision tests — property changes while playing (see the header). */
#include "live_run.h"

#include "test_util.h"

#include "../../cpu/flow_cpu.h"

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gtest/gtest.h>

namespace cvtest {

LiveRun::~LiveRun ()
{
  for (GstSample *s : samples)
    gst_sample_unref (s);
}

GstVideoInfo
LiveRun::info (size_t k) const
{
  GstVideoInfo i;
  gst_video_info_init (&i);
  EXPECT_TRUE (gst_video_info_from_caps (&i, caps (k)));
  return i;
}

bool
LiveRun::has_warning_containing (const std::string & s) const
{
  for (const std::string & w : warnings)
    if (w.find (s) != std::string::npos)
      return true;
  return false;
}

namespace {

/* Errors and warnings posted so far into `r`; true once there was an error. */
bool
drain_bus (GstBus * bus, LiveRun * r)
{
  while (GstMessage *m = gst_bus_pop_filtered (bus, (GstMessageType) (GST_MESSAGE_ERROR | GST_MESSAGE_WARNING))) {
    const BusError e = parse_bus_error (m);
    (e.is_error ? r->errors : r->warnings).push_back (e.source + ": " + e.text);
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

}  // namespace

void
run_live (LiveRun * r, const std::string & element, const FrameSequence & seq, const Change & change,
    const std::string & tail, size_t held)
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

Change
switch_at (const char *property, std::vector<size_t> at, const char *first, const char *second)
{
  return [=] (size_t k, GstElement * e) {
    for (size_t i = 0; i < at.size (); i++)
      if (at[i] == k)
        gst_util_set_object_arg (G_OBJECT (e), property, i % 2 == 0 ? first : second);
  };
}

Change
flow_colour_changes (std::vector<std::string> * seen)
{
  return [seen] (size_t k, GstElement * e) {
    if (k == 2) {
      gst_util_set_object_arg (G_OBJECT (e), "output", "flow-color");
      seen->push_back (property_string (e, "output"));
    } else if (k == 4) {
      gst_util_set_object_arg (G_OBJECT (e), "mode", "dense");
      gst_util_set_object_arg (G_OBJECT (e), "output", "flow-color");
      seen->push_back (property_string (e, "output"));
    } else if (k == 6) {
      gst_util_set_object_arg (G_OBJECT (e), "mode", "sparse");
      seen->push_back (property_string (e, "mode"));
    }
  };
}

void
expect_flow_colour_refusals (const LiveRun & r, const std::vector<std::string> & seen)
{
  EXPECT_EQ (seen, (std::vector<std::string> { "passthrough", "flow-color", "dense" }));
  EXPECT_TRUE (r.has_warning_containing ("output=flow-color")) << r.warnings.size () << " warnings";
  EXPECT_TRUE (r.has_warning_containing ("mode=sparse")) << r.warnings.size () << " warnings";
}

void
expect_all_out (const LiveRun & r, size_t frames)
{
  ASSERT_EQ (r.samples.size (), frames) << r.first_error ();
  EXPECT_TRUE (r.errors.empty ()) << r.first_error ();
}

GstVideoFormat
format_of (const LiveRun & r, size_t k)
{
  const GstVideoInfo info = r.info (k);
  return GST_VIDEO_INFO_FORMAT (&info);
}

std::string
property_string (GstElement * e, const char *name)
{
  GValue v = G_VALUE_INIT;
  g_object_get_property (G_OBJECT (e), name, &v);
  gchar *s = gst_value_serialize (&v);
  std::string out = s ? s : "";
  g_free (s);
  g_value_unset (&v);
  return out;
}

std::vector<cv::Mat>
moving_pictures ()
{
  static const cv::Mat photo = load_rgb (data_path ("astronaut.png"));
  std::vector<cv::Mat> v;
  for (size_t k = 0; k < kLiveFrames; k++)
    v.push_back (photo (cv::Rect (180 + 2 * (int) k, 120 + (int) k, kLiveWidth, kLiveHeight)).clone ());
  return v;
}

std::vector<cudavision::FlowVector>
dense_reference (const FrameSequence & s, size_t k)
{
  return clipped (opencv_lk (s.luma[k - 1], s.luma[k], grid_points (kLiveWidth, kLiveHeight, kLiveStep),
                      cudavision::FlowParams ()),
      kLiveWidth, kLiveHeight);
}

cv::Mat
flow_colours (const std::vector<cudavision::FlowVector> & v)
{
  cv::Mat m (kLiveHeight, kLiveWidth, CV_8UC4);
  cudavision::cpu::flow_color (v, kLiveStep, kLiveMaxFlow, { m.data, m.step, m.cols, m.rows });
  return m;
}

}  // namespace cvtest
