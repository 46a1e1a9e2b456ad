/* cudacanny through GStreamer on the CPU backend (runs in CI), and the GPU
 * algorithm's arithmetic checked against OpenCV on the CPU: the plain model
 * of what the kernels compute (cpu::canny_model: canny_math.h's Sobel,
 * aperture-7 rounding, magnitudes, non-maximum test and thresholds, and
 * hysteresis as 8-connectivity) is bit-exact to cv::Canny, which is what
 * the GPU tests then hold the GPU to. NV12 and I420: the edges of their
 * luma plane. */
#include "../common/canny_util.h"
#include "../common/harness.h"
#include "../common/otsu_util.h"
#include "../common/video_frames.h"

#include "../../cpu/canny_cpu.h"
#include "../../core/canny/canny_math.h"
#include "gstcvotsumeta.h"

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include <cstdio>
#include <string>
#include <vector>

using namespace cvtest;

/* ------------------------------------------------------------ helpers */

static std::string
cpu_element (const CannyCase & c, const std::string & extra = "")
{
  return "cudacanny backend=cpu " + canny_props (c) + (extra.empty () ? "" : " " + extra);
}

/* ------------------------------------------------------------ backend */

TEST (CannyCpu, BundledImagesMatchOpenCV)
{
  const auto frames = bundled_gray ();
  ASSERT_GE (frames.size (), 10u);
  int runs = 0;
  for (size_t i = 0; i < frames.size (); i++) {
    for (const CannyCase & c : canny_cases ()) {
      const cv::Mat out = through (cpu_element (c), frames[i]);
      ASSERT_FALSE (out.empty ()) << i << " " << canny_props (c);
      const cv::Mat expected = opencv_canny (frames[i], c);
      EXPECT_EQ (compare (out, expected).differing, 0) << "image " << i << " " << size_str (frames[i]) << " "
                                                       << canny_props (c);
      runs++;
    }
  }
  EXPECT_EQ (runs, (int) frames.size () * 18);
}

/* The test can fail: other thresholds give other edges. */
TEST (CannyCpu, ParametersMatter)
{
  const cv::Mat in = to_gray (load_rgb (data_path ("astronaut.png")));
  const CannyCase base { 3, false, 50, 150 };
  const cv::Mat out = through (cpu_element (base), in);
  ASSERT_FALSE (out.empty ());
  EXPECT_GT (cv::countNonZero (out), 5000);
  for (const CannyCase & other : { CannyCase { 3, false, 50, 160 }, CannyCase { 3, false, 40, 150 },
           CannyCase { 3, true, 50, 150 }, CannyCase { 5, false, 50, 150 } })
    EXPECT_GT (compare (out, opencv_canny (in, other)).differing, 50) << canny_props (other);
  /* cv::Canny's own swap of low > high */
  const cv::Mat swapped = through (cpu_element ({ 3, false, 150, 50 }), in);
  EXPECT_EQ (compare (swapped, out).differing, 0);
}

TEST (CannyCpu, PreBlurIsGaussianBlurThenCanny)
{
  const auto frames = bundled_gray ();
  for (size_t i = 0; i < frames.size (); i++) {
    for (double sigma : { 0.3, 1.5, 3.0, 8.0 }) {
      for (const CannyCase & c : { CannyCase { 3, false, 50, 150 }, CannyCase { 5, true, 30, 90 } }) {
        char extra[64];
        std::snprintf (extra, sizeof (extra), "blur-sigma=%.17g", sigma);
        const cv::Mat out = through (cpu_element (c, extra), frames[i]);
        ASSERT_FALSE (out.empty ());
        EXPECT_EQ (compare (out, opencv_canny (frames[i], c, sigma)).differing, 0)
            << "image " << i << " sigma " << sigma << " " << canny_props (c);
      }
    }
  }
  /* a sigma whose kernel has 1 tap is no blur */
  const cv::Mat out = through ("cudacanny backend=cpu blur-sigma=0.05", frames[0]);
  EXPECT_EQ (compare (out, opencv_canny (frames[0], { 3, false, 50, 150 })).differing, 0);
}

