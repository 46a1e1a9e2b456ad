/* cudagray on the GPU: bit-exact to OpenCV for every format, image, size
 * and block-sizing mode; device memory out; the table in use; CUDAMemory in.
 * Skips (exit 77) without a CUDA device. */
#include "../common/harness.h"

#include "../../core/policy/launch_policy.h"
#include "../../core/policy/tuning_table.h"
#include "../../cuda/common/device_info.h"
#include "gstcvbufferpool.h"
#include "gstcvmemory.h"

#include <gst/app/gstappsink.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <mutex>

using namespace cvtest;

static const GstVideoFormat kFormats[] = {
  GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx,
  GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_ABGR, GST_VIDEO_FORMAT_xRGB, GST_VIDEO_FORMAT_xBGR,
  GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420,
};

static void
check_gray (const std::string & element, const cv::Mat & rgb, GstVideoFormat f, const char *out_feature,
    const std::string & what)
{
  const std::string in_caps = caps_string (f, rgb.cols, rgb.rows);
  const std::string out_caps = caps_string (GST_VIDEO_FORMAT_GRAY8, rgb.cols, rgb.rows, out_feature);
  cv::Mat out = run_harness_mat (element, in_caps, out_caps, rgb_to_buffer (rgb, f));
  ASSERT_FALSE (out.empty ()) << what;
  const Diff d = compare (out, expected_gray (rgb, f));
  EXPECT_EQ (d.differing, 0) << element << " " << what << " " << gst_video_format_to_string (f) << " max diff "
                             << d.max_abs;
}

TEST (GrayGpu, BundledImagesEveryFormatEveryMode)
{
  for (const auto & path : test_images ()) {
    const cv::Mat rgb = load_rgb (path);
    for (const char *mode : kBlockSizingModes)
      for (GstVideoFormat f : kFormats)
        check_gray (std::string ("cudagray backend=cuda ") + mode, rgb, f, nullptr, path);
  }
}

TEST (GrayGpu, SizesFrom1x1To8K)
{
  const int sizes[][2] = { { 1, 1 }, { 3, 2 }, { 641, 479 }, { 1920, 1080 }, { 1921, 1081 }, { 3840, 2160 },
    { 7680, 4320 } };
  for (const auto & s : sizes) {
    const cv::Mat rgb = random_rgb (s[0], s[1], s[0] * 31 + s[1]);
    const std::string what = std::to_string (s[0]) + "x" + std::to_string (s[1]);
    const bool big = s[0] >= 3840;
    for (const char *mode : kBlockSizingModes) {
      for (GstVideoFormat f : kFormats) {
        if (big && f != GST_VIDEO_FORMAT_RGBA && f != GST_VIDEO_FORMAT_BGR && f != GST_VIDEO_FORMAT_NV12)
          continue;
        check_gray (std::string ("cudagray backend=cuda ") + mode, rgb, f, nullptr, what);
      }
    }
  }
}

TEST (GrayGpu, Largest16384Square)
{
  const cv::Mat rgb = random_rgb (16384, 16384, 5);
  check_gray ("cudagray backend=cuda block-sizing=model", rgb, GST_VIDEO_FORMAT_RGBx, nullptr, "16384x16384");
}

/* Device frames out: the host map downloads them, once. */
TEST (GrayGpu, DeviceMemoryOutputMapsToHost)
{
  const cv::Mat rgb = load_rgb (data_path ("grace_hopper.jpg"));
  gst_cv_transfer_counts_reset ();
  check_gray ("cudagray backend=cuda", rgb, GST_VIDEO_FORMAT_BGRx, GST_CAPS_FEATURE_MEMORY_CUDAVISION, "device out");
  guint64 up = 0, down = 0;
  gst_cv_transfer_counts (&up, &down);
  EXPECT_EQ (up, 1u);
  EXPECT_EQ (down, 1u);
}

/* A chain of our elements passes device frames: one upload at the input
 * edge per frame, no download until someone maps the output on the host. */
