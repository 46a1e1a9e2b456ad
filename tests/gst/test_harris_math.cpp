/* The corner detector's arithmetic (cuda/harris/harris_math.h, shared
 * with the kernels), the greedy selection (core/harris/corner_select.h)
 * and the device's parallel selection (cuda/harris/corner_cells.h, the
 * kernel's own code run by a host scheduler) against OpenCV and against
 * each other, on the CPU: runs in CI without a GPU.
 *
 * model_response (tests/common/harris_ref.h) walks the kernel's steps in
 * the kernel's order with the same functions, so border handling and
 * formulas are proven here; the GPU suite checks the kernel against the
 * model bit for bit and against OpenCV. */
#include "../common/harris_ref.h"
#include "../common/test_util.h"

#include "../../core/draw/corner_marker.h"
#include "../../cuda/harris/harris_math.h"
#include "../../cuda/harris/corner_cells.h"
#include "../../core/harris/corner_select.h"

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <set>

using namespace cvtest;
using cudavision::Corner;
using cudavision::CornerDetectParams;
using cudavision::CornerMethod;
using cudavision::CornerParams;

TEST (HarrisMath, Reflect101IsOpenCVsBorderInterpolate)
{
  for (int len = 1; len <= 9; len++)
    for (int p = -25; p < 35; p++)
      ASSERT_EQ (cudavision::reflect101 (p, len), cv::borderInterpolate (p, len, cv::BORDER_REFLECT_101))
          << "p " << p << " len " << len;
}

TEST (HarrisMath, SobelTapsAreOpenCVsDerivKernels)
{
  for (int k : { 3, 5, 7 }) {
    cv::Mat kd, ks;
    cv::getDerivKernels (kd, ks, 1, 0, k, false, CV_32F);
    for (int i = 0; i < k; i++) {
      EXPECT_EQ (cudavision::sobel_deriv (k, i), (int) kd.at<float> (i)) << "ksize " << k << " tap " << i;
      EXPECT_EQ (cudavision::sobel_smooth (k, i), (int) ks.at<float> (i)) << "ksize " << k << " tap " << i;
    }
  }
}

TEST (HarrisMath, OrderedFloatsSortAsFloats)
{
  std::vector<float> v = { -INFINITY, -1e30f, -3.5f, -1e-30f, -0.f, 0.f, 1e-38f, 1e-3f, 0.04f, 1.f, 7e20f, INFINITY };
  for (size_t i = 0; i + 1 < v.size (); i++) {
    EXPECT_LT (cudavision::float_to_ordered (v[i]), cudavision::float_to_ordered (v[i + 1])) << v[i];
    EXPECT_EQ (cudavision::ordered_to_float (cudavision::float_to_ordered (v[i])), v[i]);
  }
  /* a zeroed word is below every float: the device's initial maximum */
  EXPECT_LT (0u, cudavision::float_to_ordered (-INFINITY));
  /* keys: value first, then the later pixel */
  EXPECT_GT (cudavision::corner_key (2.f, 0), cudavision::corner_key (1.f, 99));
  EXPECT_GT (cudavision::corner_key (1.f, 5), cudavision::corner_key (1.f, 4));
}

TEST (HarrisMath, ResponseMatchesOpenCVOnBundledImages)
{
  const auto images = test_images ();
  ASSERT_GE (images.size (), 10u);
  for (const auto & path : images) {
    const cv::Mat g = load_gray (path);
    for (CornerMethod m : { CornerMethod::Harris, CornerMethod::ShiTomasi }) {
      const CornerParams p = corner_params (m, 3, 3);
      cv::Point at;
      const double e = response_rel_error (model_response (g, p), opencv_response (g, p), &at);
      EXPECT_LE (e, 1e-4) << path << " " << describe (p) << " at " << at;
    }
  }
}

