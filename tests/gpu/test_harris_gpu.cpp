/* cudaharris on the GPU: the response kernel against cv::cornerHarris /
 * cv::cornerMinEigenVal (relative error <= 1e-4) called directly on device
 * buffers and through the element; the corner list against
 * cv::goodFeaturesToTrack (>= 95% within 1 px, both ways); the device
 * selection identical to the greedy (the host model) on real images, noise,
 * 1080p frames and adversarial maps, through both ordering paths; left01's
 * chessboard; sizes from 1x1 to 1080p; every block-sizing mode giving
 * identical results; drawing, messages and device-memory output; NV12,
 * I420 (odd sizes, padded rows), RGB and BGR input giving the host
 * model's corners exactly and the CPU backend's output bytes, the held
 * frames of latency-frames=1 on NV12, memory:CUDAMemory out, and a
 * `color` change between frames redrawn by the frame graph.
 * Skips (exit 77) without a CUDA device. */
#include "../common/device_fixture.h"
#include "../common/harness.h"
#include "../common/harris_ref.h"
#include "../common/overlay_check.h"

#include "../../cuda/common/device_info.h"
#include "../../core/draw/corner_marker.h"
#include "../../cuda/harris/harris.h"
#include "gstcvmemory.h"

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include <memory>

using namespace cvtest;
using cudavision::Corner;
using cudavision::CornerDetectParams;
using cudavision::CornerMethod;
using cudavision::CornerParams;

namespace {

/* The device of the direct tests (tests/common/device_fixture.h), with the
 * corner helpers. */
class HarrisDevice : public DeviceTest {
protected:
  cv::Mat download_float (cudavision::ImageF img) { return download (img, CV_32F); }

  /* corner_response on device buffers; `max_out` gets the reduced maximum. */
  cv::Mat response (const cudavision::LumaInput & in, const CornerParams & p, const cudavision::LaunchPolicy & pol,
      float *max_out = nullptr)
  {
    cudavision::DeviceBuffer out, max;
    const size_t pitch = cudavision::aligned_pitch (in.image.width * sizeof (float));
    EXPECT_TRUE (out.allocate (pitch * in.image.height).ok ());
    EXPECT_TRUE (max.allocate (sizeof (uint32_t)).ok ());
    EXPECT_EQ (cudaMemsetAsync (max.get (), 0, sizeof (uint32_t), stream.get ()), cudaSuccess);
    const cudavision::ImageF dst { out.as<float> (), pitch, in.image.width, in.image.height };
    const cudavision::CudaStatus s = cudavision::corner_response (in, dst, p, pol, stream.get (), max.as<uint32_t> ());
    EXPECT_TRUE (s.ok ()) << s.message ();
    EXPECT_TRUE (stream.synchronize ().ok ());
    if (max_out) {
      uint32_t m = 0;
      EXPECT_EQ (cudaMemcpy (&m, max.get (), sizeof m, cudaMemcpyDeviceToHost), cudaSuccess);
      *max_out = cudavision::ordered_to_float (m);
    }
    return download_float (dst);
  }

  std::vector<Corner> detect (const cudavision::LumaInput & in, const CornerDetectParams & p,
      const cudavision::LaunchPolicy & pol)
  {
    std::vector<Corner> c;
    const cudavision::CudaStatus s = detector.detect (in, p, pol, stream.get (), &c);
    EXPECT_TRUE (s.ok ()) << s.message ();
    return c;
  }

  void TearDown () override { detector.release (); }

