/* The GPU face detector's arithmetic, proved against OpenCV on the CPU.
 *
 * cuda/haar_eval.h holds every per-pixel and per-window computation the
 * kernels make (resize taps, variance normalization, feature values, stage
 * sums, OpenCV's window-skipping rule); cuda/face_levels.h plans the
 * pyramid and cuda/face_grouping.h groups. This test runs those very
 * functions over whole images on the host, in the kernels' order, and
 * requires OpenCV 4.x's results exactly:
 *  - every pyramid level equal to cv::resize (INTER_LINEAR_EXACT);
 *  - the raw windows equal to cv::CascadeClassifier::detectMultiScale
 *    with minNeighbors 0, for four cascades (stumps and trees), the stump
 *    cascades laid out for the deep kernel's window patches and read
 *    through them (cuda/face/patch_layout.h);
 *  - the grouped faces equal to detectMultiScale with minNeighbors 3;
 *  - group_rectangles equal to cv::groupRectangles on random lists.
 * Built with -ffp-contract=off, as the device code uses _rn intrinsics. */
#include "../../cuda/face/face_grouping.h"
#include "../../cuda/face/face_levels.h"
#include "../../cuda/face/haar_eval.h"

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

#include <algorithm>
#include "../common/test_util.h"

#include <filesystem>
#include <random>

using namespace cudavision;

