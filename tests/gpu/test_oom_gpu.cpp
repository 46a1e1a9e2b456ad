/* Out of GPU memory, at start and mid-stream, on its own: it takes nearly
 * all of the device's memory, so meson runs it alone (is_parallel: false)
 * rather than beside other GPU tests, which would fail to allocate. */
#include "../common/test_util.h"

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

using namespace cvtest;

/* Out of GPU memory is a clear error on the bus, not a crash or garbage:
 * take nearly all free memory, then ask for a 1 GiB frame. */
TEST (GpuMemory, OutOfGpuMemoryIsAClearError)
{
  size_t free_b = 0, total_b = 0;
  ASSERT_EQ (cudaMemGetInfo (&free_b, &total_b), cudaSuccess);
  void *hog = nullptr;
  const size_t keep = 256u << 20;  /* leave room for contexts and small frames */
  ASSERT_EQ (cudaMalloc (&hog, free_b - keep), cudaSuccess);
  BusResult r = run_pipeline ("videotestsrc num-buffers=1 pattern=solid-color ! "
                              "video/x-raw,format=RGBA,width=16384,height=16384 ! cudagray backend=cuda ! fakesink",
      120);
  cudaFree (hog);
  EXPECT_FALSE (r.eos);
  ASSERT_FALSE (r.errors.empty ());
  EXPECT_TRUE (r.has_error_containing ("GPU") || r.has_error_containing ("allocate")) << r.errors[0];
}

namespace {

/* Holds nearly all free device memory while it lives: `leave` bytes stay
 * free. Large requests fail on fragmentation, so it steps down. */
struct MemoryHog {
  std::vector<void *> blocks;
  explicit MemoryHog (size_t leave)
  {
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo (&free_b, &total_b) != cudaSuccess || free_b <= leave)
      return;
    size_t want = free_b - leave;
    for (size_t chunk = want; chunk >= (64u << 20) && want >= (64u << 20);) {
      void *p = nullptr;
      if (cudaMalloc (&p, chunk) == cudaSuccess) {
        blocks.push_back (p);
        want -= chunk;
        chunk = std::min (chunk, want);
      } else {
        cudaGetLastError ();
        chunk /= 2;
      }
    }
  }
  ~MemoryHog ()
  {
    for (void *p : blocks)
      cudaFree (p);
  }
};

struct Appsrc {
  GstElement *pipe = nullptr, *src = nullptr, *sink = nullptr;
  GstBus *bus = nullptr;
  explicit Appsrc (const std::string & chain)
  {
    const std::string desc = "appsrc name=src format=time ! " + chain + " ! appsink name=out sync=false";
    pipe = gst_parse_launch (desc.c_str (), nullptr);
    if (shared_context ())
      gst_element_set_context (pipe, shared_context ());
    src = gst_bin_get_by_name (GST_BIN (pipe), "src");
    sink = gst_bin_get_by_name (GST_BIN (pipe), "out");
    bus = gst_element_get_bus (pipe);
    gst_element_set_state (pipe, GST_STATE_PLAYING);
  }
  ~Appsrc ()
  {
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (bus);
    gst_object_unref (sink);
    gst_object_unref (src);
    gst_object_unref (pipe);
  }
  /* pushes one frame with its caps; the output frame, or an empty Mat */
  cv::Mat push (const cv::Mat & rgb, int i, int timeout_s = 20)
  {
    GstCaps *caps = gst_caps_from_string (caps_string (GST_VIDEO_FORMAT_RGBA, rgb.cols, rgb.rows).c_str ());
    GstBuffer *buf = rgb_to_buffer (rgb, GST_VIDEO_FORMAT_RGBA);
    GST_BUFFER_PTS (buf) = (GstClockTime) i * GST_SECOND / 30;
    GstSample *sample = gst_sample_new (buf, caps, nullptr, nullptr);
    gst_app_src_push_sample (GST_APP_SRC (src), sample);
    gst_sample_unref (sample);
    gst_buffer_unref (buf);
    gst_caps_unref (caps);
    GstSample *out = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), (GstClockTime) timeout_s * GST_SECOND);
    if (!out)
      return cv::Mat ();
    cv::Mat m = buffer_to_mat (gst_sample_get_buffer (out), gst_sample_get_caps (out));
    gst_sample_unref (out);
    return m;
  }
  /* the first error on the bus, "" if none */
  std::string error ()
  {
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND, GST_MESSAGE_ERROR);
    if (!m)
      return "";
    std::string s = parse_bus_error (m).text;
    gst_message_unref (m);
    return s;
  }
};

}  // namespace

/* Mid-stream: frames flow, then the device fills up and a larger frame
 * arrives (new staging frames and scratch buffers needed): an error on the
 * bus, no crash; once memory is back, a new start gives the right frames. */
TEST (GpuMemory, OutOfMemoryMidStreamThenTheNextStartWorks)
{
  const std::string chain = "cudagray backend=cuda ! cudablur backend=cuda sigma=2 ! cudacanny backend=cuda";
  const cv::Mat small = random_rgb (640, 480, 1), huge = random_rgb (8192, 8192, 2);
  std::vector<cv::Mat> before;
  {
    Appsrc run (chain);
    for (int i = 0; i < 3; i++) {
      before.push_back (run.push (small, i));
      ASSERT_FALSE (before.back ().empty ()) << "frame " << i << ": " << run.error ();
    }
    MemoryHog hog (48u << 20);
    ASSERT_FALSE (hog.blocks.empty ());
    /* 8192x8192 RGBA: 256 MiB to upload into, more for the chain */
    const cv::Mat out = run.push (huge, 3, 5);
    EXPECT_TRUE (out.empty ()) << "a frame came out of a full device";
    const std::string err = run.error ();
    ASSERT_NE (err, "") << "no error on the bus";
    EXPECT_TRUE (err.find ("GPU") != std::string::npos || err.find ("memory") != std::string::npos) << err;
    std::printf ("mid-stream out-of-memory error: %s\n", err.c_str ());
  }
  /* memory back: a new pipeline runs and gives the same frames */
  Appsrc again (chain);
  for (int i = 0; i < 3; i++) {
    const cv::Mat m = again.push (small, i);
    ASSERT_FALSE (m.empty ()) << "after the error, frame " << i << ": " << again.error ();
    EXPECT_EQ (compare (m, before[i]).differing, 0) << "frame " << i;
  }
}
