/* cudagray through GStreamer on the CPU backend (runs in CI): every bundled
 * image and every input format against OpenCV, odd sizes, properties, and
 * the errors users meet. */
#include "../common/harness.h"

#include "../../cuda/common/device_info.h"

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

using namespace cvtest;

static const GstVideoFormat kFormats[] = {
  GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx,
  GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_ABGR, GST_VIDEO_FORMAT_xRGB, GST_VIDEO_FORMAT_xBGR,
  GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420,
};

static void
check_gray (const std::string & element, const cv::Mat & rgb, GstVideoFormat f, const std::string & what)
{
  const std::string in_caps = caps_string (f, rgb.cols, rgb.rows);
  const std::string out_caps = caps_string (GST_VIDEO_FORMAT_GRAY8, rgb.cols, rgb.rows);
  cv::Mat out = run_harness_mat (element, in_caps, out_caps, rgb_to_buffer (rgb, f));
  ASSERT_FALSE (out.empty ()) << what << " " << gst_video_format_to_string (f);
  const Diff d = compare (out, expected_gray (rgb, f));
  EXPECT_EQ (d.differing, 0) << what << " " << gst_video_format_to_string (f) << ": max diff " << d.max_abs;
}

TEST (GrayCpu, BundledImagesEveryFormatMatchOpenCV)
{
  const auto images = test_images ();
  ASSERT_GE (images.size (), 10u);
  for (const auto & path : images) {
    const cv::Mat rgb = load_rgb (path);
    for (GstVideoFormat f : kFormats)
      check_gray ("cudagray backend=cpu", rgb, f, path);
  }
}

TEST (GrayCpu, OddSizes)
{
  const int sizes[][2] = { { 1, 1 }, { 3, 2 }, { 2, 3 }, { 641, 479 }, { 1921, 1081 } };
  for (const auto & s : sizes) {
    const cv::Mat rgb = random_rgb (s[0], s[1], s[0] * 131 + s[1]);
    for (GstVideoFormat f : kFormats)
      check_gray ("cudagray backend=cpu", rgb, f, std::to_string (s[0]) + "x" + std::to_string (s[1]));
  }
}

/* The test must be able to fail: a wrong weight order is caught. */
TEST (GrayCpu, ChannelOrderMatters)
{
  const cv::Mat rgb = load_rgb (data_path ("astronaut.png"));
  const std::string in_caps = caps_string (GST_VIDEO_FORMAT_BGRA, rgb.cols, rgb.rows);
  const std::string out_caps = caps_string (GST_VIDEO_FORMAT_GRAY8, rgb.cols, rgb.rows);
  cv::Mat out = run_harness_mat ("cudagray backend=cpu", in_caps, out_caps, rgb_to_buffer (rgb, GST_VIDEO_FORMAT_BGRA));
  ASSERT_FALSE (out.empty ());
  /* right: the RGB weights; a swapped R/B weighting would differ a lot */
  EXPECT_EQ (compare (out, expected_gray (rgb, GST_VIDEO_FORMAT_BGRA)).differing, 0);
  cv::Mat swapped;
  cv::cvtColor (rgb, swapped, cv::COLOR_BGR2GRAY);
  EXPECT_GT (compare (out, swapped).differing, 1000);
}

TEST (GrayCpu, Properties)
{
  GstElement *e = gst_element_factory_make ("cudagray", nullptr);
  ASSERT_NE (e, nullptr);
  gint device = 0, backend = 9, sizing = 9;
  gchar *block = (gchar *) "x";
  g_object_get (e, "device-id", &device, "backend", &backend, "block-sizing", &sizing, "block-size", &block, nullptr);
  EXPECT_EQ (device, -1);
  EXPECT_EQ (backend, 0);  /* auto */
  EXPECT_EQ (sizing, 0);   /* static */
  EXPECT_EQ (block, nullptr);

  g_object_set (e, "block-size", "64x4", nullptr);
  g_object_get (e, "block-size", &block, nullptr);
  EXPECT_STREQ (block, "64x4");
  g_free (block);
  /* invalid shapes are refused with a warning; the old value stays */
  for (const char *bad : { "33x33", "0x8", "abc", "32x" }) {
    g_object_set (e, "block-size", bad, nullptr);
    g_object_get (e, "block-size", &block, nullptr);
    EXPECT_STREQ (block, "64x4") << bad;
    g_free (block);
  }
  gst_object_unref (e);
}

TEST (GrayCpu, AutoWithoutGpuWarnsOnceAndRuns)
{
  if (cudavision::cuda_device_count () > 0)
    GTEST_SKIP () << "a CUDA device is present";
  BusResult r = run_pipeline ("videotestsrc num-buffers=5 ! cudagray ! fakesink");
  EXPECT_TRUE (r.eos);
  EXPECT_TRUE (r.errors.empty ());
  ASSERT_EQ (r.warnings.size (), 1u);
  EXPECT_TRUE (r.has_warning_containing ("CPU backend"));
}

