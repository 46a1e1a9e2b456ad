/* cudafacedetect on the GPU: the raw windows and the grouped faces of
 * FaceDetector against cv::CascadeClassifier (OpenCV 4.x's windows are
 * expected bit for bit: cuda/haar_eval.h is proved so on the CPU by the
 * facedetect-reference unit test), four cascades (stumps and trees) and
 * one whose weights keep it off the deep kernel's patch layout, every
 * block-sizing mode giving identical detections, every kernel of every
 * level asking the policy with that level's size, the list growing past
 * its first capacity, sizes from 1x1 to 4K, and the element: portraits
 * with IoU >= 0.8, iceblock without a face, the LFW known-position mosaic,
 * boxes identical to the CPU backend's, device-memory chains; NV12, I420,
 * RGB and BGR input and the `color` overlay byte for byte as the CPU
 * backend gives them, in system and device memory, one frame held, and
 * out in nvcodec's memory:CUDAMemory.
 * Skips (exit 77) without a CUDA device. */
#include "../common/device_fixture.h"
#include "../../frames/face_inputs.h"
#include "../common/face_ref.h"
#include "../common/harness.h"
#include "../common/temp_file.h"

#include "../../cuda/face/face_grouping.h"
#include "../../core/draw/face_draw.h"
#include "../../cuda/face/facedetect.h"
#include "../../cuda/face/facedetect_kernels.h"
#include "../../cuda/face/haar_eval.h"
#include "../../core/policy/tuning_table.h"
#include "../../cpu/facedetect_cpu.h"
#include "gstcvmemory.h"

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

using namespace cvtest;
using cudavision::FaceDetector;
using cudavision::FaceRect;

namespace {

const char *kImages[] = { "astronaut.png", "grace_hopper.jpg", "iceblock.jpg", "coins.png", "faces/face_tiles.png" };
const char *kCascades[] = { "haarcascade_frontalface_default.xml", "haarcascade_frontalface_alt.xml",
  "haarcascade_frontalface_alt2.xml", "haarcascade_eye.xml" };

std::vector<cv::Rect>
to_cv (const std::vector<FaceRect> & v)
{
  std::vector<cv::Rect> out;
  for (const FaceRect & r : v)
    out.push_back ({ r.x, r.y, r.width, r.height });
  return out;
}

class FaceGpu : public DeviceTest {
protected:
  /* A detector with `file` loaded, per cascade. */
  FaceDetector & detector (const std::string & file)
  {
    auto & d = detectors_[file];
    if (!d) {
      cudavision::HaarCascade c;
      std::string err;
      EXPECT_TRUE (cudavision::load_haar_cascade (haar_path (file), &c, &err)) << err;
      d = std::make_unique<FaceDetector> ();
      const cudavision::CudaStatus s = d->set_cascade (c, stream.get ());
      EXPECT_TRUE (s.ok ()) << s.message ();
    }
    return *d;
  }

  FaceDetector::Result detect (const cv::Mat & gray, const std::string & file, const cudavision::FaceDetectParams & p,
      const cudavision::LaunchPolicy & pol, const cudavision::FaceKernelHook & hook = {})
  {
    cudavision::DeviceBuffer buf;
    const cudavision::ConstImage8 img = upload (gray, buf);
    FaceDetector::Result r;
    const cudavision::CudaStatus s = detector (file).detect (img, p, pol, stream.get (), &r, hook);
    EXPECT_TRUE (s.ok ()) << s.message ();
    return r;
  }

  /* Raw windows as detectMultiScale returns them with minNeighbors 0. */
  static std::vector<cv::Rect> clipped_raw (const FaceDetector::Result & r, const cv::Mat & gray)
  {
    std::vector<FaceRect> raw = r.raw;
    cudavision::clip_rectangles (raw, gray.cols, gray.rows);
    return to_cv (raw);
  }

  void TearDown () override
  {
    for (auto & d : detectors_)
      d.second->release ();
  }

  std::map<std::string, std::unique_ptr<FaceDetector>> detectors_;
};

}  // namespace

/* The raw windows are OpenCV's, and so are the grouped faces. */
TEST_F (FaceGpu, RawAndGroupedAreOpenCVs)
{
  REQUIRE_CASCADES ();
  cudavision::FaceDetectParams p;
  for (const char *file : kCascades) {
    for (const char *name : kImages) {
      const cv::Mat gray = to_gray (load_rgb (data_path (name)));
      const FaceDetector::Result r = detect (gray, file, p, policy ());
      const std::vector<cv::Rect> raw_ref = opencv_faces (gray, file, 1.1, 0);
      EXPECT_TRUE (same_rects (clipped_raw (r, gray), raw_ref))
          << file << " on " << name << ": GPU raw " << rects_str (clipped_raw (r, gray)) << " vs OpenCV raw "
          << rects_str (raw_ref);
      const std::vector<cv::Rect> ref = opencv_faces (gray, file, 1.1, 3);
      EXPECT_TRUE (faces_match (to_cv (r.faces), ref, 0.8)) << file << " on " << name;
      EXPECT_TRUE (same_rects (to_cv (r.faces), ref)) << file << " on " << name << ": " << rects_str (to_cv (r.faces));
    }
  }
}

/* The default frontal face cascade with every rectangle weight and node
 * threshold halved: each feature value and its threshold halve exactly in
 * float, so OpenCV finds the same windows, but the weights are no longer
 * whole, the deep kernel cannot sum them in integers
 * (haar::patch_weights_exact) and the cascade gets no patch layout: the
 * deep kernel then reads its windows' corners from the integral, with no
 * patch (launch_list), and must give OpenCV's windows too. */
namespace {

std::string
halved_cascade (const std::string & text)
{
  std::istringstream in (text);
  std::ostringstream out;
  std::string line;
  auto halve = [] (const std::string & v) {
    char buf[64];
    std::snprintf (buf, sizeof buf, "%.17g", std::strtod (v.c_str (), nullptr) / 2);
    return std::string (buf);
  };
  /* a rectangle "x y w h weight</_>...", a stump "0 -1 feature
   * threshold</internalNodes>": the last number before the tag halved */
  auto rewrite = [&] (const std::string & l) {
    const size_t tag = l.find ('<');
    if (tag == std::string::npos)
      return false;
    const std::string rest = l.substr (tag);
    const size_t fields = rest.rfind ("</_>", 0) == 0 ? 5 : rest.rfind ("</internalNodes>", 0) == 0 ? 4 : 0;
    std::istringstream f (l.substr (0, tag));
    std::vector<std::string> v;
    for (std::string t; f >> t;)
      v.push_back (t);
    if (fields == 0 || v.size () != fields)
      return false;
    for (const std::string & t : v)
      if (t.find_first_not_of ("-+.0123456789e") != std::string::npos)
        return false;
    v.back () = halve (v.back ());
    out << l.substr (0, l.find_first_not_of (' '));
    for (size_t k = 0; k < v.size (); k++)
      out << (k ? " " : "") << v[k];
    out << rest << '\n';
    return true;
  };
  while (std::getline (in, line))
    if (!rewrite (line))
      out << line << '\n';
  return out.str ();
}

}  // namespace

TEST_F (FaceGpu, CascadeWithoutPatchLayoutIsOpenCVs)
{
  REQUIRE_CASCADES ();
  TempDir dir;
  const std::string path = dir / "halved_frontalface_default.xml";
  std::ofstream (path) << halved_cascade (read_text (haar_path (kDefaultCascade)));
  cudavision::HaarCascade hc;
  std::string err;
  ASSERT_TRUE (cudavision::load_haar_cascade (path, &hc, &err)) << err;
  const cudavision::haar::CompiledCascade cc = cudavision::haar::compile_cascade (hc);
  ASSERT_TRUE (cc.stumps && cc.sums_exact);
  ASSERT_EQ (cc.patch_pitch, 0) << "the halved weights still got a patch layout";
  EXPECT_EQ (hc.features[0].rects[0].weight, -0.5f);
  cudavision::FaceDetectParams p;
  size_t raw_windows = 0;
  for (const char *name : { "astronaut.png", "grace_hopper.jpg", "faces/face_tiles.png" }) {
    const cv::Mat gray = to_gray (load_rgb (data_path (name)));
    const FaceDetector::Result r = detect (gray, path, p, policy ());
    const std::vector<cv::Rect> raw_ref = opencv_faces (gray, path, 1.1, 0);
    /* the halved cascade finds what the shipped one does */
    EXPECT_TRUE (same_rects (raw_ref, opencv_faces (gray, kDefaultCascade, 1.1, 0))) << name;
    EXPECT_TRUE (same_rects (clipped_raw (r, gray), raw_ref))
        << name << ": GPU raw " << rects_str (clipped_raw (r, gray)) << " vs OpenCV raw " << rects_str (raw_ref);
    EXPECT_TRUE (same_rects (to_cv (r.faces), opencv_faces (gray, path, 1.1, 3))) << name;
    raw_windows += raw_ref.size ();
  }
  EXPECT_GT (raw_windows, 100u);
}

