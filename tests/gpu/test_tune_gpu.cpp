/* cudavision-tune and block-sizing=auto on the GPU: a small tuning run
 * writes a table that cudagray then reads and uses (seen in the launch
 * log); --resume keeps what is there; every registered kernel can be tuned;
 * canny, flow and face kernels get entries under their work sizes, level
 * by level where they run per pyramid level; every block-sizing mode gives
 * the same pixels; auto settles within 30 frames and saves what it
 * learned. Skips (exit 77) without a CUDA device.
 *
 * The tuner runs as the program the build made (tests/common/tune_tool.h). */
#include "../common/harness.h"
#include "../common/tune_tool.h"

#include "../../cuda/common/device_info.h"
#include "../../core/policy/tuning_table.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>

using namespace cvtest;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir ()
  {
    gchar *d = g_dir_make_tmp ("cudavision-tune-XXXXXX", nullptr);
    path = d;
    g_free (d);
  }
  ~TempDir ()
  {
    std::error_code ec;
    fs::remove_all (path, ec);
  }
  std::string operator/ (const std::string & name) const { return (path / name).string (); }
};

cudavision::DeviceDescription
this_gpu ()
{
  cudavision::DeviceDescription dev;
  EXPECT_EQ (cudaSetDevice (0), cudaSuccess);
  EXPECT_TRUE (cudavision::query_current_device (&dev).ok ());
  return dev;
}

/* The lines of the cudavision-launch debug category while it lives. */
class LaunchLog {
public:
  LaunchLog ()
  {
    gst_debug_set_threshold_for_name ("cudavision-launch", GST_LEVEL_DEBUG);
    current () = this;
    gst_debug_add_log_function (&LaunchLog::capture, nullptr, nullptr);
  }
  ~LaunchLog ()
  {
    gst_debug_remove_log_function (&LaunchLog::capture);
    current () = nullptr;
  }
  std::vector<std::string> lines () const
  {
    std::lock_guard<std::mutex> g (lock_);
    return lines_;
  }
  /* Lines holding every one of `parts`. */
  std::vector<std::string> find (const std::vector<std::string> & parts) const
  {
    std::vector<std::string> out;
    for (const auto & l : lines ()) {
      bool all = true;
      for (const auto & p : parts)
        all = all && l.find (p) != std::string::npos;
      if (all)
        out.push_back (l);
    }
    return out;
  }
  void clear ()
  {
    std::lock_guard<std::mutex> g (lock_);
    lines_.clear ();
  }

private:
  static LaunchLog *& current ()
  {
    static LaunchLog *c = nullptr;
    return c;
  }
  static void capture (GstDebugCategory * cat, GstDebugLevel, const gchar *, const gchar *, gint, GObject *,
      GstDebugMessage * msg, gpointer)
  {
    LaunchLog *self = current ();
    if (!self || g_strcmp0 (gst_debug_category_get_name (cat), "cudavision-launch") != 0)
      return;
    std::lock_guard<std::mutex> g (self->lock_);
    self->lines_.push_back (gst_debug_message_get (msg));
  }

  mutable std::mutex lock_;
  std::vector<std::string> lines_;
};

std::string
slurp (const std::string & path)
{
  std::ifstream in (path);
  std::ostringstream s;
  s << in.rdbuf ();
  return s.str ();
}

int
count_lines (const std::string & s)
{
  return (int) std::count (s.begin (), s.end (), '\n');
}

/* One RGBA frame through cudagray with `props`, checked bit-exact against
 * OpenCV's grey. */
void
expect_gray (const std::string & props, const cv::Mat & rgb, const std::string & what)
{
  const std::string in_caps = caps_string (GST_VIDEO_FORMAT_RGBA, rgb.cols, rgb.rows);
  const std::string out_caps = caps_string (GST_VIDEO_FORMAT_GRAY8, rgb.cols, rgb.rows);
  cv::Mat out = run_harness_mat ("cudagray backend=cuda " + props, in_caps, out_caps,
      rgb_to_buffer (rgb, GST_VIDEO_FORMAT_RGBA));
  ASSERT_FALSE (out.empty ()) << what;
  const Diff d = compare (out, expected_gray (rgb, GST_VIDEO_FORMAT_RGBA));
  EXPECT_EQ (d.differing, 0) << what << ": max diff " << d.max_abs;
}