  cudavision::DeviceDescription dev;
  cudavision::Stream stream;
  cudavision::CornerDetector detector;
};

cv::Mat
resized_gray (const char *name, int w, int h)
{
  cv::Mat g = load_gray (data_path (name)), r;
  cv::resize (g, r, cv::Size (w, h), 0, 0, cv::INTER_LINEAR);
  return r;
}

/* Both ways: OpenCV's corners found, and few corners OpenCV lacks. */
void
expect_corner_match (const std::vector<Corner> & got, const std::vector<Corner> & ref, const std::string & what)
{
  const double r = recall (got, ref, 1.0), p = recall (ref, got, 1.0);
  EXPECT_GE (r, 0.95) << what << ": found " << got.size () << " vs OpenCV " << ref.size () << ", recall " << r;
  EXPECT_GE (p, 0.95) << what << ": found " << got.size () << " vs OpenCV " << ref.size () << ", precision " << p;
}

std::string
element_for (const CornerParams & p, const std::string & extra = "")
{
  CornerDetectParams d;
  d.corner = p;
  return harris_element ("cuda", d) + " " + extra;
}

const cv::Mat &
picture (const std::string & name)
{
  static const cv::Mat left01 = load_rgb (data_path ("left01.jpg")), building = load_rgb (data_path ("building.jpg"));
  static const cv::Mat crop = building (cv::Rect (101, 57, 641, 479)).clone ();
  return name == "left01" ? left01 : name == "building" ? building : crop;
}

/* NV12 and I420 (two pictures, an odd size, padded rows with odd
 * strides), 3-byte RGB and BGR, and RGBA. On each of these frames the host
 * model's corners (the kernels' arithmetic) are at OpenCV's positions in
 * OpenCV's order (checked on the host when these cases were chosen; the
 * scores differ in their last bits), so both backends mark the same
 * pixels. */
std::vector<FrameCase>
element_cases ()
{
  return {
    { "left01", picture ("left01"), GST_VIDEO_FORMAT_NV12 },
    { "building", picture ("building"), GST_VIDEO_FORMAT_I420 },
    { "building crop", picture ("crop"), GST_VIDEO_FORMAT_NV12 },
    { "building crop", picture ("crop"), GST_VIDEO_FORMAT_I420, 3 },
    { "left01", picture ("left01"), GST_VIDEO_FORMAT_NV12, 5 },
    { "left01", picture ("left01"), GST_VIDEO_FORMAT_RGB },
    { "building", picture ("building"), GST_VIDEO_FORMAT_BGR },
    { "building crop", picture ("crop"), GST_VIDEO_FORMAT_RGB, 1 },
    { "left01", picture ("left01"), GST_VIDEO_FORMAT_RGBA },
  };
}

/* The same corner positions in the same order (scores aside)? Empty when
 * so, else the first difference. */
std::string
diff_positions (std::vector<Corner> a, std::vector<Corner> b)
{
  for (Corner & c : a)
    c.score = 0;
  for (Corner & c : b)
    c.score = 0;
  return diff_corner_lists (a, b);
}

/* The host model's corner list on a luma (what the device computes, bit
 * for bit: HarrisDevice.KernelIsTheHostModelBitForBit,
 * DetectorIsTheGreedyExactly) with the element's defaults. */
std::vector<Corner>
model_list (const cv::Mat & luma)
{
  const CornerDetectParams p;
  return model_corners (model_response (luma, p.corner), p);
}

/* One frame of `c` through "cudaharris backend=cuda `props`" (out in
 * `out_feature` memory) and through backend=cpu: the GPU's list is the
 * host model's on the luma of the input's own bytes, exactly, at the CPU
 * backend's positions; its output is the input with exactly the crosses
 * at those corners in `argb` (none unless `drawn`), byte for byte the CPU
 * backend's on every plane. */
void
check_against_model_and_cpu (const FrameCase & c, const std::string & props, guint32 argb, bool drawn,
    const char *out_feature = nullptr)
{
  SCOPED_TRACE (describe (c) + ": " + props + (out_feature ? std::string (" out ") + out_feature : ""));
  const CaseInput in = case_input (c);
  const std::vector<Corner> model = model_list (in.luma);
  EXPECT_GT (model.size (), 50u);
  const HarrisRun gpu = run_harris ("cudaharris backend=cuda " + props, in.caps,
      caps_string (c.format, c.rgb.cols, c.rgb.rows, out_feature), in.buffer);
  const HarrisRun cpu = run_harris ("cudaharris backend=cpu " + props, in.caps, in.caps,
      frame_buffer (c.rgb, c.format, c.pad));
  ASSERT_TRUE (gpu.ok && cpu.ok);
  ASSERT_TRUE (gpu.has_meta);
  EXPECT_EQ (diff_corner_lists (gpu.corners, model), "");
  EXPECT_EQ (diff_positions (gpu.corners, cpu.corners), "");
  EXPECT_TRUE (overlay_matches (in.planes, gpu.planes, &in.info, argb,
      drawn ? corner_mark_pixels (gpu.corners, in.info.width, in.info.height) : std::vector<cv::Point> ()));
  EXPECT_EQ (diff_planes (gpu.planes, cpu.planes), "");
}

}  // namespace

/* ---------------------------------------------------- the cuda/ API */

TEST_F (HarrisDevice, ResponseMatchesOpenCVEveryImageBlockAndAperture)
{
  const auto pol = policy ();
  for (const auto & path : test_images ()) {
    const cv::Mat g = load_gray (path);
    cudavision::DeviceBuffer buf;
    const cudavision::LumaInput in { upload (g, buf), true };
    for (CornerMethod m : { CornerMethod::Harris, CornerMethod::ShiTomasi })
      for (int block = 2; block <= 7; block++)
        for (int ap : { 3, 5, 7 }) {
          const CornerParams p = corner_params (m, block, ap);
          float maxv = 0;
          const cv::Mat got = response (in, p, pol, &maxv);
          const cv::Mat ref = opencv_response (g, p);
          cv::Point at;
          const double e = response_rel_error (got, ref, &at);
          EXPECT_LE (e, 1e-4) << path << " " << describe (p) << ": worst at " << at << " got "
                              << got.at<float> (at) << " OpenCV " << ref.at<float> (at);
          double gmax = 0;
          cv::minMaxLoc (got, nullptr, &gmax);
          EXPECT_EQ (maxv, (float) gmax) << path << " " << describe (p) << ": reduced maximum";
        }
  }
}

/* The kernel computes what the host model (tests/common/harris_ref.h, the
 * same functions in the same order, proven against OpenCV in the gst suite)
 * computes, bit for bit: tiles, halos and reflections are the kernel's own
 * business, and any slip there shows here pixel by pixel. */
TEST_F (HarrisDevice, KernelIsTheHostModelBitForBit)
{
  const auto pol = policy ();
  std::vector<cv::Mat> frames;
  for (const auto & path : test_images ())
    frames.push_back (load_gray (path));
  for (const auto & s : { cv::Size (1, 1), cv::Size (2, 2), cv::Size (3, 3), cv::Size (33, 1), cv::Size (1, 40),
           cv::Size (35, 37), cv::Size (641, 479) }) {
    cv::Mat g;
    cv::cvtColor (random_rgb (s.width, s.height, s.area ()), g, cv::COLOR_RGB2GRAY);
    frames.push_back (g);
  }
  for (const cv::Mat & g : frames) {
    const std::string what = std::to_string (g.cols) + "x" + std::to_string (g.rows);
    cudavision::DeviceBuffer buf;
    const cudavision::LumaInput in { upload (g, buf), true };
    for (CornerMethod m : { CornerMethod::Harris, CornerMethod::ShiTomasi })
      for (int block : { 2, 3, 6, 7 })
        for (int ap : { 3, 5, 7 }) {
          const CornerParams p = corner_params (m, block, ap);
          const cv::Mat model = model_response (g, p);
          const cv::Mat got = response (in, p, pol);
          const cv::Mat ne = got != model;
          const int bad = cv::countNonZero (ne);
          if (bad) {
            std::vector<cv::Point> where;
            cv::findNonZero (ne, where);
            ADD_FAILURE () << what << " " << describe (p) << ": " << bad << " pixels differ, first at " << where[0]
                           << " got " << got.at<float> (where[0]) << " model " << model.at<float> (where[0]);
          }
        }
    CornerDetectParams p;
    EXPECT_EQ (diff_corner_lists (detect (in, p, pol), model_corners (model_response (g, p.corner), p)), "") << what;
  }
}

