/* cudavision-bench-cpu — OpenCV's CPU functions for the work our elements
 * do on the GPU, timed on the bundled pictures scaled to 1080p and 4K. The
 * issues quote CPU references at 16 threads (cv::cornerHarris 35 ms,
 * calcOpticalFlowPyrLK 2.8 ms for 1000 points, calcOpticalFlowFarneback
 * 524 ms, all at 1080p); this measures them, and the CPU work next to
 * cudagray, cudablur, cudacanny and cudafacedetect, on the machine at hand.
 *
 *   cudavision-bench-cpu [--sizes 1920x1080,3840x2160] [--reps 15]
 *                        [--threads N] [--cascade FILE]
 *
 * OpenCV core, imgproc, video and objdetect only (the GPU machine has no
 * imgcodecs): the pictures are decoded by GStreamer with the tests' own
 * code (frames/gst_frames.h). Each row: warm-up calls, then --reps
 * timed calls on the host clock (the slow rows fewer, see kSlowReps); the
 * median, p10 and p90 in ms, and a result (corners, edge pixels, tracked
 * points, faces) that shows the call did the work on a real picture.
 * --threads goes to cv::setNumThreads; without it OpenCV's default. A bad
 * number (not one, or out of its range) is refused, exit status 2. */
#include "bench_util.h"
#include "../frames/gst_frames.h"

#include <gst/gst.h>

#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>
#include <opencv2/video/tracking.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace {

const char *const kDefaultCascade = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml";
/* Farneback and the cascade take seconds per call at 4K on a few cores:
 * at most this many timed calls (and one warm-up) keeps a run in minutes. */
constexpr int kSlowReps = 3;

struct Options {
  std::vector<cv::Size> sizes { { 1920, 1080 }, { 3840, 2160 } };
  int reps = 15;
  int threads = -1; /* -1: OpenCV's default */
  std::string cascade = kDefaultCascade;
};

struct Timing {
  double median = 0, p10 = 0, p90 = 0;
  int reps = 0;
};

Timing
time_calls (int warmup, int reps, const std::function<void ()> & call)
{
  for (int i = 0; i < warmup; i++)
    call ();
  std::vector<double> ms (reps);
  for (auto & m : ms) {
    const auto t0 = std::chrono::steady_clock::now ();
    call ();
    m = std::chrono::duration<double, std::milli> (std::chrono::steady_clock::now () - t0).count ();
  }
  std::sort (ms.begin (), ms.end ());
  return { ms[reps / 2], ms[reps / 10], ms[reps * 9 / 10], reps };
}