/* ------------------------------------------------------------ model */

/* What the GPU computes, on the host, is cv::Canny to the pixel: bundled
 * images (under the sanitizers sweep_images' four), random frames (noise:
 * edges everywhere), smooth frames, tiny frames, every case. */
TEST (CannyCpu, GpuArithmeticModelIsExact)
{
  std::vector<cv::Mat> frames;
  for (const auto & path : sweep_images ())
    frames.push_back (to_gray (load_rgb (path)));
  const int sizes[][2] = { { 1, 1 }, { 2, 2 }, { 3, 3 }, { 1, 9 }, { 9, 1 }, { 4, 3 }, { 33, 31 }, { 97, 65 } };
  for (const auto & s : sizes) {
    const cv::Mat noise = random_mat (s[0], s[1], CV_8UC1, s[0] * 101 + s[1]);
    cv::Mat smooth;
    cv::GaussianBlur (noise, smooth, cv::Size (0, 0), 2.0);
    cv::normalize (smooth, smooth, 0, 255, cv::NORM_MINMAX);
    frames.push_back (noise);
    frames.push_back (smooth);
  }
  frames.push_back (checkerboard (64, 48, 4));
  frames.push_back (checkerboard (61, 47, 3));
  long edges = 0;
  const std::vector<CannyCase> cases = canny_cases ();
  const std::vector<cv::Mat> models = model_canny_each (frames, cases);
  for (size_t i = 0; i < frames.size (); i++) {
    for (size_t k = 0; k < cases.size (); k++) {
      const CannyCase & c = cases[k];
      const cv::Mat expected = opencv_canny (frames[i], c);
      const Diff d = compare (models[i * cases.size () + k], expected);
      EXPECT_EQ (d.differing, 0) << "frame " << i << " " << size_str (frames[i]) << " " << canny_props (c);
      edges += cv::countNonZero (expected);
    }
  }
  EXPECT_GT (edges, 1000000);
}

/* cv::Canny's thresholds: aperture 7 divides by 16, L2 squares (capped at
 * 32767), then floor; the automatic ones are (v / 2, v). */
TEST (CannyCpu, ThresholdArithmetic)
{
  using cudavision::canny_thresholds;
  auto eq = [] (cudavision::CannyThresholds t, int lo, int hi) { return t.low == lo && t.high == hi; };
  EXPECT_TRUE (eq (canny_thresholds (50, 150, 3, false), 50, 150));
  EXPECT_TRUE (eq (canny_thresholds (50.9, 150.5, 5, false), 50, 150));
  EXPECT_TRUE (eq (canny_thresholds (150, 50, 3, false), 50, 150));
  EXPECT_TRUE (eq (canny_thresholds (50, 150, 7, false), 3, 9));            /* 3.125, 9.375 */
  EXPECT_TRUE (eq (canny_thresholds (50, 150, 3, true), 2500, 22500));
  EXPECT_TRUE (eq (canny_thresholds (50, 150, 7, true), 9, 87));            /* 9.765625, 87.890625 */
  EXPECT_TRUE (eq (canny_thresholds (1e6, 1e6, 3, true), 32767 * 32767, 32767 * 32767));
  EXPECT_TRUE (eq (cudavision::canny_auto_thresholds (101, 3, false), 50, 101));
  EXPECT_TRUE (eq (cudavision::canny_auto_thresholds (101, 3, true), 2550, 10201)); /* 50.5^2 = 2550.25 */
  /* aperture 7's derivative: round half to even of s / 16 */
  EXPECT_EQ (cudavision::canny_deriv (8, 7), 0);
  EXPECT_EQ (cudavision::canny_deriv (24, 7), 2);
  EXPECT_EQ (cudavision::canny_deriv (-8, 7), 0);
  EXPECT_EQ (cudavision::canny_deriv (-24, 7), -2);
  EXPECT_EQ (cudavision::canny_deriv (-25, 7), -2);
  EXPECT_EQ (cudavision::canny_deriv (163200, 7), 10200);
  EXPECT_EQ (cudavision::canny_deriv (-23, 3), -23);
}