/* RGBA / BGRx in: the luma computed as the tiles load gives the GRAY8
 * input's response bit for bit. */
TEST_F (HarrisDevice, PackedColourSourceIsItsLuma)
{
  const auto pol = policy ();
  const cv::Mat rgb = load_rgb (data_path ("astronaut.png"));
  cv::Mat g, rgba, bgra;
  cv::cvtColor (rgb, g, cv::COLOR_RGB2GRAY);
  cv::cvtColor (rgb, rgba, cv::COLOR_RGB2RGBA);
  cv::cvtColor (rgb, bgra, cv::COLOR_RGB2BGRA);
  cudavision::DeviceBuffer bg, b1, b2;
  const cudavision::LumaInput gin { upload (g, bg), true };
  const cudavision::LumaInput rin { upload (rgba, b1), false, cudavision::PackedRgb::RGBA };
  const cudavision::LumaInput bin { upload (bgra, b2), false, cudavision::PackedRgb::BGRx };
  for (int ap : { 3, 7 }) {
    const CornerParams p = corner_params (CornerMethod::Harris, 3, ap);
    const cv::Mat ref = response (gin, p, pol);
    EXPECT_EQ (cv::countNonZero (response (rin, p, pol) != ref), 0) << "RGBA aperture " << ap;
    EXPECT_EQ (cv::countNonZero (response (bin, p, pol) != ref), 0) << "BGRx aperture " << ap;
  }
}

TEST_F (HarrisDevice, DetectorFindsGoodFeaturesToTrack)
{
  const auto pol = policy ();
  for (const auto & path : test_images ()) {
    const cv::Mat g = load_gray (path);
    cudavision::DeviceBuffer buf;
    const cudavision::LumaInput in { upload (g, buf), true };
    for (CornerMethod m : { CornerMethod::Harris, CornerMethod::ShiTomasi }) {
      for (int max_corners : { 0, 100 }) {
        CornerDetectParams p;
        p.corner = corner_params (m, 3, 3);
        p.max_corners = max_corners;
        const auto ref = opencv_corners (g, p);
        const auto got = detect (in, p, pol);
        expect_corner_match (got, ref, path + " " + describe (p.corner) + " max " + std::to_string (max_corners));
        for (size_t i = 1; i < got.size (); i++)
          ASSERT_GE (got[i - 1].score, got[i].score) << path << ": not strongest first at " << i;
        if (max_corners) {
          EXPECT_LE ((int) got.size (), max_corners);
        }
      }
    }
  }
}

TEST_F (HarrisDevice, Left01ChessboardFound)
{
  const cv::Mat g = load_gray (data_path ("left01.jpg"));
  const auto truth = left01_chessboard (g);
  ASSERT_EQ (truth.size (), 54u);
  cudavision::DeviceBuffer buf;
  const cudavision::LumaInput in { upload (g, buf), true };
  for (CornerMethod m : { CornerMethod::Harris, CornerMethod::ShiTomasi }) {
    CornerDetectParams p;
    p.corner.method = m;
    const auto got = detect (in, p, policy ());
    EXPECT_EQ (matched (truth, got, kChessboardRadius), 54) << describe (p.corner) << ": " << got.size ()
                                                            << " detections";
  }
}

/* 1x1 .. 1080p: the response, and the list (OpenCV's, possibly empty). */
TEST_F (HarrisDevice, Sizes)
{
  const int sizes[][2] = { { 1, 1 }, { 2, 2 }, { 3, 3 }, { 5, 2 }, { 641, 479 }, { 1920, 1080 } };
  const auto pol = policy ();
  for (const auto & s : sizes) {
    const std::string what = std::to_string (s[0]) + "x" + std::to_string (s[1]);
    const bool small = s[0] < 16;
    cv::Mat g = small ? cv::Mat () : resized_gray ("building.jpg", s[0], s[1]);
    if (small) {
      cv::cvtColor (random_rgb (s[0], s[1], s[0] * 3 + s[1]), g, cv::COLOR_RGB2GRAY);
    }
    cudavision::DeviceBuffer buf;
    const cudavision::LumaInput in { upload (g, buf), true };
    for (int block : { 2, 3, 7 })
      for (int ap : { 3, 5, 7 }) {
        const CornerParams p = corner_params (CornerMethod::Harris, block, ap);
        cv::Point at;
        EXPECT_LE (response_rel_error (response (in, p, pol), opencv_response (g, p), &at), 1e-4)
            << what << " " << describe (p) << " at " << at;
      }
    CornerDetectParams p;
    const auto ref = opencv_corners (g, p);
    const auto got = detect (in, p, pol);
    if (small) {
      EXPECT_EQ (diff_corner_lists (got, ref), "") << what;
    } else {
      expect_corner_match (got, ref, what);
    }
  }
}

