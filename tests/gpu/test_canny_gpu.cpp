/* cudacanny on the GPU: against cv::Canny (the target: >= 99.9 % equal
 * pixels; the design is exact, so every comparison with the host model of
 * the GPU arithmetic, cpu::canny_model, must be 100 %) on every bundled
 * image for apertures 3/5/7 x L1/L2 x three threshold pairs; the fused and
 * separate pre-blurs; a 4K frame whose one edge snakes across the whole
 * image; sizes from 1x1 to 4K, constant and all-edge frames; every
 * block-sizing mode; the automatic thresholds computed on the device; and
 * a cudagray ! cudablur ! cudacanny chain with device memory between the
 * elements. NV12 and I420: cv::Canny of their luma plane, exactly; GRAY8
 * never negotiates memory:CUDAMemory. Failures print the numbers. Skips
 * (exit 77) without a device. */
#include "../common/canny_util.h"
#include "../common/device_fixture.h"
#include "../common/harness.h"
#include "../common/otsu_util.h"
#include "../common/video_frames.h"

#include "../../cuda/canny/canny.h"
#include "../../cuda/compose/canny_prepasses.h"
#include "../../cuda/common/cuda_raii.h"
#include "../../cuda/common/device_info.h"
#include "../../core/policy/launch_policy.h"
#include "gstcvmemory.h"
#include "gstcvotsumeta.h"

#include <gst/app/gstappsink.h>
#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include <cstdio>
#include <string>
#include <vector>

using namespace cvtest;

/* ------------------------------------------------------------ helpers */

/* The fidelity target against OpenCV, in percent of equal pixels. */
static const double kTargetPercent = 99.9;

static std::string
gpu_element (const CannyCase & c, const std::string & extra = "")
{
  return "cudacanny backend=cuda " + canny_props (c) + (extra.empty () ? "" : " " + extra);
}

/* The worst agreement with OpenCV seen by a test, printed at its end. */
struct Fidelity {
  const char *what;
  double min_percent = 100;
  long differing = 0, pixels = 0, runs = 0;
  std::string worst;
  explicit Fidelity (const char *w) : what (w) {}
  void add (const cv::Mat & out, const cv::Mat & expected, const std::string & where) {
    const double p = equal_percent (out, expected);
    differing += compare (out, expected).differing;
    pixels += (long) expected.total ();
    runs++;
    if (p < min_percent) {
      min_percent = p;
      worst = where;
    }
    EXPECT_GE (p, kTargetPercent) << where;
  }
  ~Fidelity () {
    std::printf ("[fidelity] %s: %ld runs, %ld of %ld pixels differ from cv::Canny (%.5f %% equal), worst %.5f %% "
                 "(%s)\n",
        what, runs, differing, pixels, pixels ? 100.0 * (pixels - differing) / pixels : 100.0, min_percent,
        worst.c_str ());
  }
};

/* Launch policies: every mode, and static shapes for the kernels that take
 * any (canny.tile's is fixed). The table mode has no table: the model. */
struct PolicySpec {
  const char *name;
  cudavision::BlockSizing mode;
  cudavision::BlockShape shape;
};
static const PolicySpec kPolicies[] = {
  { "static", cudavision::BlockSizing::Static, {} },
  { "static 1024x1", cudavision::BlockSizing::Static, { 1024, 1 } },
  { "static 64x2", cudavision::BlockSizing::Static, { 64, 2 } },
  { "static 7x3", cudavision::BlockSizing::Static, { 7, 3 } },
  { "static 32x32", cudavision::BlockSizing::Static, { 32, 32 } },
  { "empirical-table (none)", cudavision::BlockSizing::EmpiricalTable, {} },
  { "model", cudavision::BlockSizing::Model, {} },
};
static const size_t kPolicyCount = sizeof (kPolicies) / sizeof (kPolicies[0]);

static cudavision::CannyParams
params_of (const CannyCase & c, double blur_sigma = 0)
{
  cudavision::CannyParams p;
  p.low_threshold = c.low;
  p.high_threshold = c.high;
  p.aperture = c.aperture;
  p.l2_gradient = c.l2;
  p.blur_ksize = canny_blur_ksize (blur_sigma);
  p.blur_sigma = p.blur_ksize ? blur_sigma : 0;
  return p;
}

/* The cuda/ API on device frames, with the detector's scratch kept across
 * calls as the element keeps it. */
class CannyDevice : public DeviceTest {
protected:
  void TearDown () override { scratch.release (); }

