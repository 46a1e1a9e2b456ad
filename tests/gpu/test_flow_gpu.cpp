/* cudaflow on the GPU:
 *  - cuda/flow.h called directly: pyramids and Scharr derivatives bit for
 *    bit against cv::buildOpticalFlowPyramid (GRAY8 and colour sources, 1x1
 *    to 1080p); the tracker bit for bit against its host model
 *    (tests/common/flow_ref.h, itself checked against OpenCV in the CPU
 *    suite) and against cv::calcOpticalFlowPyrLK on the same points (median
 *    endpoint error <= 0.1 px, status agreement >= 98%) on the basketball
 *    pair, synthetic shifts, small rotations and the dense grid; sub-pixel
 *    translations against the true motion (median <= 0.05 px); every
 *    block-sizing mode identical; the session's point lists, and its
 *    results blocks (a frame's vectors stay its own after later frames);
 *  - the element: the same through GStreamer, colour input, drawing and
 *    flow colours against the CPU backend's functions, resets, device
 *    memory out with the meta, and a device-memory chain from cudagray;
 *    NV12, I420 (odd sizes, padded rows), RGB and BGR tracked as their
 *    luma is as GRAY8, bit for bit, like OpenCV, with the lines in `color`
 *    and the crosses in `marker-color` drawn from the GPU's own vectors on
 *    every plane; the held frames of latency-frames=1 on NV12,
 *    memory:CUDAMemory out, and colours changed between frames redrawn by
 *    the frame graph.
 * Skips (exit 77) without a CUDA device. */
#include "../common/device_fixture.h"
#include "../common/flow_ref.h"
#include "../common/harness.h"
#include "../common/harris_ref.h"
#include "../common/overlay_check.h"

#include "../../cpu/flow_cpu.h"
#include "../../cuda/flow/flow.h"
#include "../../core/draw/flow_draw.h"
#include "../../core/draw/corner_marker.h"
#include "gstcvmemory.h"

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include <cstring>
#include <string>

using namespace cvtest;
using cudavision::FlowParams;
using cudavision::FlowVector;

namespace {

/* `textured`: the frames have enough texture that most points must be
 * tracked (not so for tiny frames, where OpenCV loses them all). */
void
expect_like_opencv (const std::vector<FlowVector> & got, const std::vector<FlowVector> & ref, const std::string & what,
    bool textured = true)
{
  const FlowCompare c = compare_flow (got, ref);
  EXPECT_GE (c.agreement (), 0.98) << what << ": " << c.str ();
  EXPECT_LE (c.median, 0.1) << what << ": " << c.str ();
  if (textured) {
    EXPECT_GT (c.both, c.n / 2) << what << ": " << c.str ();
  }
}

std::vector<float>
to_xy (const std::vector<cv::Point2f> & pts)
{
  std::vector<float> xy;
  for (const auto & p : pts) {
    xy.push_back (p.x);
    xy.push_back (p.y);
  }
  return xy;
}

/* The device of the direct tests. */
class FlowDevice : public DeviceTest {
protected:
  /* The pyramid of a GRAY8 (or, with a layout, RGBA-family) frame. */
  void build (cudavision::FlowPyramid & pyr, const cudavision::LumaInput & in, const FlowParams & p,
      const cudavision::LaunchPolicy & pol)
  {
    const cudavision::CudaStatus s = pyr.build (in, p.window, p.max_level, pol, stream.get ());
    ASSERT_TRUE (s.ok ()) << s.message ();
    ASSERT_TRUE (stream.synchronize ().ok ());
  }

