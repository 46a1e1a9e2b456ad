/* cudavision-soak — long runs: many frames through the chains cameras run
 * for days, watching for errors, lost frames, growing memory and drifting
 * frame times (docs/RELIABILITY.md).
 *
 *   cudavision-soak [--chains canny,harris,flow,face,system] [--frames 100000]
 *                   [--system-frames 10000] [--size 1920x1080] [--window 1000]
 *                   [--image PATH] [--backend cuda|cpu]
 *
 * Chains (every element backend=cuda, so a CPU fallback is an error):
 *   canny   cudagray ! cudablur ! cudacanny     device frames in and out
 *   harris  cudagray ! cudaharris               device frames
 *   flow    cudagray ! cudaflow                 device frames
 *   face    cudafacedetect                      device frames
 *   system  cudagray ! cudablur ! cudacanny     system memory in and out
 *                                               (an upload and a download a frame)
 * Device frames are uploaded once (8 frames of a real picture, moving) and
 * pushed again and again through appsrc; system frames likewise from host
 * memory. Every --window frames the sink waits for the device (so windows
 * are timed to the end of their GPU work) and samples the device memory in
 * use (cudaMemGetInfo: the whole device) and this process's resident
 * memory. Reported per chain: errors, frames lost (pushed - arrived),
 * frames/s, the first and last window's frame time, device memory and
 * resident memory, and frame-time stability (slowest / fastest span of
 * at least 0.5 s of consecutive windows, the first window excluded; every
 * window's time is printed on a WINDOWS line). --backend cpu runs the same on the CPU backend in
 * system memory (a check of this program where there is no GPU). A line "SOAK name PASS|FAIL ..." per chain, a
 * Markdown table at the end; exit 1 when a chain fails:
 *   no error, no frame lost, device memory within 2 MiB and resident
 *   memory within 8 MiB from the end of the first window to the end of the
 *   last, slowest / fastest span <= 1.5.
 * Counts are 1 to 10^10 frames, --size sides 16 to 16384; a bad number, an
 * unknown chain or backend is refused with exit status 2. */
#include "bench_util.h"
#include "frame_source.h"

#include "gstcvcontext.h"
#include "plugin.h"

#include <gst/cuda/gstcudautils.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

using namespace cvbench;