TEST (HarrisMath, ResponseMatchesOpenCVEveryBlockAndAperture)
{
  cv::Mat g = load_gray (data_path ("left01.jpg"));
  /* under the sanitizers its middle quarter: still the board, with borders of its own */
  if (sanitizer_pass ())
    g = g (cv::Rect (g.cols / 4, g.rows / 4, g.cols / 2, g.rows / 2)).clone ();
  for (CornerMethod m : { CornerMethod::Harris, CornerMethod::ShiTomasi })
    for (int block = 2; block <= 7; block++)
      for (int ap : { 3, 5, 7 }) {
        const CornerParams p = corner_params (m, block, ap, 0.06);
        cv::Point at;
        const double e = response_rel_error (model_response (g, p), opencv_response (g, p), &at);
        EXPECT_LE (e, 1e-4) << describe (p) << " at " << at;
      }
}

/* Frames smaller than the aperture and the box: the repeated reflections. */
TEST (HarrisMath, TinyAndOddFrames)
{
  const int sizes[][2] = { { 1, 1 }, { 2, 2 }, { 3, 3 }, { 1, 7 }, { 7, 1 }, { 2, 5 }, { 4, 3 }, { 6, 6 }, { 13, 9 } };
  for (const auto & s : sizes) {
    cv::Mat rgb = random_rgb (s[0], s[1], s[0] * 17 + s[1]);
    cv::Mat g;
    cv::cvtColor (rgb, g, cv::COLOR_RGB2GRAY);
    for (CornerMethod m : { CornerMethod::Harris, CornerMethod::ShiTomasi })
      for (int block : { 2, 3, 7 })
        for (int ap : { 3, 5, 7 }) {
          const CornerParams p = corner_params (m, block, ap);
          cv::Point at;
          const double e = response_rel_error (model_response (g, p), opencv_response (g, p), &at);
          EXPECT_LE (e, 1e-4) << s[0] << "x" << s[1] << " " << describe (p) << " at " << at;
        }
  }
}

/* Candidates, keys, sort and the greedy pass on OpenCV's own response give
 * goodFeaturesToTrack's list exactly: positions, order and scores. */
TEST (HarrisMath, SelectionIsGoodFeaturesToTrackExactly)
{
  struct Case {
    double quality, min_distance;
    int max_corners;
  };
  const Case cases[] = { { 0.01, 10, 0 }, { 0.01, 10, 25 }, { 0.1, 0, 0 }, { 0.001, 0.5, 300 }, { 0.05, 1, 0 },
    { 0.01, 10.5, 0 }, { 0.02, 3.7, 100 }, { 0.3, 25, 0 } };
  for (const auto & path : sweep_images ()) {
    const cv::Mat g = load_gray (path);
    for (CornerMethod m : { CornerMethod::Harris, CornerMethod::ShiTomasi }) {
      for (const Case & c : cases) {
        CornerDetectParams p;
        p.corner = corner_params (m, 3, 3);
        p.quality_level = c.quality;
        p.min_distance = c.min_distance;
        p.max_corners = c.max_corners;
        const auto ref = opencv_corners (g, p);
        const auto got = model_corners (opencv_response (g, p.corner), p);
        EXPECT_EQ (diff_corner_lists (got, ref), "")
            << path << " " << describe (p.corner) << " quality " << c.quality << " min-distance " << c.min_distance
            << " max " << c.max_corners;
      }
    }
  }
}

/* The whole emulated pipeline: at least 95% of OpenCV's corners within
 * 1 px (float rounding may move a near-tie), on every image. */
TEST (HarrisMath, EmulatedPipelineFindsOpenCVsCorners)
{
  for (const auto & path : sweep_images ()) {
    const cv::Mat g = load_gray (path);
    for (CornerMethod m : { CornerMethod::Harris, CornerMethod::ShiTomasi }) {
      CornerDetectParams p;
      p.corner = corner_params (m, 3, 3);
      const auto ref = opencv_corners (g, p);
      const auto got = model_corners (model_response (g, p.corner), p);
      const double r = recall (got, ref, 1.0);
      EXPECT_GE (r, 0.95) << path << " " << describe (p.corner) << ": " << got.size () << " vs " << ref.size ();
      EXPECT_GE (recall (ref, got, 1.0), 0.95) << path << " " << describe (p.corner) << " (extra corners)";
    }
  }
}