TEST_F (FaceGpu, EveryBlockSizingModeGivesTheSameDetections)
{
  REQUIRE_CASCADES ();
  using cudavision::BlockSizing;
  /* LaunchPolicy holds a mutex: kept by pointer */
  std::vector<std::pair<std::string, std::unique_ptr<cudavision::LaunchPolicy>>> modes;
  auto add = [&] (const std::string & name, BlockSizing m, cudavision::BlockShape user = {},
                 std::shared_ptr<const cudavision::TuningTable> table = nullptr) {
    modes.emplace_back (name, std::make_unique<cudavision::LaunchPolicy> (dev, m, user, table));
  };
  add ("static", BlockSizing::Static);
  for (cudavision::BlockShape b : { cudavision::BlockShape { 64, 2 }, { 1024, 1 }, { 16, 2 }, { 8, 1 }, { 32, 32 },
           { 1, 64 }, { 96, 3 } })
    add ("static " + b.str (), BlockSizing::Static, b);
  add ("model", BlockSizing::Model);
  add ("empirical-table (empty)", BlockSizing::EmpiricalTable, {}, std::make_shared<cudavision::TuningTable> ());
  for (const char *file : { "haarcascade_frontalface_default.xml", "haarcascade_frontalface_alt2.xml" }) {
    for (const char *name : { "astronaut.png", "faces/face_tiles.png" }) {
      const cv::Mat gray = to_gray (load_rgb (data_path (name)));
      const FaceDetector::Result first = detect (gray, file, {}, *modes[0].second);
      EXPECT_FALSE (first.raw.empty ());
      for (size_t i = 1; i < modes.size (); i++) {
        const FaceDetector::Result r = detect (gray, file, {}, *modes[i].second);
        EXPECT_EQ (r.raw, first.raw) << modes[i].first << ", " << file << " on " << name << ": "
                                     << r.raw.size () << " raw windows vs " << first.raw.size ();
        EXPECT_EQ (r.faces, first.faces) << modes[i].first << ", " << file << " on " << name;
      }
    }
  }
}

/* The integral images of every level, as the tiles, carries and integral
 * kernels build them, against the resized level (cv::resize,
 * INTER_LINEAR_EXACT, as the cascade resizes) summed on the host in
 * uint32: every entry of every level, row 0 and column 0 included, on a
 * photograph and on noise of odd sizes (partial tiles on both edges), in
 * one batch and in many (a 1 MB cap), and on frames smaller than a tile. */
TEST_F (FaceGpu, IntegralsAreExactInEveryBatch)
{
  using namespace cudavision::facedetect;
  const cv::Mat photo = to_gray (load_rgb (data_path ("grace_hopper.jpg")));
  const cv::Mat inputs[] = { photo, random_mat (1283, 719, CV_8U, 11), random_mat (31, 25, CV_8U, 12),
    random_mat (24, 24, CV_8U, 13) };
  for (const cv::Mat & gray : inputs) {
    cudavision::DeviceBuffer frame;
    const cudavision::ConstImage8 img = upload (gray, frame);
    const auto levels = cudavision::plan_face_levels (gray.cols, gray.rows, 24, 24, {});
    ASSERT_FALSE (levels.empty ());
    for (size_t cap : { kBatchIntegralBytes, size_t (1) << 20 }) {
      const FacePlan plan = plan_face_batches (levels, gray.cols, gray.rows, cap);
      cudavision::DeviceBuffer descs, sum, sq, image, carries;
      ASSERT_TRUE (descs.allocate (plan.descs.size () * sizeof (LevelDesc)).ok ());
      ASSERT_EQ (cudaMemcpy (descs.get (), plan.descs.data (), plan.descs.size () * sizeof (LevelDesc),
                     cudaMemcpyHostToDevice),
          cudaSuccess);
      /* from pageable memory the copy may return before its DMA lands */
      ASSERT_EQ (cudaStreamSynchronize (nullptr), cudaSuccess);
      const size_t elements = plan.max_integral_elements;
      ASSERT_TRUE (sum.allocate (elements * sizeof (uint32_t)).ok ());
      ASSERT_TRUE (sq.allocate (elements * sizeof (uint32_t)).ok ());
      ASSERT_TRUE (image.allocate (elements).ok ());
      ASSERT_TRUE (carries.allocate (std::max<size_t> (plan.max_carry_elements, 1) * sizeof (uint2)).ok ());
      std::vector<uint32_t> s (elements), q (elements);
      for (size_t bi = 0; bi < plan.batches.size (); bi++) {
        const FaceBatch & batch = plan.batches[bi];
        /* stale values from another batch must not survive */
        ASSERT_EQ (cudaMemset (sum.get (), 0xa5, elements * sizeof (uint32_t)), cudaSuccess);
        ASSERT_EQ (cudaMemset (sq.get (), 0x5a, elements * sizeof (uint32_t)), cudaSuccess);
        /* cudaMemset runs on the legacy default stream, which our
         * non-blocking stream does not wait for: with other programs on
         * the GPU the kernels below overtook the clears (every value of a
         * 31x25 level wrong, under meson test --num-processes 4) */
        ASSERT_EQ (cudaStreamSynchronize (nullptr), cudaSuccess);
        const BatchView b { &plan, &batch, descs.as<LevelDesc> () + batch.first, sum.as<uint32_t> (),
          sq.as<uint32_t> (), image.as<uint8_t> (), carries.as<uint2> () };
        const cudavision::CudaStatus st = launch_integrals (img, b, policy (), stream.get (),
            { nullptr, (int) bi, gray.cols, gray.rows });
        ASSERT_TRUE (st.ok ()) << st.message ();
        ASSERT_EQ (cudaStreamSynchronize (stream.get ()), cudaSuccess);
        ASSERT_EQ (cudaMemcpy (s.data (), sum.get (), batch.integral_elements * sizeof (uint32_t),
                       cudaMemcpyDeviceToHost),
            cudaSuccess);
        ASSERT_EQ (cudaMemcpy (q.data (), sq.get (), batch.integral_elements * sizeof (uint32_t),
                       cudaMemcpyDeviceToHost),
            cudaSuccess);
        for (int li = batch.first; li < batch.first + batch.count; li++) {
          const LevelDesc & d = plan.descs[li];
          cv::Mat level;
          cv::resize (gray, level, cv::Size (d.width, d.height), 0, 0, cv::INTER_LINEAR_EXACT);
          std::vector<uint32_t> rs (d.width + 1, 0), rq (d.width + 1, 0);
          long bad = 0;
          for (int y = 0; y <= d.height; y++) {
            uint32_t row_s = 0, row_q = 0;
            for (int x = 0; x <= d.width; x++) {
              if (y > 0 && x > 0) {
                const uint32_t v = level.at<uint8_t> (y - 1, x - 1);
                row_s += v;
                row_q += v * v;
                rs[x] += row_s;
                rq[x] += row_q;
              }
              const size_t o = d.offset + (size_t) y * d.pitch + x;
              bad += s[o] != rs[x] || q[o] != rq[x];
            }
          }
          EXPECT_EQ (bad, 0) << gray.cols << "x" << gray.rows << " cap " << cap << " level " << li << " ("
                             << d.width << "x" << d.height << ")";
        }
      }
    }
  }
}