/* `frames` frames of a moving pattern through cudagray with `props`. */
std::vector<cv::Mat>
gray_stream (const std::string & props, int width, int height, int frames)
{
  return pull_all ("videotestsrc num-buffers=" + std::to_string (frames) +
      " pattern=ball ! video/x-raw,format=RGBA,width=" + std::to_string (width) + ",height=" +
      std::to_string (height) + " ! cudagray " + props + " ! video/x-raw,format=GRAY8 ! appsink name=out sync=false");
}

}  // namespace

TEST (TuneGpu, TableFromTheTunerIsReadAndUsed)
{
  const cudavision::DeviceDescription dev = this_gpu ();
  TempDir dir;
  const std::string table_path = dir / "table.tsv";
  std::string out;
  const int rc = run_tuner ({ "--kernels", "gray.packed4", "--sizes", "640x480,1280x720", "--output", table_path,
                                "--report", dir / "report", "--warmup", "2", "--iters", "7" },
      &out);
  ASSERT_EQ (rc, 0) << out;
  EXPECT_NE (out.find ("total time"), std::string::npos) << out;
  std::printf ("%s", out.c_str ());

  cudavision::TuningTable table;
  std::string err;
  ASSERT_TRUE (table.load (table_path, &err)) << err;
  EXPECT_EQ (table.size (), 2u);
  std::map<std::string, cudavision::BlockShape> tuned;
  for (auto [w, h] : { std::pair<int, int> { 640, 480 }, { 1280, 720 } }) {
    auto e = table.lookup (dev, "gray.packed4", w, h);
    ASSERT_TRUE (e.has_value ()) << w << "x" << h << " missing from\n" << slurp (table_path);
    EXPECT_GT (e->time_us, 0.0);
    EXPECT_LT (e->time_us, 10000.0);
    EXPECT_EQ (e->driver_version, dev.driver_version);
    tuned[std::to_string (w) + "x" + std::to_string (h)] = e->block;
  }

  /* The report: one row per size, every timed shape, the plot inputs. */
  const std::string csv = slurp (dir / "report/report.csv");
  EXPECT_EQ (count_lines (csv), 3) << csv;
  const std::string samples = slurp (dir / "report/samples.csv");
  EXPECT_GE (count_lines (samples), 1 + 2 * 60) << "63 2D shapes per size, less what cannot launch";
  EXPECT_NE (samples.find ("gray.packed4,640,480,32x8,256,"), std::string::npos) << "the static shape is timed";
  EXPECT_TRUE (fs::exists (dir / "report/report.md"));
  EXPECT_TRUE (fs::exists (dir / "report/plot.gp"));
  EXPECT_TRUE (fs::exists (dir / "report/data/gray.packed4.dat"));

  /* cudagray reads that table and launches its shapes. */
  LaunchLog log;
  for (const auto & [size, shape] : tuned) {
    const int w = std::stoi (size), h = std::stoi (size.substr (size.find ('x') + 1));
    expect_gray ("block-sizing=empirical-table tuning-table=" + table_path, random_rgb (w, h, w + h), size);
    const auto used = log.find ({ "kernel gray.packed4 " + size + ": block " + shape.str () + " grid", "(table)" });
    EXPECT_FALSE (used.empty ()) << "the table's " << shape.str () << " was not used at " << size;
  }
  EXPECT_TRUE (log.find ({ "table-miss" }).empty ());
}