  /* One frame; the output buffer starts as 0x5a so that a pixel left
   * unwritten shows. `offset` > 0 starts every row that many bytes into
   * the buffers (unaligned rows). */
  cv::Mat run (const cv::Mat & in, const cudavision::CannyParams & p, const PolicySpec & spec,
      cudavision::CannyVariant v = cudavision::CannyVariant::Auto, cudavision::CannyCounts * counts = nullptr,
      int offset = 0)
  {
    const cudavision::LaunchPolicy pol (dev, spec.mode, spec.shape);
    cv::Mat wide (in.rows, in.cols + offset, CV_8UC1, cv::Scalar (0));
    in.copyTo (wide.colRange (offset, offset + in.cols));
    cudavision::DeviceBuffer sbuf, dbuf;
    const cudavision::ConstImage8 s = upload (wide, sbuf);
    const cudavision::ConstImage8 d = upload (cv::Mat (wide.size (), CV_8UC1, cv::Scalar (0x5a)), dbuf);
    const cudavision::ConstImage8 src { s.data + offset, s.pitch, in.cols, in.rows };
    const cudavision::Image8 dst { dbuf.as<uint8_t> () + offset, d.pitch, in.cols, in.rows };
    const cudavision::CudaStatus st = cudavision::canny (src, dst, p, &scratch, cudavision::canny_prepasses (), pol,
        stream.get (), -1, v);
    EXPECT_TRUE (st.ok ()) << st.message ();
    EXPECT_EQ (cudaStreamSynchronize (stream.get ()), cudaSuccess);
    if (counts) {
      EXPECT_TRUE (cudavision::canny_read_counts (scratch, stream.get (), counts).ok ());
    }
    return download (cudavision::ConstImage8 { dst.data, dst.pitch, dst.width, dst.height }, CV_8UC1);
  }

  cudavision::CannyScratch scratch;
};

/* ------------------------------------------------------------ fidelity */

TEST (CannyGpu, BundledImagesEveryCase)
{
  Fidelity fid ("bundled images, 18 cases each, element");
  const auto frames = bundled_gray ();
  ASSERT_GE (frames.size (), 10u);
  const std::vector<CannyCase> cases = canny_cases ();
  const std::vector<cv::Mat> models = model_canny_each (frames, cases);
  for (size_t i = 0; i < frames.size (); i++) {
    for (size_t k = 0; k < cases.size (); k++) {
      const CannyCase & c = cases[k];
      const std::string what = "image " + std::to_string (i) + " " + size_str (frames[i]) + " " + canny_props (c);
      const cv::Mat out = through (gpu_element (c), frames[i]);
      ASSERT_FALSE (out.empty ()) << what;
      fid.add (out, opencv_canny (frames[i], c), what);
      EXPECT_EQ (compare (out, models[i * cases.size () + k]).differing, 0) << what << ": differs from the GPU model";
    }
  }
}

/* Device frames out of the element, mapped only by the test. */
TEST (CannyGpu, DeviceMemoryOut)
{
  const cv::Mat in = to_gray (load_rgb (data_path ("astronaut.png")));
  const CannyCase c { 3, true, 40, 120 };
  const cv::Mat out = through (gpu_element (c), in, GST_CAPS_FEATURE_MEMORY_CUDAVISION);
  ASSERT_FALSE (out.empty ());
  EXPECT_EQ (compare (out, model_canny (in, c)).differing, 0);
}

TEST_F (CannyDevice, EveryBlockSizingModeIdentical)
{
  const auto frames = bundled_gray ();
  for (size_t i = 0; i < frames.size (); i += 3) {
    for (const CannyCase & c : { CannyCase { 3, false, 50, 150 }, CannyCase { 7, true, 30, 90 } }) {
      const cv::Mat expected = model_canny (frames[i], c);
      for (const char *mode : kBlockSizingModes) {
        const cv::Mat out = through (gpu_element (c, mode), frames[i]);
        ASSERT_FALSE (out.empty ()) << mode;
        EXPECT_EQ (compare (out, expected).differing, 0) << "image " << i << " " << canny_props (c) << " " << mode;
      }
    }
  }
  /* the cuda/ API with every policy, on noise (edges everywhere) */
  const cv::Mat noise = random_mat (333, 257, CV_8UC1, 5);
  for (const CannyCase & c : { CannyCase { 3, false, 50, 150 }, CannyCase { 5, true, 200, 600 } }) {
    const cv::Mat expected = model_canny (noise, c);
    for (const PolicySpec & spec : kPolicies)
      EXPECT_EQ (compare (run (noise, params_of (c), spec), expected).differing, 0) << spec.name << " " << canny_props (c);
  }
}

/* The element replays a frame's launches as one CUDA graph
 * (common/frame_graph.h): frame after frame, with new frame pointers, new
 * thresholds (updated arguments), another aperture, pre-blur or size (a
 * rebuilt graph), its output is the GPU model's, and a steady stream builds
 * the graph once. */