/* ------------------------------------------------------------ auto */

TEST (CannyCpu, AutomaticThresholds)
{
  std::vector<cv::Mat> frames = bundled_gray ();
  frames.push_back (random_mat (3, 3, CV_8UC1, 1));
  frames.push_back (random_mat (4, 1, CV_8UC1, 2));
  frames.push_back (random_mat (1, 1, CV_8UC1, 3));
  frames.push_back (cv::Mat (20, 30, CV_8UC1, cv::Scalar (77)));
  for (size_t i = 0; i < frames.size (); i++) {
    const cv::Mat & f = frames[i];
    const int median = sorted_median (f), otsu = opencv_otsu_threshold (f);
    EXPECT_EQ (cudavision::cpu::median_u8 ({ f.data, f.step, f.cols, f.rows }), median) << i;
    for (const CannyCase & c : { CannyCase { 3, false, 0, 0 }, CannyCase { 7, true, 0, 0 } }) {
      /* the fixed thresholds are ignored in the automatic modes */
      const CannyCase given { c.aperture, c.l2, 1, 2 };
      const cv::Mat by_median = through (cpu_element (given, "auto-threshold=median"), f);
      const cv::Mat by_otsu = through (cpu_element (given, "auto-threshold=otsu"), f);
      ASSERT_FALSE (by_median.empty () || by_otsu.empty ());
      EXPECT_EQ (compare (by_median, opencv_canny (f, { c.aperture, c.l2, median / 2.0, (double) median })).differing,
          0) << "frame " << i << " median " << median;
      EXPECT_EQ (compare (by_otsu, opencv_canny (f, { c.aperture, c.l2, otsu / 2.0, (double) otsu })).differing, 0)
          << "frame " << i << " otsu " << otsu;
    }
  }
  /* the modes differ on a real image (the test can fail) */
  const cv::Mat f = frames[0];
  EXPECT_NE (sorted_median (f), opencv_otsu_threshold (f));
  EXPECT_GT (compare (through ("cudacanny backend=cpu auto-threshold=median", f),
                 through ("cudacanny backend=cpu auto-threshold=otsu", f)).differing, 0);
}

/* A GstCvOtsuMeta on the input gives the threshold (otsu mode only); the
 * meta that cudaotsu attaches upstream gives the frame's own. */
TEST (CannyCpu, OtsuMetaGivesTheThreshold)
{
  const cv::Mat f = to_gray (load_rgb (data_path ("coins.png")));
  const int own = opencv_otsu_threshold (f), other = other_threshold (own);
  const std::string caps = caps_string (GST_VIDEO_FORMAT_GRAY8, f.cols, f.rows);
  auto with_meta = [&] (const char *element) {
    return run_harness_mat (element, caps, caps, gray_buffer_with_otsu_meta (f, other));
  };
  const cv::Mat by_meta = with_meta ("cudacanny backend=cpu auto-threshold=otsu");
  EXPECT_EQ (compare (by_meta, opencv_canny (f, { 3, false, other / 2.0, (double) other })).differing, 0);
  EXPECT_GT (compare (by_meta, opencv_canny (f, { 3, false, own / 2.0, (double) own })).differing, 0);
  /* ignored in the other modes */
  const int m = sorted_median (f);
  EXPECT_EQ (compare (with_meta ("cudacanny backend=cpu auto-threshold=median"),
                 opencv_canny (f, { 3, false, m / 2.0, (double) m })).differing, 0);
  EXPECT_EQ (compare (with_meta ("cudacanny backend=cpu"), opencv_canny (f, { 3, false, 50, 150 })).differing, 0);
  /* cudaotsu upstream, in a decoding pipeline (cudagray is cv::cvtColor) */
  const auto chained = pull_all ("filesrc location=" + data_path ("coins.png") +
      " ! pngdec ! videoconvert ! video/x-raw,format=RGBA ! cudagray backend=cpu ! "
      "cudaotsu backend=cpu mode=threshold-only ! cudacanny backend=cpu auto-threshold=otsu ! appsink name=out");
  ASSERT_EQ (chained.size (), 1u);
  EXPECT_EQ (compare (chained[0], opencv_canny (f, { 3, false, own / 2.0, (double) own })).differing, 0);
}

