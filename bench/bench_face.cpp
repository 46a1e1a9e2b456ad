/* cudavision-bench-face — the face detector's whole-frame time (what the
 * element waits for: every launch, the one read-back, the host grouping)
 * on real pictures and noise, at many sizes, per block-sizing mode.
 *
 *   cudavision-bench-face [--images mosaic,portraits,nonface,noise]
 *       [--sizes 640x480,1920x1080,3840x2160] [--frames 30]
 *       [--modes static,model,auto,table,static:64x4,...] [--table FILE]
 *       [--schedules 1-2-4-7:32/4,3:32pn,...] [--check] [--cascade FILE]
 *       [--kernels] [--interleave]
 *
 * --frames 1 to 100000, --sizes sides 16 to 16384, schedules as below; a
 * bad number, mode or schedule is refused (exit status 2) before CUDA
 * starts.
 *
 * Inputs: frames/face_inputs.h (mosaic, portraits, nonface, noise,
 * leaves: the tuner's synthetic photograph, or a picture of tests/data),
 * grey, resized to (leaves: made at) each size.
 * Modes: static (each kernel's documented shape), static:WxH (that shape
 * for every kernel, the element's block-size), table (--table, the
 * tuner's), model, auto (timed after it has settled on every kernel).
 * --interleave times the modes' frames in turn (every mode's frame i
 * before any mode's frame i + 1, each mode with its own detector), so that
 * a drift in clocks or load falls on all of them alike; without it each
 * mode's frames run together, one mode after the other.
 * --check compares every input's raw windows and grouped faces with
 * cv::CascadeClassifier::detectMultiScale once per size. Prints one row per
 * (input, size, mode, schedule): median, p10 and p90 ms per frame, and
 * host_us=E+C, the host's median time in enqueue () and in collect () once
 * the GPU has finished (not for auto). Timed as cudafacedetect runs the
 * detector: faces only (set_raw_windows (false)), the raw windows counted,
 * not decoded; --check's detector decodes them. */
#include "bench_util.h"

#include "../cuda/common/device_info.h"
#include "../cuda/common/event_timer.h"
#include "../cuda/face/face_grouping.h"
#include "../cuda/face/facedetect.h"
#include "../core/policy/auto_tuner.h"
#include "../core/policy/tuning_table.h"
#include "../frames/face_inputs.h"

#include <gst/gst.h>

#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using cudavision::BlockSizing;
using cudavision::FaceDetector;
using cudavision::FaceRect;