namespace {

struct Chain {
  std::string name, elements;
  bool device;
};

/* --frames, --system-frames, --window: at most 10^10 */
constexpr long long kMaxFrames = 10000000000LL;

const Chain kChains[] = {
  { "canny", "cudagray ! cudablur ! cudacanny", true },
  { "harris", "cudagray ! cudaharris", true },
  { "flow", "cudagray ! cudaflow", true },
  { "face", "cudafacedetect", true },
  { "system", "cudagray ! cudablur ! cudacanny", false },
};

/* Every element of a chain with `props` added. */
std::string
with_props (const std::string & chain, const std::string & props)
{
  std::stringstream in (chain);
  std::string part, out;
  while (std::getline (in, part, '!')) {
    while (!part.empty () && part.back () == ' ')
      part.pop_back ();
    while (!part.empty () && part.front () == ' ')
      part.erase (part.begin ());
    out += (out.empty () ? "" : " ! ") + part + " " + props;
  }
  return out;
}

struct Sample {
  guint64 frames;
  double t, device_mib, rss_mib;
};

struct Result {
  std::string name;
  guint64 pushed = 0, arrived = 0;
  std::string error;
  double fps = 0;
  double ms_first = 0, ms_last = 0, stability = 0;
  double window_spread = 0, window_median = 0;  /* over the raw --window windows */
  std::vector<double> window_ms;                /* every window's ms per frame, the first excluded */
  double p99_first = 0, p99_last = 0;
  double dev_first = 0, dev_last = 0, rss_first = 0, rss_last = 0;
  bool pass = false;
  std::string why;
};

/* ctx null: the CPU backend in system memory (a check of this program on
 * machines without a GPU; --backend cpu). */
Result
soak (const Chain & c, GstCudaContext * ctx, int w, int h, guint64 frames, guint64 window, const std::string & image)
{
  Result r;
  r.name = c.name;
  const bool device = c.device && ctx;
  const std::vector<GstBuffer *> input = make_frames (device ? ctx : nullptr, GST_VIDEO_FORMAT_RGBA, w, h, 8, image);
  ChainRun run (with_props (c.elements, ctx ? "backend=cuda" : "backend=cpu"),
      frames_caps (GST_VIDEO_FORMAT_RGBA, w, h, device), ctx, !device);
  if (!run.ok ()) {
    r.error = "cannot build the pipeline";
    return r;
  }
  std::vector<Sample> samples;
  std::mutex lock;
  auto sample = [&] (guint64 n) {
    GstCvContextGuard g (ctx);
    if (ctx)
      cudaDeviceSynchronize ();
    const double t = std::chrono::duration<double> (std::chrono::steady_clock::now ().time_since_epoch ()).count ();
    Sample s { n, t, ctx ? device_used_mib () : 0.0, resident_mib () };
    std::lock_guard<std::mutex> l (lock);
    samples.push_back (s);
  };
  run.on_frame ([&] (guint64 n) {
    if ((n + 1) % window == 0)
      sample (n + 1);
  });
  sample (0);
  if (!run.start ()) {
    r.error = "could not start: " + run.error ();
    return r;
  }
  std::printf ("soak %s: %s, %" G_GUINT64_FORMAT " frames %dx%d\n", c.name.c_str (), run.description ().c_str (),
      frames, w, h);
  std::fflush (stdout);
  for (guint64 i = 0; i < frames; i++) {
    if (!run.push (input, i))
      break;
    r.pushed++;
    if (i % 1000 == 999 && !run.error ().empty ())
      break;
    if (i % 10000 == 9999) {
      std::printf ("  %" G_GUINT64_FORMAT " frames\n", i + 1);
      std::fflush (stdout);
    }
  }
  const bool finished = run.finish ();
  r.error = run.error ();
  if (!finished && r.error.empty ())
    r.error = "did not finish";
  r.arrived = run.frames_out ();
  run.stop ();
  for (GstBuffer *b : input)
    gst_buffer_unref (b);

  /* windows: samples[0] is the start; k >= 1 ends window k */
  const std::vector<double> arrivals = run.arrivals ();
  if (samples.size () >= 2) {
    const Sample & s0 = samples[0], & s1 = samples[1], & sl = samples.back (), & sp = samples[samples.size () - 2];
    r.fps = (sl.frames - s0.frames) / (sl.t - s0.t);
    r.ms_first = (s1.t - s0.t) * 1000.0 / (s1.frames - s0.frames);
    r.ms_last = (sl.t - sp.t) * 1000.0 / (sl.frames - sp.frames);
    /* Stability is judged over spans of at least kSpanS seconds of
     * consecutive windows: a 1000-frame window of a fast chain lasts ~70 ms,
     * so one host preemption of a few tens of ms (another process on the
     * machine, a page-cache flush) doubles it without the pipeline slowing
     * down. The raw windows' spread and every window's time are printed too
     * (WINDOWS lines), so a drift or a periodic slowdown stays visible. */
    constexpr double kSpanS = 0.5;
    double lo = 1e30, hi = 0, wlo = 1e30, whi = 0;
    double span_t = 0;
    guint64 span_n = 0;
    for (size_t k = 2; k < samples.size (); k++) {
      const double dt = samples[k].t - samples[k - 1].t;
      const guint64 dn = samples[k].frames - samples[k - 1].frames;
      const double ms = dt * 1000.0 / dn;
      r.window_ms.push_back (ms);
      wlo = std::min (wlo, ms);
      whi = std::max (whi, ms);
      span_t += dt;
      span_n += dn;
      if (span_t >= kSpanS || k + 1 == samples.size ()) {
        /* a short last span joins the judgement only when it is the only one */
        if (span_t >= kSpanS || hi == 0) {
          lo = std::min (lo, span_t * 1000.0 / span_n);
          hi = std::max (hi, span_t * 1000.0 / span_n);
        }
        span_t = 0;
        span_n = 0;
      }
    }
    r.stability = hi > 0 ? hi / lo : 1.0;
    r.window_spread = whi > 0 ? whi / wlo : 1.0;
    {
      std::vector<double> sorted = r.window_ms;
      std::sort (sorted.begin (), sorted.end ());
      r.window_median = sorted.empty () ? 0 : sorted[sorted.size () / 2];
    }
    r.dev_first = s1.device_mib;
    r.dev_last = sl.device_mib;
    r.rss_first = s1.rss_mib;
    r.rss_last = sl.rss_mib;
    /* host-side pacing at the sink: 99th percentile of the gaps */
    auto gaps = [&] (size_t from, size_t to) {
      std::vector<double> g;
      for (size_t i = std::max<size_t> (from, 1); i < to && i < arrivals.size (); i++)
        g.push_back ((arrivals[i] - arrivals[i - 1]) * 1000.0);
      return percentile (g, 0.99);
    };
    r.p99_first = gaps (0, window);
    r.p99_last = gaps (arrivals.size () > window ? arrivals.size () - window : 0, arrivals.size ());
  }
  std::vector<std::string> why;
  if (!r.error.empty ())
    why.push_back ("error");
  if (r.arrived != frames)
    why.push_back ("frames lost");
  if (samples.size () < 2)
    why.push_back ("no full window");
  if (r.dev_last - r.dev_first > 2.0)
    why.push_back ("device memory grew");
  if (r.rss_last - r.rss_first > 8.0)
    why.push_back ("resident memory grew");
  if (r.stability > 1.5)
    why.push_back ("frame time unstable");
  r.pass = why.empty ();
  for (const auto & s : why)
    r.why += (r.why.empty () ? "" : ", ") + s;
  return r;
}

}  // namespace