/* ------------------------------------------------------------ YUV */

/* NV12 and I420 (photographs, and one fitted to 321x239: chroma 161x120;
 * rows unpadded and padded by an odd number of bytes): the edges are
 * cv::Canny's of the luma plane (what rgb_to_buffer wrote: OpenCV's
 * RGB2YUV_I420), and the GPU model's, for L1 and L2, a pre-blur and the
 * automatic thresholds. */
TEST (CannyCpu, Nv12AndI420LumaMatchesOpenCV)
{
  const std::vector<CannyCase> cases = yuv_canny_cases ();
  int runs = 0;
  for (const auto & [name, rgb] : yuv_pictures ()) {
    const int w = rgb.cols, h = rgb.rows;
    for (GstVideoFormat f : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420 }) {
      const cv::Mat y = expected_gray (rgb, f);
      const int otsu = opencv_otsu_threshold (y), median = sorted_median (y);
      for (int pad : { 0, 7 }) {
        const std::string what = name + " " + gst_video_format_to_string (f) + (pad ? " pad 7" : "");
        for (const CannyCase & c : cases) {
          const cv::Mat out = luma_through (cpu_element (c), frame_buffer (rgb, f, pad), f, w, h);
          ASSERT_FALSE (out.empty ()) << what << " " << canny_props (c);
          EXPECT_EQ (compare (out, opencv_canny (y, c)).differing, 0) << what << " " << canny_props (c);
          if (!pad) { /* the model's input is the same luma either way */
            EXPECT_EQ (compare (out, model_canny (y, c)).differing, 0) << what << " " << canny_props (c) << " (model)";
          }
          runs++;
        }
        const CannyCase c = cases[0];
        const cv::Mat blurred = luma_through (cpu_element (c, "blur-sigma=1.5"), frame_buffer (rgb, f, pad), f, w, h);
        EXPECT_EQ (compare (blurred, opencv_canny (y, c, 1.5)).differing, 0) << what << " blur-sigma=1.5";
        /* the fixed thresholds are ignored in the automatic modes */
        const CannyCase l2 { 3, true, 1, 2 };
        const cv::Mat by_otsu =
            luma_through (cpu_element (l2, "auto-threshold=otsu"), frame_buffer (rgb, f, pad), f, w, h);
        EXPECT_EQ (compare (by_otsu, opencv_canny (y, { 3, true, otsu / 2.0, (double) otsu })).differing, 0)
            << what << " auto-threshold=otsu " << otsu;
        const cv::Mat by_median =
            luma_through (cpu_element (cases[0], "auto-threshold=median"), frame_buffer (rgb, f, pad), f, w, h);
        EXPECT_EQ (compare (by_median, opencv_canny (y, { 3, false, median / 2.0, (double) median })).differing, 0)
            << what << " auto-threshold=median " << median;
      }
    }
  }
  EXPECT_EQ (runs, 3 * 2 * 2 * 4);
}

/* The test can fail: the luma plane (limited range) is not cv::cvtColor's
 * grey, and its edges are not the grey's. */
TEST (CannyCpu, Nv12IsReadAsItsLuma)
{
  const cv::Mat rgb = load_rgb (data_path ("building.jpg"));
  const CannyCase c { 3, false, 50, 150 };
  const cv::Mat out = luma_through (cpu_element (c), rgb_to_buffer (rgb, GST_VIDEO_FORMAT_NV12),
      GST_VIDEO_FORMAT_NV12, rgb.cols, rgb.rows);
  ASSERT_FALSE (out.empty ());
  EXPECT_GT (cv::countNonZero (out), 5000);
  EXPECT_EQ (compare (out, opencv_canny (expected_gray (rgb, GST_VIDEO_FORMAT_NV12), c)).differing, 0);
  EXPECT_GT (compare (out, opencv_canny (to_gray (rgb), c)).differing, 100);
}