namespace {

std::vector<std::string>
split (const std::string & s, char sep)
{
  std::vector<std::string> out;
  std::stringstream ss (s);
  std::string item;
  while (std::getline (ss, item, sep))
    if (!item.empty ())
      out.push_back (item);
  return out;
}

struct Mode {
  std::string label;
  BlockSizing sizing = BlockSizing::Static;
  cudavision::BlockShape shape;
};

bool
parse_mode (const std::string & s, Mode * m)
{
  m->label = s;
  if (s.rfind ("static:", 0) == 0) {
    m->sizing = BlockSizing::Static;
    return cudavision::BlockShape::parse (s.substr (7), &m->shape);
  }
  if (s == "static" || s == "model" || s == "auto" || s == "table") {
    m->sizing = s == "static" ? BlockSizing::Static : s == "model" ? BlockSizing::Model
        : s == "auto" ? BlockSizing::Auto : BlockSizing::EmpiricalTable;
    return true;
  }
  return false;
}

/* FaceDetector::Schedule, as the bench names it: the stage ends of the
 * first kernel and of each round, the deep kernel's lanes per window and
 * the rounds', e.g. 1-2-4-7:32/4 (/1 when left out), and pN: the deep
 * kernel's window patch from stage N on (1-2-4:32/1p8; left out: the
 * detector's default, from the deep kernel's first stage), pn: no patch,
 * and q0: the deep
 * kernel's windows by the grid's stride instead of from its queue, w0: a
 * short list in the rounds by the first blocks (not spread over all). */
struct Schedule {
  std::vector<int> ends;  /* empty: the detector's default */
  int lanes = 0, round_lanes = 1;
  int patch_from = FaceDetector::Schedule ().patch_from;
  bool queue = true;
  bool round_spread = true;
};

void
apply_schedule (FaceDetector & d, const Schedule & s)
{
  FaceDetector::Schedule sc;
  if (!s.ends.empty ())
    sc = { s.ends, s.lanes, s.round_lanes, s.patch_from, s.queue, s.round_spread };
  d.set_schedule (sc);
}

/* END-END-...:LANES[/ROUND_LANES][pN][q0][w0], every number whole and in
 * range (stage ends 1..1000, lanes 1..32, pN 0..1000); false and *why
 * otherwise. */
bool
parse_schedule (const std::string & s, Schedule * out, std::string * why)
{
  const size_t colon = s.find (':');
  if (colon == std::string::npos) {
    *why = "no ':LANES'";
    return false;
  }
  long long v = 0;
  const std::string ends = s.substr (0, colon);
  for (size_t at = 0;;) {
    const size_t dash = ends.find ('-', at);
    if (!cvbench::parse_int (ends.substr (at, dash == std::string::npos ? dash : dash - at), 1, 1000, &v, why))
      return false;
    out->ends.push_back ((int) v);
    if (dash == std::string::npos)
      break;
    at = dash + 1;
  }
  std::string rest = s.substr (colon + 1);
  auto number = [&] (long long min, long long max, int *dst) {
    size_t n = 0;
    while (n < rest.size () && rest[n] >= '0' && rest[n] <= '9')
      n++;
    if (!cvbench::parse_int (rest.substr (0, n), min, max, &v, why))
      return false;
    *dst = (int) v;
    rest.erase (0, n);
    return true;
  };
  if (!number (1, 32, &out->lanes))
    return false;
  while (!rest.empty ()) {
    bool ok = true;
    if (rest[0] == '/') {
      rest.erase (0, 1);
      ok = number (1, 32, &out->round_lanes);
    } else if (rest.compare (0, 2, "pn") == 0) {
      out->patch_from = cudavision::kFaceNoPatch;
      rest.erase (0, 2);
    } else if (rest[0] == 'p') {
      rest.erase (0, 1);
      ok = number (0, 1000, &out->patch_from);
    } else if (rest.compare (0, 2, "q0") == 0) {
      out->queue = false;
      rest.erase (0, 2);
    } else if (rest.compare (0, 2, "w0") == 0) {
      out->round_spread = false;
      rest.erase (0, 2);
    } else {
      *why = "unexpected '" + rest + "'";
      return false;
    }
    if (!ok)
      return false;
  }
  return true;
}

std::string
schedule_str (const Schedule & s)
{
  if (s.ends.empty ())
    return "default";
  std::string out;
  for (int e : s.ends)
    out += (out.empty () ? "" : "-") + std::to_string (e);
  out += ":" + std::to_string (s.lanes) + "/" + std::to_string (s.round_lanes);
  out += s.patch_from < cudavision::kFaceNoPatch ? "p" + std::to_string (s.patch_from) : std::string ("pn");
  if (!s.queue)
    out += "q0";
  return s.round_spread ? out : out + "w0";
}

bool
same (std::vector<FaceRect> a, const std::vector<cv::Rect> & b)
{
  std::vector<FaceRect> bb;
  for (const cv::Rect & r : b)
    bb.push_back ({ r.x, r.y, r.width, r.height });
  std::sort (a.begin (), a.end ());
  std::sort (bb.begin (), bb.end ());
  return a == bb;
}

void
die (const cudavision::CudaStatus & s, const char *what)
{
  if (!s.ok ()) {
    std::fprintf (stderr, "%s: %s\n", what, s.message ().c_str ());
    std::exit (1);
  }
}

/* Per-kernel GPU time of a frame: events around every launch (the
 * detector's hook), read after detect () has synchronized. */
class KernelClock {
public:
  ~KernelClock ()
  {
    for (cudaEvent_t e : events_)
      cudaEventDestroy (e);
  }
  cudavision::FaceKernelHook hook ()
  {
    return [this] (const cudavision::FaceKernelLaunch & l, bool end, cudaStream_t s) {
      if (used_ == events_.size ()) {
        cudaEvent_t e;
        cvbench::check (cudaEventCreate (&e), "event");
        events_.push_back (e);
      }
      cvbench::check (cudaEventRecord (events_[used_], s), "record");
      if (!end)
        names_.push_back (l.kernel);
      used_++;
    };
  }
  /* Adds this frame's times (µs) per kernel to `totals`. */
  void collect (std::map<std::string, double> & totals)
  {
    for (size_t i = 0; i + 1 < used_; i += 2) {
      float ms = 0;
      cvbench::check (cudaEventElapsedTime (&ms, events_[i], events_[i + 1]), "elapsed");
      totals[names_[i / 2]] += ms * 1000.0;
    }
    used_ = 0;
    names_.clear ();
  }

private:
  std::vector<cudaEvent_t> events_;
  std::vector<std::string> names_;
  size_t used_ = 0;
};

}  // namespace