int
main (int argc, char **argv)
{
  std::string chains = "canny,harris,flow,face,system", image, backend = "cuda";
  guint64 frames = 100000, system_frames = 10000, window = 1000;
  int w = 1920, h = 1080;
  for (int i = 1; i < argc; i++) {
    const std::string a = argv[i];
    if (a == "--chains")
      chains = cvbench::arg_value (argc, argv, i);
    else if (a == "--frames")
      frames = (guint64) cvbench::arg_int64 (a, cvbench::arg_value (argc, argv, i), 1, kMaxFrames);
    else if (a == "--system-frames")
      system_frames = (guint64) cvbench::arg_int64 (a, cvbench::arg_value (argc, argv, i), 1, kMaxFrames);
    else if (a == "--window")
      window = (guint64) cvbench::arg_int64 (a, cvbench::arg_value (argc, argv, i), 1, kMaxFrames);
    else if (a == "--size") {
      const cvbench::Dims d = cvbench::arg_dims (a, cvbench::arg_value (argc, argv, i));
      w = d.w;
      h = d.h;
    } else if (a == "--image")
      image = cvbench::arg_value (argc, argv, i);
    else if (a == "--backend")
      backend = cvbench::arg_value (argc, argv, i);
    else {
      std::fprintf (stderr,
          "usage: %s [--chains canny,harris,flow,face,system] [--frames N] [--system-frames N] [--size WxH] "
          "[--window N] [--image PATH] [--backend cuda|cpu]\n",
          argv[0]);
      return 2;
    }
  }
  if (backend != "cuda" && backend != "cpu")
    cvbench::bad_usage ("--backend: cuda or cpu, not '" + backend + "'");
  if (cvbench::split_list (chains, ',').empty ())
    cvbench::bad_usage ("--chains: no chain given");
  for (const std::string & name : cvbench::split_list (chains, ',')) {
    bool known = false;
    for (const Chain & c : kChains)
      known = known || c.name == name;
    if (!known)
      cvbench::bad_usage ("--chains: no chain '" + name + "' (canny, harris, flow, face, system)");
  }
  gst_init (&argc, &argv);
  cudavision_register_static ();
  GstCudaContext *ctx = nullptr;
  if (backend == "cuda") {
    if (!gst_cv_cuda_available ()) {
      std::fprintf (stderr, "no CUDA device\n");
      return 77;
    }
    ctx = gst_cuda_context_new (0);
  }
  std::vector<Result> results;
  for (const Chain & c : kChains) {
    if (("," + chains + ",").find ("," + c.name + ",") == std::string::npos)
      continue;
    const guint64 n = c.device ? frames : system_frames;
    const Result r = soak (c, ctx, w, h, n, std::min (window, n), image);
    std::printf ("SOAK %s %s frames=%" G_GUINT64_FORMAT " lost=%" G_GINT64_FORMAT " fps=%.1f frame_ms=%.3f->%.3f "
                 "stability=%.2f device_mib=%.1f->%.1f rss_mib=%.1f->%.1f window_spread=%.2f "
                 "window_median_ms=%.4f%s%s%s%s\n",
        r.name.c_str (), r.pass ? "PASS" : "FAIL", r.pushed, (gint64) r.pushed - (gint64) r.arrived, r.fps,
        r.ms_first, r.ms_last, r.stability, r.dev_first, r.dev_last, r.rss_first, r.rss_last,
        r.window_spread, r.window_median, r.why.empty () ? "" : " why=", r.why.c_str (), r.error.empty () ? "" : " error=", r.error.c_str ());
    std::printf ("WINDOWS %s ms_per_frame=", r.name.c_str ());
    for (size_t k = 0; k < r.window_ms.size (); k++)
      std::printf ("%s%.4f", k ? "," : "", r.window_ms[k]);
    std::printf ("\n");
    std::fflush (stdout);
    results.push_back (r);
  }
  std::printf ("\n| chain | frames | lost | errors | frames/s | frame ms first / last window | sink gap p99 ms "
               "first / last | slowest / fastest 0.5 s span (1000-frame window) | device MiB first / last | resident MiB first / last | "
               "result |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
  int rc = 0;
  for (const Result & r : results) {
    std::printf ("| %s | %" G_GUINT64_FORMAT " | %" G_GINT64_FORMAT " | %s | %.0f | %.3f / %.3f | %.2f / %.2f | %.2f (%.2f) | "
                 "%.1f / %.1f | %.1f / %.1f | %s |\n",
        r.name.c_str (), r.pushed, (gint64) r.pushed - (gint64) r.arrived, r.error.empty () ? "0" : "1", r.fps,
        r.ms_first, r.ms_last, r.p99_first, r.p99_last, r.stability, r.window_spread, r.dev_first, r.dev_last,
        r.rss_first, r.rss_last, r.pass ? "PASS" : ("FAIL: " + r.why).c_str ());
    rc |= r.pass ? 0 : 1;
  }
  if (ctx)
    gst_object_unref (ctx);
  return rc;
}