/* Prints one table row as soon as it is measured (a long run shows progress). */
struct Table {
  int threads;
  void header () const
  {
    std::printf ("| function | input | size | threads | reps | median ms | p10 ms | p90 ms | result |\n"
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  }
  void row (const std::string & function, const std::string & input, cv::Size s, const Timing & t,
      const std::string & result) const
  {
    std::printf ("| %s | %s | %dx%d | %d | %d | %.3f | %.3f | %.3f | %s |\n", function.c_str (), input.c_str (),
        s.width, s.height, threads, t.reps, t.median, t.p10, t.p90, result.c_str ());
    std::fflush (stdout);
  }
};

std::string
data_file (const char *name)
{
  return std::string (CUDAVISION_TEST_DATA) + "/" + name;
}

/* A bundled picture fitted to `s`, converted by `code` (RGB2GRAY, RGB2RGBA). */
cv::Mat
picture (const char *name, cv::Size s, int code, double cy = 0.5)
{
  cv::Mat out;
  cv::cvtColor (cvtest::fit_picture (cvtest::load_rgb (data_file (name)), s, cy), out, code);
  return out;
}

std::string
count_str (size_t n, const char *what)
{
  return std::to_string (n) + " " + what;
}

void
bench_pointwise (const Options & o, const Table & tab, cv::Size s)
{
  const cv::Mat rgba = picture ("building.jpg", s, cv::COLOR_RGB2RGBA);
  const cv::Mat gray = picture ("building.jpg", s, cv::COLOR_RGB2GRAY);
  cv::Mat out;
  const std::string pic = "building.jpg";

  tab.row ("cv::cvtColor RGBA2GRAY", "RGBA " + pic, s,
      time_calls (3, o.reps, [&] { cv::cvtColor (rgba, out, cv::COLOR_RGBA2GRAY); }), "GRAY8 frame");
  tab.row ("cv::GaussianBlur 5x5 sigma 1.1", "GRAY8 " + pic, s,
      time_calls (3, o.reps, [&] { cv::GaussianBlur (gray, out, cv::Size (5, 5), 1.1, 1.1); }), "GRAY8 frame");
  tab.row ("cv::GaussianBlur 5x5 sigma 1.1", "RGBA " + pic, s,
      time_calls (3, o.reps, [&] { cv::GaussianBlur (rgba, out, cv::Size (5, 5), 1.1, 1.1); }), "RGBA frame");
  for (bool l2 : { false, true }) {
    const Timing t = time_calls (3, o.reps, [&] { cv::Canny (gray, out, 50, 150, 3, l2); });
    tab.row (std::string ("cv::Canny 50/150 aperture 3 ") + (l2 ? "L2" : "L1"), "GRAY8 " + pic, s, t,
        count_str ((size_t) cv::countNonZero (out), "edge pixels"));
  }
}

void
bench_corners (const Options & o, const Table & tab, cv::Size s)
{
  const cv::Mat gray = picture ("building.jpg", s, cv::COLOR_RGB2GRAY);
  const std::string in = "GRAY8 building.jpg";
  cv::Mat resp;
  tab.row ("cv::cornerHarris blockSize 3 ksize 3 k 0.04", in, s,
      time_calls (2, o.reps, [&] { cv::cornerHarris (gray, resp, 3, 3, 0.04); }), "CV_32F response map");
  tab.row ("cv::cornerMinEigenVal blockSize 3 ksize 3", in, s,
      time_calls (2, o.reps, [&] { cv::cornerMinEigenVal (gray, resp, 3, 3); }), "CV_32F response map");
  /* cudaharris's detection: quality 0.01, min distance 10, no limit or 1000 */
  for (bool harris : { true, false }) {
    for (int max_corners : { 0, 1000 }) {
      std::vector<cv::Point2f> corners;
      const Timing t = time_calls (2, o.reps, [&] {
        cv::goodFeaturesToTrack (gray, corners, max_corners, 0.01, 10, cv::noArray (), 3, 3, harris, 0.04);
      });
      tab.row (std::string ("cv::goodFeaturesToTrack ") + (harris ? "Harris" : "Shi-Tomasi") + " q 0.01 dist 10 max " +
          std::to_string (max_corners), in, s, t, count_str (corners.size (), "corners"));
    }
  }
}

/* cudaflow's defaults (gst/gstcudaflow.cpp, cuda/flow_params.h): window 21,
 * maxLevel 3, 30 iterations / epsilon 0.01, minEigThreshold 1e-4. */
const cv::Size kWin (21, 21);
constexpr int kMaxLevel = 3;
const cv::TermCriteria kCrit (cv::TermCriteria::COUNT | cv::TermCriteria::EPS, 30, 0.01);

std::vector<cv::Point2f>
grid_points (cv::Size s, int step)
{
  /* cudaflow's grid (cuda/flow_params.h flow_grid_point): cell centres */
  std::vector<cv::Point2f> pts;
  for (int y0 = 0; y0 < s.height; y0 += step)
    for (int x0 = 0; x0 < s.width; x0 += step)
      pts.emplace_back ((x0 + std::min (x0 + step, s.width) - 1) * 0.5f, (y0 + std::min (y0 + step, s.height) - 1) * 0.5f);
  return pts;
}

void
bench_lk (const Options & o, const Table & tab, cv::Size s, const cv::Mat & prev, const cv::Mat & next,
    const std::vector<cv::Point2f> & pts, const std::string & what)
{
  std::vector<cv::Point2f> out;
  std::vector<uchar> status;
  std::vector<float> err;
  auto tracked = [&] { return count_str ((size_t) std::count (status.begin (), status.end (), 1), "tracked"); };
  const std::string in = "GRAY8 basketball1 -> 2";
  /* Both pyramids built inside the call: what a one-off call costs. */
  Timing t = time_calls (2, o.reps, [&] {
    cv::calcOpticalFlowPyrLK (prev, next, pts, out, status, err, kWin, kMaxLevel, kCrit, 0, 1e-4);
  });
  tab.row ("cv::calcOpticalFlowPyrLK on images (both pyramids built), " + what, in, s, t, tracked ());
  /* What cudaflow does per frame: the previous frame's pyramid kept, the
   * new one built (with derivatives: it is the next call's previous). */
  std::vector<cv::Mat> prev_pyr, next_pyr;
  cv::buildOpticalFlowPyramid (prev, prev_pyr, kWin, kMaxLevel);
  t = time_calls (2, o.reps, [&] {
    cv::buildOpticalFlowPyramid (next, next_pyr, kWin, kMaxLevel);
    cv::calcOpticalFlowPyrLK (prev_pyr, next_pyr, pts, out, status, err, kWin, kMaxLevel, kCrit, 0, 1e-4);
  });
  tab.row ("cv::buildOpticalFlowPyramid (new frame) + calcOpticalFlowPyrLK, " + what, in, s, t, tracked ());
}

void
bench_flow (const Options & o, const Table & tab, cv::Size s)
{
  const cv::Mat prev = picture ("basketball1.png", s, cv::COLOR_RGB2GRAY);
  const cv::Mat next = picture ("basketball2.png", s, cv::COLOR_RGB2GRAY);
  std::vector<cv::Point2f> corners;
  cv::goodFeaturesToTrack (prev, corners, 1000, 0.01, 10);
  bench_lk (o, tab, s, prev, next, corners, std::to_string (corners.size ()) + " Shi-Tomasi points");
  const std::vector<cv::Point2f> grid = grid_points (s, 8);
  bench_lk (o, tab, s, prev, next, grid, "8-px grid, " + std::to_string (grid.size ()) + " points");

  /* The docs' example parameters: pyr_scale 0.5, levels 3, winsize 15,
   * iterations 3, poly_n 5, poly_sigma 1.2, flags 0. */
  cv::Mat flow;
  const Timing t = time_calls (1, std::min (o.reps, kSlowReps), [&] {
    cv::calcOpticalFlowFarneback (prev, next, flow, 0.5, 3, 15, 3, 5, 1.2, 0);
  });
  cv::Mat mag, ang;
  std::vector<cv::Mat> uv;
  cv::split (flow, uv);
  cv::cartToPolar (uv[0], uv[1], mag, ang);
  char res[64];
  std::snprintf (res, sizeof res, "mean flow magnitude %.2f px", cv::mean (mag)[0]);
  tab.row ("cv::calcOpticalFlowFarneback 0.5, 3, 15, 3, 5, 1.2, 0", "GRAY8 basketball1 -> 2", s, t, res);
}

void
bench_faces (const Options & o, const Table & tab, cv::Size s)
{
  cv::CascadeClassifier cascade;
  if (!std::filesystem::exists (o.cascade) || !cascade.load (o.cascade)) {
    std::printf ("| cv::CascadeClassifier::detectMultiScale | skipped: cannot load %s | %dx%d | | | | | | |\n",
        o.cascade.c_str (), s.width, s.height);
    return;
  }
  /* astronaut.png's face is near the top: crop around it */
  const cv::Mat gray = picture ("astronaut.png", s, cv::COLOR_RGB2GRAY, 0.22);
  std::vector<cv::Rect> faces;
  /* cudafacedetect's call (gst/gstcudafacedetect.cpp): scale 1.1, 3 neighbours, no flags, no size limits */
  const Timing t = time_calls (1, std::min (o.reps, kSlowReps), [&] {
    cascade.detectMultiScale (gray, faces, 1.1, 3, 0, cv::Size (), cv::Size ());
  });
  std::string res = count_str (faces.size (), faces.size () == 1 ? "face" : "faces");
  for (const auto & f : faces)
    res += " (" + std::to_string (f.x) + "," + std::to_string (f.y) + " " + std::to_string (f.width) + "x" +
        std::to_string (f.height) + ")";
  tab.row ("cv::CascadeClassifier::detectMultiScale 1.1, 3 (frontalface_default)", "GRAY8 astronaut.png", s, t,
      res);
}

std::string
cpu_model ()
{
  std::ifstream f ("/proc/cpuinfo");
  std::string line;
  while (std::getline (f, line))
    if (line.rfind ("model name", 0) == 0)
      return line.substr (line.find (':') + 2);
  return "unknown";
}

/* The 1, 5 and 15 minute load averages: on a shared machine, whether
 * something else ran beside the benchmark. */
std::string
load_average ()
{
  std::ifstream f ("/proc/loadavg");
  double l[3] = {};
  if (!(f >> l[0] >> l[1] >> l[2]))
    return "unknown";
  char s[64];
  std::snprintf (s, sizeof s, "%.2f %.2f %.2f", l[0], l[1], l[2]);
  return s;
}

/* The options, and GStreamer's own (--gst-debug, ...); exit status 2 on a
 * bad command line. */
bool
parse (int argc, char **argv, Options * o)
{
  g_autofree gchar *sizes = nullptr, *cascade = nullptr, *reps = nullptr, *threads = nullptr;
  const GOptionEntry entries[] = {
    { "sizes", 0, 0, G_OPTION_ARG_STRING, &sizes, "frame sizes (default 1920x1080,3840x2160), sides 1 to 16384",
      "WxH,..." },
    { "reps", 0, 0, G_OPTION_ARG_STRING, &reps,
      "timed calls per measurement, the median is kept (default 15, at most 10000)", "N" },
    { "threads", 0, 0, G_OPTION_ARG_STRING, &threads, "cv::setNumThreads, 0 to 1024 (default: OpenCV's)", "N" },
    { "cascade", 0, 0, G_OPTION_ARG_FILENAME, &cascade, "the Haar cascade (default: Debian's frontal face)",
      "FILE" },
    { nullptr, 0, 0, G_OPTION_ARG_NONE, nullptr, nullptr, nullptr },  /* G_OPTION_ENTRY_NULL is C only */
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new (nullptr);
  g_option_context_set_summary (ctx, "OpenCV's CPU functions for the work cudavision does on the GPU, timed.");
  g_option_context_add_main_entries (ctx, entries, nullptr);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  g_autoptr (GError) err = nullptr;
  if (!g_option_context_parse (ctx, &argc, &argv, &err) || argc > 1) {
    std::fprintf (stderr, "%s: %s (see --help)\n", g_get_prgname (),
        err ? err->message : ("unexpected argument '" + std::string (argv[1]) + "'").c_str ());
    return false;
  }
  /* the numbers: cvbench's strict parser (exit status 2 on a bad one) */
  if (sizes) {
    o->sizes.clear ();
    for (const cvbench::Dims & d : cvbench::arg_dims_list ("--sizes", sizes, 1, cvbench::kMaxSide))
      o->sizes.emplace_back (d.w, d.h);
  }
  if (reps)
    o->reps = cvbench::arg_int ("--reps", reps, 1, 10000);
  if (threads)
    o->threads = cvbench::arg_int ("--threads", threads, 0, 1024);
  if (cascade)
    o->cascade = cascade;
  return true;
}

}  // namespace

int
main (int argc, char **argv)
{
  Options o;
  if (!parse (argc, argv, &o))  /* initialises GStreamer too */
    return 2;
  if (o.threads >= 0)
    cv::setNumThreads (o.threads);
  std::printf ("CPU: %s, %d logical CPUs; OpenCV %s, cv::getNumThreads() = %d\n", cpu_model ().c_str (),
      cv::getNumberOfCPUs (), CV_VERSION, cv::getNumThreads ());
  std::printf ("median of %d timed calls after warm-up (%d for Farneback and the cascade); load average %s\n\n",
      o.reps, std::min (o.reps, kSlowReps), load_average ().c_str ());
  const Table tab { cv::getNumThreads () };
  tab.header ();
  try {
    for (const cv::Size & s : o.sizes) {
      bench_pointwise (o, tab, s);
      bench_corners (o, tab, s);
      bench_flow (o, tab, s);
      bench_faces (o, tab, s);
    }
  } catch (const std::exception & e) {
    std::fprintf (stderr, "%s\n", e.what ());
    return 1;
  }
  std::printf ("\nload average at the end: %s\n", load_average ().c_str ());
  return 0;
}