TEST (GrayGpu, ChainHasNoHostCopies)
{
  const int n = 8;
  gst_cv_transfer_counts_reset ();
  GstElement *pipe = gst_parse_launch (
      "videotestsrc num-buffers=8 pattern=ball ! video/x-raw,format=RGBA,width=640,height=480 ! "
      "cudagray backend=cuda ! cudablur backend=cuda ! cudaotsu backend=cuda ! "
      "appsink name=out caps=video/x-raw(memory:CudaVisionMemory) sync=false max-buffers=16",
      nullptr);
  ASSERT_NE (pipe, nullptr);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "out");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  std::vector<GstSample *> samples;
  while (GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 30 * GST_SECOND))
    samples.push_back (s);
  ASSERT_EQ ((int) samples.size (), n);
  guint64 up = 0, down = 0;
  gst_cv_transfer_counts (&up, &down);
  EXPECT_EQ (up, (guint64) n);
  EXPECT_EQ (down, 0u);
  for (GstSample *s : samples) {
    GstBuffer *b = gst_sample_get_buffer (s);
    ASSERT_TRUE (gst_is_cv_memory (gst_buffer_peek_memory (b, 0)));
    cv::Mat m = buffer_to_mat (b, gst_sample_get_caps (s));
    /* Otsu output is binary and not constant on this pattern */
    EXPECT_EQ (cv::countNonZero ((m != 0) & (m != 255)), 0);
    EXPECT_GT (cv::countNonZero (m), 0);
    gst_sample_unref (s);
  }
  gst_cv_transfer_counts (&up, &down);
  EXPECT_EQ (down, (guint64) n);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
}

/* The launch log shows where every shape came from; a table written with
 * the table writer is read back and used. */
static std::mutex log_lock;
static std::vector<std::string> launch_log;

static void
capture_log (GstDebugCategory * cat, GstDebugLevel, const gchar *, const gchar *, gint, GObject *,
    GstDebugMessage * msg, gpointer)
{
  if (g_strcmp0 (gst_debug_category_get_name (cat), "cudavision-launch") != 0)
    return;
  std::lock_guard<std::mutex> lk (log_lock);
  launch_log.push_back (gst_debug_message_get (msg));
}

static bool
log_has (const std::string & a, const std::string & b)
{
  std::lock_guard<std::mutex> lk (log_lock);
  for (const auto & l : launch_log)
    if (l.find (a) != std::string::npos && l.find (b) != std::string::npos)
      return true;
  return false;
}

TEST (GrayGpu, TuningTableIsReadAndUsed)
{
  cudavision::DeviceDescription dev;
  ASSERT_EQ (cudaSetDevice (0), cudaSuccess);
  ASSERT_TRUE (cudavision::query_current_device (&dev).ok ());
  cudavision::TuningTable t;
  cudavision::TuningKey k { dev.name, dev.cc_major, dev.cc_minor, dev.sm_count, "gray.packed4", 640, 480 };
  t.put (k, { { 128, 2 }, 1.0, dev.driver_version });
  const std::string path = (std::filesystem::temp_directory_path () / "cudavision-test-table.tsv").string ();
  std::string err;
  ASSERT_TRUE (t.save (path, &err)) << err;

  gst_debug_set_threshold_for_name ("cudavision-launch", GST_LEVEL_DEBUG);
  gst_debug_add_log_function (capture_log, nullptr, nullptr);
  const cv::Mat rgb = random_rgb (640, 480, 1);
  check_gray ("cudagray backend=cuda block-sizing=empirical-table tuning-table=" + path, rgb,
      GST_VIDEO_FORMAT_RGBA, nullptr, "table");
  /* a size the table lacks falls back to the model, and says so */
  const cv::Mat rgb2 = random_rgb (320, 240, 2);
  check_gray ("cudagray backend=cuda block-sizing=empirical-table tuning-table=" + path, rgb2,
      GST_VIDEO_FORMAT_RGBA, nullptr, "table miss");
  gst_debug_remove_log_function (capture_log);
  EXPECT_TRUE (log_has ("gray.packed4", "128x2")) << "table shape not used";
  EXPECT_TRUE (log_has ("gray.packed4", "table")) << "no table source in the log";
  EXPECT_TRUE (log_has ("320x240", "model")) << "no model fallback in the log";
  std::filesystem::remove (path);
}

/* nvcodec's memory:CUDAMemory is read in place, in the shared context. */
TEST (GrayGpu, CudaMemoryInputFromCudaupload)
{
  if (!have_element ("cudaupload"))
    GTEST_SKIP () << "nvcodec's cudaupload is not available";
  const std::string src = "videotestsrc num-buffers=3 pattern=smpte ! video/x-raw,format=RGBA,width=642,height=480 ! ";
  auto gpu = pull_all (src + "cudaupload ! video/x-raw(memory:CUDAMemory) ! cudagray backend=cuda ! "
                             "video/x-raw,format=GRAY8 ! appsink name=out sync=false");
  auto cpu = pull_all (src + "cudagray backend=cpu ! appsink name=out sync=false");
  ASSERT_EQ (gpu.size (), 3u);
  ASSERT_EQ (cpu.size (), 3u);
  for (size_t i = 0; i < gpu.size (); i++)
    EXPECT_EQ (compare (gpu[i], cpu[i]).differing, 0);
}