/* Every mode, every block shape: the same map and the same list. */
TEST_F (HarrisDevice, EveryBlockSizingModeIdentical)
{
  using cudavision::BlockSizing;
  const cudavision::LaunchPolicy pols[] = {
    policy (BlockSizing::Static), policy (BlockSizing::Static, { 64, 2 }), policy (BlockSizing::Static, { 1024, 1 }),
    policy (BlockSizing::Static, { 8, 8 }), policy (BlockSizing::Model), policy (BlockSizing::EmpiricalTable),
  };
  for (const auto & name : { "text.png", "left01.jpg" }) {
    for (const cv::Mat & g : { load_gray (data_path (name)), resized_gray (name, 1920, 1080) }) {
      cudavision::DeviceBuffer buf;
      const cudavision::LumaInput in { upload (g, buf), true };
      CornerDetectParams p;
      const cv::Mat ref_map = response (in, p.corner, pols[0]);
      const auto ref = detect (in, p, pols[0]);
      ASSERT_FALSE (ref.empty ());
      for (size_t i = 1; i < sizeof pols / sizeof pols[0]; i++) {
        EXPECT_EQ (cv::countNonZero (response (in, p.corner, pols[i]) != ref_map), 0) << name << " policy " << i;
        EXPECT_EQ (diff_corner_lists (detect (in, p, pols[i]), ref), "") << name << " policy " << i;
      }
    }
  }
}

/* Strip and warp edges of the response kernel: widths around its 28-,
 * 26-, ... column warps and heights around its 8-, 16-, 32-row strips,
 * every aperture and block, GRAY8 and RGBA: bit for bit the model. */
TEST_F (HarrisDevice, KernelIsTheHostModelOnStripEdges)
{
  const auto pol = policy ();
  const cv::Size sizes[] = { { 27, 17 }, { 28, 16 }, { 29, 33 }, { 57, 15 }, { 5, 65 }, { 200, 7 }, { 130, 131 } };
  for (const cv::Size & sz : sizes) {
    const cv::Mat rgb = random_rgb (sz.width, sz.height, 100 + sz.area ());
    cv::Mat g, rgba;
    cv::cvtColor (rgb, g, cv::COLOR_RGB2GRAY);
    cv::cvtColor (rgb, rgba, cv::COLOR_RGB2RGBA);
    cudavision::DeviceBuffer b1, b2;
    const cudavision::LumaInput gin { upload (g, b1), true };
    const cudavision::LumaInput rin { upload (rgba, b2), false, cudavision::PackedRgb::RGBA };
    for (int ap : { 3, 5, 7 })
      for (int block = 2; block <= 7; block++) {
        const CornerParams p = corner_params (block % 2 ? CornerMethod::Harris : CornerMethod::ShiTomasi, block, ap);
        const cv::Mat model = model_response (g, p);
        const std::string what = std::to_string (sz.width) + "x" + std::to_string (sz.height) + " " + describe (p);
        EXPECT_EQ (cv::countNonZero (response (gin, p, pol) != model), 0) << what;
        EXPECT_EQ (cv::countNonZero (response (rin, p, pol) != model), 0) << what << " RGBA";
      }
  }
}

/* The device selection is the greedy, exactly (positions, order,
 * scores): on the model's response of real images, noise and the tie
 * pattern, across minimum distances (every cell size, several rings, none),
 * quality levels and max_corners. */
TEST_F (HarrisDevice, DetectorIsTheGreedyExactly)
{
  const auto pol = policy ();
  std::vector<std::pair<std::string, cv::Mat>> frames;
  /* under compute-sanitizer: two photographs, and distances that take each
   * candidate kernel (cells of 16, 32 and 64: corner_cells.h) and no
   * suppression */
  const bool light = sanitizer_pass ();
  for (const auto & path : test_images ())
    if (!light || frames.size () < 2)
      frames.push_back ({ path, load_gray (path) });
  cv::Mat noise;
  cv::cvtColor (random_rgb (640, 480, 77), noise, cv::COLOR_RGB2GRAY);
  frames.push_back ({ "noise", noise });
  frames.push_back ({ "tie pattern", tie_pattern_image (400, 300) });
  const std::vector<double> distances = light ? std::vector<double> { 0.5, 10.0, 16.5, 100.0 }
                                              : std::vector<double> { 0.5, 1.0, 3.7, 10.0, 16.5, 40.0, 100.0 };
  for (const auto & [name, g] : frames) {
    cudavision::DeviceBuffer buf;
    const cudavision::LumaInput in { upload (g, buf), true };
    for (CornerMethod m : { CornerMethod::Harris, CornerMethod::ShiTomasi }) {
      const cv::Mat model = model_response (g, corner_params (m, 3, 3));
      for (double d : distances)
        for (double q : { 0.01, 0.05 })
          for (int max_corners : { 0, 50 }) {
            CornerDetectParams p;
            p.corner = corner_params (m, 3, 3);
            p.min_distance = d;
            p.quality_level = q;
            p.max_corners = max_corners;
            EXPECT_EQ (diff_corner_lists (detect (in, p, pol), model_corners (model, p)), "")
                << name << " " << describe (p.corner) << " d " << d << " q " << q << " max " << max_corners;
          }
    }
  }
}

/* Adversarial response maps straight into the selection: suppression
 * chains, ties, plateaus, exact-distance pairs across cell borders, dense
 * peaks; both ordering paths, and with 16-pixel cells (d <= 16) each
 * step-2 path: the one-block rounds (Auto, small maps), the grid-wide
 * rounds and the cell walk. */