TEST_F (CannyDevice, GraphReplayFrameAfterFrame)
{
  scratch.graphs = true;
  const PolicySpec & spec = kPolicies[0];
  const auto frames = bundled_gray ();
  ASSERT_GE (frames.size (), 4u);
  const CannyCase cases[] = { { 3, false, 50, 150 }, { 3, false, 20, 60 }, { 3, true, 50, 150 }, { 5, true, 200, 600 },
    { 7, false, 500, 1500 } };
  unsigned builds_before = 0;
  for (size_t i = 0; i < frames.size (); i++) {
    for (const CannyCase & c : cases) {
      /* offsets 0 and 3: other frame pointers and pitches on every call */
      for (int offset : { 0, 3 }) {
        const cv::Mat out = run (frames[i], params_of (c, i % 3 == 2 ? 1.5 : 0), spec, cudavision::CannyVariant::Auto,
            nullptr, offset);
        const cv::Mat expected = i % 3 == 2 ? opencv_canny (frames[i], c, 1.5) : model_canny (frames[i], c);
        EXPECT_EQ (compare (out, expected).differing, 0)
            << "image " << i << " " << size_str (frames[i]) << " " << canny_props (c) << " offset " << offset;
      }
    }
  }
  if (cudavision::frame_graphs_enabled ()) {
    EXPECT_GT (scratch.graph.builds (), 0u) << "the frames did not go through a graph";
  }
  /* one size and case: ten frames, one graph built */
  const cudavision::CannyParams p = params_of (cases[0]);
  run (frames[0], p, spec);
  builds_before = scratch.graph.builds ();
  for (int k = 0; k < 10; k++) {
    const cv::Mat out = run (frames[0], p, spec, cudavision::CannyVariant::Auto, nullptr, k % 2);
    EXPECT_EQ (compare (out, model_canny (frames[0], cases[0])).differing, 0) << "frame " << k;
  }
  if (cudavision::frame_graphs_enabled ()) {
    EXPECT_EQ (scratch.graph.builds (), builds_before) << "a steady stream rebuilt its graph";
  }
}

/* The fused pre-blur and the separate one (cudablur's kernel, then the
 * detection) give the same pixels, which are cv::GaussianBlur then
 * cv::Canny. */
TEST_F (CannyDevice, PreBlurFusedAndSeparate)
{
  Fidelity fid ("pre-blur, cuda/ API");
  const auto frames = bundled_gray ();
  for (size_t i = 0; i < frames.size (); i++) {
    for (double sigma : { 0.3, 1.5, 3.0, 8.0 }) {
      for (const CannyCase & c : { CannyCase { 3, false, 50, 150 }, CannyCase { 5, true, 30, 90 },
               CannyCase { 7, false, 120, 300 } }) {
        const std::string what =
            "image " + std::to_string (i) + " sigma " + std::to_string (sigma) + " " + canny_props (c);
        const cudavision::CannyParams p = params_of (c, sigma);
        const PolicySpec & spec = kPolicies[i % kPolicyCount];
        const cv::Mat fused = run (frames[i], p, spec, cudavision::CannyVariant::Fused);
        const cv::Mat separate = run (frames[i], p, spec, cudavision::CannyVariant::Separate);
        EXPECT_EQ (compare (fused, separate).differing, 0) << what << ": fused and separate differ";
        /* the reference is OpenCV itself (GaussianBlur then Canny): on the
         * H100 all 144 runs matched it on every pixel, so exactness is
         * required (the host model, cpu::canny_model, is checked on
         * unblurred frames elsewhere) */
        const cv::Mat expected = opencv_canny (frames[i], c, sigma);
        fid.add (fused, expected, what);
        EXPECT_EQ (compare (fused, expected).differing, 0) << what << ": differs from cv::Canny";
      }
    }
  }
  /* through the element */
  const CannyCase c { 3, false, 50, 150 };
  EXPECT_EQ (compare (through (gpu_element (c, "blur-sigma=1.5"), frames[0]), opencv_canny (frames[0], c, 1.5))
                 .differing,
      0);
}

/* The bundled photographs scaled to 3840x2160, the size the benchmarks
 * time them at: every pixel equal to the model, and cv::Canny against the
 * target, for the benchmarks' cases (Sobel 3x3, 50/150, L1 and L2) and a
 * few others, with the policies in turn. */
TEST_F (CannyDevice, PhotographsAt4K)
{
  Fidelity fid ("bundled images at 3840x2160");
  const auto frames = bundled_gray (cv::Size (3840, 2160));
  ASSERT_GE (frames.size (), 10u);
  const std::vector<CannyCase> cases = { { 3, false, 50, 150 }, { 3, true, 50, 150 }, { 3, true, 20, 60 },
    { 5, false, 120, 300 }, { 7, true, 50, 150 } };
  const std::vector<cv::Mat> models = model_canny_each (frames, cases);
  size_t n = 0;
  for (size_t i = 0; i < frames.size (); i++) {
    for (size_t k = 0; k < cases.size (); k++) {
      const CannyCase & c = cases[k];
      const PolicySpec & spec = kPolicies[n++ % kPolicyCount];
      const std::string what = "image " + std::to_string (i) + " at 3840x2160 " + canny_props (c) + " " + spec.name;
      const cv::Mat out = run (frames[i], params_of (c), spec);
      fid.add (out, opencv_canny (frames[i], c), what);
      EXPECT_EQ (compare (out, models[i * cases.size () + k]).differing, 0) << what;
    }
  }
}