/* The hook sees the six kernels of each batch and the frame's grouping,
 * each asked with the frame's size; a table entry for the frame's size is used; a small batch
 * cap splits the pyramid into more batches with the same windows. */
TEST_F (FaceGpu, EveryKernelOfEveryBatchAsksThePolicy)
{
  REQUIRE_CASCADES ();
  const cv::Mat gray = to_gray (load_rgb (data_path ("grace_hopper.jpg")));
  struct Launch {
    std::string kernel;
    int batch;
    long w, h;
    std::string shape, source;
    bool end;
  };
  std::vector<Launch> log;
  auto hook = [&] (const cudavision::FaceKernelLaunch & l, bool end, cudaStream_t s) {
    EXPECT_EQ (s, stream.get ());
    log.push_back ({ l.kernel, l.batch, l.width, l.height, l.config.block.str (), l.config.source, end });
  };
  const auto levels = cudavision::plan_face_levels (gray.cols, gray.rows, 24, 24, {});
  ASSERT_GT (levels.size (), 20u);

  /* a table that knows the cascade kernel at this frame size only */
  auto table = std::make_shared<cudavision::TuningTable> ();
  table->put ({ dev.name, dev.cc_major, dev.cc_minor, dev.sm_count, "facedetect.cascade", gray.cols, gray.rows },
      { { 128, 1 }, 1.0, dev.driver_version });
  const cudavision::LaunchPolicy pol (dev, cudavision::BlockSizing::EmpiricalTable, {}, table);
  /* a schedule of one round: six launches per batch */
  FaceDetector & d = detector (kDefaultCascade);
  d.set_schedule ({ { 2, 5 }, 32, 1 });
  const FaceDetector::Result r = detect (gray, kDefaultCascade, {}, pol, hook);
  ASSERT_EQ (r.levels.size (), levels.size ());
  ASSERT_EQ (r.batches, 1) << "a 512x600 pyramid fits one batch";

  const char *kernels[] = { "facedetect.tiles", "facedetect.carries", "facedetect.integral", "facedetect.cascade",
    "facedetect.stages", "facedetect.deep", "facedetect.group" };
  ASSERT_EQ (log.size (), 7u * 2u);
  for (size_t j = 0; j < log.size (); j++) {
    const Launch & k = log[j];
    EXPECT_EQ (k.kernel, kernels[j / 2]);
    EXPECT_EQ (k.batch, j < 12 ? 0 : -1) << "the grouping runs once per frame";
    EXPECT_EQ (k.end, j % 2 == 1);
    EXPECT_EQ (k.w, gray.cols);
    EXPECT_EQ (k.h, gray.rows);
    if (k.kernel == "facedetect.cascade") {
      EXPECT_EQ (k.shape, "32x4") << "128 threads, one warp of windows wide";
      EXPECT_EQ (k.source, std::string ("table"));
    } else {
      EXPECT_EQ (k.source, std::string ("table-miss:model")) << k.kernel;
    }
  }
  /* the table shape changes nothing in the result */
  const FaceDetector::Result plain = detect (gray, kDefaultCascade, {}, policy ());
  EXPECT_EQ (r.raw, plain.raw);

  /* nor do batches of a few levels each: a 1 MB cap */
  d.set_batch_cap (1 << 20);
  log.clear ();
  const FaceDetector::Result split = detect (gray, kDefaultCascade, {}, policy (), hook);
  d.set_batch_cap (cudavision::facedetect::kBatchIntegralBytes);
  d.set_schedule ({});
  EXPECT_GT (split.batches, 3);
  EXPECT_EQ (log.size (), (size_t) split.batches * 6u * 2u + 2u);
  EXPECT_EQ (split.raw, plain.raw);
  EXPECT_EQ (split.faces, plain.faces);
}

/* Every stage schedule (which kernel evaluates which stages, a thread or a
 * warp per window in the deep stages) gives the same windows, on faces and
 * on noise (the most windows deep into the cascade), for a stump cascade
 * and a tree cascade. */
TEST_F (FaceGpu, EveryStageScheduleGivesTheSameWindows)
{
  REQUIRE_CASCADES ();
  const cv::Mat faces = to_gray (load_face_tiles ().rgb);
  const cv::Mat noise = random_mat (640, 480, CV_8U, 7);
  const FaceDetector::Schedule schedules[] = { { { 1 }, 32, 1 }, { { 1 }, 1, 1 }, { { 1, 2, 4, 7 }, 8, 4 },
    { { 3, 7 }, 1, 32 }, { { 2, 3, 4, 5, 6, 12 }, 4, 2 }, { { 25 }, 16, 1 }, { { 1, 40 }, 2, 8 },
    { { 5, 3, 9 }, 32, 16 }, { { 1, 2, 4 }, 32, 1, cudavision::kFaceNoPatch }, { { 1, 2, 4 }, 32, 1, 4 },
    { { 1, 2, 4 }, 32, 1, 9 }, { { 1 }, 32, 1, 0 }, { { 1, 2 }, 16, 1, 3 }, { { 1, 2, 4 }, 8, 1, 0 },
    { { 2, 7 }, 32, 4, 24 }, { { 2, 4 }, 32, 1, 0, false }, { { 1, 3 }, 1, 1, 0, false },
    { { 2, 5 }, 8, 4, cudavision::kFaceNoPatch, false }, { { 2, 4 }, 32, 1, 0, true, false },
    { { 1, 2, 4, 7 }, 8, 4, 0, true, false }, { { 1, 3, 6 }, 32, 32, 0, false, false } };
  for (const char *file : { "haarcascade_frontalface_default.xml", "haarcascade_frontalface_alt2.xml" }) {
    FaceDetector & d = detector (file);
    for (const cv::Mat * img : { &faces, &noise }) {
      d.set_schedule ({});
      const FaceDetector::Result base = detect (*img, file, {}, policy ());
      const std::vector<cv::Rect> ref = opencv_faces (*img, file, 1.1, 0);
      EXPECT_TRUE (same_rects (clipped_raw (base, *img), ref)) << file << ": " << base.raw.size () << " raw vs "
                                                             << ref.size ();
      for (const FaceDetector::Schedule & s : schedules) {
        d.set_schedule (s);
        const FaceDetector::Result r = detect (*img, file, {}, policy ());
        EXPECT_EQ (r.raw, base.raw) << file << " schedule of " << s.ends.size () << " ends from " << s.ends[0]
                                    << ", " << s.lanes << " / " << s.round_lanes << " lanes, patch from "
                                    << s.patch_from << (s.queue ? "" : ", grid stride")
                                    << (s.round_spread ? "" : ", short lists not spread");
      }
      d.set_schedule ({});
    }
  }
}

/* The grouping's classes found on the device are the host's: the same
 * faces on the LFW mosaic at 1080p and 4K (thousands of raw windows), on
 * noise, and on a 4K frame of over 16384 raw windows (the global-memory
 * path). */
TEST_F (FaceGpu, DeviceAndHostGroupingAgree)
{
  REQUIRE_CASCADES ();
  FaceDetector & d = detector (kDefaultCascade);
  /* the LFW tiles repeated over 4K: over 16384 raw windows, past what one
   * block groups in shared memory */
  const cv::Mat tile = to_gray (load_face_tiles ().rgb);
  cv::Mat tiled (2160, 3840, CV_8U);
  for (int y = 0; y < tiled.rows; y += tile.rows)
    for (int x = 0; x < tiled.cols; x += tile.cols) {
      const cv::Rect r (x, y, std::min (tile.cols, tiled.cols - x), std::min (tile.rows, tiled.rows - y));
      tile (cv::Rect (0, 0, r.width, r.height)).copyTo (tiled (r));
    }
  for (const cv::Mat & g : { face_input_at (face_input_source ("mosaic"), 1920, 1080),
           face_input_at (face_input_source ("mosaic"), 3840, 2160), random_mat (1280, 720, CV_8U, 3), tiled }) {
    for (int neighbors : { 1, 3, 6 }) {
      cudavision::FaceDetectParams p;
      p.min_neighbors = neighbors;
      d.set_device_grouping (true);
      const FaceDetector::Result dev_r = detect (g, kDefaultCascade, p, policy ());
      d.set_device_grouping (false);
      const FaceDetector::Result host_r = detect (g, kDefaultCascade, p, policy ());
      d.set_device_grouping (true);
      EXPECT_EQ (dev_r.raw, host_r.raw);
      EXPECT_EQ (dev_r.faces, host_r.faces) << g.cols << "x" << g.rows << " min-neighbors " << neighbors << ": "
                                            << dev_r.faces.size () << " vs " << host_r.faces.size ();
    }
  }
}