/* A GstCvOtsuMeta on an NV12 frame gives the threshold, as on GRAY8; and
 * in a decoding pipeline, cudaotsu on NV12 hands cudacanny GRAY8 and its
 * threshold. */
TEST (CannyCpu, Nv12OtsuMetaAndChain)
{
  const cv::Mat rgb = load_rgb (data_path ("coins.png"));
  const cv::Mat y = expected_gray (rgb, GST_VIDEO_FORMAT_NV12);
  const int own = opencv_otsu_threshold (y), other = other_threshold (own);
  GstBuffer *in = rgb_to_buffer (rgb, GST_VIDEO_FORMAT_NV12);
  gst_buffer_add_cv_otsu_meta (in, (guint8) other);
  const cv::Mat by_meta = luma_through ("cudacanny backend=cpu auto-threshold=otsu", in, GST_VIDEO_FORMAT_NV12,
      rgb.cols, rgb.rows);
  EXPECT_EQ (compare (by_meta, opencv_canny (y, { 3, false, other / 2.0, (double) other })).differing, 0);
  EXPECT_GT (compare (by_meta, opencv_canny (y, { 3, false, own / 2.0, (double) own })).differing, 0);

  const std::string head = "filesrc location=" + data_path ("building.jpg") +
      " ! jpegdec ! videoconvert ! video/x-raw,format=NV12 ! ";
  /* the luma videoconvert made: plane 0 of the NV12 frame */
  const auto luma = pull_all (head + "appsink name=out");
  const auto edges = pull_all (head + "cudaotsu backend=cpu mode=threshold-only attach-meta=true ! "
                                      "cudacanny backend=cpu auto-threshold=otsu l2-gradient=true ! appsink name=out");
  ASSERT_EQ (luma.size (), 1u);
  ASSERT_EQ (edges.size (), 1u);
  ASSERT_EQ (luma[0].type (), CV_8UC1);
  const int t = opencv_otsu_threshold (luma[0]);
  EXPECT_EQ (compare (edges[0], opencv_canny (luma[0], { 3, true, t / 2.0, (double) t })).differing, 0);
}

/* A sink that asks for memory:CUDAMemory at run time gets not-negotiated:
 * on the CPU backend no memory but the system's is offered (the GPU suite
 * checks the GPU backend, where CUDAMemory holds no GRAY8); GRAY8 in system
 * memory is the control. */
TEST (CannyCpu, CudaMemoryAskedAtRunTimeIsNotNegotiated)
{
  const std::string desc = "videotestsrc num-buffers=2 ! video/x-raw,format=NV12,width=64,height=48 ! "
                           "cudacanny backend=cpu ! appsink name=out sync=false";
  const BusResult bad = run_with_sink_caps (desc, "video/x-raw(memory:CUDAMemory)");
  EXPECT_FALSE (bad.eos);
  EXPECT_TRUE (bad.has_error_containing ("not-negotiated")) << (bad.errors.empty () ? "" : bad.errors[0]);
  const BusResult good = run_with_sink_caps (desc, "video/x-raw,format=GRAY8");
  EXPECT_TRUE (good.eos) << (good.errors.empty () ? "" : good.errors[0]);
}

/* ------------------------------------------------------------ frames */

TEST (CannyCpu, TinyConstantAndAllEdgeFrames)
{
  const int sizes[][2] = { { 1, 1 }, { 2, 2 }, { 3, 3 }, { 2, 3 }, { 5, 1 }, { 1, 5 } };
  for (const auto & s : sizes) {
    const cv::Mat in = random_mat (s[0], s[1], CV_8UC1, s[0] * 7 + s[1]);
    for (const CannyCase & c : canny_cases ()) {
      const cv::Mat out = through (cpu_element (c), in);
      ASSERT_FALSE (out.empty ()) << size_str (in);
      EXPECT_EQ (compare (out, opencv_canny (in, c)).differing, 0) << size_str (in) << " " << canny_props (c);
    }
  }
  for (int v : { 0, 128, 255 }) {
    const cv::Mat flat (37, 45, CV_8UC1, cv::Scalar (v));
    for (const CannyCase & c : canny_cases ())
      EXPECT_EQ (cv::countNonZero (through (cpu_element (c), flat)), 0) << v << " " << canny_props (c);
  }
  const cv::Mat board = checkerboard (160, 120, 4);
  for (const CannyCase & c : canny_cases ()) {
    const cv::Mat out = through (cpu_element (c), board);
    EXPECT_EQ (compare (out, opencv_canny (board, c)).differing, 0) << canny_props (c);
    EXPECT_GE (cv::countNonZero (out), (int) board.total () / 5) << canny_props (c);
  }
}

