/* What the application hears, counted, for every element (devices
 * hidden, diagnostics_main.cpp): each failure one error from the element
 * that failed, however often negotiation or the stream asks again; the
 * CPU fallback one bus warning per element (naming the launch properties
 * that do nothing there) and one line on stderr per pipeline. */
#include "../common/edge_cases.h"
#include "../common/temp_file.h"
#include "../common/test_util.h"

#include <gst/check/gstharness.h>
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

using namespace cvtest;

namespace {

/* Every error and warning posted on a pipeline's bus, by the name of the
 * element that posted it, counted as they are posted (a pipeline going
 * to NULL flushes what was not popped). */
struct Heard {
  std::mutex lock;
  std::map<std::string, std::vector<std::string>> errors, warnings;
};

GstBusSyncReply
hear (GstBus *, GstMessage * m, gpointer data)
{
  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR || GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING) {
    Heard *h = static_cast<Heard *> (data);
    const BusError e = parse_bus_error (m);
    std::lock_guard<std::mutex> guard (h->lock);
    (e.is_error ? h->errors : h->warnings)[e.source].push_back (e.text);
  }
  return GST_BUS_PASS;
}

std::string
joined (const std::vector<std::string> & v)
{
  std::string s;
  for (const std::string & x : v)
    s += "\n  " + x;
  return s.empty () ? " (none)" : s;
}

/* Runs `description` until EOS or an error, then 300 ms more (the
 * retries a refusal may bring: the next buffer, a reconfigure), and to
 * NULL; what its bus heard meanwhile. */