  /* flow_track_points (clip off) on device pyramids of prev and next. */
  std::vector<FlowVector> track (const cv::Mat & prev, const cv::Mat & next, const std::vector<cv::Point2f> & pts,
      const FlowParams & p, const cudavision::LaunchPolicy & pol, bool grid = false, int step = 8)
  {
    cudavision::DeviceBuffer a, b, xy, nxy, st;
    cudavision::FlowPyramid pa, pb;
    build (pa, { upload (prev, a), true }, p, pol);
    build (pb, { upload (next, b), true }, p, pol);
    const int n = grid ? cudavision::flow_grid_cols (prev.cols, step) * cudavision::flow_grid_rows (prev.rows, step)
                       : (int) pts.size ();
    std::vector<FlowVector> out ((size_t) n);
    if (n == 0)
      return out;
    EXPECT_TRUE (xy.allocate ((size_t) n * 8).ok ());
    EXPECT_TRUE (nxy.allocate ((size_t) n * 8).ok ());
    EXPECT_TRUE (st.allocate ((size_t) n).ok ());
    cudavision::CudaStatus s;
    if (grid) {
      s = cudavision::flow_track_grid (pa, pb, step, xy.as<float> (), nxy.as<float> (), st.as<uint8_t> (), p, false,
          pol, stream.get ());
    } else {
      const std::vector<float> h = to_xy (pts);
      EXPECT_EQ (cudaMemcpy (xy.get (), h.data (), h.size () * sizeof (float), cudaMemcpyHostToDevice), cudaSuccess);
      /* From pageable memory cudaMemcpy may return before the DMA lands, and
       * the tests' non-blocking streams do not wait for the legacy default
       * stream it used: wait here. */
      EXPECT_EQ (cudaStreamSynchronize (0), cudaSuccess);
      s = cudavision::flow_track_points (pa, pb, xy.as<const float> (), nullptr, n, nxy.as<float> (),
          st.as<uint8_t> (), p, false, pol, stream.get ());
    }
    EXPECT_TRUE (s.ok ()) << s.message ();
    EXPECT_TRUE (stream.synchronize ().ok ());
    std::vector<float> hp ((size_t) n * 2), hn ((size_t) n * 2);
    std::vector<uint8_t> hs ((size_t) n);
    EXPECT_EQ (cudaMemcpy (hp.data (), xy.get (), hp.size () * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ (cudaMemcpy (hn.data (), nxy.get (), hn.size () * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ (cudaMemcpy (hs.data (), st.get (), hs.size (), cudaMemcpyDeviceToHost), cudaSuccess);
    for (int i = 0; i < n; i++)
      out[(size_t) i] = { hp[2 * i], hp[2 * i + 1], hn[2 * i], hn[2 * i + 1], hs[(size_t) i] };
    return out;
  }
};

const cv::Mat &
basketball (int i)
{
  static const cv::Mat a = load_gray (data_path ("basketball1.png")), b = load_gray (data_path ("basketball2.png"));
  return i == 1 ? a : b;
}

const cv::Mat &
basketball_rgb (int i)
{
  static const cv::Mat a = load_rgb (data_path ("basketball1.png")), b = load_rgb (data_path ("basketball2.png"));
  return i == 1 ? a : b;
}

/* The basketball pair, then the second frame moved a little more each
 * frame: sparse tracks through re-detections. */
std::vector<cv::Mat>
basketball_sequence ()
{
  const cv::Mat & b2 = basketball_rgb (2);
  return { basketball_rgb (1), b2, shifted (b2, 1.5, -0.75), shifted (b2, 3.25, -1.5), shifted (b2, 4.5, -1.25), b2 };
}

/* Frame k's vectors against OpenCV: dense, calcOpticalFlowPyrLK on the
 * same grid; sparse, the GPU's points tracked by calcOpticalFlowPyrLK, and
 * on the first tracked frame those points are goodFeaturesToTrack's. */
void
expect_frame_like_opencv (const FrameSequence & s, size_t k, const std::vector<FlowVector> & v, bool dense)
{
  const cv::Mat & a = s.luma[k - 1], & b = s.luma[k];
  if (dense) {
    expect_like_opencv (v, clipped (opencv_lk (a, b, grid_points (a.cols, a.rows, 8), FlowParams ()), a.cols, a.rows),
        s.what + " dense, frame " + std::to_string (k));
    return;
  }
  expect_like_opencv (v, clipped (opencv_lk (a, b, prev_points (v), FlowParams ()), a.cols, a.rows),
      s.what + " sparse, frame " + std::to_string (k));
  if (k == 1) {
    std::vector<cudavision::Corner> got, want;
    for (const auto & f : v)
      got.push_back ({ f.prev_x, f.prev_y, 0 });
    for (const auto & q : opencv_features (a, 500))
      want.push_back ({ q.x, q.y, 0 });
    EXPECT_GE (recall (got, want, 1.0), 0.95) << s.what << ": " << got.size () << " points vs OpenCV's " << want.size ();
  }
}

/* `s` through "cudaflow backend=cuda draw=true `props`" in `mode`, out in
 * `out_feature` memory: every frame's vectors are the element's on the
 * frames' lumas as GRAY8, bit for bit (the tracker sees the luma, nothing
 * else), and like OpenCV's; every plane of every output is the input's
 * with those vectors' lines in `line`, then (sparse) their crosses in
 * `marker` on top. */
void
check_gpu_flow (const FrameSequence & s, const std::string & mode, const std::string & props, guint32 line,
    guint32 marker, const char *out_feature = nullptr)
{
  const bool dense = mode == "dense";
  SCOPED_TRACE (s.what + " " + mode + ": " + props + (out_feature ? std::string (" out ") + out_feature : ""));
  const std::string element = "cudaflow backend=cuda mode=" + mode + " " + props;
  const FlowRun r = run_flow (element + " draw=true", s.caps,
      caps_string (s.format, s.info.width, s.info.height, out_feature), s.inputs ());
  const FlowRun gray = run_flow_gray (element, s.luma);
  ASSERT_TRUE (r.ok && gray.ok);
  ASSERT_EQ (r.frames.size (), s.rgb.size ());
  ASSERT_EQ (gray.frames.size (), s.rgb.size ());
  size_t tracked = 0;
  for (size_t k = 0; k < r.frames.size (); k++) {
    SCOPED_TRACE ("frame " + std::to_string (k));
    const auto & v = r.frames[k].vectors;
    EXPECT_TRUE (r.frames[k].has_meta);
    EXPECT_EQ (diff_vectors (v, gray.frames[k].vectors), "");
    EXPECT_EQ (diff_planes (r.frames[k].planes, expected_flow_drawing (s.planes[k], &s.info, v, line, marker, !dense)),
        "");
    if (k == 0) {
      EXPECT_TRUE (v.empty ());
      continue;
    }
    expect_frame_like_opencv (s, k, v, dense);
    for (const FlowVector & f : v)
      tracked += f.status;
  }
  EXPECT_GT (tracked, 100 * (r.frames.size () - 1));
}

}  // namespace

/* ---------------------------------------------------- the cuda/ API */

TEST_F (FlowDevice, PyramidAndScharrBitExact)
{
  const cv::Mat astro = load_gray (data_path ("astronaut.png"));
  cv::Mat hd;
  cv::resize (load_gray (data_path ("building.jpg")), hd, cv::Size (1920, 1080), 0, 0, cv::INTER_LINEAR);
  std::vector<cv::Mat> images = { basketball (1), hd, astro (cv::Rect (3, 5, 301, 177)).clone () };
  for (const auto & s : std::vector<cv::Size> { { 1, 1 }, { 2, 3 }, { 5, 4 }, { 31, 23 }, { 45, 44 } })
    images.push_back (astro (cv::Rect (100, 100, s.width, s.height)).clone ());
  const auto pol = policy ();
  for (const cv::Mat & g : images) {
    for (int window : { 5, 21 }) {
      const FlowParams p = flow_params (window, 5, 30, 0.01, 1e-4);
      cudavision::DeviceBuffer buf;
      cudavision::FlowPyramid pyr;
      build (pyr, { upload (g, buf), true }, p, pol);
      const CvPyramid ref = opencv_pyramid (g, window, 5);
      const std::string what = size_str (g) + " window " + std::to_string (window);
      ASSERT_EQ ((size_t) pyr.levels (), ref.images.size ()) << what;
      for (int l = 0; l < pyr.levels (); l++) {
        EXPECT_EQ (compare (download (pyr.level (l), CV_8UC1), ref.images[l]).differing, 0) << what << " level " << l;
        EXPECT_EQ (compare (download (pyr.deriv (l), CV_16SC2), ref.derivs[l]).differing, 0)
            << what << " derivatives " << l;
      }
      pyr.release ();
    }
  }
}

/* Level 0 of a colour frame is cvtColor's luma: the same pyramid. */
TEST_F (FlowDevice, ColourSourceIsItsLuma)
{
  const cv::Mat rgb = load_rgb (data_path ("astronaut.png"));
  const cv::Mat g = to_gray (rgb), rgba = to_rgba (rgb, 7);
  const auto pol = policy ();
  const FlowParams p;
  cudavision::DeviceBuffer bg, bc;
  cudavision::FlowPyramid pg, pc;
  build (pg, { upload (g, bg), true }, p, pol);
  build (pc, { upload (rgba, bc), false, cudavision::PackedRgb::RGBA }, p, pol);
  ASSERT_EQ (pg.levels (), pc.levels ());
  for (int l = 0; l < pg.levels (); l++) {
    EXPECT_EQ (compare (download (pg.level (l), CV_8UC1), download (pc.level (l), CV_8UC1)).differing, 0) << l;
    EXPECT_EQ (compare (download (pg.deriv (l), CV_16SC2), download (pc.deriv (l), CV_16SC2)).differing, 0) << l;
  }
}

/* The kernel runs lk_track_point with a warp's exact integer sums; the
 * host model runs the same code with sequential ones: the same bits. */
TEST_F (FlowDevice, KernelIsTheHostModelBitForBit)
{
  const cv::Mat & b1 = basketball (1), & b2 = basketball (2);
  const cv::Mat astro = load_gray (data_path ("astronaut.png"));
  std::vector<cv::Point2f> pts = opencv_features (b1, 1000, 0.001, 5);
  pts.insert (pts.end (), { { -3.f, 10.f }, { -21.f, 5.f }, { -25.f, 30.f }, { 650.f, 470.f }, { 639.5f, 479.5f } });
  const auto pol = policy ();
  for (const FlowParams & p : { FlowParams (), flow_params (7, 5, 10, 0.001, 1e-3), flow_params (32, 2, 100, 0, 0),
           flow_params (3, 1, 5, 0.5, 1e-4), flow_params (16, 3, 30, 0.01, 1e-4), flow_params (17, 3, 30, 0.01, 1e-4) }) {
    const std::string what = flow_element ("cuda", p);
    EXPECT_EQ (diff_vectors (track (b1, b2, pts, p, pol), model_lk (b1, b2, pts, p)), "") << "basketball " << what;
    const auto grid = grid_points (astro.cols, astro.rows, 8);
    const cv::Mat moved = shifted (astro, 2.25, -1.5);
    EXPECT_EQ (diff_vectors (track (astro, moved, {}, p, pol, true, 8), model_lk (astro, moved, grid, p)), "")
        << "astronaut grid " << what;
  }
}

TEST_F (FlowDevice, MatchesCalcOpticalFlowPyrLK)
{
  const cv::Mat & b1 = basketball (1), & b2 = basketball (2);
  const cv::Mat astro = load_gray (data_path ("astronaut.png"));
  const cv::Mat building = load_gray (data_path ("building.jpg"));
  const auto pol = policy ();
  const FlowParams p;
  const auto feats = opencv_features (b1, 1000, 0.001, 5);
  expect_like_opencv (track (b1, b2, feats, p, pol), opencv_lk (b1, b2, feats, p), "basketball corners");
  const auto grid = grid_points (b1.cols, b1.rows, 8);
  expect_like_opencv (track (b1, b2, {}, p, pol, true), opencv_lk (b1, b2, grid, p), "basketball grid");
  for (const cv::Mat * img : { &astro, &building }) {
    const auto f = opencv_features (*img, 500);
    for (const auto & s : std::vector<cv::Point2d> { { 0.5, 0.25 }, { -3.75, 2.5 }, { 9.5, -6.25 } }) {
      const cv::Mat next = shifted (*img, s.x, s.y);
      expect_like_opencv (track (*img, next, f, p, pol), opencv_lk (*img, next, f, p),
          size_str (*img) + " shift " + std::to_string (s.x) + "," + std::to_string (s.y));
    }
    for (double deg : { 1.0, -2.0, 3.0 }) {
      const cv::Mat next = rotated (*img, deg);
      expect_like_opencv (track (*img, next, f, p, pol), opencv_lk (*img, next, f, p),
          size_str (*img) + " rotation " + std::to_string (deg));
    }
  }
}

TEST_F (FlowDevice, SubPixelTranslations)
{
  const auto pol = policy ();
  for (const char *name : { "basketball1.png", "astronaut.png", "building.jpg" }) {
    const cv::Mat g = load_gray (data_path (name));
    const auto f = opencv_features (g, 500);
    std::vector<cv::Point2f> inside;
    for (const auto & q : f)
      if (q.x >= 40 && q.y >= 40 && q.x < g.cols - 40 && q.y < g.rows - 40)
        inside.push_back (q);
    for (const auto & s : std::vector<cv::Point2d> { { 0.5, 0 }, { 0, -0.75 }, { 1.25, 0.5 }, { -2.5, 3.75 },
             { 5, -4.25 }, { 7.5, 6.5 }, { -10, 0.25 } }) {
      const TruthError e = truth_error (track (g, shifted (g, s.x, s.y), inside, FlowParams (), pol), s.x, s.y);
      const std::string what = std::string (name) + " shift " + std::to_string (s.x) + "," + std::to_string (s.y) +
          ": " + e.str ();
      EXPECT_LE (e.median, 0.05) << what;
      EXPECT_GE (e.tracked, e.n * 95 / 100) << what;
    }
  }
}

TEST_F (FlowDevice, EveryBlockSizingModeIdentical)
{
  using cudavision::BlockSizing;
  const cudavision::LaunchPolicy pols[] = {
    policy (),
    policy (BlockSizing::Static, { 64, 2 }),
    policy (BlockSizing::Static, { 1024, 1 }),
    policy (BlockSizing::Static, { 32, 32 }),
    policy (BlockSizing::Static, { 48, 1 }), /* not whole warps: rounded up */
    policy (BlockSizing::Static, { 32, 1 }),
    policy (BlockSizing::EmpiricalTable),
    policy (BlockSizing::Model),
  };
  const cv::Mat & b1 = basketball (1), & b2 = basketball (2);
  const auto feats = opencv_features (b1, 1000, 0.001, 5);
  const FlowParams p;
  const auto ref = track (b1, b2, feats, p, pols[0]);
  const auto ref_grid = track (b1, b2, {}, p, pols[0], true, 5);
  for (size_t i = 1; i < sizeof pols / sizeof pols[0]; i++) {
    EXPECT_EQ (diff_vectors (track (b1, b2, feats, p, pols[i]), ref), "") << "policy " << i;
    EXPECT_EQ (diff_vectors (track (b1, b2, {}, p, pols[i], true, 5), ref_grid), "") << "grid, policy " << i;
  }
}

/* The session keeps the points on the device: tracked ones go on, lost
 * ones are skipped, results are those of the tracker. */
TEST_F (FlowDevice, SessionFollowsPoints)
{
  const cv::Mat & b1 = basketball (1), & b2 = basketball (2);
  const cv::Mat b3 = shifted (b2, 1.5, -0.5);
  const auto pol = policy ();
  const FlowParams p;
  cudavision::FlowSession s;
  cudavision::DeviceBuffer f1, f2, f3;
  auto push = [&] (const cv::Mat & m, cudavision::DeviceBuffer & buf) {
    const cudavision::CudaStatus st = s.push_frame ({ upload (m, buf), true }, p, pol, stream.get ());
    ASSERT_TRUE (st.ok ()) << st.message ();
  };
  std::vector<cv::Point2f> pts = opencv_features (b1, 300);
  pts.push_back ({ 700.f, 10.f }); /* far outside: lost at once */
  push (b1, f1);
  EXPECT_FALSE (s.has_previous ());
  ASSERT_TRUE (s.set_points (to_xy (pts), stream.get ()).ok ());
  push (b2, f2);
  ASSERT_TRUE (s.has_previous ());
  std::vector<FlowVector> r12, r23;
  ASSERT_TRUE (s.track_sparse (p, pol, stream.get (), &r12).ok ());
  EXPECT_EQ (diff_vectors (r12, clipped (model_lk (b1, b2, pts, p), b1.cols, b1.rows)), "");
  ASSERT_EQ (r12.back ().status, 0);
  push (b3, f3);
  ASSERT_TRUE (s.track_sparse (p, pol, stream.get (), &r23).ok ());
  std::vector<cv::Point2f> alive;
  for (const auto & v : r12)
    if (v.status)
      alive.emplace_back (v.x, v.y);
  EXPECT_EQ (diff_vectors (r23, clipped (model_lk (b2, b3, alive, p), b1.cols, b1.rows)), "");
  /* dense on the same pair */
  std::vector<FlowVector> grid;
  ASSERT_TRUE (s.track_dense (8, p, pol, stream.get (), &grid).ok ());
  EXPECT_EQ (diff_vectors (grid, clipped (model_lk (b2, b3, grid_points (b1.cols, b1.rows, 8), p), b1.cols, b1.rows)),
      "");
  /* a reset forgets the previous frame */
  s.reset ();
  push (b1, f1);
  EXPECT_FALSE (s.has_previous ());
  ASSERT_TRUE (s.track_sparse (p, pol, stream.get (), &r12).ok ());
  EXPECT_TRUE (r12.empty ());
  s.release ();
}

/* A frame's vectors in a block of their own, taken by the caller (as the
 * element's meta does): later frames never write it; once
 * kFlowResultBlocks are out, frames write their slot (no block: the caller
 * copies); blocks given back after release () are freed. */
TEST_F (FlowDevice, SessionResultBlocksOutliveLaterFrames)
{
  const cv::Mat & b1 = basketball (1);
  const auto pol = policy ();
  const FlowParams p;
  const int step = 16, frames = (int) cudavision::kFlowResultBlocks + 4;
  cudavision::FlowSession s;
  std::vector<cv::Mat> in;
  std::vector<cudavision::DeviceBuffer> dev ((size_t) frames + 1);
  std::vector<cudavision::HostBlockPtr> held;
  std::vector<std::vector<FlowVector>> at_once; /* each frame's vectors when it was done */
  for (int i = 0; i <= frames; i++) {
    in.push_back (i == 0 ? b1 : shifted (b1, 0.3 * i, -0.2 * (i % 4)));
    cudavision::CudaStatus st = s.push_frame ({ upload (in.back (), dev[(size_t) i]), true }, p, pol, stream.get ());
    ASSERT_TRUE (st.ok ()) << st.message ();
    st = s.enqueue_dense (step, p, pol, stream.get ());
    ASSERT_TRUE (st.ok ()) << st.message ();
    const cudavision::FlowResultsHeader *head = nullptr;
    const FlowVector *v = nullptr;
    cudavision::HostBlockPtr block;
    st = s.results (s.frame_slot (), &head, &v, &block);
    ASSERT_TRUE (st.ok ()) << st.message ();
    if (i == 0) {
      EXPECT_EQ (head->count, 0u) << "no previous frame";
      continue;
    }
    ASSERT_NE (v, nullptr);
    if (block) {
      EXPECT_EQ (static_cast<const void *> (v), block->data);
      EXPECT_GE (block->bytes, head->count * sizeof (FlowVector));
    }
    at_once.emplace_back (v, v + head->count);
    held.push_back (std::move (block));
    /* taken: the slot has no vectors left to give */
    const FlowVector *again = nullptr;
    ASSERT_TRUE (s.results (s.frame_slot (), &head, &again).ok ());
    EXPECT_EQ (again, held.back () ? nullptr : v);
  }
  ASSERT_EQ (held.size (), (size_t) frames);
  for (int i = 0; i < frames; i++) {
    SCOPED_TRACE ("frame " + std::to_string (i + 1));
    EXPECT_EQ (held[(size_t) i] != nullptr, (size_t) i < cudavision::kFlowResultBlocks);
    EXPECT_EQ (diff_vectors (at_once[(size_t) i],
                   clipped (model_lk (in[(size_t) i], in[(size_t) i + 1], grid_points (b1.cols, b1.rows, step), p),
                       b1.cols, b1.rows)),
        "");
    if (!held[(size_t) i])
      continue;
    /* the block still holds its frame's vectors, bit for bit */
    const size_t bytes = at_once[(size_t) i].size () * sizeof (FlowVector);
    EXPECT_EQ (std::memcmp (held[(size_t) i]->data, at_once[(size_t) i].data (), bytes), 0);
  }
  /* the session goes first; the blocks come back to a closed pool */
  s.release ();
  held.clear ();
}

/* --------------------------------------------------------- the element */

TEST (FlowGpu, ElementMatchesOpenCV)
{
  const cv::Mat & b1 = basketball (1), & b2 = basketball (2);
  const FlowRun r = run_flow_gray ("cudaflow backend=cuda", { b1, b2 });
  ASSERT_TRUE (r.ok);
  EXPECT_TRUE (r.frames[0].has_meta && r.frames[0].vectors.empty ());
  const auto & v = r.frames[1].vectors;
  /* the points: cudaharris's detector, goodFeaturesToTrack's corners */
  std::vector<cudavision::Corner> got, want;
  for (const auto & f : v)
    got.push_back ({ f.prev_x, f.prev_y, 0 });
  for (const auto & q : opencv_features (b1, 500))
    want.push_back ({ q.x, q.y, 0 });
  EXPECT_GE (recall (got, want, 1.0), 0.95) << got.size () << " points vs OpenCV's " << want.size ();
  /* the flow: OpenCV's on the same points */
  expect_like_opencv (v, clipped (opencv_lk (b1, b2, prev_points (v), FlowParams ()), b1.cols, b1.rows),
      "element, basketball");
  EXPECT_EQ (compare (r.frames[1].out, b2).differing, 0) << "passthrough changed the frame";

  const FlowRun d = run_flow_gray ("cudaflow backend=cuda mode=dense grid-step=8", { b1, b2 });
  ASSERT_TRUE (d.ok);
  expect_like_opencv (d.frames[1].vectors,
      clipped (opencv_lk (b1, b2, grid_points (b1.cols, b1.rows, 8), FlowParams ()), b1.cols, b1.rows),
      "element, dense");
  EXPECT_EQ (d.frames[1].grid_step, 8u);
  EXPECT_EQ (d.frames[1].grid_cols * d.frames[1].grid_rows, d.frames[1].vectors.size ());
}

/* Both backends on the same frames of a moving sequence (dense: the same
 * points): the same flow to 0.1 px, the same status. */
TEST (FlowGpu, ElementAgreesWithCpuBackendOverASequence)
{
  const cv::Mat g = load_gray (data_path ("building.jpg"));
  std::vector<cv::Mat> frames;
  for (int k = 0; k < 12; k++)
    frames.push_back (k % 4 == 3 ? rotated (g, 0.5 * k) : shifted (g, 0.75 * k, -0.5 * k));
  const FlowRun gpu = run_flow_gray ("cudaflow backend=cuda mode=dense redetect-interval=4", frames);
  const FlowRun cpu = run_flow_gray ("cudaflow backend=cpu mode=dense redetect-interval=4", frames);
  ASSERT_TRUE (gpu.ok && cpu.ok);
  for (size_t k = 1; k < frames.size (); k++)
    expect_like_opencv (gpu.frames[k].vectors, cpu.frames[k].vectors, "frame " + std::to_string (k));
}

TEST (FlowGpu, ElementTranslations)
{
  for (const char *name : { "astronaut.png", "building.jpg" }) {
    const cv::Mat g = load_gray (data_path (name));
    for (const auto & s : std::vector<cv::Point2d> { { 0.5, 0 }, { -2.5, 3.75 }, { 7.5, 6.5 }, { -10, 0.25 } }) {
      const FlowRun r = run_flow_gray ("cudaflow backend=cuda", { g, shifted (g, s.x, s.y) });
      ASSERT_TRUE (r.ok);
      std::vector<FlowVector> inside;
      for (const auto & v : r.frames[1].vectors)
        if (v.prev_x >= 40 && v.prev_y >= 40 && v.prev_x < g.cols - 40 && v.prev_y < g.rows - 40)
          inside.push_back (v);
      const TruthError e = truth_error (inside, s.x, s.y);
      EXPECT_LE (e.median, 0.05) << name << " shift " << s.x << "," << s.y << ": " << e.str ();
      EXPECT_GT (e.n, 20u) << name;
    }
  }
}

TEST (FlowGpu, ColourInputIsLuma)
{
  const cv::Mat rgb1 = load_rgb (data_path ("basketball1.png")), rgb2 = load_rgb (data_path ("basketball2.png"));
  const FlowRun gray = run_flow_gray ("cudaflow backend=cuda", { to_gray (rgb1), to_gray (rgb2) });
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRx }) {
    const std::string caps = caps_string (f, rgb1.cols, rgb1.rows);
    const FlowRun r = run_flow ("cudaflow backend=cuda", caps, caps, { { rgb_to_buffer (rgb1, f) }, { rgb_to_buffer (rgb2, f) } });
    ASSERT_TRUE (r.ok);
    EXPECT_EQ (diff_vectors (r.frames[1].vectors, gray.frames[1].vectors), "") << gst_video_format_to_string (f);
    EXPECT_EQ (compare (r.frames[1].out, packed_frame (rgb2, f)).differing, 0) << gst_video_format_to_string (f);
  }
}

/* Drawing and flow colours are the CPU backend's functions applied to the
 * GPU's own vectors: the same pixels (colours within 1: atan2f). */
TEST (FlowGpu, DrawAndFlowColor)
{
  const cv::Mat rgb1 = load_rgb (data_path ("basketball1.png")), rgb2 = load_rgb (data_path ("basketball2.png"));
  const GstVideoFormat f = GST_VIDEO_FORMAT_BGRA;
  const std::string caps = caps_string (f, rgb1.cols, rgb1.rows);
  for (const char *mode : { "sparse", "dense" }) {
    const FlowRun r = run_flow (std::string ("cudaflow backend=cuda draw=true mode=") + mode, caps, caps,
        { { rgb_to_buffer (rgb1, f) }, { rgb_to_buffer (rgb2, f) } });
    ASSERT_TRUE (r.ok);
    cv::Mat want = packed_frame (rgb2, f);
    const cudavision::Image8 frame { want.data, want.step, want.cols, want.rows };
    const cudavision::FlowOverlay overlay {
      cudavision::packed_canvas (frame, cudavision::PackedRgb::BGRA,
          cudavision::OverlayColor::from_argb (cudavision::kFlowLineColor)),
      cudavision::packed_canvas (frame, cudavision::PackedRgb::BGRA,
          cudavision::OverlayColor::from_argb (cudavision::kCornerMarkerColor)) };
    cudavision::cpu::draw_flow (overlay, r.frames[1].vectors, std::string (mode) == "sparse");
    EXPECT_EQ (compare (r.frames[1].out, want).differing, 0) << mode;
    EXPECT_GT (compare (r.frames[1].out, packed_frame (rgb2, f)).differing, 100) << mode << ": nothing drawn";
  }
  const cv::Mat & b1 = basketball (1), & b2 = basketball (2);
  const FlowRun c = run_flow ("cudaflow backend=cuda mode=dense output=flow-color grid-step=6 max-flow=3",
      caps_string (GST_VIDEO_FORMAT_GRAY8, b1.cols, b1.rows), caps_string (GST_VIDEO_FORMAT_RGBA, b1.cols, b1.rows),
      { { mat_to_buffer (b1, GST_VIDEO_FORMAT_GRAY8) }, { mat_to_buffer (b2, GST_VIDEO_FORMAT_GRAY8) } });
  ASSERT_TRUE (c.ok);
  for (int k = 0; k < 2; k++) {
    cv::Mat want (b1.rows, b1.cols, CV_8UC4);
    cudavision::cpu::flow_color (c.frames[k].vectors, 6, 3.f, { want.data, want.step, want.cols, want.rows });
    const Diff d = compare (c.frames[k].out, want);
    EXPECT_LE (d.max_abs, 1) << "frame " << k;
    EXPECT_LE (d.differing, (long) want.total () / 100) << "frame " << k;
  }
}

TEST (FlowGpu, ResetsAndTinyFrames)
{
  const cv::Mat & b1 = basketball (1), & b2 = basketball (2);
  const std::string caps = caps_string (GST_VIDEO_FORMAT_GRAY8, b1.cols, b1.rows);
  GstBuffer *third = mat_to_buffer (b2, GST_VIDEO_FORMAT_GRAY8);
  GST_BUFFER_FLAG_SET (third, GST_BUFFER_FLAG_DISCONT);
  const FlowRun r = run_flow ("cudaflow backend=cuda", caps, caps,
      { { mat_to_buffer (b1, GST_VIDEO_FORMAT_GRAY8) }, { mat_to_buffer (b2, GST_VIDEO_FORMAT_GRAY8) }, { third },
          { mat_to_buffer (b1, GST_VIDEO_FORMAT_GRAY8) } });
  ASSERT_TRUE (r.ok);
  ASSERT_EQ (r.frames.size (), 4u);
  EXPECT_GT (r.frames[1].vectors.size (), 100u);
  EXPECT_TRUE (r.frames[2].vectors.empty ()) << "DISCONT";
  EXPECT_GT (r.frames[3].vectors.size (), 100u) << "b2 -> b1";
  /* flush before the fourth frame: it starts again */
  const FlowRun f = run_flow ("cudaflow backend=cuda", caps, caps,
      { { mat_to_buffer (b1, GST_VIDEO_FORMAT_GRAY8) }, { mat_to_buffer (b2, GST_VIDEO_FORMAT_GRAY8) },
          { mat_to_buffer (b1, GST_VIDEO_FORMAT_GRAY8), true }, { mat_to_buffer (b2, GST_VIDEO_FORMAT_GRAY8) } });
  ASSERT_TRUE (f.ok);
  EXPECT_TRUE (f.frames[2].vectors.empty ()) << "flush";
  EXPECT_GT (f.frames[3].vectors.size (), 100u);

  const cv::Mat astro = load_gray (data_path ("astronaut.png"));
  for (const auto & s : std::vector<cv::Size> { { 1, 1 }, { 2, 2 }, { 7, 5 }, { 24, 3 } }) {
    const cv::Mat a = astro (cv::Rect (250, 250, s.width, s.height)).clone ();
    const cv::Mat b = astro (cv::Rect (251, 250, s.width, s.height)).clone ();
    const FlowRun t = run_flow_gray ("cudaflow backend=cuda mode=dense grid-step=2", { a, b });
    ASSERT_TRUE (t.ok) << size_str (a);
    expect_like_opencv (t.frames[1].vectors,
        clipped (opencv_lk (a, b, grid_points (a.cols, a.rows, 2), FlowParams ()), a.cols, a.rows), size_str (a),
        false);
    EXPECT_TRUE (run_flow_gray ("cudaflow backend=cuda min-distance=1", { a, b }).ok) << size_str (a);
  }
}

TEST (FlowGpu, ElementEveryBlockSizingModeIdentical)
{
  const cv::Mat & b1 = basketball (1), & b2 = basketball (2);
  for (const char *m : { "sparse", "dense" }) {
    const FlowRun ref = run_flow_gray (std::string ("cudaflow backend=cuda mode=") + m, { b1, b2 });
    ASSERT_TRUE (ref.ok);
    ASSERT_GT (ref.frames[1].vectors.size (), 100u);
    for (const char *mode : kBlockSizingModes) {
      const FlowRun r = run_flow_gray (std::string ("cudaflow backend=cuda mode=") + m + " " + mode, { b1, b2 });
      ASSERT_TRUE (r.ok) << mode;
      EXPECT_EQ (diff_vectors (r.frames[1].vectors, ref.frames[1].vectors), "") << m << " " << mode;
    }
  }
}

/* Device frames out: the meta goes on the real output buffer. */
TEST (FlowGpu, DeviceMemoryOutputCarriesMeta)
{
  const cv::Mat & b1 = basketball (1), & b2 = basketball (2);
  const std::string in = caps_string (GST_VIDEO_FORMAT_GRAY8, b1.cols, b1.rows);
  const std::string out = caps_string (GST_VIDEO_FORMAT_GRAY8, b1.cols, b1.rows, GST_CAPS_FEATURE_MEMORY_CUDAVISION);
  const FlowRun r = run_flow ("cudaflow backend=cuda post-messages=true", in, out,
      { { mat_to_buffer (b1, GST_VIDEO_FORMAT_GRAY8) }, { mat_to_buffer (b2, GST_VIDEO_FORMAT_GRAY8) } });
  ASSERT_TRUE (r.ok);
  ASSERT_TRUE (r.frames[1].has_meta);
  EXPECT_GT (r.frames[1].vectors.size (), 100u);
  EXPECT_EQ (compare (r.frames[1].out, b2).differing, 0);
  EXPECT_EQ (r.messages.size (), 2u);
}

/* A chain: cudagray's device frames into cudaflow, no host copy between;
 * and cudaharris's keypoints as the points to track. */
TEST (FlowGpu, ChainFromCudagray)
{
  BusResult r = run_pipeline ("videotestsrc num-buffers=20 pattern=ball ! video/x-raw,format=RGBA,width=640,height=480 ! "
                              "cudagray backend=cuda ! cudaflow backend=cuda draw=true ! fakesink");
  EXPECT_TRUE (r.eos) << (r.errors.empty () ? "" : r.errors[0]);
  EXPECT_TRUE (r.warnings.empty ()) << r.warnings[0];
  r = run_pipeline ("videotestsrc num-buffers=10 pattern=ball ! video/x-raw,format=RGBA,width=640,height=480 ! "
                    "cudagray backend=cuda ! cudaflow backend=cuda mode=dense output=flow-color ! "
                    "cudagray backend=cuda ! fakesink");
  EXPECT_TRUE (r.eos) << (r.errors.empty () ? "" : r.errors[0]);
  r = run_pipeline ("videotestsrc num-buffers=10 pattern=ball ! video/x-raw,format=GRAY8,width=320,height=240 ! "
                    "cudaharris backend=cuda method=shi-tomasi ! cudaflow backend=cuda ! fakesink");
  EXPECT_TRUE (r.eos) << (r.errors.empty () ? "" : r.errors[0]);
}

/* ------------------------------------------- NV12, I420, RGB, BGR, colours */

/* Every input kind, sparse and dense, in the default colours and in
 * others (alphas in an alpha byte). */
TEST (FlowGpu, YuvAndRgbInputs)
{
  const std::vector<cv::Mat> pair = { basketball_rgb (1), basketball_rgb (2) };
  const cv::Rect odd (1, 2, 637, 475);
  const std::vector<cv::Mat> odd_pair = { pair[0] (odd).clone (), pair[1] (odd).clone () };
  const std::vector<FrameSequence> seqs = {
    { "basketball", pair, GST_VIDEO_FORMAT_NV12 },
    { "basketball", pair, GST_VIDEO_FORMAT_I420 },
    { "basketball crop", odd_pair, GST_VIDEO_FORMAT_NV12 },
    { "basketball crop", odd_pair, GST_VIDEO_FORMAT_I420, 3 },
    { "basketball", pair, GST_VIDEO_FORMAT_NV12, 5 },
    { "basketball", pair, GST_VIDEO_FORMAT_RGB },
    { "basketball", pair, GST_VIDEO_FORMAT_BGR },
    { "basketball crop", odd_pair, GST_VIDEO_FORMAT_BGR, 1 },
    { "basketball", pair, GST_VIDEO_FORMAT_RGBA },
  };
  for (const FrameSequence & s : seqs) {
    for (const char *mode : { "sparse", "dense" }) {
      check_gpu_flow (s, mode, "", cudavision::kFlowLineColor, cudavision::kCornerMarkerColor);
      check_gpu_flow (s, mode, "color=0x80ffff00 marker-color=0x40ff00ff", 0x80ffff00u, 0x40ff00ffu);
    }
  }
}

/* Several NV12 and BGR frames, sparse: the decision to detect again (taken
 * on the GPU one frame later) follows the luma's, every 2 frames and only
 * when tracks run low; every block-sizing mode gives the same. */
TEST (FlowGpu, YuvSequencesAndBlockSizingModes)
{
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_BGR }) {
    const FrameSequence s ("basketball sequence", basketball_sequence (), f);
    for (const char *interval : { "redetect-interval=2", "redetect-interval=0" })
      check_gpu_flow (s, "sparse", interval, cudavision::kFlowLineColor, cudavision::kCornerMarkerColor);
  }
  const FrameSequence s ("basketball", { basketball_rgb (1), basketball_rgb (2) }, GST_VIDEO_FORMAT_NV12);
  for (const char *mode : kBlockSizingModes) {
    check_gpu_flow (s, "sparse", mode, cudavision::kFlowLineColor, cudavision::kCornerMarkerColor);
    check_gpu_flow (s, "dense", mode, cudavision::kFlowLineColor, cudavision::kCornerMarkerColor);
  }
}