TEST (TuneGpu, ResumeKeepsWhatIsThereAndAddsTheRest)
{
  const cudavision::DeviceDescription dev = this_gpu ();
  TempDir dir;
  const std::string table_path = dir / "table.tsv";
  /* An entry of another GPU, and this GPU's 640x480 with a time no run
   * would measure: --resume must keep both as they are. */
  cudavision::TuningTable t;
  t.put ({ "Some Other GPU", 8, 6, 84, "gray.packed4", 640, 480 }, { { 64, 1 }, 1.5, 1 });
  t.put ({ dev.name, dev.cc_major, dev.cc_minor, dev.sm_count, "gray.packed4", 640, 480 }, { { 96, 3 }, 1234.5, 7 });
  std::string err;
  ASSERT_TRUE (t.save (table_path, &err)) << err;

  std::string out;
  ASSERT_EQ (run_tuner ({ "--kernels", "gray.packed4", "--sizes", "640x480,320x240", "--output", table_path,
                 "--resume", "--warmup", "1", "--iters", "3" },
                &out),
      0)
      << out;
  EXPECT_NE (out.find ("gray.packed4 640x480: in the table already"), std::string::npos) << out;
  cudavision::TuningTable after;
  ASSERT_TRUE (after.load (table_path, &err)) << err;
  EXPECT_EQ (after.size (), 3u);
  auto kept = after.lookup (dev, "gray.packed4", 640, 480);
  ASSERT_TRUE (kept.has_value ());
  EXPECT_EQ (kept->block, (cudavision::BlockShape { 96, 3 }));
  EXPECT_EQ (kept->time_us, 1234.5);
  EXPECT_TRUE (after.lookup (dev, "gray.packed4", 320, 240).has_value ());

  /* Without --resume the same run measures 640x480 again and replaces it. */
  ASSERT_EQ (run_tuner ({ "--kernels", "gray.packed4", "--sizes", "640x480", "--output", table_path, "--warmup", "1",
                 "--iters", "3" },
                &out),
      0)
      << out;
  cudavision::TuningTable again;
  ASSERT_TRUE (again.load (table_path, &err)) << err;
  EXPECT_EQ (again.size (), 3u);
  /* replaced: a measured time (not the planted one: under compute-sanitizer
   * a 640x480 launch can take over 1234.5 us, so no bound on the value) and
   * this driver's version instead of the planted 7 */
  EXPECT_NE (again.lookup (dev, "gray.packed4", 640, 480)->time_us, 1234.5);
  EXPECT_GT (again.lookup (dev, "gray.packed4", 640, 480)->time_us, 0.0);
  EXPECT_EQ (again.lookup (dev, "gray.packed4", 640, 480)->driver_version, dev.driver_version);
}

TEST (TuneGpu, EveryRegisteredKernelCanBeTuned)
{
  const cudavision::DeviceDescription dev = this_gpu ();
  std::string list;
  ASSERT_EQ (run_tuner ({ "--list" }, &list), 0) << list;
  std::set<std::string> tunable, fixed, unavailable;
  std::istringstream ls (list);
  std::string line;
  std::getline (ls, line); /* header */
  while (std::getline (ls, line)) {
    const std::string name = line.substr (0, line.find (' '));
    if (line.find ("fixed block") != std::string::npos)
      fixed.insert (name);
    else if (line.find ("not measured:") != std::string::npos)
      unavailable.insert (name); /* e.g. the face cascade is not installed */
    else
      tunable.insert (name);
  }
  ASSERT_GE (tunable.size (), 30u) << list;
  for (const auto & k : unavailable)
    std::printf ("not measured on this machine: %s\n", k.c_str ());

  TempDir dir;
  std::string out;
  ASSERT_EQ (run_tuner ({ "--sizes", "320x240", "--output", dir / "all.tsv", "--warmup", "1", "--iters", "3" }, &out), 0)
      << out;
  for (const auto & k : fixed)
    EXPECT_NE (out.find (k + ": fixed"), std::string::npos) << k << " not reported as skipped\n" << out;
  for (const auto & k : unavailable)
    EXPECT_NE (out.find (k + ": not measured"), std::string::npos) << k << " not reported as skipped\n" << out;
  cudavision::TuningTable table;
  std::string err;
  ASSERT_TRUE (table.load (dir / "all.tsv", &err)) << err;
  std::set<std::string> in_table;
  for (const auto & [key, e] : table.entries ()) {
    EXPECT_EQ (key.gpu_name, dev.name);
    EXPECT_GT (e.time_us, 0.0) << key.kernel;
    in_table.insert (key.kernel);
  }
  EXPECT_EQ (in_table, tunable) << out;
  /* The candidate kernel is keyed by the interior it works on. */
  EXPECT_TRUE (table.lookup (dev, "harris.candidates", 318, 238).has_value ());
}