/* ------------------------------------------------------------ stress */

/* One edge across the whole 4K frame, strong only at its start: the
 * hysteresis must follow it through every tile it crosses, in a fixed
 * number of launches. */
TEST_F (CannyDevice, SnakeAt4KIsFollowedEndToEnd)
{
  Fidelity fid ("snake 3840x2160");
  const SnakeFrame s = snake_frame (3840, 2160, 1);
  for (bool l2 : { false, true }) {
    const CannyCase c { 3, l2, 50, 150 };
    const cv::Mat expected = opencv_canny (s.image, c);
    const cv::Mat model = model_canny (s.image, c);
    const int edges = cv::countNonZero (expected);
    ASSERT_GT (edges, (int) s.path.size ()) << "the frame must make OpenCV follow the snake";
    for (size_t k = 0; k < kPolicyCount; k += l2 ? 3 : 1) {
      cudavision::CannyCounts counts;
      const cv::Mat out = run (s.image, params_of (c), kPolicies[k], cudavision::CannyVariant::Auto, &counts);
      const std::string what = std::string ("L") + (l2 ? "2 " : "1 ") + kPolicies[k].name;
      fid.add (out, expected, what);
      EXPECT_EQ (compare (out, model).differing, 0) << what;
      cv::Rect end (s.path.back () - cv::Point (4, 4), cv::Size (9, 9));
      end &= cv::Rect (0, 0, s.image.cols, s.image.rows);
      EXPECT_GT (cv::countNonZero (out (end)), 0) << what << ": the far end was not reached";
      /* the global steps did the work: tile components joined across
       * borders, their weak pixels resolved through the strong start */
      EXPECT_GT (counts.open_components, 100u) << what;
      EXPECT_GT (counts.unresolved, (uint32_t) edges / 2) << what;
      std::printf ("[snake] %s: %d edge pixels, %u tile components joined, %u pixels resolved across tiles\n",
          what.c_str (), edges, counts.open_components, counts.unresolved);
    }
  }
  /* and through the element */
  const CannyCase c { 3, false, 50, 150 };
  EXPECT_EQ (compare (through (gpu_element (c), s.image), model_canny (s.image, c)).differing, 0);
}

TEST_F (CannyDevice, SizesConstantAndAllEdgeFrames)
{
  Fidelity fid ("sizes 1x1 to 4K, noise, smooth, checkerboard");
  const int sizes[][2] = { { 1, 1 }, { 2, 2 }, { 3, 3 }, { 2, 3 }, { 5, 1 }, { 1, 5 }, { 31, 33 }, { 32, 32 },
    { 33, 31 }, { 64, 64 }, { 65, 97 }, { 641, 479 }, { 1920, 1080 }, { 3840, 2160 } };
  int n = 0;
  for (const auto & sz : sizes) {
    const cv::Mat noise = random_mat (sz[0], sz[1], CV_8UC1, sz[0] * 13 + sz[1]);
    cv::Mat smooth;
    cv::GaussianBlur (noise, smooth, cv::Size (0, 0), 3.0);
    cv::normalize (smooth, smooth, 0, 255, cv::NORM_MINMAX);
    const cv::Mat board = checkerboard (sz[0], sz[1], 4);
    for (const cv::Mat *f : std::initializer_list<const cv::Mat *> { &noise, &smooth, &board }) {
      for (const CannyCase & c : canny_cases ()) {
        /* every case on small frames; two on the large ones */
        if (sz[0] >= 641 && !(c.aperture == 3 && c.low == 50) && !(c.aperture == 7 && c.l2 && c.low == 30))
          continue;
        const PolicySpec & spec = kPolicies[n++ % kPolicyCount];
        const int offset = n % 5 == 0 ? 3 : 0;
        const std::string what =
            size_str (*f) + " " + canny_props (c) + " " + spec.name + (offset ? " unaligned" : "");
        const cv::Mat out = run (*f, params_of (c), spec, cudavision::CannyVariant::Auto, nullptr, offset);
        fid.add (out, opencv_canny (*f, c), what);
        EXPECT_EQ (compare (out, model_canny (*f, c)).differing, 0) << what;
      }
    }
  }
  for (int v : { 0, 128, 255 }) {
    const cv::Mat flat (1080, 1920, CV_8UC1, cv::Scalar (v));
    for (const CannyCase & c : canny_cases ())
      EXPECT_EQ (cv::countNonZero (run (flat, params_of (c), kPolicies[0])), 0)
          << "constant " << v << " " << canny_props (c);
  }
  /* the all-edge frame is edge-dense, as OpenCV says */
  const cv::Mat board = checkerboard (1920, 1080, 4);
  EXPECT_GE (cv::countNonZero (run (board, params_of ({ 3, false, 50, 150 }), kPolicies[0])),
      (int) board.total () / 5);
  EXPECT_EQ (cudaGetLastError (), cudaSuccess);
}

