/* cudafacedetect on the GPU: the raw windows and the grouped faces of
 * FaceDetector against cv::CascadeClassifier (OpenCV 4.x's windows are
 * expected bit for bit: cuda/haar_eval.h is proved so on the CPU by the
 * facedetect-reference unit test), four cascades (stumps and trees), every
 * block-sizing mode giving identical detections, every kernel of every
 * level asking the policy with that level's size, the list growing past
 * its first capacity, sizes from 1x1 to 4K, and the element: portraits
 * with IoU >= 0.8, iceblock without a face, the LFW known-position mosaic,
 * boxes identical to the CPU backend's, device-memory chains.
 * Skips (exit 77) without a CUDA device. */
#include "../common/device_fixture.h"
#include "../common/face_ref.h"
#include "../common/harness.h"

#include "../../cuda/face/face_grouping.h"
#include "../../cuda/face/facedetect.h"
#include "../../cuda/policy/tuning_table.h"
#include "gstcvmemory.h"

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include <map>
#include <memory>
#include <set>

using namespace cvtest;
using cudavision::FaceDetector;
using cudavision::FaceRect;

namespace {

#define REQUIRE_CASCADES()                                                  \
  do {                                                                      \
    if (!have_haar_cascades ())                                             \
      GTEST_SKIP () << "opencv-data's Haar cascades are not installed";     \
  } while (0)

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

/* The hook sees rows, cols and cascade for every level, each asked with
 * that level's size; a table entry for one level's size is used there only. */
TEST_F (FaceGpu, EveryKernelOfEveryLevelAsksThePolicy)
{
  REQUIRE_CASCADES ();
  const cv::Mat gray = to_gray (load_rgb (data_path ("grace_hopper.jpg")));
  struct Launch {
    std::string kernel;
    int level;
    long w, h;
    std::string shape, source;
    bool end;
  };
  std::vector<Launch> log;
  auto hook = [&] (const cudavision::FaceKernelLaunch & l, bool end, cudaStream_t s) {
    EXPECT_EQ (s, stream.get ());
    log.push_back ({ l.kernel, l.level, l.width, l.height, l.config.block.str (), l.config.source, end });
  };
  const auto levels = cudavision::plan_face_levels (gray.cols, gray.rows, 24, 24, {});
  ASSERT_GT (levels.size (), 20u);

  /* a table that knows the cascade kernel at level 3's window grid only */
  auto table = std::make_shared<cudavision::TuningTable> ();
  const cudavision::FaceLevel & l3 = levels[3];
  table->put ({ dev.name, dev.cc_major, dev.cc_minor, dev.sm_count, "facedetect.cascade", l3.grid_x, l3.grid_y },
      { { 64, 4 }, 1.0, dev.driver_version });
  const cudavision::LaunchPolicy pol (dev, cudavision::BlockSizing::EmpiricalTable, {}, table);
  const FaceDetector::Result r = detect (gray, kDefaultCascade, {}, pol, hook);
  ASSERT_EQ (r.levels.size (), levels.size ());

  ASSERT_EQ (log.size (), levels.size () * 3 * 2);
  for (size_t i = 0; i < levels.size (); i++) {
    const cudavision::FaceLevel & l = levels[i];
    const Launch *k = &log[i * 6];
    EXPECT_EQ (k[0].kernel, "facedetect.rows");
    EXPECT_EQ (k[2].kernel, "facedetect.cols");
    EXPECT_EQ (k[4].kernel, "facedetect.cascade");
    for (int j = 0; j < 6; j++) {
      EXPECT_EQ (k[j].level, (int) i);
      EXPECT_EQ (k[j].end, j % 2 == 1);
    }
    EXPECT_EQ (k[0].w, l.width);
    EXPECT_EQ (k[0].h, l.height);
    EXPECT_EQ (k[2].w, l.width + 1);
    EXPECT_EQ (k[2].h, l.height);
    EXPECT_EQ (k[4].w, l.grid_x);
    EXPECT_EQ (k[4].h, l.grid_y);
    if (i == 3) {
      EXPECT_EQ (k[4].shape, "64x4");
      EXPECT_EQ (k[4].source, std::string ("table"));
    } else {
      EXPECT_EQ (k[4].source, std::string ("table-miss:model")) << "level " << i;
    }
  }
  /* the table shape changes nothing in the result */
  const FaceDetector::Result plain = detect (gray, kDefaultCascade, {}, policy ());
  EXPECT_EQ (r.raw, plain.raw);
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