TEST_F (HarrisDevice, SelectionOnStressMaps)
{
  const auto pol = policy ();
  for (double d : { 0.5, 1.0, 2.0, 3.7, 10.0, 10.5, 16.0, 17.0, 31.5, 40.0, 70.0 }) {
    for (const StressMap & sm : selection_stress_maps (d)) {
      cudavision::DeviceBuffer buf;
      const cudavision::ConstImage8 raw = upload (sm.map, buf);
      const cudavision::ImageView<const float> r { reinterpret_cast<const float *> (raw.data), raw.pitch, sm.map.cols,
        sm.map.rows };
      double maxv = 0;
      cv::minMaxLoc (sm.map, nullptr, &maxv);
      for (auto order : { cudavision::CornerOrder::Tiles, cudavision::CornerOrder::RadixSort })
        for (auto path : { cudavision::CornerSelectPath::Auto, cudavision::CornerSelectPath::Rounds,
                 cudavision::CornerSelectPath::Walk })
          for (int max_corners : { 0, 7 }) {
            CornerDetectParams p;
            p.min_distance = d;
            p.max_corners = max_corners;
            detector.force_order (order);
            detector.force_path (path);
            std::vector<Corner> got;
            ASSERT_TRUE (detector.enqueue_selection (r, (float) maxv, p, pol, stream.get ()).ok ());
            ASSERT_TRUE (detector.collect (&got).ok ());
            EXPECT_EQ (diff_corner_lists (got, model_corners (sm.map, p)), "")
                << sm.name << " d " << d << " max " << max_corners
                << (order == cudavision::CornerOrder::Tiles ? " tiles" : " radix sort") << " path " << (int) path;
          }
    }
  }
}

/* 1080p noise: thousands of kept corners over many sort tiles (d 10), and
 * every candidate kept (d 0.5: the padded radix sort, then tiles forced),
 * lists longer than the first host buffer. */
TEST_F (HarrisDevice, LargeListsBothOrderPaths)
{
  const auto pol = policy ();
  cv::Mat g;
  cv::cvtColor (random_rgb (1920, 1080, 5), g, cv::COLOR_RGB2GRAY);
  cudavision::DeviceBuffer buf;
  const cudavision::LumaInput in { upload (g, buf), true };
  const cv::Mat model = model_response (g, CornerParams ());
  for (auto order : { cudavision::CornerOrder::Auto, cudavision::CornerOrder::Tiles,
           cudavision::CornerOrder::RadixSort }) {
    detector.force_order (order);
    /* d 10: 120 000 candidates, the grid-wide rounds (Auto), and the cell
     * walk they replace */
    detector.force_path (order == cudavision::CornerOrder::RadixSort ? cudavision::CornerSelectPath::Walk
                                                                      : cudavision::CornerSelectPath::Auto);
    for (double d : { 0.5, 10.0 })
      for (int max_corners : { 0, 1000 }) {
        CornerDetectParams p;
        p.min_distance = d;
        p.max_corners = max_corners;
        const auto want = model_corners (model, p);
        const auto got = detect (in, p, pol);
        EXPECT_EQ (diff_corner_lists (got, want), "") << "d " << d << " max " << max_corners << " order " << (int) order;
        if (max_corners == 0 && d < 1) {
          EXPECT_GT (got.size (), 50000u); /* beyond the first host buffer */
        }
      }
  }
}

/* --------------------------------------------------------- the element */

TEST (HarrisGpu, ElementMatchesOpenCV)
{
  for (const auto & path : test_images ()) {
    const cv::Mat g = load_gray (path);
    for (CornerMethod m : { CornerMethod::Harris, CornerMethod::ShiTomasi }) {
      CornerDetectParams p;
      p.corner = corner_params (m, 3, 3);
      const HarrisRun r = run_harris_gray (element_for (p.corner), g);
      ASSERT_TRUE (r.ok) << path;
      ASSERT_TRUE (r.has_meta) << path;
      expect_corner_match (r.corners, opencv_corners (g, p), path + " element " + describe (p.corner));
      EXPECT_EQ (compare (r.out, g).differing, 0) << path << ": passthrough changed the frame";
    }
  }
}

/* The normalized response through the element: within one grey level of
 * OpenCV's (1e-4 of the maximum can move a rounding), on nearly all pixels
 * exactly. */
TEST (HarrisGpu, ElementResponseOutput)
{
  for (const auto & path : test_images ()) {
    const cv::Mat rgb = load_rgb (path);
    cv::Mat g;
    cv::cvtColor (rgb, g, cv::COLOR_RGB2GRAY);
    for (CornerMethod m : { CornerMethod::Harris, CornerMethod::ShiTomasi }) {
      for (int ap : { 3, 5 }) {
        const CornerParams p = corner_params (m, 3, ap);
        const cv::Mat want = opencv_normalized_response (g, p);
        const HarrisRun a = run_harris_gray (element_for (p, "output=response"), g);
        const HarrisRun b = run_harris_rgb (element_for (p, "output=response"), rgb, GST_VIDEO_FORMAT_RGBx,
            GST_VIDEO_FORMAT_GRAY8);
        ASSERT_TRUE (a.ok && b.ok) << path;
        for (const HarrisRun * r : { &a, &b }) {
          const Diff d = compare (r->out, want);
          EXPECT_LE (d.max_abs, 1) << path << " " << describe (p);
          EXPECT_LE (d.differing, (long) want.total () / 1000 + 1) << path << " " << describe (p);
        }
        EXPECT_EQ (compare (a.out, b.out).differing, 0) << path << ": RGBx and GRAY8 inputs differ";
      }
    }
  }
}