/* ------------------------------------------------------------ auto */

TEST_F (CannyDevice, AutomaticThresholdsOnTheDevice)
{
  std::vector<cv::Mat> frames = bundled_gray ();
  frames.push_back (random_mat (1, 1, CV_8UC1, 1));
  frames.push_back (random_mat (4, 1, CV_8UC1, 2));
  frames.push_back (random_mat (3840, 2160, CV_8UC1, 3));
  for (size_t i = 0; i < frames.size (); i++) {
    const cv::Mat & f = frames[i];
    const int otsu = opencv_otsu_threshold (f);
    const int median = sorted_median (f);
    for (auto mode : { cudavision::CannyAuto::Otsu, cudavision::CannyAuto::Median }) {
      const int v = mode == cudavision::CannyAuto::Otsu ? otsu : median;
      const CannyCase c { i % 2 ? 7 : 3, i % 3 == 0, v / 2.0, (double) v };
      cudavision::CannyParams p = params_of ({ c.aperture, c.l2, 1, 2 }); /* ignored */
      p.auto_threshold = mode;
      cudavision::CannyCounts counts;
      const cv::Mat out = run (f, p, kPolicies[i % kPolicyCount], cudavision::CannyVariant::Auto, &counts);
      const std::string what = "frame " + std::to_string (i) + " " + size_str (f) +
          (mode == cudavision::CannyAuto::Otsu ? " otsu " : " median ") + std::to_string (v);
      EXPECT_EQ ((int) counts.auto_value, v) << what;
      EXPECT_EQ (compare (out, model_canny (f, c)).differing, 0) << what;
      EXPECT_GE (equal_percent (out, opencv_canny (f, c)), kTargetPercent) << what;
    }
  }
}

/* The element: its own Otsu, a GstCvOtsuMeta on the input, and cudaotsu
 * upstream on device frames. */
TEST (CannyGpu, OtsuMetaAndChain)
{
  const cv::Mat f = to_gray (load_rgb (data_path ("coins.png")));
  const int own = opencv_otsu_threshold (f), other = other_threshold (own);
  const CannyCase by_own { 3, false, own / 2.0, (double) own };
  EXPECT_EQ (compare (through ("cudacanny backend=cuda auto-threshold=otsu", f), model_canny (f, by_own)).differing, 0);
  const std::string caps = caps_string (GST_VIDEO_FORMAT_GRAY8, f.cols, f.rows);
  const cv::Mat by_meta =
      run_harness_mat ("cudacanny backend=cuda auto-threshold=otsu", caps, caps, gray_buffer_with_otsu_meta (f, other));
  EXPECT_EQ (compare (by_meta, model_canny (f, { 3, false, other / 2.0, (double) other })).differing, 0);
  const int m = sorted_median (f);
  EXPECT_EQ (compare (through ("cudacanny backend=cuda auto-threshold=median l2-gradient=true", f),
                 model_canny (f, { 3, true, m / 2.0, (double) m })).differing, 0);
  /* cudaotsu upstream on device frames (cudagray is cv::cvtColor) */
  const auto chained = pull_all ("filesrc location=" + data_path ("coins.png") +
      " ! pngdec ! videoconvert ! video/x-raw,format=RGBA ! cudagray backend=cuda ! "
      "cudaotsu backend=cuda mode=threshold-only ! cudacanny backend=cuda auto-threshold=otsu ! appsink name=out");
  ASSERT_EQ (chained.size (), 1u);
  EXPECT_EQ (compare (chained[0], model_canny (f, by_own)).differing, 0);
}

/* ------------------------------------------------------------ YUV */

/* NV12 and I420 (photographs, one fitted to 321x239: chroma 161x120; rows
 * unpadded and padded by an odd number of bytes): the edges are cv::Canny's
 * of the luma plane (what rgb_to_buffer wrote: OpenCV's RGB2YUV_I420) and
 * the GPU model's, pixel for pixel, for L1 and L2, a pre-blur and the
 * automatic thresholds. */