/* System memory in, device memory out (memory:CudaVisionMemory): the
 * meta on the real output buffer, the planes mapped back on the host. */
TEST (FlowGpu, YuvDeviceMemoryOutput)
{
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420 }) {
    const FrameSequence s ("basketball sequence", basketball_sequence (), f);
    for (const char *mode : { "sparse", "dense" })
      check_gpu_flow (s, mode, "marker-color=0xffffff00", cudavision::kFlowLineColor, 0xffffff00u,
          GST_CAPS_FEATURE_MEMORY_CUDAVISION);
  }
}

/* The outputs of `s` pushed one at a time through the bin `description`
 * (device memory out); `out_when_pushed` gets how many were out once each
 * frame was in; EOS pushes what is held. */
static std::vector<FlowFrame>
run_bin (const std::string & description, const FrameSequence & s, const std::string & out_caps,
    std::vector<size_t> * out_when_pushed)
{
  std::vector<FlowFrame> out;
  GstHarness *h = harness_for_bin (description);
  if (!h) {
    ADD_FAILURE () << "cannot build " << description;
    return out;
  }
  gst_harness_set_caps_str (h, s.caps.c_str (), out_caps.c_str ());
  GstCaps *caps = gst_caps_from_string (out_caps.c_str ());
  auto drain = [&] {
    while (GstBuffer *o = gst_harness_try_pull (h)) {
      out.push_back (flow_frame (o, caps));
      gst_buffer_unref (o);
    }
  };
  for (FlowInput & in : s.inputs ()) {
    EXPECT_EQ (gst_harness_push (h, in.buffer), GST_FLOW_OK);
    drain ();
    out_when_pushed->push_back (out.size ());
  }
  EXPECT_TRUE (gst_harness_push_event (h, gst_event_new_eos ()));
  drain ();
  gst_caps_unref (caps);
  gst_harness_teardown (h);
  return out;
}