TEST (HarrisGpu, ElementLeft01ColourAndDraw)
{
  const cv::Mat rgb = load_rgb (data_path ("left01.jpg"));
  cv::Mat g;
  cv::cvtColor (rgb, g, cv::COLOR_RGB2GRAY);
  const auto truth = left01_chessboard (g);
  ASSERT_EQ (truth.size (), 54u);
  const HarrisRun r = run_harris_rgb ("cudaharris backend=cuda draw=true", rgb, GST_VIDEO_FORMAT_BGRA,
      GST_VIDEO_FORMAT_BGRA);
  ASSERT_TRUE (r.ok);
  EXPECT_EQ (matched (truth, r.corners, kChessboardRadius), 54) << r.corners.size () << " detections";
  /* the marks: red crosses at the reported corners, opaque in the alpha
   * byte, nothing else changed */
  const std::string caps = caps_string (GST_VIDEO_FORMAT_BGRA, rgb.cols, rgb.rows);
  const GstVideoInfo info = caps_info (caps);
  GstBuffer *in = rgb_to_buffer (rgb, GST_VIDEO_FORMAT_BGRA);
  EXPECT_TRUE (overlay_matches (caps_planes (in, caps), r.planes, &info, cudavision::kCornerMarkerColor,
      corner_mark_pixels (r.corners, rgb.cols, rgb.rows)));
  gst_buffer_unref (in);
  EXPECT_GT (corner_mark_pixels (r.corners, rgb.cols, rgb.rows).size (), 54u * 10);
}

TEST (HarrisGpu, ElementSizesAndModes)
{
  const int sizes[][2] = { { 1, 1 }, { 2, 2 }, { 3, 3 }, { 641, 479 }, { 1920, 1080 } };
  for (const auto & s : sizes) {
    const std::string what = std::to_string (s[0]) + "x" + std::to_string (s[1]);
    cv::Mat g;
    if (s[0] < 16)
      cv::cvtColor (random_rgb (s[0], s[1], s[0] + 11 * s[1]), g, cv::COLOR_RGB2GRAY);
    else
      g = resized_gray ("sudoku.png", s[0], s[1]);
    CornerDetectParams p;
    const auto ref = opencv_corners (g, p);
    HarrisRun first;
    for (const char *mode : kBlockSizingModes) {
      for (const char *out : { "output=passthrough", "output=response" }) {
        const HarrisRun r = run_harris_gray (std::string ("cudaharris backend=cuda ") + mode + " " + out, g);
        ASSERT_TRUE (r.ok) << what << " " << mode << " " << out;
        if (s[0] < 16) {
          EXPECT_EQ (diff_corner_lists (r.corners, ref), "") << what << " " << mode;
        } else {
          expect_corner_match (r.corners, ref, what + " " + mode);
        }
        if (std::string (out) == "output=passthrough") {
          if (!first.ok)
            first = r;
          EXPECT_EQ (diff_corner_lists (r.corners, first.corners), "") << what << " " << mode << " vs static";
        }
      }
    }
  }
}

/* Device frames out: the meta goes on the real output buffer. */
TEST (HarrisGpu, DeviceMemoryOutputCarriesMeta)
{
  const cv::Mat g = load_gray (data_path ("building.jpg"));
  const HarrisRun r = run_harris_gray ("cudaharris backend=cuda post-messages=true", g, GST_VIDEO_FORMAT_GRAY8,
      GST_CAPS_FEATURE_MEMORY_CUDAVISION);
  ASSERT_TRUE (r.ok);
  ASSERT_TRUE (r.has_meta);
  expect_corner_match (r.corners, opencv_corners (g, CornerDetectParams ()), "device memory out");
  EXPECT_EQ (compare (r.out, g).differing, 0);
  ASSERT_EQ (r.messages, 1);
  EXPECT_EQ (r.msg_count, r.corners.size ());
  EXPECT_EQ (r.msg_corners.size (), std::min<size_t> (50, r.corners.size ()));
}

/* A chain: cudagray's device frames into cudaharris, no host copy between. */
TEST (HarrisGpu, ChainFromCudagray)
{
  BusResult r = run_pipeline ("videotestsrc num-buffers=10 pattern=checkers-8 ! video/x-raw,format=RGBA,width=640,"
                              "height=480 ! cudagray backend=cuda ! cudaharris backend=cuda draw=true ! fakesink");
  EXPECT_TRUE (r.eos) << (r.errors.empty () ? "" : r.errors[0]);
  EXPECT_TRUE (r.warnings.empty ()) << r.warnings[0];
}

/* ------------------------------------------- NV12, I420, RGB, BGR, colours */

/* Every input kind: the model's corners exactly, the CPU backend's bytes
 * on every plane, with the crosses in the default red, in a translucent
 * yellow (its alpha in an alpha byte), and none with draw=false. */
TEST (HarrisGpu, YuvAndRgbInputsAreTheCpuBackends)
{
  for (const FrameCase & c : element_cases ()) {
    check_against_model_and_cpu (c, "draw=true", cudavision::kCornerMarkerColor, true);
    check_against_model_and_cpu (c, "draw=true color=0x80ffff00", 0x80ffff00u, true);
    check_against_model_and_cpu (c, "draw=false color=0x80ffff00", 0x80ffff00u, false);
  }
}

/* Every block-sizing mode on an odd-sized NV12 frame and a BGR one: the
 * same list and the same bytes. */
TEST (HarrisGpu, YuvAndRgbEveryBlockSizingMode)
{
  for (const FrameCase & c : { FrameCase { "building crop", picture ("crop"), GST_VIDEO_FORMAT_NV12 },
           FrameCase { "building", picture ("building"), GST_VIDEO_FORMAT_BGR } }) {
    for (const char *mode : kBlockSizingModes)
      check_against_model_and_cpu (c, std::string ("draw=true color=0xff20c0ff ") + mode, 0xff20c0ffu, true);
  }
}

/* output=response on NV12 and I420: the GRAY8 response of the Y plane,
 * the same bytes as the element gives for that plane as GRAY8 (and within
 * one grey level of OpenCV's); with draw=true white crosses on it. */