TEST (CannyGpu, Nv12AndI420LumaMatchesOpenCV)
{
  const std::vector<CannyCase> cases = yuv_canny_cases ();
  for (const auto & [name, rgb] : yuv_pictures ()) {
    const int w = rgb.cols, h = rgb.rows;
    for (GstVideoFormat f : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420 }) {
      const cv::Mat y = expected_gray (rgb, f);
      const int otsu = opencv_otsu_threshold (y), median = sorted_median (y);
      std::vector<cv::Mat> models;
      for (const CannyCase & c : cases)
        models.push_back (model_canny (y, c));
      for (int pad : { 0, 7 }) {
        const std::string what = name + " " + gst_video_format_to_string (f) + (pad ? " pad 7" : "");
        for (size_t k = 0; k < cases.size (); k++) {
          const CannyCase & c = cases[k];
          const cv::Mat out = luma_through (gpu_element (c), frame_buffer (rgb, f, pad), f, w, h);
          ASSERT_FALSE (out.empty ()) << what << " " << canny_props (c);
          EXPECT_EQ (compare (out, opencv_canny (y, c)).differing, 0) << what << " " << canny_props (c);
          EXPECT_EQ (compare (out, models[k]).differing, 0) << what << " " << canny_props (c) << " (model)";
        }
        const CannyCase c = cases[0];
        EXPECT_EQ (compare (luma_through (gpu_element (c, "blur-sigma=1.5"), frame_buffer (rgb, f, pad), f, w, h),
                       opencv_canny (y, c, 1.5)).differing, 0)
            << what << " blur-sigma=1.5";
        /* the fixed thresholds are ignored in the automatic modes */
        const CannyCase given { 3, true, 1, 2 };
        const cv::Mat by_otsu =
            luma_through (gpu_element (given, "auto-threshold=otsu"), frame_buffer (rgb, f, pad), f, w, h);
        EXPECT_EQ (compare (by_otsu, opencv_canny (y, { 3, true, otsu / 2.0, (double) otsu })).differing, 0)
            << what << " auto-threshold=otsu " << otsu;
        EXPECT_EQ (compare (luma_through (gpu_element (c, "auto-threshold=median"), frame_buffer (rgb, f, pad), f, w, h),
                       opencv_canny (y, { 3, false, median / 2.0, (double) median })).differing, 0)
            << what << " auto-threshold=median " << median;
      }
    }
  }
}

/* NV12 in every block-sizing mode, to system memory and to device frames
 * (memory:CudaVisionMemory); a 4K decoder frame. */
TEST (CannyGpu, Nv12EveryModeAndDeviceMemoryOut)
{
  const cv::Mat rgb = load_rgb (data_path ("building.jpg"));
  const cv::Mat y = expected_gray (rgb, GST_VIDEO_FORMAT_NV12);
  for (const CannyCase & c : { CannyCase { 3, false, 50, 150 }, CannyCase { 7, true, 30, 90 } }) {
    const cv::Mat expected = opencv_canny (y, c);
    for (const char *mode : kBlockSizingModes) {
      for (const char *feature : { (const char *) nullptr, (const char *) GST_CAPS_FEATURE_MEMORY_CUDAVISION }) {
        const cv::Mat out = luma_through (gpu_element (c, mode), frame_buffer (rgb, GST_VIDEO_FORMAT_NV12, 0),
            GST_VIDEO_FORMAT_NV12, rgb.cols, rgb.rows, feature);
        ASSERT_FALSE (out.empty ()) << mode;
        EXPECT_EQ (compare (out, expected).differing, 0)
            << canny_props (c) << " " << mode << (feature ? " device out" : "");
      }
    }
  }
  const cv::Mat big = fit_picture (rgb, { 3840, 2160 });
  const cv::Mat big_y = expected_gray (big, GST_VIDEO_FORMAT_NV12);
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420 }) {
    const CannyCase c { 3, true, 50, 150 };
    EXPECT_EQ (compare (luma_through (gpu_element (c), frame_buffer (big, f, 0), f, big.cols, big.rows,
                            GST_CAPS_FEATURE_MEMORY_CUDAVISION),
                   opencv_canny (big_y, c)).differing, 0)
        << "3840x2160 " << gst_video_format_to_string (f);
  }
}

/* cudaotsu's meta on NV12 frames, and the decoder's chain: NV12 through
 * cudaotsu (GRAY8 out, threshold attached) into cudacanny on device
 * frames, equal to the CPU backend's chain. */
TEST (CannyGpu, Nv12OtsuChainOnDevice)
{
  const cv::Mat rgb = load_rgb (data_path ("coins.png"));
  const cv::Mat y = expected_gray (rgb, GST_VIDEO_FORMAT_NV12);
  const int own = opencv_otsu_threshold (y), other = other_threshold (own);
  GstBuffer *in = rgb_to_buffer (rgb, GST_VIDEO_FORMAT_NV12);
  gst_buffer_add_cv_otsu_meta (in, (guint8) other);
  EXPECT_EQ (compare (luma_through ("cudacanny backend=cuda auto-threshold=otsu", in, GST_VIDEO_FORMAT_NV12, rgb.cols,
                          rgb.rows),
                 opencv_canny (y, { 3, false, other / 2.0, (double) other })).differing, 0);

  const std::string head = "filesrc location=" + data_path ("building.jpg") +
      " ! jpegdec ! videoconvert ! video/x-raw,format=NV12 ! ";
  const std::string chain = "cudaotsu backend=%s mode=threshold-only attach-meta=true ! "
                            "cudacanny backend=%s auto-threshold=otsu l2-gradient=true ! "
                            "video/x-raw,format=GRAY8 ! appsink name=out sync=false";
  auto with = [&] (const char *b) { return head + with_backend (chain, b); };
  const auto luma = pull_all (head + "appsink name=out sync=false");
  const auto gpu = pull_all (with ("cuda")), cpu = pull_all (with ("cpu"));
  ASSERT_EQ (luma.size (), 1u);
  ASSERT_EQ (gpu.size (), 1u);
  ASSERT_EQ (cpu.size (), 1u);
  const int t = opencv_otsu_threshold (luma[0]);
  EXPECT_EQ (compare (gpu[0], opencv_canny (luma[0], { 3, true, t / 2.0, (double) t })).differing, 0);
  EXPECT_EQ (compare (gpu[0], cpu[0]).differing, 0);
}