/* The warp-parallel deep stages are used for every cascade OpenCV ships
 * (their stage sums are exact in any order). */
TEST_F (FaceGpu, ShippedCascadesAllowWarpStageSums)
{
  REQUIRE_CASCADES ();
  for (const char *file : kCascades)
    EXPECT_TRUE (detector (file).stage_sums_exact ()) << file;
}

/* More raw windows than the list's first capacity (16384): a 4K mosaic of
 * the LFW tiles with min-neighbors 0. */
TEST_F (FaceGpu, ManyWindowsGrowTheList)
{
  REQUIRE_CASCADES ();
  const cv::Mat tile = to_gray (load_face_tiles ().rgb);
  cv::Mat big (2160, 3840, CV_8U);
  for (int y = 0; y < big.rows; y += tile.rows)
    for (int x = 0; x < big.cols; x += tile.cols) {
      const cv::Rect r (x, y, std::min (tile.cols, big.cols - x), std::min (tile.rows, big.rows - y));
      tile (cv::Rect (0, 0, r.width, r.height)).copyTo (big (r));
    }
  cudavision::FaceDetectParams p;
  p.min_neighbors = 0;
  const FaceDetector::Result r = detect (big, kDefaultCascade, p, policy ());
  const std::vector<cv::Rect> ref = opencv_faces (big, kDefaultCascade, 1.1, 0);
  EXPECT_GT (ref.size (), 16384u) << "the mosaic should overflow the first list";
  EXPECT_EQ (r.raw.size (), ref.size ());
  EXPECT_TRUE (same_rects (clipped_raw (r, big), ref));
  /* and a second frame in the grown list */
  const FaceDetector::Result again = detect (big, kDefaultCascade, p, policy ());
  EXPECT_EQ (again.raw, r.raw);
}

/* An element's frame in one graph (enqueue_frame): the luma and the copy,
 * the search, the boxes on the copy. Frame after frame from alternating
 * input and output buffers (the graph is replayed from the third frame
 * on, with each frame's pointers), the faces must be OpenCV's and the
 * output the input with the CPU backend's boxes; GRAY8, a BGRA reading of
 * the same bytes, rows the luma kernel cannot read as words, a frame too
 * small to search, no grouping (min_neighbors 0: the caller draws) and a
 * frame whose lists overflow (searched again, copy and boxes made again)
 * as well. */
TEST_F (FaceGpu, WholeFrameInOneGraph)
{
  REQUIRE_CASCADES ();
  using cudavision::PackedRgb;
  struct Case {
    const char *name;
    std::vector<cv::Mat> frames; /* RGBA (4 channels) or GRAY8 */
    PackedRgb layout;
    int min_neighbors;
    size_t misalign;             /* bytes added to the input's pointer and pitch */
  };
  auto rgba = [] (const cv::Mat & rgb, cv::Size s) {
    cv::Mat m, out;
    cv::resize (rgb, m, s, 0, 0, cv::INTER_AREA);
    cv::cvtColor (m, out, cv::COLOR_RGB2RGBA);
    return out;
  };
  const cv::Mat astro = load_rgb (data_path ("astronaut.png"));
  const cv::Mat grace = load_rgb (data_path ("grace_hopper.jpg"));
  const cv::Mat tiles = load_face_tiles ().rgb;
  const cv::Size vga (640, 480);
  const std::vector<cv::Mat> pair { rgba (astro, vga), rgba (grace, vga) };
  std::vector<cv::Mat> grays;
  for (const cv::Mat & m : pair) {
    cv::Mat g;
    cv::cvtColor (m, g, cv::COLOR_RGBA2GRAY);
    grays.push_back (g);
  }
  /* the mosaic tiled over 4K: more raw windows than the first list holds */
  cv::Mat mosaic (2160, 3840, CV_8UC4);
  {
    const cv::Mat t = rgba (tiles, tiles.size ());
    for (int y = 0; y < mosaic.rows; y += t.rows)
      for (int x = 0; x < mosaic.cols; x += t.cols) {
        const cv::Rect r (x, y, std::min (t.cols, mosaic.cols - x), std::min (t.rows, mosaic.rows - y));
        t (cv::Rect (0, 0, r.width, r.height)).copyTo (mosaic (r));
      }
  }
  const std::vector<Case> cases {
    { "RGBA", pair, PackedRgb::RGBA, 3, 0 },
    { "BGRA", pair, PackedRgb::BGRA, 3, 0 },
    { "GRAY8", grays, PackedRgb::RGBA, 3, 0 },
    { "RGBA, rows not word-aligned", pair, PackedRgb::RGBA, 3, 4 },
    { "RGBA, min_neighbors 0", pair, PackedRgb::RGBA, 0, 0 },
    { "RGBA 20x20", { rgba (astro, cv::Size (20, 20)), rgba (grace, cv::Size (20, 20)) }, PackedRgb::RGBA, 3, 0 },
    { "RGBA 4K mosaic", { mosaic }, PackedRgb::RGBA, 3, 0 },
  };
  for (const Case & c : cases) {
    SCOPED_TRACE (c.name);
    cudavision::HaarCascade cascade;
    std::string err;
    ASSERT_TRUE (cudavision::load_haar_cascade (haar_path (kDefaultCascade), &cascade, &err)) << err;
    FaceDetector det;
    ASSERT_TRUE (det.set_cascade (cascade, stream.get ()).ok ());
    det.set_raw_windows (false);
    const bool gray = c.frames[0].channels () == 1;
    const int w = c.frames[0].cols, h = c.frames[0].rows;
    const size_t row = (size_t) w * c.frames[0].elemSize ();
    const size_t in_pitch = cudavision::aligned_pitch (row) + c.misalign;
    const size_t out_pitch = cudavision::aligned_pitch (row);
    std::vector<cudavision::DeviceBuffer> in (c.frames.size ()), out (2);
    for (size_t i = 0; i < c.frames.size (); i++) {
      ASSERT_TRUE (in[i].allocate (in_pitch * h + c.misalign).ok ());
      ASSERT_EQ (cudaMemcpy2D (in[i].as<uint8_t> () + c.misalign, in_pitch, c.frames[i].data, c.frames[i].step, row,
                     h, cudaMemcpyHostToDevice),
          cudaSuccess);
    }
    /* from pageable memory the copies may return before their DMA lands,
     * and the detector's non-blocking stream does not wait for them */
    ASSERT_EQ (cudaStreamSynchronize (nullptr), cudaSuccess);
    for (auto & o : out)
      ASSERT_TRUE (o.allocate (out_pitch * h).ok ());
    ASSERT_EQ (cudaDeviceSynchronize (), cudaSuccess);
    cudavision::FaceDetectParams p;
    p.min_neighbors = c.min_neighbors;
    const cudavision::LaunchPolicy pol = policy ();
    const int nframes = c.frames.size () > 1 ? 5 : 2;
    std::map<size_t, std::vector<cv::Rect>> refs;
    for (int f = 0; f < nframes; f++) {
      SCOPED_TRACE ("frame " + std::to_string (f));
      const size_t i = f % c.frames.size ();
      const cv::Mat & src = c.frames[i];
      FaceDetector::FrameInput fi;
      fi.frame = { in[i].as<const uint8_t> () + c.misalign, in_pitch, w, h };
      fi.gray = gray;
      fi.layout = c.layout;
      fi.copy = { out[f % 2].as<uint8_t> (), out_pitch, w, h };
      fi.draw = !gray;
      const cudavision::OverlayColor color = cudavision::OverlayColor::from_argb (cudavision::kFaceBoxColor);
      if (!gray)
        fi.canvas = cudavision::packed_canvas (fi.copy, c.layout, color);
      /* yesterday's pixels in the output: the copy must replace them all */
      ASSERT_EQ (cudaMemsetAsync (out[f % 2].get (), 0x5a, out_pitch * h, stream.get ()), cudaSuccess);
      ASSERT_TRUE (det.enqueue_frame (fi, p, pol, stream.get ()).ok ());
      FaceDetector::Result r;
      const cudavision::CudaStatus s = det.collect (&r);
      ASSERT_TRUE (s.ok ()) << s.message ();
      cv::Mat luma;
      if (gray)
        luma = src;
      else
        cv::cvtColor (src, luma, c.layout == PackedRgb::BGRA ? cv::COLOR_BGRA2GRAY : cv::COLOR_RGBA2GRAY);
      if (!refs.count (i))
        refs[i] = opencv_faces (luma, kDefaultCascade, 1.1, c.min_neighbors);
      const std::vector<cv::Rect> & ref = refs[i];
      EXPECT_TRUE (same_rects (to_cv (r.faces), ref)) << rects_str (to_cv (r.faces)) << " vs OpenCV " << rects_str (ref);
      /* drawn in the graph exactly where the device groups and draws */
      EXPECT_EQ (r.drawn, !gray && c.min_neighbors > 0 && c.misalign == 0 && !r.levels.empty ());
      if (!r.drawn && !gray) {
        ASSERT_TRUE (det.draw (fi.canvas, r.faces, pol, stream.get ()).ok ());
      }
      ASSERT_EQ (cudaStreamSynchronize (stream.get ()), cudaSuccess);
      cv::Mat expect = src.clone ();
      if (!gray)
        cudavision::cpu::draw_face_boxes (cudavision::packed_canvas ({ expect.data, expect.step, w, h }, c.layout, color),
            r.faces);
      const cv::Mat got = download (cudavision::ConstImage8 { fi.copy.data, fi.copy.pitch, (int) row, h },
          CV_8U);
      EXPECT_EQ (cv::countNonZero (got != expect.reshape (1, h)), 0) << r.faces.size () << " faces";
    }
    if (c.frames.size () > 1 && w >= 64) {
      /* The replayed graph (VGA frames; not the 4K mosaic's, whose list
       * outgrew CUB's single tile): kernels only, which launch cheaper
       * than memset, memcpy or event nodes: the list's first capacity
       * keeps CUB's sort to its single tile (no memset nodes, no onesweep
       * passes), the reset brings the arguments and publish sets the done
       * word (no kernels of their own), which collect () waits on instead
       * of an event (no event node). */
      const cudavision::CapturedGraphs::Shape & sh = det.graph_shape ();
      std::printf ("[ graph    ] %s: %u nodes, %u kernels, %u memsets, %u memcpys, %u events\n", c.name, sh.nodes,
          sh.kernels, sh.memsets, sh.memcpys, sh.events);
      EXPECT_GT (sh.kernels, 0u);
      EXPECT_EQ (sh.memsets, 0u);
      EXPECT_EQ (sh.memcpys, 0u);
      EXPECT_EQ (sh.events, 0u);
      EXPECT_EQ (sh.nodes, sh.kernels);
    }
    det.release ();
  }
}