int
main (int argc, char **argv)
{
  std::string images = "mosaic,portraits,nonface,noise", sizes = "640x480,1920x1080,3840x2160";
  std::string modes = "static,model", schedules, table_path;
  std::string cascade_path = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml";
  int frames = 30;
  bool check_opencv = false, per_kernel = false, interleave = false;
  for (int i = 1; i < argc; i++) {
    const std::string a = argv[i];
    auto next = [&] () { return cvbench::arg_value (argc, argv, i); };
    if (a == "--images") images = next ();
    else if (a == "--sizes") sizes = next ();
    else if (a == "--modes") modes = next ();
    else if (a == "--schedules") schedules = next ();
    else if (a == "--table") table_path = next ();
    else if (a == "--frames") frames = cvbench::arg_int (a, next (), 1, 100000);
    else if (a == "--cascade") cascade_path = next ();
    else if (a == "--check") check_opencv = true;
    else if (a == "--kernels") per_kernel = true;
    else if (a == "--interleave") interleave = true;
    else {
      std::fprintf (stderr, "usage: %s [--images LIST] [--sizes LIST] [--modes LIST] [--schedules LIST] "
          "[--table FILE] [--frames N] [--cascade FILE] [--check] [--kernels] [--interleave]\n", argv[0]);
      return 2;
    }
  }
  /* the whole command line checked before CUDA starts */
  const std::vector<cvbench::Dims> size_list = cvbench::arg_dims_list ("--sizes", sizes);
  std::vector<Mode> mode_list;
  for (const std::string & m : split (modes, ',')) {
    Mode md;
    if (!parse_mode (m, &md))
      cvbench::bad_usage ("--modes: no mode '" + m + "' (static, static:WxH, model, auto, table)");
    mode_list.push_back (md);
  }
  std::vector<Schedule> schedule_list;
  for (const std::string & s : split (schedules, ',')) {
    Schedule sc;
    std::string why;
    if (!parse_schedule (s, &sc, &why))
      cvbench::bad_usage ("--schedules: '" + s + "': " + why + " (END-END-...:LANES[/ROUND_LANES][pN|pn][q0][w0])");
    schedule_list.push_back (sc);
  }
  if (schedule_list.empty ())
    schedule_list.push_back (Schedule ());
  gst_init (&argc, &argv);
  int ndev = 0;
  if (cudaGetDeviceCount (&ndev) != cudaSuccess || ndev == 0) {
    std::fprintf (stderr, "no CUDA device\n");
    return 77;
  }
  cudavision::HaarCascade cascade;
  std::string err;
  if (!cudavision::load_haar_cascade (cascade_path, &cascade, &err)) {
    std::fprintf (stderr, "cascade: %s\n", err.c_str ());
    return 1;
  }
  cv::CascadeClassifier reference;
  if (check_opencv && !reference.load (cascade_path)) {
    std::fprintf (stderr, "OpenCV cannot load %s\n", cascade_path.c_str ());
    return 1;
  }
  cudavision::DeviceDescription dev;
  die (cudavision::query_current_device (&dev), "device");
  std::shared_ptr<const cudavision::TuningTable> table;
  if (!table_path.empty ()) {
    auto t = std::make_shared<cudavision::TuningTable> ();
    if (!t->load (table_path, &err)) {
      std::fprintf (stderr, "table: %s\n", err.c_str ());
      return 1;
    }
    table = t;
  }

  cudavision::Stream stream;
  die (stream.create (), "stream");
  std::printf ("# %s, %d SMs; cascade %s; %d timed frames after warm-up; ms per frame (wall clock, detect () "
      "returns after its one read-back and the grouping)\n", dev.name.c_str (), dev.sm_count, cascade_path.c_str (),
      frames);
  std::printf ("%-10s %-10s %-14s %-12s %9s %9s %9s %7s %6s %s\n", "input", "size", "mode", "schedule", "median",
      "p10", "p90", "raw", "faces", check_opencv ? "opencv" : "");
  for (const std::string & img : split (images, ',')) {
    const bool leaves = img == "leaves"; /* made at each size */
    const cv::Mat src = leaves ? cv::Mat () : cvtest::face_input_source (img);
    for (const cvbench::Dims & dims : size_list) {
      const int w = dims.w, h = dims.h;
      const std::string sz = std::to_string (w) + "x" + std::to_string (h);
      const cv::Mat gray = leaves ? cvtest::face_input (img, w, h) : cvtest::face_input_at (src, w, h);
      cudavision::DeviceBuffer buf;
      const size_t pitch = cudavision::aligned_pitch ((size_t) w);
      die (buf.allocate (pitch * h), "alloc");
      cvbench::check (cudaMemcpy2D (buf.get (), pitch, gray.data, gray.step, w, h, cudaMemcpyHostToDevice), "upload");
      const cudavision::ConstImage8 img8 { buf.as<const uint8_t> (), pitch, w, h };
      std::string verdict;
      if (check_opencv) {
        std::vector<cv::Rect> raw_ref, faces_ref;
        reference.detectMultiScale (gray, raw_ref, 1.1, 0);
        reference.detectMultiScale (gray, faces_ref, 1.1, 3);
        FaceDetector d;
        die (d.set_cascade (cascade, stream.get ()), "cascade upload");
        FaceDetector::Result r;
        die (d.detect (img8, {}, cudavision::LaunchPolicy (dev, BlockSizing::Static), stream.get (), &r), "detect");
        std::vector<FaceRect> raw = r.raw;
        cudavision::clip_rectangles (raw, w, h);
        verdict = same (raw, raw_ref) && same (r.faces, faces_ref)
            ? "identical (" + std::to_string (raw_ref.size ()) + " raw)"
            : "DIFFERENT: raw " + std::to_string (raw.size ()) + " vs " + std::to_string (raw_ref.size ()) + ", faces " +
                std::to_string (r.faces.size ()) + " vs " + std::to_string (faces_ref.size ());
        d.release ();
      }
      for (const Schedule & sc : schedule_list) {
        /* One runner per mode: its policy, its tuner (auto), its detector. */
        struct Runner {
          const Mode *mode;
          cudavision::LaunchPolicy policy;
          std::shared_ptr<cudavision::AutoTuner> tuner;
          std::unique_ptr<FaceDetector> d;
          FaceDetector::Result r;
          std::vector<double> ms;
        };
        std::vector<std::unique_ptr<Runner>> runners;
        for (const Mode & m : mode_list) {
          /* (a policy is not movable: the runner is built in place) */
          runners.emplace_back (new Runner { &m, cudavision::LaunchPolicy (dev, m.sizing, m.shape, table), nullptr,
              std::make_unique<FaceDetector> (), {}, {} });
          Runner & u = *runners.back ();
          if (m.sizing == BlockSizing::Auto) {
            u.tuner = std::make_shared<cudavision::AutoTuner> (
                std::make_unique<cudavision::CudaEventTimer> (stream.get ()));
            u.policy.set_auto_tuner (u.tuner);
          }
          apply_schedule (*u.d, sc);
          u.d->set_raw_windows (false); /* as the element runs it: faces only */
          die (u.d->set_cascade (cascade, stream.get ()), "cascade upload");
        }
        auto frame = [&] (Runner & u) {
          die (u.d->detect (img8, {}, u.policy, stream.get (), &u.r), "detect");
          if (u.tuner)
            u.tuner->end_frame ();
        };
        auto timed = [&] (Runner & u) {
          const auto t0 = std::chrono::steady_clock::now ();
          frame (u);
          u.ms.push_back (std::chrono::duration<double, std::milli> (std::chrono::steady_clock::now () - t0).count ());
        };
        /* warm-up; auto until every kernel has settled */
        auto warm = [&] (Runner & u) {
          for (int i = 0; i < 3; i++)
            frame (u);
          for (int i = 0; u.tuner && !u.tuner->all_settled () && i < 500; i++)
            frame (u);
        };
        if (interleave) {
          /* every mode's frame i before any mode's frame i + 1: a drift in
           * clocks or load over the run falls on all modes alike */
          for (auto & u : runners)
            warm (*u);
          for (int i = 0; i < frames; i++)
            for (auto & u : runners)
              timed (*u);
        }
        for (auto & up : runners) {
          Runner & u = *up;
          const Mode & m = *u.mode;
          FaceDetector & d = *u.d;
          const cudavision::LaunchPolicy & policy = u.policy;
          const auto & tuner = u.tuner;
          FaceDetector::Result & r = u.r;
          if (!interleave) {
            warm (u);
            for (int i = 0; i < frames; i++)
              timed (u);
          }
          std::vector<double> & ms = u.ms;
          /* the host's own time: enqueue () (every launch, or one graph)
           * and collect () once the GPU is done (the read-back's event,
           * the grouping), as an element with latency-frames=1 spends it */
          std::vector<double> enq_us, col_us;
          for (int i = 0; !tuner && i < frames; i++) {
            const auto t0 = std::chrono::steady_clock::now ();
            die (d.enqueue (img8, {}, policy, stream.get ()), "enqueue");
            const auto t1 = std::chrono::steady_clock::now ();
            cvbench::check (cudaStreamSynchronize (stream.get ()), "sync");
            const auto t2 = std::chrono::steady_clock::now ();
            die (d.collect (&r), "collect");
            const auto t3 = std::chrono::steady_clock::now ();
            enq_us.push_back (std::chrono::duration<double, std::micro> (t1 - t0).count ());
            col_us.push_back (std::chrono::duration<double, std::micro> (t3 - t2).count ());
          }
          auto median = [] (std::vector<double> v) {
            std::sort (v.begin (), v.end ());
            return v.empty () ? 0.0 : v[v.size () / 2];
          };
          /* then the kernels' GPU time, in frames of their own (events
           * around each launch cost a little) */
          std::string kernels;
          if (per_kernel) {
            KernelClock clock;
            std::map<std::string, double> totals;
            for (int i = 0; i < frames; i++) {
              die (d.detect (img8, {}, policy, stream.get (), &r, clock.hook ()), "detect");
              clock.collect (totals);
            }
            double all = 0;
            for (const auto & [k, us] : totals) {
              kernels += " " + k.substr (k.find ('.') + 1) + "=" + std::to_string ((int) std::lround (us / frames));
              all += us / frames;
            }
            kernels = " gpu_us=" + std::to_string ((int) std::lround (all)) + kernels;
          }
          std::sort (ms.begin (), ms.end ());
          const auto pct = [&] (double p) { return ms[std::min (ms.size () - 1, (size_t) (p * (ms.size () - 1) + 0.5))]; };
          std::printf ("%-10s %-10s %-14s %-12s %9.3f %9.3f %9.3f %7zu %6zu %s host_us=%.1f+%.1f%s\n", img.c_str (),
              sz.c_str (), m.label.c_str (), schedule_str (sc).c_str (), pct (0.5), pct (0.1), pct (0.9),
              r.raw_count, r.faces.size (), verdict.c_str (), median (enq_us), median (col_us), kernels.c_str ());
          std::fflush (stdout);
          d.release ();
        }
      }
    }
  }
  return 0;
}