/* nvcodec's memory:CUDAMemory holds no GRAY8: an element whose output is
 * GRAY8 cannot link to it, nor negotiate it with a sink that asks for it
 * at run time (not-negotiated); cudablur's NV12 does both (the checks can
 * fail). */
TEST (CannyGpu, Gray8NeverNegotiatesCudaMemory)
{
  const std::string src = "videotestsrc num-buffers=2 ! video/x-raw,format=NV12,width=320,height=240 ! ";
  const std::string sink = " ! appsink name=out sync=false";
  const std::string cuda_caps = "video/x-raw(memory:CUDAMemory)";
  const std::string cuda_filter = " ! " + cuda_caps + " ! fakesink";

  BusResult ok = run_with_sink_caps (src + "cudablur backend=cuda" + sink, cuda_caps);
  EXPECT_TRUE (ok.eos) << (ok.errors.empty () ? "" : ok.errors[0]);
  ok = run_pipeline (src + "cudablur backend=cuda" + cuda_filter);
  EXPECT_TRUE (ok.eos) << (ok.errors.empty () ? "" : ok.errors[0]);

  for (const char *el : { "cudacanny", "cudaotsu", "cudagray" }) {
    BusResult r = run_with_sink_caps (src + el + " backend=cuda" + sink, cuda_caps);
    EXPECT_FALSE (r.eos) << el;
    EXPECT_TRUE (r.has_error_containing ("not-negotiated")) << el << ": " << (r.errors.empty () ? "" : r.errors[0]);
    /* and the same element negotiates GRAY8 in system memory there */
    BusResult gray = run_with_sink_caps (src + el + " backend=cuda" + sink, "video/x-raw,format=GRAY8");
    EXPECT_TRUE (gray.eos) << el << ": " << (gray.errors.empty () ? "" : gray.errors[0]);

    GError *err = nullptr;
    GstElement *pipe = gst_parse_launch ((src + el + " backend=cuda" + cuda_filter).c_str (), &err);
    EXPECT_TRUE (err && g_error_matches (err, GST_PARSE_ERROR, GST_PARSE_ERROR_LINK))
        << el << ": linked to memory:CUDAMemory" << (err ? std::string (": ") + err->message : "");
    g_clear_error (&err);
    if (pipe)
      gst_object_unref (pipe);
  }
}

/* nvcodec's CUDAMemory in, where cudaupload is installed: NV12's luma read
 * in place. */
TEST (CannyGpu, Nv12CudaMemoryInputFromCudaupload)
{
  if (!have_element ("cudaupload"))
    GTEST_SKIP () << "nvcodec's cudaupload is not available";
  const std::string src = "videotestsrc num-buffers=3 pattern=ball ! video/x-raw,format=NV12,width=642,height=481 ! ";
  const auto gpu = pull_all (src + "cudaupload ! video/x-raw(memory:CUDAMemory) ! cudacanny backend=cuda ! "
                                   "video/x-raw,format=GRAY8 ! appsink name=out sync=false");
  const auto cpu = pull_all (src + "cudacanny backend=cpu ! appsink name=out sync=false");
  ASSERT_EQ (gpu.size (), 3u);
  ASSERT_EQ (cpu.size (), 3u);
  for (size_t i = 0; i < gpu.size (); i++) {
    EXPECT_EQ (compare (gpu[i], cpu[i]).differing, 0) << "frame " << i;
    EXPECT_GT (cv::countNonZero (cpu[i]), 100) << "frame " << i;
  }
}

/* ------------------------------------------------------------ element */

/* Frames of different content through one element: the device counters
 * and the median histogram are clean for each frame. */