TEST (GrayCpu, ExplicitCpuDoesNotWarn)
{
  BusResult r = run_pipeline ("videotestsrc num-buffers=5 ! cudagray backend=cpu ! fakesink");
  EXPECT_TRUE (r.eos);
  EXPECT_TRUE (r.warnings.empty ());
}

TEST (GrayCpu, BackendCudaWithoutGpuIsAClearError)
{
  if (cudavision::cuda_device_count () > 0)
    GTEST_SKIP () << "a CUDA device is present";
  BusResult r = run_pipeline ("videotestsrc num-buffers=5 ! cudagray backend=cuda ! fakesink");
  EXPECT_FALSE (r.eos);
  ASSERT_FALSE (r.errors.empty ());
  EXPECT_TRUE (r.has_error_containing ("No usable CUDA device"));
  EXPECT_EQ (r.error_domains[0], GST_RESOURCE_ERROR);
}

TEST (GrayCpu, UnsupportedCapsAreRefused)
{
  BusResult r = run_pipeline ("videotestsrc num-buffers=2 ! video/x-raw,format=GRAY16_LE ! cudagray backend=cpu ! fakesink");
  EXPECT_FALSE (r.eos);
  ASSERT_FALSE (r.errors.empty ());
  /* gst-launch cannot link the caps filter: the source stops not-linked */
  EXPECT_TRUE (r.has_error_containing ("not-negotiated") || r.has_error_containing ("not-linked"));
}

TEST (GrayCpu, TooLargeFramesAreRefused)
{
  BusResult r = run_pipeline ("videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=16385,height=8 ! "
                              "cudagray backend=cpu ! fakesink");
  EXPECT_FALSE (r.eos);
  EXPECT_FALSE (r.errors.empty ());
}

/* The README's pipeline: system memory in and out, no extra elements. */
TEST (GrayCpu, VideotestsrcToSystemMemorySink)
{
  BusResult r = run_pipeline ("videotestsrc num-buffers=10 ! cudagray backend=cpu ! videoconvert ! "
                              "video/x-raw,format=RGBA ! fakesink");
  EXPECT_TRUE (r.eos) << (r.errors.empty () ? "" : r.errors[0]);
}

/* Regions of interest (and our keypoints) describe positions, which our
 * elements never move: they survive the element; colour metas do not. */
TEST (GrayCpu, PositionMetasAreKept)
{
  const cv::Mat rgb = load_rgb (data_path ("astronaut.png"));
  GstBuffer *in = rgb_to_buffer (rgb, GST_VIDEO_FORMAT_RGBA);
  gst_buffer_add_video_region_of_interest_meta (in, "face", 170, 30, 120, 150);
  GstBuffer *out = run_harness ("cudagray backend=cpu", caps_string (GST_VIDEO_FORMAT_RGBA, rgb.cols, rgb.rows),
      caps_string (GST_VIDEO_FORMAT_GRAY8, rgb.cols, rgb.rows), in);
  ASSERT_NE (out, nullptr);
  GstVideoRegionOfInterestMeta *roi = gst_buffer_get_video_region_of_interest_meta (out);
  ASSERT_NE (roi, nullptr);
  EXPECT_EQ (roi->x, 170u);
  EXPECT_EQ (roi->w, 120u);
  EXPECT_STREQ (g_quark_to_string (roi->roi_type), "face");
  GstVideoMeta *vmeta = gst_buffer_get_video_meta (out);
  if (vmeta) {
    EXPECT_EQ (vmeta->format, GST_VIDEO_FORMAT_GRAY8);  /* the output's own, not the input's */
  }
  gst_buffer_unref (out);
}

/* Producers with odd row pitches (a GstVideoMeta that says so). */
TEST (GrayCpu, OddInputPitches)
{
  const cv::Mat rgb = random_rgb (641, 479, 3);
  for (GstVideoFormat f :
      { GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12 }) {
    GstBuffer *in = with_row_padding (rgb_to_buffer (rgb, f), f, rgb.cols, rgb.rows, 7);
    cv::Mat out = run_harness_mat ("cudagray backend=cpu", caps_string (f, rgb.cols, rgb.rows),
        caps_string (GST_VIDEO_FORMAT_GRAY8, rgb.cols, rgb.rows), in);
    ASSERT_FALSE (out.empty ());
    EXPECT_EQ (compare (out, expected_gray (rgb, f)).differing, 0) << gst_video_format_to_string (f);
  }
}