TEST (HarrisGpu, YuvResponseOutput)
{
  for (const FrameCase & c : element_cases ()) {
    if (c.format != GST_VIDEO_FORMAT_NV12 && c.format != GST_VIDEO_FORMAT_I420)
      continue;
    SCOPED_TRACE (describe (c));
    const CaseInput in = case_input (c);
    const std::string gray_caps = caps_string (GST_VIDEO_FORMAT_GRAY8, c.rgb.cols, c.rgb.rows);
    const GstVideoInfo gray_info = caps_info (gray_caps);
    const cv::Mat & y = in.luma;
    const HarrisRun r = run_harris ("cudaharris backend=cuda output=response", in.caps, gray_caps,
        gst_buffer_ref (in.buffer));
    const HarrisRun g = run_harris_gray ("cudaharris backend=cuda output=response", y);
    ASSERT_TRUE (r.ok && g.ok);
    ASSERT_EQ (r.planes.size (), 1u);
    EXPECT_EQ (compare (r.planes[0], g.planes[0]).differing, 0) << "the Y plane as GRAY8 gives other bytes";
    const cv::Mat want = opencv_normalized_response (y, CornerParams ());
    const Diff d = compare (r.planes[0], want);
    EXPECT_LE (d.max_abs, 1);
    EXPECT_LE (d.differing, (long) want.total () / 1000 + 1);
    EXPECT_EQ (diff_corner_lists (r.corners, model_list (y)), "");
    const HarrisRun drawn = run_harris ("cudaharris backend=cuda output=response draw=true color=0xff20c0ff", in.caps,
        gray_caps, in.buffer);
    ASSERT_TRUE (drawn.ok);
    EXPECT_TRUE (overlay_matches (r.planes, drawn.planes, &gray_info, 0xff20c0ffu,
        corner_mark_pixels (drawn.corners, in.info.width, in.info.height)));
  }
}

/* System memory in, device memory out (memory:CudaVisionMemory): the
 * meta on the real output buffer, the frame's planes mapped back on the
 * host as the CPU backend gives them. */
TEST (HarrisGpu, YuvDeviceMemoryOutput)
{
  for (const FrameCase & c : element_cases ()) {
    if (c.format == GST_VIDEO_FORMAT_NV12 || c.format == GST_VIDEO_FORMAT_I420)
      check_against_model_and_cpu (c, "draw=true", cudavision::kCornerMarkerColor, true,
          GST_CAPS_FEATURE_MEMORY_CUDAVISION);
  }
}

/* latency-frames=1 with device memory on both pads (an upstream element
 * uploads the NV12 frames): a frame leaves only once the next has come
 * (EOS pushes the last), each with its own corners and marks, as
 * latency-frames=0 gives them. */
TEST (HarrisGpu, HeldNv12FramesKeepTheirOwnCorners)
{
  const cv::Mat & left01 = picture ("left01");
  const std::vector<cv::Mat> frames = { left01, picture ("building") (cv::Rect (0, 0, 640, 480)).clone (),
    fit_picture (left01 (cv::Rect (7, 5, 600, 450)), cv::Size (640, 480)) };
  const std::string caps = caps_string (GST_VIDEO_FORMAT_NV12, 640, 480);
  const std::string out_caps = caps_string (GST_VIDEO_FORMAT_NV12, 640, 480, GST_CAPS_FEATURE_MEMORY_CUDAVISION);
  const GstVideoInfo info = caps_info (caps);
  std::vector<std::vector<cv::Mat>> in_planes;
  std::vector<std::vector<Corner>> model;
  for (const cv::Mat & rgb : frames) {
    GstBuffer *b = rgb_to_buffer (rgb, GST_VIDEO_FORMAT_NV12);
    in_planes.push_back (caps_planes (b, caps));
    gst_buffer_unref (b);
    model.push_back (model_list (in_planes.back ()[0]));
    EXPECT_GT (model.back ().size (), 50u);
  }
  /* the frames differ, so a list or a drawing on the wrong frame shows */
  ASSERT_NE (diff_positions (model[0], model[1]), "");
  ASSERT_NE (diff_positions (model[0], model[2]), "");
  for (int latency : { 1, 0 }) {
    SCOPED_TRACE ("latency-frames=" + std::to_string (latency));
    GstHarness *h = harness_for_bin ("cudaflow backend=cuda mode=dense grid-step=64 ! video/x-raw(" GST_CAPS_FEATURE_MEMORY_CUDAVISION
                                     "),format=NV12 ! cudaharris name=e backend=cuda draw=true latency-frames=" +
        std::to_string (latency));
    ASSERT_NE (h, nullptr);
    gst_harness_set_caps_str (h, caps.c_str (), out_caps.c_str ());
    std::vector<GstBuffer *> out;
    for (size_t i = 0; i < frames.size (); i++) {
      ASSERT_EQ (gst_harness_push (h, rgb_to_buffer (frames[i], GST_VIDEO_FORMAT_NV12)), GST_FLOW_OK);
      while (GstBuffer *o = gst_harness_try_pull (h))
        out.push_back (o);
      /* with 1, every frame but the last one pushed is out */
      EXPECT_EQ (out.size (), i + 1 - latency) << "after frame " << i;
    }
    EXPECT_TRUE (gst_harness_push_event (h, gst_event_new_eos ()));
    while (GstBuffer *o = gst_harness_try_pull (h))
      out.push_back (o);
    EXPECT_EQ (out.size (), frames.size ()) << "EOS must push the held frame";
    for (size_t i = 0; i < out.size () && i < frames.size (); i++) {
      bool has = false;
      const std::vector<Corner> corners = buffer_corners (out[i], &has);
      EXPECT_TRUE (has) << "frame " << i;
      EXPECT_EQ (diff_corner_lists (corners, model[i]), "") << "frame " << i;
      EXPECT_TRUE (overlay_matches (in_planes[i], caps_planes (out[i], out_caps), &info,
          cudavision::kCornerMarkerColor, corner_mark_pixels (model[i], info.width, info.height)))
          << "frame " << i;
    }
    for (GstBuffer *b : out)
      gst_buffer_unref (b);
    gst_harness_teardown (h);
  }
}