void
run_counting (const std::string & description, Heard * heard, bool * eos = nullptr)
{
  GError *err = nullptr;
  GstElement *pipe = gst_parse_launch (description.c_str (), &err);
  ASSERT_TRUE (pipe) << description << ": " << (err ? err->message : "?");
  g_clear_error (&err);
  GstBus *bus = gst_element_get_bus (pipe);
  gst_bus_set_sync_handler (bus, hear, heard, nullptr);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  if (eos)
    *eos = m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS;
  if (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR)
    g_usleep (300 * 1000);
  gst_clear_message (&m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_bus_set_sync_handler (bus, nullptr, nullptr, nullptr);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

/* `description` fails: exactly one error from `element` (the one named so
 * in it), saying `says`. */
void
expect_one_error (const std::string & description, const std::string & element, const std::string & says)
{
  Heard h;
  bool eos = false;
  run_counting (description, &h, &eos);
  EXPECT_FALSE (eos) << description;
  const std::vector<std::string> & mine = h.errors[element];
  ASSERT_EQ (mine.size (), 1u) << description << ": errors from " << element << ":" << joined (mine);
  EXPECT_NE (mine[0].find (says), std::string::npos) << description << ": " << mine[0];
}

std::string
source_caps (const EdgeElement & el)
{
  return "videotestsrc num-buffers=5 ! " + caps_string (el.fmt_a, 96, 64);
}

}  // namespace

/* backend=cuda without a device: start fails, once. */
TEST (BusMessages, NoDeviceIsOneError)
{
  for (const EdgeElement & el : edge_elements ())
    expect_one_error (source_caps (el) + " ! " + el.name + " name=e backend=cuda " + el.props + " ! fakesink", "e",
        "No usable CUDA device");
}

/* Device memory downstream on the CPU fallback: negotiation is refused at
 * every retry, the error said once. */
TEST (BusMessages, DeviceMemoryOnTheCpuIsOneError)
{
  for (const EdgeElement & el : edge_elements ())
    expect_one_error (source_caps (el) + " ! " + el.name + " name=e " + el.props +
            " ! video/x-raw(memory:CudaVisionMemory) ! fakesink",
        "e", "needs the GPU backend");
}

/* A frame whose buffer is shorter than its caps, pushed three times into
 * one running element: refused each time, said once. */
TEST (BusMessages, ShortFramesAreOneError)
{
  for (const EdgeElement & el : edge_elements ()) {
    const std::string desc = el.name + " name=e backend=cpu " + el.props;
    GstElement *e = gst_parse_launch (desc.c_str (), nullptr);
    ASSERT_TRUE (e) << desc;
    GstBus *bus = gst_bus_new ();
    Heard h;
    gst_bus_set_sync_handler (bus, hear, &h, nullptr);
    gst_element_set_bus (e, bus);
    GstHarness *harness = gst_harness_new_with_element (e, "sink", "src");
    gst_object_unref (e);
    const std::string caps = caps_string (el.fmt_a, 96, 64);
    gst_harness_set_caps_str (harness, caps.c_str (), "video/x-raw");
    GstVideoInfo info;
    gst_video_info_set_format (&info, el.fmt_a, 96, 64);
    for (int i = 0; i < 3; i++) {
      GstBuffer *buf = gst_buffer_new_allocate (nullptr, info.size / 2, nullptr);
      gst_buffer_memset (buf, 0, 0, info.size / 2);
      EXPECT_EQ (gst_harness_push (harness, buf), GST_FLOW_ERROR) << desc << ", frame " << i;
    }
    gst_harness_teardown (harness);
    gst_bus_set_sync_handler (bus, nullptr, nullptr, nullptr);
    gst_object_unref (bus);
    EXPECT_EQ (h.errors["e"].size (), 1u) << desc << ":" << joined (h.errors["e"]);
  }
}

/* Each element's own refusals. */
TEST (BusMessages, ElementSettingsAreOneError)
{
  expect_one_error ("videotestsrc num-buffers=5 ! video/x-raw,format=RGBA,width=96,height=64 ! "
                    "cudaflow name=e backend=cpu mode=sparse output=flow-color ! fakesink",
      "e", "output=flow-color needs mode=dense");
  expect_one_error ("videotestsrc num-buffers=5 ! video/x-raw,format=RGBA,width=96,height=64 ! "
                    "cudafacedetect name=e backend=cpu cascade=/nonexistent/cascade.xml ! fakesink",
      "e", "Could not load the face cascade");
  /* cut short inside the cascade */
  const TempFile corrupt ("corrupt-cascade.xml",
      "<?xml version=\"1.0\"?>\n<opencv_storage><cascade><stageType>BOOST</stageType>");
  expect_one_error ("videotestsrc num-buffers=5 ! video/x-raw,format=RGBA,width=96,height=64 ! "
                    "cudafacedetect name=e backend=cpu cascade=" + corrupt.path + " ! fakesink",
      "e", "face cascade");
}

namespace {

/* What g_printerr printed while it was installed. */
std::mutex printed_lock;
std::vector<std::string> printed;

void
keep_printerr (const gchar * s)
{
  std::lock_guard<std::mutex> guard (printed_lock);
  printed.emplace_back (s);
}

size_t
fallback_lines ()
{
  std::lock_guard<std::mutex> guard (printed_lock);
  size_t n = 0;
  for (const std::string & s : printed)
    n += s.find ("cudavision: No usable CUDA device: the elements run on the CPU backend") != std::string::npos;
  return n;
}

const char *const kChain = "videotestsrc num-buffers=3 ! video/x-raw,format=RGBA,width=96,height=64 ! "
                           "cudafacedetect name=f ! cudaflow name=o ! cudagray name=g ! cudablur name=b ! "
                           "cudaharris name=h ! cudacanny name=c ! cudaotsu name=t ! fakesink";

}  // namespace

/* Seven elements falling back: seven warnings, one each, and one line on
 * stderr for the pipeline; a second pipeline in the same process says it
 * again, once. */
TEST (BusMessages, FallbackIsOneWarningPerElementAndOneLinePerPipeline)
{
  GPrintFunc old = g_set_printerr_handler (keep_printerr);
  {
    std::lock_guard<std::mutex> guard (printed_lock);
    printed.clear ();
  }
  for (int run = 1; run <= 2; run++) {
    Heard h;
    bool eos = false;
    run_counting (kChain, &h, &eos);
    EXPECT_TRUE (eos) << "run " << run;
    EXPECT_TRUE (h.errors.empty ()) << "run " << run;
    EXPECT_EQ (h.warnings.size (), 7u) << "run " << run << ": warnings from " << h.warnings.size () << " elements";
    for (const auto & w : h.warnings) {
      ASSERT_EQ (w.second.size (), 1u) << w.first << ":" << joined (w.second);
      EXPECT_NE (w.second[0].find (w.first + " runs on the CPU backend"), std::string::npos) << w.second[0];
    }
    EXPECT_EQ (fallback_lines (), (size_t) run) << "run " << run;
  }
  g_set_printerr_handler (old);
}

/* The launch properties on the fallback: in the element's one warning. */
TEST (BusMessages, FallbackWarningNamesUnusedLaunchSettings)
{
  GPrintFunc old = g_set_printerr_handler (keep_printerr);
  Heard h;
  bool eos = false;
  run_counting ("videotestsrc num-buffers=2 ! video/x-raw,format=RGBA,width=96,height=64 ! "
                "cudagray name=g block-sizing=model block-size=32x8 ! cudablur name=b ! fakesink",
      &h, &eos);
  g_set_printerr_handler (old);
  EXPECT_TRUE (eos);
  ASSERT_EQ (h.warnings["g"].size (), 1u) << joined (h.warnings["g"]);
  const std::string & w = h.warnings["g"][0];
  EXPECT_NE (w.find ("runs on the CPU backend"), std::string::npos) << w;
  EXPECT_NE (w.find ("block-sizing=model block-size=32x8 do nothing there"), std::string::npos) << w;
  ASSERT_EQ (h.warnings["b"].size (), 1u) << joined (h.warnings["b"]);
  EXPECT_EQ (h.warnings["b"][0].find ("nothing there"), std::string::npos) << h.warnings["b"][0];
}