namespace {

const std::string kHaarDir = "/usr/share/opencv4/haarcascades/";

/* Decoded through GStreamer (cvtest::load_rgb): no imgcodecs needed. */
cv::Mat
load_gray (const std::string & name)
{
  return cvtest::to_gray (cvtest::load_rgb (cvtest::data_path (name)));
}

/* The rows kernel's pixel: two taps, the horizontal then the vertical pass. */
cv::Mat
emulate_resize (const cv::Mat & g, int w, int h)
{
  cv::Mat out (h, w, CV_8U);
  const double sx = 1. / ((double) w / g.cols), sy = 1. / ((double) h / g.rows);
  for (int y = 0; y < h; y++) {
    const haar::ResizeTap ty = haar::resize_tap (y, sy, g.rows);
    for (int x = 0; x < w; x++) {
      const haar::ResizeTap tx = haar::resize_tap (x, sx, g.cols);
      const int h0 = haar::resize_h (g.at<uchar> (ty.i0, tx.i0), g.at<uchar> (ty.i0, tx.i1), tx);
      const int h1 = haar::resize_h (g.at<uchar> (ty.i1, tx.i0), g.at<uchar> (ty.i1, tx.i1), tx);
      out.at<uchar> (y, x) = haar::resize_v (h0, h1, ty);
    }
  }
  return out;
}

/* The rows + cols kernels: uint32 integral and squared integral. */
void
emulate_integral (const cv::Mat & img, std::vector<uint32_t> & sum, std::vector<uint32_t> & sq, int pitch)
{
  sum.assign ((size_t) pitch * (img.rows + 1), 0);
  sq.assign (sum.size (), 0);
  for (int y = 0; y < img.rows; y++) {
    uint32_t rs = 0, rq = 0;
    for (int x = 0; x < img.cols; x++) {
      const uint32_t v = img.at<uchar> (y, x);
      rs += v;
      rq += v * v;
      sum[(size_t) (y + 1) * pitch + x + 1] = sum[(size_t) y * pitch + x + 1] + rs;
      sq[(size_t) (y + 1) * pitch + x + 1] = sq[(size_t) y * pitch + x + 1] + rq;
    }
  }
}

/* One window through the cascade as the kernels read it (eval_window's
 * result): the first stages from the integral; then, for a stump cascade
 * laid out for the deep kernel's patches (compile_cascade: its stages'
 * weak classifiers permuted, rectangles and corners rearranged), the rest
 * from the window's patch at the corners the nodes hold, as the deep
 * kernel reads them (here in thread order: the sums are exact in any). */
int
emulate_window (const haar::CompiledCascade & cc, const haar::CascadeView & v, const uint32_t *rs, const uint32_t *rq,
    int pitch, std::vector<uint32_t> & patch)
{
  if (!cc.stumps)
    return haar::eval_window<false> (v, rs, rq, pitch, 1 << 30);
  if (cc.patch_pitch <= 0)
    return haar::eval_window<true> (v, rs, rq, pitch, 1 << 30);
  float norm;
  if (!haar::window_norm (rs, rq, pitch, cc.window_width, cc.window_height, &norm))
    return -1;
  /* the first stages as the front and stages kernels read them (shared
   * corners once: SharedCornerLoad), as many as the default schedule
   * gives them */
  const int integral_stages = std::min (4, v.nstages);
  const int first = haar::eval_stages<true, haar::SharedCornerLoad> (v, rs, pitch, norm, 0, integral_stages);
  if (first != 1)
    return first;
  patch.assign ((size_t) cc.patch_pitch * (cc.window_height + 1), 0);
  for (int y = 0; y <= cc.window_height; y++)
    std::copy (rs + (size_t) y * pitch, rs + (size_t) y * pitch + cc.window_width + 1,
        patch.begin () + (size_t) y * cc.patch_pitch);
  return haar::eval_stages<true, haar::PatchRectLoad> (v, patch.data (), cc.patch_pitch, norm, integral_stages,
      v.nstages);
}

/* The cascade kernels over every window of every level (not clipped). */
std::vector<FaceRect>
emulate_raw (const cv::Mat & g, const HaarCascade & hc, const FaceDetectParams & p)
{
  const haar::CompiledCascade cc = haar::compile_cascade (hc);
  const haar::CascadeView v = cc.view ();
  std::vector<FaceRect> out;
  std::vector<uint32_t> sum, sq, patch;
  for (const FaceLevel & l : plan_face_levels (g.cols, g.rows, hc.window_width, hc.window_height, p)) {
    const cv::Mat level = emulate_resize (g, l.width, l.height);
    const int pitch = l.width + 1 + 3;  /* any pitch: the kernels get the buffer's */
    emulate_integral (level, sum, sq, pitch);
    for (int gy = 0; gy < l.grid_y; gy++) {
      const int y = gy * l.step;
      const uint32_t *rs = sum.data () + (size_t) y * pitch, *rq = sq.data () + (size_t) y * pitch;
      for (int gx = 0; gx < l.grid_x; gx++) {
        const int x = gx * l.step;
        const int r = emulate_window (cc, v, rs + x, rq + x, pitch, patch);
        if (r != 1)
          continue;
        const bool seen = cc.stumps ? haar::evaluated_by_opencv<true> (v, rs, rq, pitch, gx, l.step)
                                    : haar::evaluated_by_opencv<false> (v, rs, rq, pitch, gx, l.step);
        if (seen)
          out.push_back ({ haar::round_f (haar::fmul ((float) x, l.scale)),
              haar::round_f (haar::fmul ((float) y, l.scale)), l.win_width, l.win_height });
      }
    }
  }
  std::sort (out.begin (), out.end ());
  return out;
}

/* detectMultiScale clips even its ungrouped windows to the image. */
std::vector<FaceRect>
clipped (std::vector<FaceRect> v, const cv::Mat & g)
{
  clip_rectangles (v, g.cols, g.rows);
  std::sort (v.begin (), v.end ());
  return v;
}

std::vector<FaceRect>
opencv_faces (cv::CascadeClassifier & c, const cv::Mat & g, const FaceDetectParams & p, bool sort = true)
{
  std::vector<cv::Rect> r;
  c.detectMultiScale (g, r, p.scale_factor, p.min_neighbors, 0, cv::Size (p.min_width, p.min_height),
      cv::Size (p.max_width, p.max_height));
  std::vector<FaceRect> out;
  for (const cv::Rect & x : r)
    out.push_back ({ x.x, x.y, x.width, x.height });
  if (sort)
    std::sort (out.begin (), out.end ());
  return out;
}

std::string
describe (const std::vector<FaceRect> & a, const std::vector<FaceRect> & b)
{
  std::vector<FaceRect> only_a, only_b;
  std::set_difference (a.begin (), a.end (), b.begin (), b.end (), std::back_inserter (only_a));
  std::set_difference (b.begin (), b.end (), a.begin (), a.end (), std::back_inserter (only_b));
  std::string s = std::to_string (a.size ()) + " vs " + std::to_string (b.size ()) + " windows;";
  for (size_t i = 0; i < only_a.size () && i < 10; i++)
    s += " only ours (" + std::to_string (only_a[i].x) + "," + std::to_string (only_a[i].y) + " " +
        std::to_string (only_a[i].width) + "x" + std::to_string (only_a[i].height) + ")";
  for (size_t i = 0; i < only_b.size () && i < 10; i++)
    s += " only OpenCV (" + std::to_string (only_b[i].x) + "," + std::to_string (only_b[i].y) + " " +
        std::to_string (only_b[i].width) + "x" + std::to_string (only_b[i].height) + ")";
  return s;
}

bool
have_cascades ()
{
  return std::filesystem::exists (kHaarDir + "haarcascade_frontalface_default.xml");
}

const char *kImages[] = { "astronaut.png", "grace_hopper.jpg", "iceblock.jpg", "coins.png", "camera.png",
  "faces/face_tiles.png" };
const char *kCascades[] = { "haarcascade_frontalface_default.xml", "haarcascade_frontalface_alt.xml",
  "haarcascade_frontalface_alt2.xml", "haarcascade_eye.xml" };

}  // namespace