/* latency-frames=1 with device memory on both pads (an upstream element
 * uploads the NV12 frames): a frame leaves only once the next has come,
 * EOS pushes the last, and each carries its own vectors and drawing, those
 * of latency-frames=0, the luma's as GRAY8. */
TEST (FlowGpu, HeldNv12FramesKeepTheirOwnVectors)
{
  const FrameSequence s ("basketball sequence", basketball_sequence (), GST_VIDEO_FORMAT_NV12);
  const std::string out_caps = caps_string (GST_VIDEO_FORMAT_NV12, s.info.width, s.info.height,
      GST_CAPS_FEATURE_MEMORY_CUDAVISION);
  for (const char *mode : { "sparse", "dense" }) {
    SCOPED_TRACE (mode);
    const std::string element = std::string ("cudaflow backend=cuda redetect-interval=2 mode=") + mode;
    const FlowRun gray = run_flow_gray (element, s.luma);
    ASSERT_TRUE (gray.ok);
    std::vector<FlowFrame> runs[2];
    for (int latency : { 0, 1 }) {
      std::vector<size_t> paced;
      runs[latency] = run_bin ("cudaflow backend=cuda mode=dense grid-step=64 ! video/x-raw(" GST_CAPS_FEATURE_MEMORY_CUDAVISION
                               "),format=NV12 ! " + element + " name=e draw=true latency-frames=" + std::to_string (latency),
          s, out_caps, &paced);
      ASSERT_EQ (runs[latency].size (), s.rgb.size ()) << "latency-frames=" << latency << ": EOS must push the held frame";
      for (size_t i = 0; i < paced.size (); i++)
        EXPECT_EQ (paced[i], i + 1 - latency) << "latency-frames=" << latency << ", after frame " << i;
    }
    for (size_t k = 0; k < s.rgb.size (); k++) {
      SCOPED_TRACE ("frame " + std::to_string (k));
      EXPECT_EQ (diff_vectors (runs[1][k].vectors, runs[0][k].vectors), "");
      EXPECT_EQ (diff_vectors (runs[1][k].vectors, gray.frames[k].vectors), "");
      EXPECT_EQ (diff_planes (runs[1][k].planes, runs[0][k].planes), "");
      EXPECT_EQ (diff_planes (runs[1][k].planes, expected_flow_drawing (s.planes[k], &s.info, runs[1][k].vectors,
                                                     cudavision::kFlowLineColor, cudavision::kCornerMarkerColor,
                                                     std::string (mode) == "sparse")),
          "");
      if (k > 0) {
        EXPECT_GT (runs[1][k].vectors.size (), 100u);
      }
    }
  }
}