TEST_F (FaceGpu, SizesFrom1x1To4K)
{
  REQUIRE_CASCADES ();
  const cv::Mat astro = to_gray (load_rgb (data_path ("astronaut.png")));
  std::vector<cv::Mat> frames;
  for (int s : { 1, 2, 23, 24, 25, 47 })
    frames.push_back (random_mat (s, s + 1, CV_8U, s));
  for (cv::Size s : { cv::Size (641, 479), cv::Size (1920, 1080), cv::Size (3840, 2160), cv::Size (100, 3000) }) {
    cv::Mat m;
    cv::resize (astro, m, s, 0, 0, cv::INTER_CUBIC);
    frames.push_back (m);
  }
  for (const cv::Mat & g : frames) {
    const FaceDetector::Result r = detect (g, kDefaultCascade, {}, policy (cudavision::BlockSizing::Model));
    const std::vector<cv::Rect> ref = opencv_faces (g, kDefaultCascade, 1.1, 3);
    EXPECT_TRUE (same_rects (to_cv (r.faces), ref)) << g.cols << "x" << g.rows << ": " << rects_str (to_cv (r.faces))
                                                   << " vs OpenCV " << rects_str (ref);
    const std::vector<cv::Rect> raw_ref = opencv_faces (g, kDefaultCascade, 1.1, 0);
    EXPECT_TRUE (same_rects (clipped_raw (r, g), raw_ref)) << g.cols << "x" << g.rows << ": " << r.raw.size ()
                                                         << " raw vs " << raw_ref.size ();
  }
}

/* The speed inputs of docs/PERFORMANCE.md at 1080p (and the face mosaic at
 * 4K): raw windows and faces are OpenCV's. */
TEST_F (FaceGpu, SpeedInputsAreOpenCVs)
{
  REQUIRE_CASCADES ();
  struct Case {
    const char *input;
    int w, h;
  };
  for (const Case & c : { Case { "mosaic", 1920, 1080 }, Case { "portraits", 1920, 1080 },
           Case { "nonface", 1920, 1080 }, Case { "noise", 1920, 1080 }, Case { "mosaic", 3840, 2160 } }) {
    const cv::Mat g = face_input_at (face_input_source (c.input), c.w, c.h);
    const FaceDetector::Result r = detect (g, kDefaultCascade, {}, policy ());
    const std::vector<cv::Rect> ref = opencv_faces (g, kDefaultCascade, 1.1, 3);
    EXPECT_TRUE (same_rects (to_cv (r.faces), ref)) << c.input << " " << c.w << "x" << c.h << ": "
                                                   << rects_str (to_cv (r.faces)) << " vs OpenCV " << rects_str (ref);
    const std::vector<cv::Rect> raw_ref = opencv_faces (g, kDefaultCascade, 1.1, 0);
    EXPECT_TRUE (same_rects (clipped_raw (r, g), raw_ref)) << c.input << " " << c.w << "x" << c.h << ": "
                                                         << r.raw.size () << " raw vs " << raw_ref.size ();
  }
}

TEST_F (FaceGpu, SizeLimitsAndScaleFactor)
{
  REQUIRE_CASCADES ();
  const cv::Mat gray = to_gray (load_face_tiles ().rgb);
  struct Case {
    double scale;
    int neighbors, min, max;
  };
  for (const Case & k : { Case { 1.2, 3, 0, 0 }, Case { 1.1, 1, 50, 0 }, Case { 1.1, 3, 0, 45 },
           Case { 1.05, 3, 40, 60 }, Case { 2.5, 0, 0, 0 }, Case { 1.1, 0, 100, 100 } }) {
    cudavision::FaceDetectParams p;
    p.scale_factor = k.scale;
    p.min_neighbors = k.neighbors;
    p.min_width = p.min_height = k.min;
    p.max_width = p.max_height = k.max;
    const FaceDetector::Result r = detect (gray, kDefaultCascade, p, policy ());
    const std::vector<cv::Rect> ref = opencv_faces (gray, kDefaultCascade, k.scale, k.neighbors, k.min, k.max);
    EXPECT_TRUE (same_rects (to_cv (r.faces), ref)) << "scale " << k.scale << " neighbors " << k.neighbors << " min "
                                                   << k.min << " max " << k.max << ": " << rects_str (to_cv (r.faces))
                                                   << " vs " << rects_str (ref);
  }
}

/* ---- through the element ---- */