/* memory:CUDAMemory out (nvcodec's kind), from system memory in: the
 * buffers hold GstCudaMemory, whose bytes mapped on the host are the CPU
 * backend's. Nothing else in the process loads nvcodec's plugin, whose
 * start registers GstCudaMemory's allocator: the element must not need
 * it loaded. */
TEST (HarrisGpu, CudaMemoryOutput)
{
  for (const FrameCase & c : element_cases ()) {
    if (c.pad)
      continue;
    SCOPED_TRACE (describe (c));
    const std::string caps = caps_string (c.format, c.rgb.cols, c.rgb.rows);
    const std::string out_caps = caps_string (c.format, c.rgb.cols, c.rgb.rows, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
    const GstVideoInfo info = caps_info (caps);
    GstBuffer *in = rgb_to_buffer (c.rgb, c.format);
    const std::vector<cv::Mat> in_planes = caps_planes (in, caps);
    GstHarness *h = harness_for_bin ("cudaharris backend=cuda draw=true color=0xff20c0ff");
    ASSERT_NE (h, nullptr);
    gst_harness_set_caps_str (h, caps.c_str (), out_caps.c_str ());
    /* a push that fails says why (not-negotiated: no output pool) */
    const GstFlowReturn ret = gst_harness_push (h, in);
    GstBuffer *out = gst_harness_try_pull (h);
    gst_harness_teardown (h);
    ASSERT_EQ (ret, GST_FLOW_OK) << gst_flow_get_name (ret);
    ASSERT_NE (out, nullptr);
    ASSERT_GE (gst_buffer_n_memory (out), 1u);
    EXPECT_TRUE (gst_is_cuda_memory (gst_buffer_peek_memory (out, 0)));
    const std::vector<Corner> corners = buffer_corners (out);
    EXPECT_EQ (diff_corner_lists (corners, model_list (frame_luma (in_planes, &info))), "");
    const std::vector<cv::Mat> got = caps_planes (out, out_caps);
    gst_buffer_unref (out);
    const HarrisRun cpu = run_harris ("cudaharris backend=cpu draw=true color=0xff20c0ff", caps, caps,
        rgb_to_buffer (c.rgb, c.format));
    ASSERT_TRUE (cpu.ok);
    EXPECT_EQ (diff_planes (got, cpu.planes), "");
    EXPECT_TRUE (overlay_matches (in_planes, got, &info, 0xff20c0ffu, corner_mark_pixels (corners, info.width,
        info.height)));
  }
}

/* RGBA in device memory on both pads: the crosses are drawn inside the
 * frame graph, the colour part of its key. A colour changed between
 * frames (the same frame each time) is the next frame's; back to the
 * first colour, the first graph replays with it. */
TEST (HarrisGpu, ColourChangeBetweenFramesInTheGraph)
{
  const cv::Mat & rgb = picture ("left01");
  const std::string caps = caps_string (GST_VIDEO_FORMAT_RGBA, rgb.cols, rgb.rows);
  const std::string out_caps = caps_string (GST_VIDEO_FORMAT_RGBA, rgb.cols, rgb.rows, GST_CAPS_FEATURE_MEMORY_CUDAVISION);
  const GstVideoInfo info = caps_info (caps);
  GstBuffer *probe = rgb_to_buffer (rgb, GST_VIDEO_FORMAT_RGBA);
  const std::vector<cv::Mat> in_planes = caps_planes (probe, caps);
  gst_buffer_unref (probe);
  const std::vector<Corner> model = model_list (frame_luma (in_planes, &info));
  const std::vector<cv::Point> marks = corner_mark_pixels (model, info.width, info.height);
  GstHarness *h = harness_for_bin ("cudaflow backend=cuda mode=dense grid-step=64 ! video/x-raw(" GST_CAPS_FEATURE_MEMORY_CUDAVISION
                                   "),format=RGBA ! cudaharris name=e backend=cuda draw=true");
  ASSERT_NE (h, nullptr);
  gst_harness_set_caps_str (h, caps.c_str (), out_caps.c_str ());
  GstElement *e = gst_bin_get_by_name (GST_BIN (h->element), "e");
  ASSERT_NE (e, nullptr);
  const guint32 colours[] = { cudavision::kCornerMarkerColor, cudavision::kCornerMarkerColor, 0x80ffff00u, 0x80ffff00u,
    0xff0000ffu, cudavision::kCornerMarkerColor };
  for (size_t i = 0; i < G_N_ELEMENTS (colours); i++) {
    g_object_set (e, "color", colours[i], nullptr);
    GstBuffer *out = gst_harness_push_and_pull (h, rgb_to_buffer (rgb, GST_VIDEO_FORMAT_RGBA));
    ASSERT_NE (out, nullptr) << "frame " << i;
    EXPECT_EQ (diff_corner_lists (buffer_corners (out), model), "") << "frame " << i;
    EXPECT_TRUE (overlay_matches (in_planes, caps_planes (out, out_caps), &info, colours[i], marks))
        << "frame " << i << " in 0x" << std::hex << colours[i];
    gst_buffer_unref (out);
  }
  gst_object_unref (e);
  gst_harness_teardown (h);
}