/* haar::evaluated_in_run, which the first kernel uses to drop the windows
 * OpenCV's scan skips, against that scan (a window after one its first
 * stage rejects is skipped) on random rows cut into warps of 32: every
 * answer it gives is the scan's, and it gives none only where the run of
 * rejections goes back past a warp's first window. */
TEST (FaceReference, FirstStageRunsAreOpenCVsScan)
{
  std::mt19937 rng (7);
  for (double p : { 0.1, 0.5, 0.9, 0.99 }) {
    std::bernoulli_distribution reject (p);
    long known = 0, skipped = 0;
    for (int row = 0; row < 2000; row++) {
      const int n = 1 + (int) (rng () % 200);
      std::vector<bool> rejected (n), evaluated (n);
      for (int g = 0; g < n; g++)
        rejected[g] = reject (rng);
      evaluated[0] = true;
      for (int g = 1; g < n; g++)
        evaluated[g] = !(evaluated[g - 1] && rejected[g - 1]);
      for (int first = 0; first < n; first += 32) {
        unsigned mask = 0;
        for (int k = 0; k < 32 && first + k < n; k++)
          mask |= rejected[first + k] ? 1u << k : 0u;
        bool all_before = true;
        for (int i = 0; i < 32 && first + i < n; i++) {
          const int r = haar::evaluated_in_run (mask, i, first == 0);
          if (r < 0) {
            EXPECT_TRUE (all_before && first > 0) << "p " << p << " row " << row << " window " << first + i;
          } else {
            EXPECT_EQ (r == 1, (bool) evaluated[first + i]) << "p " << p << " row " << row << " window " << first + i;
            known++;
            skipped += r == 0;
          }
          all_before = all_before && rejected[first + i];
        }
      }
    }
    EXPECT_GT (known, 0);
    if (p >= 0.5) {
      EXPECT_GT (skipped, 0) << p;
    }
  }
}

TEST (FaceReference, PyramidLevelsAreOpenCVsResize)
{
  FaceDetectParams p;
  std::vector<cv::Mat> images;
  for (const char *name : { "astronaut.png", "grace_hopper.jpg", "coins.png" })
    images.push_back (load_gray (name));
  /* odd sizes, random content */
  for (int s : { 31, 97, 203 }) {
    cv::Mat m (s + 17, s, CV_8U);
    cv::randu (m, 0, 256);
    images.push_back (m);
  }
  long levels = 0;
  for (const cv::Mat & g : images) {
    for (const FaceLevel & l : plan_face_levels (g.cols, g.rows, 20, 20, p)) {
      cv::Mat ref;
      cv::resize (g, ref, cv::Size (l.width, l.height), 0, 0, cv::INTER_LINEAR_EXACT);
      const cv::Mat ours = emulate_resize (g, l.width, l.height);
      ASSERT_EQ (cv::countNonZero (ours != ref), 0)
          << g.cols << "x" << g.rows << " -> " << l.width << "x" << l.height << " (scale " << l.scale << ")";
      levels++;
    }
  }
  EXPECT_GT (levels, 100);
}

/* The raw windows (detectMultiScale with minNeighbors 0), then the groups
 * of min-neighbors 1, 3 and 5 made from them, for every cascade and image. */