TEST (FaceGpuElement, PortraitsAndIceblock)
{
  REQUIRE_CASCADES ();
  for (const char *name : { "astronaut.png", "grace_hopper.jpg", "iceblock.jpg" }) {
    const cv::Mat rgb = load_rgb (data_path (name));
    const std::vector<cv::Rect> ref = opencv_faces (to_gray (rgb));
    for (GstVideoFormat f : { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRx }) {
      const FaceRun gpu = run_face_rgb ("cudafacedetect backend=cuda", rgb, f);
      const FaceRun cpu = run_face_rgb ("cudafacedetect backend=cpu", rgb, f);
      ASSERT_TRUE (gpu.ok && cpu.ok) << name;
      EXPECT_TRUE (faces_match (gpu.metas, ref, 0.8)) << name;
      EXPECT_TRUE (same_rects (gpu.metas, cpu.metas)) << name << ": " << rects_str (gpu.metas) << " vs CPU "
                                                      << rects_str (cpu.metas);
      /* boxes drawn pixel for pixel as the CPU backend draws them */
      EXPECT_EQ (compare (gpu.out, cpu.out).differing, 0) << name << " " << gst_video_format_to_string (f);
      EXPECT_EQ (gpu.messages, 1);
      EXPECT_TRUE (same_rects (gpu.msg_faces, gpu.metas));
    }
    if (std::string (name) == "iceblock.jpg") {
      EXPECT_TRUE (ref.empty ());
    }
  }
}

TEST (FaceGpuElement, KnownPositionsLfwMosaic)
{
  REQUIRE_CASCADES ();
  const FaceTiles t = load_face_tiles ();
  for (const char *mode : { "block-sizing=static", "block-sizing=model", "block-sizing=static block-size=128x4" }) {
    const FaceRun r = run_face_rgb (std::string ("cudafacedetect backend=cuda ") + mode, t.rgb, GST_VIDEO_FORMAT_RGBA);
    ASSERT_TRUE (r.ok);
    const FaceScore s = score_faces (r.metas, t.truth, 0.5);
    EXPECT_GE (s.hits, 95) << mode << ": recall " << s.hits << "/100";
    EXPECT_LE (s.false_positives * 100, t.tiles) << mode << ": " << s.false_positives << " false positives";
    EXPECT_TRUE (same_rects (r.metas, opencv_faces (to_gray (t.rgb)))) << mode;
  }
  /* more boxes than travel in the draw launch's parameters: drawn from
   * device memory, pixel for pixel as the CPU backend draws them */
  const FaceRun gpu = run_face_rgb ("cudafacedetect backend=cuda", t.rgb, GST_VIDEO_FORMAT_RGBA);
  const FaceRun cpu = run_face_rgb ("cudafacedetect backend=cpu", t.rgb, GST_VIDEO_FORMAT_RGBA);
  ASSERT_TRUE (gpu.ok && cpu.ok);
  EXPECT_GT (gpu.metas.size (), 32u);
  EXPECT_TRUE (same_rects (gpu.metas, cpu.metas));
  EXPECT_EQ (compare (gpu.out, cpu.out).differing, 0);
}

/* GRAY8 in device memory from cudagray, device memory out. */
TEST (FaceGpuElement, DeviceChain)
{
  REQUIRE_CASCADES ();
  const cv::Mat rgb = load_rgb (data_path ("astronaut.png"));
  const cv::Mat gray = to_gray (rgb);
  const FaceRun r = run_face_gray ("cudafacedetect backend=cuda", gray, GST_CAPS_FEATURE_MEMORY_CUDAVISION);
  ASSERT_TRUE (r.ok);
  EXPECT_TRUE (same_rects (r.metas, opencv_faces (gray)));
  EXPECT_EQ (compare (r.out, gray).differing, 0);

  const std::string src = "filesrc location=" + data_path ("astronaut.png") +
      " ! pngdec ! videoconvert ! video/x-raw,format=RGBA ! ";
  const auto out = pull_all (src + "cudagray backend=cuda ! cudafacedetect backend=cuda ! appsink name=out sync=false");
  ASSERT_EQ (out.size (), 1u);
  EXPECT_EQ (compare (out[0], gray).differing, 0);
  const BusResult b = run_pipeline (src + "cudagray ! cudafacedetect ! cudafacedetect block-sizing=model ! fakesink");
  EXPECT_TRUE (b.eos) << (b.errors.empty () ? "" : b.errors[0]);
}

TEST (FaceGpuElement, BadCascadeOnTheGpuPath)
{
  const BusResult r = run_pipeline ("videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=64,height=48 ! "
                                    "cudafacedetect backend=cuda cascade=/nonexistent.xml ! fakesink");
  ASSERT_FALSE (r.errors.empty ());
  EXPECT_TRUE (r.has_error_containing ("/nonexistent.xml"));
  EXPECT_EQ (r.error_domains[0], GST_RESOURCE_ERROR);
}

/* ---- new inputs and the colour overlay: the GPU against the CPU backend ---- */

namespace {

struct BufferUnref {
  void operator() (GstBuffer * b) const { gst_buffer_unref (b); }
};
using OwnedBuffer = std::unique_ptr<GstBuffer, BufferUnref>;

/* `caps` (no caps feature) with `feature`, e.g. memory:CudaVisionMemory. */
std::string
with_feature (const std::string & caps, const char *feature)
{
  const std::string media = "video/x-raw";
  if (!feature)
    return caps;
  return media + "(" + feature + ")" + caps.substr (media.size ());
}

/* One input of the comparisons: a system-memory frame (copied for each
 * run), the element's properties (on both backends), and the CPU
 * backend's output for it. */
struct NewInput {
  std::string what;
  std::string caps;
  OwnedBuffer frame;
  std::string props;
  size_t min_faces;     /* the CPU must find at least these: a frame without faces proves little */
  FaceRun cpu;
};

/* The frames of the CPU suite's new-input tests: the portraits in NV12,
 * I420, RGB and BGR; the astronaut cropped to 511x509 (chroma of odd
 * sizes, 3-byte rows that end mid-word), as it lies and with every
 * plane's rows padded by 7 bytes; raw windows (min-neighbors=0: drawn
 * after collect on the GPU) on a crop whose windows reach the last column
 * and row; red on every new format; a half-transparent colour on the
 * alpha and padding layouts; BT.709 caps; draw=false. */
std::vector<NewInput> &
new_inputs ()
{
  static std::vector<NewInput> inputs;
  if (!inputs.empty ())
    return inputs;
  const cv::Mat astro = load_rgb (data_path ("astronaut.png"));
  const cv::Mat grace = load_rgb (data_path ("grace_hopper.jpg"));
  const cv::Mat odd = astro (cv::Rect (0, 0, 511, 509)).clone ();
  const cv::Mat corner = astro (cv::Rect (150, 58, 117, 107)).clone ();
  const GstVideoFormat yuv_rgb[] = { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_RGB,
    GST_VIDEO_FORMAT_BGR };
  auto add = [&] (const std::string & what, const cv::Mat & rgb, GstVideoFormat f, const std::string & props,
                 int pad = 0, const char *colorimetry = nullptr) {
    NewInput in;
    in.what = what + " " + gst_video_format_to_string (f) + (props.empty () ? "" : " " + props) +
        (pad ? " rows +" + std::to_string (pad) : "") + (colorimetry ? std::string (" ") + colorimetry : "");
    in.caps = caps_string (f, rgb.cols, rgb.rows);
    if (colorimetry)
      in.caps += std::string (",colorimetry=(string)") + colorimetry;
    in.frame.reset (frame_buffer (rgb, f, pad));
    in.props = props;
    in.min_faces = 1;
    inputs.push_back (std::move (in));
  };
  for (GstVideoFormat f : yuv_rgb) {
    add ("astronaut", astro, f, "");
    add ("grace_hopper", grace, f, "");
    add ("511x509", odd, f, "");
    add ("511x509", odd, f, "", 7);
    add ("corner", corner, f, "min-neighbors=0");
    add ("astronaut", astro, f, "color=0xffff0000");
  }
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_ABGR,
           GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_xBGR, GST_VIDEO_FORMAT_BGRx })
    add ("astronaut", astro, f, "color=0x80ff4020");
  add ("astronaut", astro, GST_VIDEO_FORMAT_NV12, "color=0xffff0000", 0, "bt709");
  add ("astronaut", astro, GST_VIDEO_FORMAT_NV12, "draw=false");
  add ("astronaut", astro, GST_VIDEO_FORMAT_RGB, "draw=false");
  for (NewInput & in : inputs)
    in.cpu = run_face ("cudafacedetect backend=cpu " + in.props, in.caps, in.caps, gst_buffer_copy_deep (in.frame.get ()));
  return inputs;
}