/* One edge across the whole 4K frame: OpenCV follows it from its strong
 * start to its end, and so do the backend and the model. */
TEST (CannyCpu, SnakeIsFollowedEndToEnd)
{
  const SnakeFrame s = snake_frame (3840, 2160, 1);
  for (bool l2 : { false, true }) {
    const CannyCase c { 3, l2, 50, 150 };
    const cv::Mat expected = opencv_canny (s.image, c);
    cv::Mat strong_only;
    cv::Canny (s.image, strong_only, 150, 150, 3, l2);
    const int edges = cv::countNonZero (expected);
    EXPECT_LT (cv::countNonZero (strong_only), 1000);
    EXPECT_GT (edges, 2 * (int) s.path.size () * 9 / 10) << "OpenCV should follow both sides of the band";
    cv::Rect end (s.path.back () - cv::Point (4, 4), cv::Size (9, 9));
    end &= cv::Rect (0, 0, s.image.cols, s.image.rows);
    EXPECT_GT (cv::countNonZero (expected (end)), 0) << "the far end is an edge";
    EXPECT_EQ (compare (through (cpu_element (c), s.image), expected).differing, 0);
    EXPECT_EQ (compare (model_canny (s.image, c), expected).differing, 0);
  }
}

/* ------------------------------------------------------------ element */

TEST (CannyCpu, Properties)
{
  GstElement *e = gst_element_factory_make ("cudacanny", nullptr);
  ASSERT_NE (e, nullptr);
  gdouble low = 0, high = 0, sigma = -1;
  gint aperture = 0, mode = -1;
  gboolean l2 = TRUE;
  g_object_get (e, "low-threshold", &low, "high-threshold", &high, "aperture", &aperture, "l2-gradient", &l2,
      "auto-threshold", &mode, "blur-sigma", &sigma, nullptr);
  EXPECT_EQ (low, 50.0);
  EXPECT_EQ (high, 150.0);
  EXPECT_EQ (aperture, 3);
  EXPECT_FALSE (l2);
  EXPECT_EQ (mode, 0);
  EXPECT_EQ (sigma, 0.0);
  g_object_set (e, "aperture", 5, nullptr);
  for (int bad : { 4, 6, 9, 1 }) {
    g_object_set (e, "aperture", bad, nullptr);
    g_object_get (e, "aperture", &aperture, nullptr);
    EXPECT_EQ (aperture, 5) << bad;
  }
  gst_util_set_object_arg (G_OBJECT (e), "auto-threshold", "median");
  g_object_get (e, "auto-threshold", &mode, nullptr);
  EXPECT_EQ (mode, 2);
  gst_util_set_object_arg (G_OBJECT (e), "auto-threshold", "otsu");
  g_object_get (e, "auto-threshold", &mode, nullptr);
  EXPECT_EQ (mode, 1);
  gst_object_unref (e);

  /* GRAY8 and the luma of NV12 and I420 in, GRAY8 out */
  for (const char *f : { "GRAY8", "NV12", "I420" })
    EXPECT_TRUE (run_pipeline (std::string ("videotestsrc num-buffers=2 ! video/x-raw,format=") + f +
                     ",width=65,height=49 ! cudacanny backend=cpu ! video/x-raw,format=GRAY8 ! fakesink")
                     .eos)
        << f;
  EXPECT_FALSE (run_pipeline ("videotestsrc num-buffers=1 ! video/x-raw,format=RGBA ! cudacanny backend=cpu ! "
                              "fakesink").eos);
}