/* Equal responses: goodFeaturesToTrack sorts pointers into its response
 * map, equal values the higher address (later raster position) first;
 * the keys give that order, on a frame of identical squares. */
TEST (HarrisMath, TiesGoToTheLaterPosition)
{
  const cv::Mat g = tie_pattern_image (400, 300);
  for (CornerMethod m : { CornerMethod::Harris, CornerMethod::ShiTomasi })
    for (double d : { 0.0, 4.0, 10.0, 17.0 })
      for (int max_corners : { 0, 40 }) {
        CornerDetectParams p;
        p.corner = corner_params (m, 3, 3);
        p.min_distance = d;
        p.max_corners = max_corners;
        const auto ref = opencv_corners (g, p);
        ASSERT_FALSE (ref.empty ());
        const cv::Mat r = opencv_response (g, p.corner);
        EXPECT_EQ (diff_corner_lists (model_corners (r, p), ref), "") << describe (p.corner) << " d " << d;
        EXPECT_EQ (diff_corner_lists (cells_corners (r, p, 1, 0), ref), "") << describe (p.corner) << " d " << d;
      }
}

namespace {

/* The parallel selections against the greedy on one map: the cell walk
 * under three schedules (whole walks in shuffled order, one decision per
 * visit, three), and, with `rounds`, the rounds of the one-block path
 * where the device takes it (they do not depend on max_corners, which only
 * cuts the list after them). */
void
expect_cells_are_greedy (const cv::Mat & r, const CornerDetectParams & p, const std::string & what, bool rounds)
{
  const auto want = model_corners (r, p);
  const std::pair<unsigned, int> schedules[] = { { 1, 0 }, { 2, 1 }, { 3, 3 } };
  for (const auto & [seed, steps] : schedules) {
    std::vector<Corner> got;
    ASSERT_NO_THROW (got = cells_corners (r, p, seed, steps)) << what;
    EXPECT_EQ (diff_corner_lists (got, want), "") << what << " schedule " << seed << "/" << steps;
  }
  /* the device runs the rounds on 16-pixel cells only (min_distance <= 16) */
  if (!rounds || cudavision::make_cell_grid (r.cols, r.rows, p.min_distance).shift != 4)
    return;
  int n = 0;
  std::vector<Corner> got;
  ASSERT_NO_THROW (got = rounds_corners (r, p, &n)) << what;
  EXPECT_EQ (diff_corner_lists (got, want), "") << what << " in rounds (" << n << ")";
}

}  // namespace

/* The device's cell walk (corner_cells.h) gives the greedy's list exactly:
 * real responses, minimum distances across the cell sizes (16, 32, 64 and
 * several rings of cells), and max_corners. */
TEST (HarrisMath, CellSelectionIsTheGreedyOnImages)
{
  std::vector<std::pair<std::string, cv::Mat>> frames;
  for (const auto & path : sweep_images ())
    frames.push_back ({ path, load_gray (path) });
  cv::Mat noise;
  cv::cvtColor (random_rgb (640, 480, 21), noise, cv::COLOR_RGB2GRAY);
  frames.push_back ({ "noise 640x480", noise });
  /* under the sanitizers one distance of each kind (the stress maps below
   * sweep more): below 1 (no walk), whole and fractional on 16-pixel
   * cells, both sides of 16, 32- and 64-pixel cells, two and three rings */
  const std::vector<double> distances = sanitizer_pass ()
      ? std::vector<double> { 0.5, 1.0, 2.3, 10.5, 16.0, 16.5, 33.0, 64.5, 150.0 }
      : std::vector<double> { 0.5, 1.0, 1.5, 2.3, 3.7, 10.0, 10.5, 16.0, 16.5, 25.0, 33.0, 64.5, 70.0, 150.0 };
  for (const auto & [name, g] : frames) {
    for (CornerMethod m : { CornerMethod::Harris, CornerMethod::ShiTomasi }) {
      const cv::Mat r = opencv_response (g, corner_params (m, 3, 3));
      for (double d : distances)
        for (int max_corners : { 0, 25 }) {
          CornerDetectParams p;
          p.corner = corner_params (m, 3, 3);
          p.min_distance = d;
          p.max_corners = max_corners;
          expect_cells_are_greedy (r, p,
              name + " " + describe (p.corner) + " d " + std::to_string (d) + " max " + std::to_string (max_corners),
              max_corners == 0);
        }
    }
  }
}