/* An application (or a system-memory producer given our pool) writes a
 * device frame on the host: the element must see those pixels, uploaded
 * once before its kernel reads them. */
TEST (GrayGpu, HostWrittenDeviceFramesAreUploaded)
{
  GstCudaContext *cuda = nullptr;
  ASSERT_NE (shared_context (), nullptr);
  gst_structure_get (gst_context_get_structure (shared_context ()), GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT,
      &cuda, nullptr);
  ASSERT_NE (cuda, nullptr);

  const cv::Mat rgb = load_rgb (data_path ("building.jpg"));
  const std::string in_caps = caps_string (GST_VIDEO_FORMAT_RGBA, rgb.cols, rgb.rows, GST_CAPS_FEATURE_MEMORY_CUDAVISION);
  GstBufferPool *pool = gst_cv_buffer_pool_new (cuda);
  GstCaps *caps = gst_caps_from_string (in_caps.c_str ());
  GstStructure *cfg = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (cfg, caps, 0, 0, 0);
  ASSERT_TRUE (gst_buffer_pool_set_config (pool, cfg));
  ASSERT_TRUE (gst_buffer_pool_set_active (pool, TRUE));
  GstBuffer *dev = nullptr;
  ASSERT_EQ (gst_buffer_pool_acquire_buffer (pool, &dev, nullptr), GST_FLOW_OK);

  GstVideoInfo info;
  gst_video_info_from_caps (&info, caps);
  GstBuffer *sys = rgb_to_buffer (rgb, GST_VIDEO_FORMAT_RGBA);
  GstVideoFrame from, to;
  ASSERT_TRUE (gst_video_frame_map (&from, &info, sys, GST_MAP_READ));
  ASSERT_TRUE (gst_video_frame_map (&to, &info, dev, GST_MAP_WRITE));  /* host map of device memory */
  gst_video_frame_copy (&to, &from);
  gst_video_frame_unmap (&to);
  gst_video_frame_unmap (&from);
  gst_buffer_unref (sys);

  gst_cv_transfer_counts_reset ();
  cv::Mat out = run_harness_mat ("cudagray backend=cuda", in_caps,
      caps_string (GST_VIDEO_FORMAT_GRAY8, rgb.cols, rgb.rows), dev);
  guint64 up = 0, down = 0;
  gst_cv_transfer_counts (&up, &down);
  EXPECT_EQ (compare (out, expected_gray (rgb, GST_VIDEO_FORMAT_RGBA)).differing, 0);
  EXPECT_EQ (up, 1u);    /* the host-written frame */
  EXPECT_EQ (down, 1u);  /* the system-memory output edge */
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_caps_unref (caps);
  gst_object_unref (cuda);
}

TEST (GrayGpu, OddInputPitches)
{
  const cv::Mat rgb = random_rgb (641, 479, 3);
  for (GstVideoFormat f :
      { GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12 }) {
    GstBuffer *in = with_row_padding (rgb_to_buffer (rgb, f), f, rgb.cols, rgb.rows, 7);
    cv::Mat out = run_harness_mat ("cudagray backend=cuda", caps_string (f, rgb.cols, rgb.rows),
        caps_string (GST_VIDEO_FORMAT_GRAY8, rgb.cols, rgb.rows), in);
    ASSERT_FALSE (out.empty ());
    EXPECT_EQ (compare (out, expected_gray (rgb, f)).differing, 0) << gst_video_format_to_string (f);
  }
}

/* The same chain ending in a system-memory sink: frames stay on the GPU
 * between our elements and are downloaded once, by the last one.
 * (GstBaseTransform puts downstream's untransformed caps first; without
 * the base filter's reordering every link would negotiate system memory.) */
TEST (GrayGpu, ChainToSystemMemoryDownloadsOnce)
{
  const int n = 6;
  gst_cv_transfer_counts_reset ();
  auto frames = pull_all ("videotestsrc num-buffers=6 pattern=ball ! video/x-raw,format=RGBA,width=641,height=479 ! "
                          "cudagray backend=cuda ! cudablur backend=cuda ! cudaotsu name=last backend=cuda ! "
                          "video/x-raw,format=GRAY8 ! appsink name=out sync=false");
  ASSERT_EQ ((int) frames.size (), n);
  guint64 up = 0, down = 0;
  gst_cv_transfer_counts (&up, &down);
  EXPECT_EQ (up, (guint64) n);
  EXPECT_EQ (down, (guint64) n);
  for (const cv::Mat & m : frames)
    EXPECT_EQ (cv::countNonZero ((m != 0) & (m != 255)), 0);
}