/* One kernel each of cudacanny, cudaflow and cudafacedetect at a small
 * size: entries under the work sizes the launchers ask for, and the
 * per-level kernel flow.pyrdown at every level of the frame, each under
 * its own key; facedetect.cascade and facedetect.stages, which cover every
 * level in one launch, under the frame's. */
TEST (TuneGpu, CannyFlowAndFaceKernelsAreTunedAtTheirWorkSizes)
{
  const cudavision::DeviceDescription dev = this_gpu ();
  TempDir dir;
  const std::string table_path = dir / "t.tsv";
  std::string out;
  ASSERT_EQ (run_tuner ({ "--kernels", "canny.merge,flow.pyrdown,flow.lk,facedetect.cascade,facedetect.stages",
                            "--sizes", "320x240", "--output", table_path, "--warmup", "1", "--iters", "3" },
                 &out),
      0)
      << out;
  std::printf ("%s", out.c_str ());
  EXPECT_EQ (out.find ("is not launched"), std::string::npos) << out;
  cudavision::TuningTable table;
  std::string err;
  ASSERT_TRUE (table.load (table_path, &err)) << err;
  std::map<std::string, int> per_kernel;
  for (const auto & [key, e] : table.entries ())
    per_kernel[key.kernel]++;
  auto expect_entry = [&] (const std::string & kernel, long w, long h) {
    const auto e = table.lookup (dev, kernel, w, h);
    ASSERT_TRUE (e.has_value ()) << kernel << " " << w << "x" << h << " missing from\n" << slurp (table_path);
    EXPECT_GT (e->time_us, 0.0) << kernel << " " << w << "x" << h;
    EXPECT_LT (e->time_us, 100000.0) << kernel << " " << w << "x" << h;
  };

  /* canny.merge: 64 work items (the right line's 32 rows, the bottom
   * line's 30 columns, two corners) for each of the 11 x 8 tiles of 30x32 */
  expect_entry ("canny.merge", 11 * 8 * 64, 1);
  EXPECT_EQ (per_kernel["canny.merge"], 1);
  /* flow.pyrdown: keyed by the level it writes, for levels 1..3 (max-level
   * 3, window 21) */
  for (auto [w, h] : { std::pair<int, int> { 160, 120 }, { 80, 60 }, { 40, 30 } })
    expect_entry ("flow.pyrdown", w, h);
  EXPECT_EQ (per_kernel["flow.pyrdown"], 3);
  /* flow.lk: the dense grid of 8 pixels, 40 x 30 points, a warp each */
  expect_entry ("flow.lk", 40 * 30 * 32, 1);
  EXPECT_EQ (per_kernel["flow.lk"], 1);

  /* facedetect.cascade: one launch over every level, keyed by the frame */
  const std::string cascade = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml";
  if (!fs::exists (cascade)) {
    EXPECT_NE (out.find ("facedetect.cascade: not measured"), std::string::npos) << out;
    GTEST_SKIP () << cascade << " is not installed: the face kernel is skipped, as it should be";
  }
  expect_entry ("facedetect.cascade", 320, 240);
  EXPECT_EQ (per_kernel["facedetect.cascade"], 1);
  /* facedetect.stages: timed under a schedule with a round (the default
   * has none), so it is launched and measured too */
  expect_entry ("facedetect.stages", 320, 240);
  EXPECT_EQ (per_kernel["facedetect.stages"], 1);
  EXPECT_EQ (table.size (), 1u + 3u + 1u + 2u) << slurp (table_path);
}