/* memory:CUDAMemory out (nvcodec's kind): the buffers hold GstCudaMemory,
 * whose bytes mapped on the host are the input's with the GPU's vectors
 * drawn (the first frame: the input itself, as the CPU backend gives it).
 * Nothing else in the process loads nvcodec's plugin, whose start
 * registers GstCudaMemory's allocator: the element must not need it
 * loaded. */
TEST (FlowGpu, CudaMemoryOutput)
{
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_BGR }) {
    const FrameSequence s ("basketball sequence", basketball_sequence (), f);
    SCOPED_TRACE (s.what);
    const std::string out_caps = caps_string (f, s.info.width, s.info.height, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
    const FlowRun gray = run_flow_gray ("cudaflow backend=cuda", s.luma);
    const FlowRun cpu = run_flow ("cudaflow backend=cpu draw=true", s.caps, s.caps, s.inputs ());
    ASSERT_TRUE (gray.ok && cpu.ok);
    GstHarness *h = harness_for_bin ("cudaflow backend=cuda draw=true");
    ASSERT_NE (h, nullptr);
    gst_harness_set_caps_str (h, s.caps.c_str (), out_caps.c_str ());
    GstCaps *caps = gst_caps_from_string (out_caps.c_str ());
    std::vector<FlowInput> in = s.inputs ();
    for (size_t k = 0; k < in.size (); k++) {
      SCOPED_TRACE ("frame " + std::to_string (k));
      /* a push that fails says why (not-negotiated: no output pool) */
      const GstFlowReturn ret = gst_harness_push (h, in[k].buffer);
      in[k].buffer = nullptr;
      GstBuffer *out = gst_harness_try_pull (h);
      if (ret != GST_FLOW_OK || !out) {
        ADD_FAILURE () << "push: " << gst_flow_get_name (ret) << (out ? "" : ", no output");
        if (out)
          gst_buffer_unref (out);
        break;
      }
      ASSERT_GE (gst_buffer_n_memory (out), 1u);
      EXPECT_TRUE (gst_is_cuda_memory (gst_buffer_peek_memory (out, 0)));
      const FlowFrame got = flow_frame (out, caps);
      gst_buffer_unref (out);
      EXPECT_EQ (diff_vectors (got.vectors, gray.frames[k].vectors), "");
      EXPECT_EQ (diff_planes (got.planes, expected_flow_drawing (s.planes[k], &s.info, got.vectors,
                                              cudavision::kFlowLineColor, cudavision::kCornerMarkerColor, true)),
          "");
      if (k == 0) {
        EXPECT_EQ (diff_planes (got.planes, cpu.frames[0].planes), "");
      } else {
        EXPECT_GT (got.vectors.size (), 100u);
      }
    }
    for (FlowInput & i : in)
      if (i.buffer)
        gst_buffer_unref (i.buffer);
    gst_caps_unref (caps);
    gst_harness_teardown (h);
  }
}