TEST (FaceReference, RawAndGroupedAreOpenCVsForEveryCascade)
{
  if (!have_cascades ())
    GTEST_SKIP () << "opencv-data's cascades are not installed";
  for (const char *file : kCascades) {
    HaarCascade hc;
    std::string err;
    ASSERT_TRUE (load_haar_cascade (kHaarDir + file, &hc, &err)) << err;
    cv::CascadeClassifier cv_c (kHaarDir + file);
    for (const char *image : kImages) {
      cv::Mat g = load_gray (image);
      /* under the sanitizers the mosaic's top-left quarter (50 of its 72-px
       * cells, hundreds of raw windows still; the whole mosaic took more
       * than half of this test's time) and the middle half of the
       * photographs' columns (the portraits' faces inside, windows of
       * both steps): the same arithmetic on fewer windows */
      if (cvtest::sanitizer_pass ()) {
        if (std::string (image) == "faces/face_tiles.png")
          g = g (cv::Rect (0, 0, g.cols / 2, g.rows / 2)).clone ();
        else
          g = g (cv::Rect (g.cols / 4, 0, g.cols / 2, g.rows)).clone ();
      }
      FaceDetectParams p;
      p.min_neighbors = 0;
      const std::vector<FaceRect> raw = emulate_raw (g, hc, p);
      const std::vector<FaceRect> raw_ref = opencv_faces (cv_c, g, p);
      EXPECT_EQ (clipped (raw, g), raw_ref) << file << " on " << image << ": " << describe (clipped (raw, g), raw_ref);
      for (int neighbors : { 1, 3, 5 }) {
        p.min_neighbors = neighbors;
        std::vector<FaceRect> ours = raw;
        group_rectangles (ours, neighbors);
        const std::vector<FaceRect> theirs = opencv_faces (cv_c, g, p);
        EXPECT_EQ (clipped (ours, g), theirs) << file << " on " << image << ", min-neighbors " << neighbors << ": "
                                              << describe (clipped (ours, g), theirs);
      }
    }
  }
}

/* min-size / max-size pick the same levels as OpenCV, including its
 * fallback when no level fits (the nearest to min-size). */
TEST (FaceReference, SizeLimitsPickOpenCVsLevels)
{
  if (!have_cascades ())
    GTEST_SKIP () << "opencv-data's cascades are not installed";
  HaarCascade hc;
  std::string err;
  ASSERT_TRUE (load_haar_cascade (kHaarDir + "haarcascade_frontalface_default.xml", &hc, &err)) << err;
  cv::CascadeClassifier cv_c (kHaarDir + "haarcascade_frontalface_default.xml");
  const cv::Mat g = load_gray ("astronaut.png");
  struct Limits {
    double scale;
    int min, max;
  };
  const Limits cases[] = { { 1.1, 60, 0 }, { 1.1, 0, 80 }, { 1.1, 50, 120 }, { 1.1, 100, 100 }, { 1.1, 27, 27 },
    { 1.3, 0, 0 }, { 1.05, 90, 110 }, { 2.0, 0, 0 }, { 1.1, 600, 0 } };
  for (const Limits & k : cases) {
    FaceDetectParams p;
    p.scale_factor = k.scale;
    p.min_neighbors = 0;
    p.min_width = p.min_height = k.min;
    p.max_width = p.max_height = k.max;
    const std::vector<FaceRect> ours = clipped (emulate_raw (g, hc, p), g);
    const std::vector<FaceRect> theirs = opencv_faces (cv_c, g, p);
    EXPECT_EQ (ours, theirs) << "scale " << k.scale << " min " << k.min << " max " << k.max << ": "
                             << describe (ours, theirs);
  }
}

TEST (FaceReference, LevelPlan)
{
  FaceDetectParams p;
  const auto levels = plan_face_levels (640, 480, 24, 24, p);
  ASSERT_FALSE (levels.empty ());
  EXPECT_EQ (levels[0].width, 640);
  EXPECT_EQ (levels[0].height, 480);
  EXPECT_EQ (levels[0].step, 2);
  EXPECT_EQ (levels[0].grid_x, (640 + 1 - 24 + 1) / 2);
  for (const FaceLevel & l : levels) {
    EXPECT_LE (l.win_height, 480);
    EXPECT_EQ (l.step, l.scale >= 2 ? 1 : 2);
    EXPECT_GE (l.width, 24);
  }
  /* 1.1^k until the window passes the image height: 480/24 = 20 = 1.1^31.4 */
  EXPECT_EQ (levels.size (), 32u);
  EXPECT_TRUE (plan_face_levels (23, 100, 24, 24, p).empty ());
  EXPECT_TRUE (plan_face_levels (1, 1, 24, 24, p).empty ());
  p.scale_factor = 1.0;
  EXPECT_TRUE (plan_face_levels (640, 480, 24, 24, p).empty ());
}