/* `in` through "cudafacedetect backend=cuda `extra` `props`", out in
 * `out_feature` (null: system memory): the CPU backend's faces, and every
 * byte of every plane the CPU backend's. */
void
expect_gpu_equals_cpu (const NewInput & in, const std::string & extra, const char *out_feature)
{
  SCOPED_TRACE (in.what + (extra.empty () ? "" : ", " + extra) + (out_feature ? std::string (", ") + out_feature : ""));
  ASSERT_TRUE (in.cpu.ok);
  ASSERT_GE (in.cpu.metas.size (), in.min_faces);
  const FaceRun gpu = run_face ("cudafacedetect backend=cuda " + extra + " " + in.props, in.caps,
      with_feature (in.caps, out_feature), gst_buffer_copy_deep (in.frame.get ()));
  ASSERT_TRUE (gpu.ok);
  EXPECT_TRUE (same_rects (gpu.metas, in.cpu.metas)) << rects_str (gpu.metas) << " vs CPU "
                                                     << rects_str (in.cpu.metas);
  EXPECT_TRUE (same_planes (gpu.planes, in.cpu.planes));
  EXPECT_EQ (gpu.messages, 1);
  EXPECT_TRUE (same_rects (gpu.msg_faces, gpu.metas));
}

/* What an appsink received: a buffer's faces, its planes (mapped on the
 * host while the pipeline plays) and its memory. */
struct SinkFrame {
  std::vector<cv::Rect> metas;
  std::vector<cv::Mat> planes;
  bool cuda_memory = false;  /* nvcodec's GstCudaMemory */
  bool cv_memory = false;    /* ours */
};

/* `frames` (system memory, of `caps`; taken) pushed from an appsrc
 * through `chain` into an appsink, then EOS, in the shared CUDA context:
 * what came out, in order. With `latency`, the elements named "u" and
 * "e" in `chain` answer a latency query once the first frame is out
 * (their answers' minimums, upstream's included). */
std::vector<SinkFrame>
run_appsrc (const std::string & chain, const std::string & caps, std::vector<GstBuffer *> frames, std::string * error,
    std::pair<GstClockTime, GstClockTime> * latency = nullptr)
{
  std::vector<SinkFrame> out;
  const std::string desc = "appsrc name=src format=time ! " + chain + " ! appsink name=out sync=false";
  GError *err = nullptr;
  GstElement *pipe = gst_parse_launch (desc.c_str (), &err);
  if (!pipe || err) {
    *error = "cannot build " + desc + ": " + (err ? err->message : "");
    g_clear_error (&err);
    if (pipe)
      gst_object_unref (pipe);
    for (GstBuffer *b : frames)
      gst_buffer_unref (b);
    return out;
  }
  if (shared_context ())
    gst_element_set_context (pipe, shared_context ());
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "out");
  GstCaps *c = gst_caps_from_string (caps.c_str ());
  g_object_set (src, "caps", c, nullptr);
  gst_caps_unref (c);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (size_t i = 0; i < frames.size (); i++) {
    GST_BUFFER_PTS (frames[i]) = gst_util_uint64_scale (i, GST_SECOND, 30);
    GST_BUFFER_DURATION (frames[i]) = GST_SECOND / 30;
    gst_app_src_push_buffer (GST_APP_SRC (src), frames[i]);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  auto min_latency = [&] (const char *name) {
    GstClockTime min = GST_CLOCK_TIME_NONE;
    GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), name);
    if (!e)
      return min;
    GstPad *pad = gst_element_get_static_pad (e, "src");
    GstQuery *q = gst_query_new_latency ();
    if (gst_pad_query (pad, q))
      gst_query_parse_latency (q, nullptr, &min, nullptr);
    gst_query_unref (q);
    gst_object_unref (pad);
    gst_object_unref (e);
    return min;
  };
  while (GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 60 * GST_SECOND)) {
    GstBuffer *b = gst_sample_get_buffer (s);
    SinkFrame f;
    f.metas = face_metas (b);
    f.planes = buffer_planes (b, gst_sample_get_caps (s));
    f.cuda_memory = gst_is_cuda_memory (gst_buffer_peek_memory (b, 0));
    f.cv_memory = gst_is_cv_memory (gst_buffer_peek_memory (b, 0));
    out.push_back (std::move (f));
    gst_sample_unref (s);
    if (latency && out.size () == 1)
      *latency = { min_latency ("u"), min_latency ("e") };
  }
  GstBus *bus = gst_element_get_bus (pipe);
  if (GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR)) {
    *error = parse_bus_error (m).text;
    gst_message_unref (m);
  } else if (!gst_app_sink_is_eos (GST_APP_SINK (sink))) {
    *error = "no EOS within 60 s";
  }
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (src);
  gst_object_unref (pipe);
  return out;
}

/* Frames of one size for the pipelines: the portraits, the first again
 * (a frame whose results are not the one before's). */
struct Stream {
  std::string caps;
  std::vector<OwnedBuffer> frames;
  std::vector<FaceRun> cpu;  /* the CPU backend's output for each */
};

Stream
make_stream (const std::vector<cv::Mat> & rgb, GstVideoFormat f, const std::string & props)
{
  Stream s;
  s.caps = caps_string (f, rgb[0].cols, rgb[0].rows);
  for (const cv::Mat & m : rgb) {
    s.frames.emplace_back (rgb_to_buffer (m, f));
    s.cpu.push_back (run_face ("cudafacedetect backend=cpu " + props, s.caps, s.caps,
        gst_buffer_copy_deep (s.frames.back ().get ())));
  }
  return s;
}

std::vector<GstBuffer *>
copies (const Stream & s)
{
  std::vector<GstBuffer *> v;
  for (const OwnedBuffer & b : s.frames)
    v.push_back (gst_buffer_copy_deep (b.get ()));
  return v;
}

/* Each frame out as the CPU backend's, in order: its bytes, and its faces
 * unless `metas` is false (an element downstream dropped them). */
void
expect_stream_equals_cpu (const std::vector<SinkFrame> & out, const Stream & s, bool metas = true)
{
  ASSERT_EQ (out.size (), s.cpu.size ());
  for (size_t i = 0; i < out.size (); i++) {
    SCOPED_TRACE ("frame " + std::to_string (i));
    ASSERT_TRUE (s.cpu[i].ok);
    EXPECT_FALSE (s.cpu[i].metas.empty ());
    if (metas) {
      EXPECT_TRUE (same_rects (out[i].metas, s.cpu[i].metas)) << rects_str (out[i].metas) << " vs CPU "
                                                              << rects_str (s.cpu[i].metas);
    }
    EXPECT_TRUE (same_planes (out[i].planes, s.cpu[i].planes));
  }
}

/* `s` through `chain` out in nvcodec's GstCudaMemory: the CPU backend's
 * frames, every one in GstCudaMemory, after `uploads` uploads of ours and
 * no download. */
void
expect_cuda_memory_out (const std::string & chain, const Stream & s, guint64 uploads)
{
  std::string error;
  gst_cv_transfer_counts_reset ();
  const std::vector<SinkFrame> out = run_appsrc (chain, s.caps, copies (s), &error);
  guint64 up = 0, down = 0;
  gst_cv_transfer_counts (&up, &down);
  ASSERT_EQ (error, "");
  expect_stream_equals_cpu (out, s);
  for (const SinkFrame & fr : out)
    EXPECT_TRUE (fr.cuda_memory);
  EXPECT_EQ (up, uploads);
  EXPECT_EQ (down, 0u);
}

}  // namespace

/* System memory in and out: the CPU backend's faces and bytes for every
 * new input (the luma read in place, the chroma copied on the device, the
 * boxes drawn after collect on YUV and on 3-byte RGB, in the frame graph
 * on 4-byte RGB). */
TEST (FaceGpuElement, NewInputsMatchTheCpuBackend)
{
  REQUIRE_CASCADES ();
  for (const NewInput & in : new_inputs ())
    expect_gpu_equals_cpu (in, "", nullptr);
}