TEST (TuneGpu, EveryModeGivesTheSamePixels)
{
  const cudavision::DeviceDescription dev = this_gpu ();
  TempDir dir;
  /* A table with a shape no other mode picks. */
  cudavision::TuningTable t;
  t.put ({ dev.name, dev.cc_major, dev.cc_minor, dev.sm_count, "gray.packed4", 1280, 720 }, { { 256, 3 }, 1.0, 0 });
  std::string err;
  ASSERT_TRUE (t.save (dir / "t.tsv", &err)) << err;

  const int frames = 40;
  const std::vector<cv::Mat> ref = gray_stream ("backend=cpu", 1280, 720, frames);
  ASSERT_EQ ((int) ref.size (), frames);
  LaunchLog log;
  const std::vector<std::string> modes = { "block-sizing=static", "block-sizing=static block-size=64x2",
    "block-sizing=empirical-table tuning-table=" + dir / "t.tsv", "block-sizing=model", "block-sizing=auto",
    "block-sizing=auto tuning-table=" + dir / "t.tsv" };
  for (const std::string & mode : modes) {
    const std::vector<cv::Mat> got = gray_stream ("backend=cuda " + mode, 1280, 720, frames);
    ASSERT_EQ (got.size (), ref.size ()) << mode;
    for (int i = 0; i < frames; i++) {
      const Diff d = compare (got[i], ref[i]);
      EXPECT_EQ (d.differing, 0) << mode << " frame " << i << ": max diff " << d.max_abs;
    }
  }
  EXPECT_FALSE (log.find ({ "gray.packed4 1280x720: block 256x3", "(table)" }).empty ());
  /* auto really launched several shapes while giving those pixels, the
   * table's among them */
  std::set<std::string> tried;
  const std::regex shape ("block ([0-9]+x[0-9]+) grid");
  for (const auto & l : log.find ({ "gray.packed4 1280x720", "(auto:trial)" })) {
    std::smatch m;
    if (std::regex_search (l, m, shape))
      tried.insert (m[1]);
  }
  EXPECT_GE (tried.size (), 3u);
  EXPECT_EQ (tried.count ("256x3"), 1u) << "the table's entry is a candidate";
}

TEST (TuneGpu, AutoSettlesWithin30FramesAt1080pAndSaves)
{
  const cudavision::DeviceDescription dev = this_gpu ();
  TempDir dir;
  const std::string table_path = dir / "learned/auto.tsv";
  LaunchLog log;
  const std::vector<cv::Mat> got =
      gray_stream ("backend=cuda block-sizing=auto save-tuning=true tuning-table=" + table_path, 1920, 1080, 45);
  ASSERT_EQ (got.size (), 45u);

  const auto settled = log.find ({ "kernel gray.packed4 1920x1080: auto settled on" });
  ASSERT_EQ (settled.size (), 1u) << "never settled (or twice)";
  std::printf ("%s\n", settled[0].c_str ());
  std::smatch m;
  ASSERT_TRUE (std::regex_search (settled[0], m, std::regex ("settled on ([0-9]+x[0-9]+) after ([0-9]+) launches")));
  const std::string winner = m[1];
  EXPECT_LE (std::stoi (m[2]), 30) << "settled after more than 30 frames";

  /* Then it stays: the last frames launch the winner, untimed. */
  const auto steady = log.find ({ "kernel gray.packed4 1920x1080: block " + winner, "(auto)" });
  EXPECT_GE (steady.size (), 10u);
  const auto lines = log.lines ();
  EXPECT_NE (lines.back ().find ("(auto)"), std::string::npos) << lines.back ();

  /* save-tuning: the learned entry is in the file, for this GPU. */
  cudavision::TuningTable table;
  std::string err;
  ASSERT_TRUE (table.load (table_path, &err)) << err;
  auto e = table.lookup (dev, "gray.packed4", 1920, 1080);
  ASSERT_TRUE (e.has_value ());
  EXPECT_EQ (e->block.str (), winner);
  EXPECT_GT (e->time_us, 0.0);

  /* And pixels as on the CPU. */
  const std::vector<cv::Mat> ref = gray_stream ("backend=cpu", 1920, 1080, 45);
  ASSERT_EQ (ref.size (), got.size ());
  for (size_t i = 0; i < got.size (); i++)
    EXPECT_EQ (compare (got[i], ref[i]).differing, 0) << "frame " << i;
}