/* group_rectangles on `rects` equals cv::groupRectangles, order included,
 * and so do the neighbour counts (its weights). */
static void
expect_grouping_is_opencvs (std::vector<cv::Rect> rects, int threshold, int trial)
{
  std::vector<FaceRect> ours;
  for (const cv::Rect & r : rects)
    ours.push_back ({ r.x, r.y, r.width, r.height });
  std::vector<int> weights, neighbors;
  cv::groupRectangles (rects, weights, threshold, kFaceGroupEps);
  group_rectangles (ours, threshold, kFaceGroupEps, &neighbors);
  ASSERT_EQ (ours.size (), rects.size ()) << "trial " << trial;
  for (size_t i = 0; i < ours.size (); i++)
    ASSERT_EQ (ours[i], (FaceRect { rects[i].x, rects[i].y, rects[i].width, rects[i].height }))
        << "trial " << trial << " rect " << i;
  ASSERT_EQ (neighbors, weights) << "trial " << trial;
}

/* The host grouping against cv::groupRectangles, order included, on
 * random clusters of rectangles. */
TEST (FaceReference, GroupingIsGroupRectangles)
{
  std::mt19937 rng (7);
  for (int trial = 0; trial < 500; trial++) {
    std::vector<cv::Rect> cv_rects;
    const int clusters = 1 + rng () % 8;
    for (int c = 0; c < clusters; c++) {
      const int size = 20 + rng () % 200, x = rng () % 600, y = rng () % 400;
      const int n = 1 + rng () % 12;
      for (int i = 0; i < n; i++) {
        const int s = size + (int) (rng () % 21) - 10;
        cv_rects.push_back ({ x + (int) (rng () % 15) - 7, y + (int) (rng () % 15) - 7, s, s });
      }
    }
    std::shuffle (cv_rects.begin (), cv_rects.end (), rng);
    expect_grouping_is_opencvs (cv_rects, rng () % 6, trial);
  }
}

/* The same on lists of thousands (a crowd, a mosaic of faces: where the
 * grouping's candidate pruning matters), with clusters that chain into
 * each other and sizes from 20 to 900 pixels. */
TEST (FaceReference, GroupingIsGroupRectanglesOnThousands)
{
  std::mt19937 rng (11);
  for (int trial = 0; trial < 12; trial++) {
    std::vector<cv::Rect> cv_rects;
    const int n = 1000 + rng () % 4000;
    while ((int) cv_rects.size () < n) {
      const int size = 20 + rng () % (trial % 2 ? 880 : 120), x = rng () % 1900 - 20, y = rng () % 1000 - 20;
      const int k = 1 + rng () % 30;
      for (int i = 0; i < k; i++) {
        const int s = size + (int) (rng () % (size / 4 + 1)) - size / 8;
        const int d = size / 5 + 1;
        cv_rects.push_back ({ x + (int) (rng () % (2 * d + 1)) - d, y + (int) (rng () % (2 * d + 1)) - d, s, s });
      }
    }
    expect_grouping_is_opencvs (cv_rects, rng () % 4, trial);
  }
}

TEST (FaceReference, Clipping)
{
  std::vector<FaceRect> r { { -5, -5, 20, 20 }, { 90, 90, 20, 20 }, { 100, 10, 5, 5 }, { 10, 10, 5, 5 } };
  std::vector<int> neighbors { 4, 5, 6, 7 };
  clip_rectangles (r, 100, 100, &neighbors);
  ASSERT_EQ (r.size (), 3u);
  EXPECT_EQ (r[0], (FaceRect { 0, 0, 15, 15 }));
  EXPECT_EQ (r[1], (FaceRect { 90, 90, 10, 10 }));
  EXPECT_EQ (r[2], (FaceRect { 10, 10, 5, 5 }));
  /* each count stays with its rectangle */
  EXPECT_EQ (neighbors, (std::vector<int> { 4, 5, 7 }));
}