/* The same on maps built to break it: long suppression chains, ties,
 * plateaus, pairs at the exact distance across cell borders, dense peaks. */
TEST (HarrisMath, CellSelectionIsTheGreedyOnStressMaps)
{
  for (double d : { 1.0, 2.0, 3.7, 10.0, 10.5, 16.0, 17.0, 31.5, 40.0, 70.0 })
    for (const StressMap & s : selection_stress_maps (d))
      for (int max_corners : { 0, 7 }) {
        CornerDetectParams p;
        p.min_distance = d;
        p.max_corners = max_corners;
        for (double q : { 0.01, 0.5 }) {
          p.quality_level = q;
          expect_cells_are_greedy (s.map, p,
              s.name + " d " + std::to_string (d) + " max " + std::to_string (max_corners) + " q " + std::to_string (q),
              max_corners == 0 && q < 0.1);
        }
      }
}

/* The cell geometry: cells at least min_distance wide, enough rings, and
 * the kept bounds hold on the densest layout (a corner on every pixel the
 * distance allows). */
TEST (HarrisMath, CellGridBounds)
{
  for (double d : { 1.0, 1.4, 2.0, 7.5, 10.0, 16.0, 16.01, 32.0, 50.0, 64.0, 65.0, 300.0 }) {
    const cudavision::CellGrid g = cudavision::make_cell_grid (500, 400, d);
    ASSERT_FALSE (g.all);
    EXPECT_GE (g.side () * g.rings, d) << d;
    EXPECT_GE (g.side (), std::min (d, 64.0)) << d;
    /* greedy on a plateau: every pixel a candidate, the tightest packing */
    cv::Mat flat (400, 500, CV_32F, cv::Scalar (1));
    CornerDetectParams p;
    p.min_distance = d;
    const auto kept = model_corners (flat, p);
    EXPECT_LE (kept.size (), cudavision::kept_bound (g)) << d;
    std::vector<int> per_cell (g.cells ());
    for (const Corner & c : kept)
      per_cell[((int) c.y >> g.shift) * g.cols + ((int) c.x >> g.shift)]++;
    EXPECT_LT (*std::max_element (per_cell.begin (), per_cell.end ()), g.kept_slots) << d;
    EXPECT_EQ (diff_corner_lists (cells_corners (flat, p, 4, 2), kept), "") << d;
  }
  EXPECT_TRUE (cudavision::make_cell_grid (100, 100, 0.99).all);
  EXPECT_EQ (cudavision::kept_bound (cudavision::make_cell_grid (100, 100, 0.5)), 98u * 98u);
}

TEST (HarrisMath, MarkerIsACross)
{
  std::set<std::pair<int, int>> px;
  for (int k = 0; k < cudavision::kCornerMarkerPixels; k++) {
    int dx, dy;
    cudavision::corner_marker_offset (k, &dx, &dy);
    EXPECT_TRUE (dx == 0 || dy == 0);
    EXPECT_LE (std::max (std::abs (dx), std::abs (dy)), cudavision::kCornerMarkerArm);
    px.insert ({ dx, dy });
  }
  EXPECT_EQ ((int) px.size (), cudavision::kCornerMarkerPixels);
  EXPECT_TRUE (px.count ({ 0, 0 }));
}