/* RGBA in device memory on both pads: the lines and crosses are drawn
 * inside the frame graph, their colours part of its key. Colours changed
 * between frames are the next frame's, also on frames of the parity (the
 * graph's arguments alternate) that was drawn in the old colours before,
 * and back to the old ones. */
TEST (FlowGpu, ColourChangesBetweenFramesInTheGraph)
{
  const FrameSequence s ("basketball sequence", basketball_sequence (), GST_VIDEO_FORMAT_RGBA);
  const std::string out_caps = caps_string (GST_VIDEO_FORMAT_RGBA, s.info.width, s.info.height,
      GST_CAPS_FEATURE_MEMORY_CUDAVISION);
  struct Colours {
    guint32 line, marker;
  };
  const Colours colours[] = { { cudavision::kFlowLineColor, cudavision::kCornerMarkerColor },
    { cudavision::kFlowLineColor, cudavision::kCornerMarkerColor },
    { cudavision::kFlowLineColor, cudavision::kCornerMarkerColor }, { 0x80ffff00u, 0x40ff00ffu },
    { 0x80ffff00u, cudavision::kCornerMarkerColor }, { cudavision::kFlowLineColor, cudavision::kCornerMarkerColor } };
  static_assert (G_N_ELEMENTS (colours) == 6, "one a frame of basketball_sequence");
  for (const char *mode : { "sparse", "dense" }) {
    SCOPED_TRACE (mode);
    const std::string element = std::string ("cudaflow backend=cuda mode=") + mode;
    const FlowRun gray = run_flow_gray (element, s.luma);
    ASSERT_TRUE (gray.ok);
    GstHarness *h = harness_for_bin ("cudaflow backend=cuda mode=dense grid-step=64 ! video/x-raw(" GST_CAPS_FEATURE_MEMORY_CUDAVISION
                                     "),format=RGBA ! " + element + " name=e draw=true");
    ASSERT_NE (h, nullptr);
    gst_harness_set_caps_str (h, s.caps.c_str (), out_caps.c_str ());
    GstElement *e = gst_bin_get_by_name (GST_BIN (h->element), "e");
    ASSERT_NE (e, nullptr);
    GstCaps *caps = gst_caps_from_string (out_caps.c_str ());
    std::vector<FlowInput> in = s.inputs ();
    for (size_t k = 0; k < in.size (); k++) {
      SCOPED_TRACE ("frame " + std::to_string (k));
      g_object_set (e, "color", colours[k].line, "marker-color", colours[k].marker, nullptr);
      GstBuffer *out = gst_harness_push_and_pull (h, in[k].buffer);
      ASSERT_NE (out, nullptr);
      const FlowFrame got = flow_frame (out, caps);
      gst_buffer_unref (out);
      EXPECT_EQ (diff_vectors (got.vectors, gray.frames[k].vectors), "");
      EXPECT_EQ (diff_planes (got.planes, expected_flow_drawing (s.planes[k], &s.info, got.vectors, colours[k].line,
                                              colours[k].marker, std::string (mode) == "sparse")),
          "");
    }
    gst_caps_unref (caps);
    gst_object_unref (e);
    gst_harness_teardown (h);
  }
}