/* The same in every block-sizing mode, for the portraits' new formats. */
TEST (FaceGpuElement, NewInputsMatchTheCpuBackendInEveryBlockSizingMode)
{
  REQUIRE_CASCADES ();
  for (const NewInput & in : new_inputs ()) {
    if (in.props.empty () && in.what.rfind ("511x509", 0) != 0 && in.what.rfind ("corner", 0) != 0) {
      for (const char *mode : kBlockSizingModes)
        expect_gpu_equals_cpu (in, mode, nullptr);
    }
  }
}

/* Device memory out (memory:CudaVisionMemory), mapped on the host here. */
TEST (FaceGpuElement, NewInputsToDeviceMemory)
{
  REQUIRE_CASCADES ();
  for (const NewInput & in : new_inputs ())
    expect_gpu_equals_cpu (in, "", GST_CAPS_FEATURE_MEMORY_CUDAVISION);
}

/* latency-frames=1 with device memory on both pads (an upstream
 * cudafacedetect draw=false passes the frames on unchanged, on the
 * device): each frame leaves with its own faces and its boxes drawn when
 * the next is queued (after collect on YUV and 3-byte RGB), the bytes the
 * CPU backend's; the element answers one frame more latency than
 * upstream, so the frames really were held. */
TEST (FaceGpuElement, NewInputsHeldOneFrame)
{
  REQUIRE_CASCADES ();
  const cv::Mat astro = load_rgb (data_path ("astronaut.png"));
  const cv::Mat grace = load_rgb (data_path ("grace_hopper.jpg"));
  ASSERT_EQ (astro.size (), grace.size ());
  const cv::Mat astro_odd = astro (cv::Rect (0, 0, 511, 509)).clone ();
  const cv::Mat grace_odd = grace (cv::Rect (1, 3, 511, 509)).clone ();
  const cv::Mat corner = astro (cv::Rect (150, 58, 117, 107)).clone ();
  struct Case {
    std::vector<cv::Mat> rgb;
    GstVideoFormat format;
    const char *props;
  };
  const Case cases[] = {
    { { astro, grace, astro }, GST_VIDEO_FORMAT_NV12, "color=0xffff0000" },
    { { astro, grace, astro }, GST_VIDEO_FORMAT_I420, "color=0xffff0000" },
    { { astro, grace, astro }, GST_VIDEO_FORMAT_RGB, "color=0xffff0000" },
    { { astro, grace, astro }, GST_VIDEO_FORMAT_BGR, "" },
    { { astro, grace, astro }, GST_VIDEO_FORMAT_ARGB, "color=0x80ff4020" },
    { { astro_odd, grace_odd }, GST_VIDEO_FORMAT_NV12, "" },
    { { astro_odd, grace_odd }, GST_VIDEO_FORMAT_RGB, "" },
    { { corner, corner }, GST_VIDEO_FORMAT_I420, "min-neighbors=0" },
  };
  for (const Case & k : cases) {
    const Stream s = make_stream (k.rgb, k.format, k.props);
    SCOPED_TRACE (s.caps + " " + k.props);
    std::string error;
    std::pair<GstClockTime, GstClockTime> latency { GST_CLOCK_TIME_NONE, GST_CLOCK_TIME_NONE };
    const std::vector<SinkFrame> out = run_appsrc ("cudafacedetect name=u backend=cuda draw=false post-messages=false ! "
                                                   "cudafacedetect name=e backend=cuda latency-frames=1 " +
            std::string (k.props) + " ! video/x-raw(" GST_CAPS_FEATURE_MEMORY_CUDAVISION ")",
        s.caps, copies (s), &error, &latency);
    ASSERT_EQ (error, "");
    expect_stream_equals_cpu (out, s);
    for (const SinkFrame & f : out)
      EXPECT_TRUE (f.cv_memory);
    ASSERT_TRUE (GST_CLOCK_TIME_IS_VALID (latency.first) && GST_CLOCK_TIME_IS_VALID (latency.second));
    EXPECT_EQ (latency.second - latency.first, gst_util_uint64_scale_int (GST_SECOND, 1, 30));
  }
}

/* memory:CUDAMemory out from system memory in: the buffers hold nvcodec's
 * GstCudaMemory, their bytes (mapped on the host) the CPU backend's; one
 * upload of ours a frame at the input edge and no download (the frames
 * leave on the device). */
TEST (FaceGpuElement, CudaMemoryOut)
{
  REQUIRE_CASCADES ();
  const cv::Mat astro = load_rgb (data_path ("astronaut.png"));
  const cv::Mat grace = load_rgb (data_path ("grace_hopper.jpg"));
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR,
           GST_VIDEO_FORMAT_RGBA }) {
    const Stream s = make_stream ({ astro, grace }, f, "color=0xffff0000");
    SCOPED_TRACE (s.caps);
    ASSERT_NO_FATAL_FAILURE (expect_cuda_memory_out (std::string ("cudafacedetect backend=cuda color=0xffff0000 ! "
                                                                   "video/x-raw(" GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY
                                                                   "),format=") +
            gst_video_format_to_string (f),
        s, s.frames.size ()));
  }
}

/* Device frames in (an upstream cudafacedetect draw=false, which does the
 * one upload a frame at the edge), memory:CUDAMemory out: no transfer
 * beyond that upload. */
TEST (FaceGpuElement, CudaMemoryOutFromDeviceFrames)
{
  REQUIRE_CASCADES ();
  const cv::Mat astro = load_rgb (data_path ("astronaut.png"));
  const cv::Mat grace = load_rgb (data_path ("grace_hopper.jpg"));
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_RGB }) {
    const Stream s = make_stream ({ astro, grace, astro }, f, "");
    SCOPED_TRACE (s.caps);
    ASSERT_NO_FATAL_FAILURE (expect_cuda_memory_out (
        std::string ("cudafacedetect backend=cuda draw=false post-messages=false ! "
                     "video/x-raw(" GST_CAPS_FEATURE_MEMORY_CUDAVISION ") ! cudafacedetect backend=cuda ! "
                     "video/x-raw(" GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY "),format=") +
            gst_video_format_to_string (f),
        s, s.frames.size ()));
  }
}

/* nvcodec's own elements on both sides: cudaupload's GstCudaMemory in,
 * ours of GstCudaMemory out to cudadownload (each part where nvcodec has
 * the element). From cudaupload no transfer of ours at all. cudadownload
 * (a GstBaseTransform) drops the region metas, whose tags say video, so
 * only the bytes are compared after it. */
TEST (FaceGpuElement, CudaMemoryWithNvcodecElements)
{
  REQUIRE_CASCADES ();
  const bool up_ok = have_element ("cudaupload"), down_ok = have_element ("cudadownload");
  if (!up_ok && !down_ok)
    GTEST_SKIP () << "nvcodec's cudaupload and cudadownload are not available";
  const cv::Mat astro = load_rgb (data_path ("astronaut.png"));
  const cv::Mat grace = load_rgb (data_path ("grace_hopper.jpg"));
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_BGR }) {
    const std::string format = gst_video_format_to_string (f);
    const Stream s = make_stream ({ astro, grace }, f, "color=0xffff0000");
    SCOPED_TRACE (s.caps);
    const std::string cuda = "video/x-raw(" GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY "),format=" + format;
    if (down_ok) {
      SCOPED_TRACE ("through cudadownload");
      std::string error;
      const std::vector<SinkFrame> out = run_appsrc ("cudafacedetect backend=cuda color=0xffff0000 ! " + cuda +
              " ! cudadownload ! video/x-raw,format=" + format,
          s.caps, copies (s), &error);
      ASSERT_EQ (error, "");
      expect_stream_equals_cpu (out, s, false);
    } else {
      std::printf ("[ skipped  ] cudadownload: nvcodec's element is not available\n");
    }
    if (up_ok) {
      SCOPED_TRACE ("from cudaupload");
      ASSERT_NO_FATAL_FAILURE (
          expect_cuda_memory_out ("cudaupload ! " + cuda + " ! cudafacedetect backend=cuda color=0xffff0000 ! " + cuda,
              s, 0));
    } else {
      std::printf ("[ skipped  ] cudaupload: nvcodec's element is not available\n");
    }
  }
}