TEST (CannyGpu, ConsecutiveFramesAreIndependent)
{
  const std::vector<cv::Mat> frames = bundled_gray (cv::Size (320, 240));
  const std::string caps = caps_string (GST_VIDEO_FORMAT_GRAY8, 320, 240);
  for (const char *mode : { "off", "median" }) {
    GstHarness *h = gst_harness_new_parse ((std::string ("cudacanny backend=cuda auto-threshold=") + mode).c_str ());
    if (shared_context ())
      gst_element_set_context (h->element, shared_context ());
    gst_harness_set_caps_str (h, caps.c_str (), caps.c_str ());
    GstCaps *c = gst_caps_from_string (caps.c_str ());
    for (int round = 0; round < 2; round++) {
      for (size_t i = 0; i < frames.size (); i++) {
        GstBuffer *out = gst_harness_push_and_pull (h, mat_to_buffer (frames[i], GST_VIDEO_FORMAT_GRAY8));
        ASSERT_NE (out, nullptr);
        const int v = sorted_median (frames[i]);
        const CannyCase cc = std::string (mode) == "off" ? CannyCase { 3, false, 50, 150 }
                                                          : CannyCase { 3, false, v / 2.0, (double) v };
        EXPECT_EQ (compare (buffer_to_mat (out, c), model_canny (frames[i], cc)).differing, 0)
            << mode << " frame " << i << " round " << round;
        gst_buffer_unref (out);
      }
    }
    gst_caps_unref (c);
    gst_harness_teardown (h);
  }
}

/* cudagray ! cudablur ! cudacanny: device memory between the elements
 * (checked on the negotiated caps), the same edges as the CPU chain. */
TEST (CannyGpu, GrayBlurCannyChainOnDevice)
{
  const std::string src = "videotestsrc num-buffers=4 pattern=circular ! video/x-raw,format=RGBA,width=1283,height=721 ! ";
  const std::string tail = " ! video/x-raw,format=GRAY8 ! appsink name=out sync=false";
  const std::string chain = "cudagray backend=%s ! cudablur backend=%s sigma=1.4 ! "
                            "cudacanny name=canny backend=%s l2-gradient=true low-threshold=20 high-threshold=60";
  auto with = [&] (const char *b) { return src + with_backend (chain, b) + tail; };
  const auto cpu = pull_all (with ("cpu"));
  ASSERT_EQ (cpu.size (), 4u);
  /* the first two stages alone, so a difference says where it starts */
  const std::string head2 = "cudagray backend=%s ! cudablur backend=%s sigma=1.4 ! video/x-raw,format=GRAY8 ! "
                            "appsink name=out sync=false";
  auto with2 = [&] (const char *b) { return src + with_backend (head2, b); };
  const auto blur_cpu = pull_all (with2 ("cpu")), blur_gpu = pull_all (with2 ("cuda"));
  ASSERT_EQ (blur_gpu.size (), 4u);
  for (size_t i = 0; i < blur_gpu.size (); i++) {
    const Diff d = compare (blur_gpu[i], blur_cpu[i]);
    std::printf ("[chain] frame %zu gray+blur: %ld pixels differ (max %.0f)\n", i, d.differing, d.max_abs);
    EXPECT_EQ (d.differing, 0) << "gray+blur frame " << i;
  }

  GstElement *pipe = gst_parse_launch (with ("cuda").c_str (), nullptr);
  ASSERT_NE (pipe, nullptr);
  if (shared_context ())
    gst_element_set_context (pipe, shared_context ());
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "out");
  GstElement *canny = gst_bin_get_by_name (GST_BIN (pipe), "canny");
  ASSERT_EQ (gst_element_set_state (pipe, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE, true);
  std::vector<cv::Mat> gpu;
  bool device_in = false;
  for (;;) {
    GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 60 * GST_SECOND);
    if (!sample)
      break;
    if (gpu.empty ()) {
      GstPad *pad = gst_element_get_static_pad (canny, "sink");
      GstCaps *caps = gst_pad_get_current_caps (pad);
      if (caps) {
        device_in = gst_caps_features_contains (gst_caps_get_features (caps, 0), GST_CAPS_FEATURE_MEMORY_CUDAVISION);
        gchar *str = gst_caps_to_string (caps);
        std::printf ("[chain] cudacanny sink caps: %s\n", str);
        g_free (str);
        gst_caps_unref (caps);
      }
      gst_object_unref (pad);
    }
    gpu.push_back (buffer_to_mat (gst_sample_get_buffer (sample), gst_sample_get_caps (sample)));
    gst_sample_unref (sample);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (canny);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  EXPECT_TRUE (device_in) << "frames should reach cudacanny in device memory";
  ASSERT_EQ (gpu.size (), 4u);
  for (size_t i = 0; i < gpu.size (); i++) {
    const Diff d = compare (gpu[i], cpu[i]);
    std::printf ("[chain] frame %zu full chain: %ld pixels differ\n", i, d.differing);
    EXPECT_EQ (d.differing, 0) << "frame " << i;
    /* the bars' borders: the chain must find real edges, not agree on none */
    EXPECT_GT (cv::countNonZero (gpu[i]), 500) << "frame " << i;
  }
}
