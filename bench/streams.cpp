/* cudavision-streams — many pipelines in one process: aggregate frames/s
 * for 1, 2, 4, 8 pipelines sharing one CUDA context (each element on its
 * own stream), the host time each element spends per frame, and pipelines
 * spread over several GPUs with device-id (docs/RELIABILITY.md).
 *
 *   cudavision-streams [--pipelines 1,2,4,8] [--sizes 1280x720,1920x1080]
 *                      [--chain "cudagray ! cudablur ! cudacanny"]
 *                      [--frames 2000] [--devices 0[,1...]] [--image PATH]
 *                      [--backend cuda|cpu] [--paced-rounds 1] [--paced-gap-us 0]
 *
 * Every pipeline is appsrc (device frames, uploaded once) ! chain ! fakesink,
 * with its own thread pushing --frames frames after 50 of warm-up; every
 * element gets backend=cuda and device-id=D, pipeline i running on device
 * D = devices[i % count], all pipelines of a device sharing one
 * GstCudaContext. Timing ends when every device has finished its work.
 *
 * Host overhead per element: the time from the buffer entering the
 * element's sink pad to its output leaving the source pad (transform,
 * buffer and meta handling, launches; the GPU work itself runs on after,
 * except where an element waits for results, which is then included),
 * median and 90th percentile over the timed frames. Target: <= 20 us,
 * measured on one pipeline fed a frame at a time with the device idle in
 * between (OVERHEAD lines); the same under full load, where launches also
 * wait for a full launch queue, on OVERHEAD_LOADED lines. A paced run's
 * median moves by up to 2x between runs minutes apart on the GPU machine
 * (docs/RELIABILITY.md, "Host time per element"): --paced-rounds N
 * repeats it N times per size, each round in the table, and the OVERHEAD
 * line gives the median of the rounds' medians (and of their p90s) with
 * every round's median (rounds=...). --paced-gap-us G sleeps G µs before
 * each paced frame besides (the device idle all the while), as a camera's
 * frames come (33 333 at 30 frames/s): what an element costs the host
 * after its thread has slept that long.
 *
 * Device check: every element's every output frame is looked at on its
 * source pad: the device of the frame's context and the device CUDA
 * reports for its pointer must both be the pipeline's device.
 *
 * --backend cpu runs the same on the CPU backend in system memory (a check
 * of this program where there is no GPU; no device check).
 *
 * Ranges: --pipelines 1 to 256 each, --sizes sides 16 to 16384, --devices
 * 0 to 63 (and present), --frames 1 to 10^9, --paced-rounds 1 to 1000,
 * --paced-gap-us 0 to 10^7; anything else is refused (exit status 2).
 *
 * Prints "STREAMS ..." and "OVERHEAD ..." lines and Markdown tables. */
#include "bench_util.h"
#include "frame_source.h"

#include "gstcvcontext.h"
#include "gstcvmemory.h"
#include "plugin.h"

#include <gst/cuda/gstcudautils.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace cvbench;

namespace {

/* --pipelines: at most this many at once */
constexpr int kMaxPipelines = 256;

/* dev < 0: the CPU backend (--backend cpu) */
std::string
chain_on_device (const std::string & chain, int dev)
{
  std::string out;
  for (const std::string & e : split_list (chain, '!'))
    out += (out.empty () ? "" : " ! ") + e + (dev < 0 ? " backend=cpu" : " backend=cuda device-id=" + std::to_string (dev));
  return out;
}

/* Counts frames whose memory is not on the expected device. */
struct DeviceCheck {
  int device;
  std::atomic<guint64> frames { 0 }, wrong { 0 };
};

GstPadProbeReturn
check_device (GstPad *, GstPadProbeInfo * info, gpointer data)
{
  auto *c = (DeviceCheck *) data;
  GstMemory *mem = gst_buffer_peek_memory (GST_PAD_PROBE_INFO_BUFFER (info), 0);
  bool ok = false;
  if (gst_is_cv_memory (mem)) {
    gint ctx_dev = -1;
    g_object_get (gst_cv_memory_get_context (mem), "cuda-device-id", &ctx_dev, nullptr);
    GstMapInfo map;
    int ptr_dev = -1;
    if (gst_memory_map (mem, &map, (GstMapFlags) (GST_MAP_READ | GST_MAP_CV_DEVICE))) {
      cudaPointerAttributes attr {};
      if (cudaPointerGetAttributes (&attr, map.data) == cudaSuccess)
        ptr_dev = attr.device;
      cudaGetLastError ();
      gst_memory_unmap (mem, &map);
    }
    ok = ctx_dev == c->device && ptr_dev == c->device;
  }
  c->frames++;
  if (!ok)
    c->wrong++;
  return GST_PAD_PROBE_OK;
}

struct Point {
  int w, h, pipelines;
  std::string devices;
  double fps = 0;
  bool ok = false;
  std::string error;
  guint64 checked = 0, wrong = 0;
  std::map<std::string, std::vector<double>> element_us;  /* element factory -> per-frame host us */
  int round = 0;                                          /* paced runs: which of --paced-rounds */
};

Point
run_point (const std::string & chain, int w, int h, int pipelines, const std::vector<int> & devices,
    std::map<int, GstCudaContext *> & ctx, std::map<int, std::vector<GstBuffer *>> & frames, guint64 n,
    const std::string & image, bool paced = false, int paced_gap_us = 0)
{
  Point pt { w, h, pipelines, "" };
  for (size_t i = 0; i < devices.size (); i++)
    pt.devices += (i ? "," : "") + std::to_string (devices[i]);
  const guint64 warmup = 50;
  std::vector<std::unique_ptr<ChainRun>> runs;
  std::vector<std::unique_ptr<DeviceCheck>> checks;
  std::vector<int> dev_of;
  for (int p = 0; p < pipelines; p++) {
    const int d = devices[p % devices.size ()];
    if (d >= 0 && !ctx.count (d))
      ctx[d] = gst_cuda_context_new (d);
    if (d >= 0 && !ctx[d]) {
      pt.error = "no CUDA context for device " + std::to_string (d);
      return pt;
    }
    GstCudaContext *c = d >= 0 ? ctx[d] : nullptr;
    if (!frames.count (d))
      frames[d] = make_frames (c, GST_VIDEO_FORMAT_RGBA, w, h, 8, image);
    auto run = std::make_unique<ChainRun> (chain_on_device (chain, d),
        frames_caps (GST_VIDEO_FORMAT_RGBA, w, h, d >= 0), c, false);
    if (!run->ok ()) {
      pt.error = "cannot build " + run->description ();
      return pt;
    }
    auto check = std::make_unique<DeviceCheck> ();
    check->device = d;
    for (GstElement *e : d >= 0 ? run->elements () : std::vector<GstElement *> ()) {
      GstPad *src = gst_element_get_static_pad (e, "src");
      gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, check_device, check.get (), nullptr);
      gst_object_unref (src);
    }
    runs.push_back (std::move (run));
    checks.push_back (std::move (check));
    dev_of.push_back (d);
  }
  for (auto & r : runs)
    if (!r->start ()) {
      pt.error = "could not start: " + r->error ();
      return pt;
    }
  auto sync_all = [&] () {
    for (auto & [d, c] : ctx) {
      GstCvContextGuard g (c);
      cudaDeviceSynchronize ();
    }
  };
  auto push_range = [&] (guint64 from, guint64 to) {
    std::vector<std::thread> threads;
    for (int p = 0; p < pipelines; p++)
      threads.emplace_back ([&, p] () {
        for (guint64 i = from; i < to; i++)
          if (!runs[p]->push (frames[dev_of[p]], i))
            break;
      });
    for (auto & t : threads)
      t.join ();
  };
  /* warm-up: every pipeline's first frames through, then the device idle */
  push_range (0, warmup);
  /* elements with latency-frames=1 hold a frame until the next arrives */
  const guint64 held = runs.empty () ? 0 : runs[0]->held_frames ();
  for (int tries = 0; tries < 6000; tries++) {
    bool all = true;
    for (auto & r : runs)
      all = all && r->frames_out () + held >= warmup;
    if (all)
      break;
    g_usleep (1000);
  }
  sync_all ();
  const auto t0 = std::chrono::steady_clock::now ();
  if (paced) {
    /* one frame at a time, the next pushed when the device is idle: the
     * element's own host time, without waits for a full launch queue */
    for (guint64 i = warmup; i < warmup + n; i++) {
      if (paced_gap_us > 0)
        std::this_thread::sleep_for (std::chrono::microseconds (paced_gap_us));
      bool pushed = true;
      for (size_t p = 0; p < runs.size (); p++)
        pushed = runs[p]->push (frames[dev_of[p]], i) && pushed;
      if (!pushed)
        break;
      for (auto & r : runs)
        while (r->frames_out () + held < i + 1 && r->error ().empty ())
          std::this_thread::yield ();
      sync_all ();
    }
  } else {
    push_range (warmup, warmup + n);
  }
  bool ok = true;
  for (auto & r : runs) {
    ok = r->finish () && ok;
    if (!r->error ().empty () && pt.error.empty ())
      pt.error = r->error ();
  }
  sync_all ();
  const double s = std::chrono::duration<double> (std::chrono::steady_clock::now () - t0).count ();
  guint64 arrived = 0;
  for (auto & r : runs)
    arrived += r->frames_out () - warmup;
  pt.fps = arrived / s;
  pt.ok = ok && pt.error.empty () && arrived == n * pipelines;
  if (pt.ok == false && pt.error.empty ())
    pt.error = "frames lost: " + std::to_string (n * pipelines - arrived);
  for (size_t p = 0; p < runs.size (); p++) {
    pt.checked += checks[p]->frames;
    pt.wrong += checks[p]->wrong;
    for (const auto & [name, us] : runs[p]->element_times ()) {
      /* "cudagray3" -> "cudagray": one row per element kind */
      std::string kind = name;
      while (!kind.empty () && g_ascii_isdigit (kind.back ()))
        kind.pop_back ();
      auto & all = pt.element_us[kind];
      if (us.size () > warmup)
        all.insert (all.end (), us.begin () + warmup, us.end ());
    }
    runs[p]->stop ();
  }
  return pt;
}

}  // namespace

int
main (int argc, char **argv)
{
  std::string chain = "cudagray ! cudablur ! cudacanny", counts = "1,2,4,8", sizes = "1280x720,1920x1080",
              devs = "0", image, backend = "cuda";
  guint64 frames = 2000;
  int paced_rounds = 1, paced_gap_us = 0;
  for (int i = 1; i < argc; i++) {
    const std::string a = argv[i];
    if (a == "--chain")
      chain = cvbench::arg_value (argc, argv, i);
    else if (a == "--pipelines")
      counts = cvbench::arg_value (argc, argv, i);
    else if (a == "--sizes")
      sizes = cvbench::arg_value (argc, argv, i);
    else if (a == "--devices")
      devs = cvbench::arg_value (argc, argv, i);
    else if (a == "--frames")
      frames = (guint64) cvbench::arg_int64 (a, cvbench::arg_value (argc, argv, i), 1, 1000000000);
    else if (a == "--image")
      image = cvbench::arg_value (argc, argv, i);
    else if (a == "--backend")
      backend = cvbench::arg_value (argc, argv, i);
    else if (a == "--paced-rounds")
      paced_rounds = cvbench::arg_int (a, cvbench::arg_value (argc, argv, i), 1, 1000);
    else if (a == "--paced-gap-us")
      paced_gap_us = cvbench::arg_int (a, cvbench::arg_value (argc, argv, i), 0, 10000000);
    else {
      std::fprintf (stderr,
          "usage: %s [--pipelines 1,2,4,8] [--sizes WxH,...] [--chain DESC] [--frames N] [--devices 0,1] "
          "[--image PATH] [--backend cuda|cpu] [--paced-rounds N] [--paced-gap-us G]\n",
          argv[0]);
      return 2;
    }
  }
  /* the whole command line checked before anything starts */
  const std::vector<int> count_list = cvbench::arg_int_list ("--pipelines", counts, 1, kMaxPipelines);
  const std::vector<cvbench::Dims> size_list = cvbench::arg_dims_list ("--sizes", sizes);
  const std::vector<int> device_list = cvbench::arg_int_list ("--devices", devs, 0, 63);
  if (backend != "cuda" && backend != "cpu")
    cvbench::bad_usage ("--backend: cuda or cpu, not '" + backend + "'");
  gst_init (&argc, &argv);
  cudavision_register_static ();
  std::vector<int> devices;
  if (backend == "cpu") {
    devices.push_back (-1);
  } else {
    if (!gst_cv_cuda_available ()) {
      std::fprintf (stderr, "no CUDA device\n");
      return 77;
    }
    devices = device_list;
    int n_dev = 0;
    cudaGetDeviceCount (&n_dev);
    for (int d : devices)
      if (d < 0 || d >= n_dev) {
        std::fprintf (stderr, "device %d does not exist (%d CUDA devices)\n", d, n_dev);
        return 2;
      }
  }

  std::map<int, GstCudaContext *> ctx;
  std::vector<Point> points, paced;
  int rc = 0;
  for (const cvbench::Dims & size : size_list) {
    const int w = size.w, h = size.h;
    std::map<int, std::vector<GstBuffer *>> frames_of;
    double one = 0;
    for (const int p : count_list) {
      Point pt = run_point (chain, w, h, p, devices, ctx, frames_of, frames, image);
      if (p == 1)
        one = pt.fps;
      std::printf ("STREAMS size=%dx%d pipelines=%d devices=%s fps=%.1f speedup=%.2f device_check=%" G_GUINT64_FORMAT
                   "/%" G_GUINT64_FORMAT "%s%s\n",
          w, h, p, pt.devices.c_str (), pt.fps, one > 0 ? pt.fps / one : 0.0, pt.checked - pt.wrong, pt.checked,
          pt.ok ? "" : " error=", pt.error.c_str ());
      std::fflush (stdout);
      if (!pt.ok || pt.wrong)
        rc = 1;
      points.push_back (std::move (pt));
    }
    /* the host time per element, one pipeline paced (see OVERHEAD below) */
    for (int r = 0; r < paced_rounds; r++) {
      Point pt = run_point (chain, w, h, 1, devices, ctx, frames_of, std::min<guint64> (frames, 2000), image, true,
          paced_gap_us);
      pt.round = r;
      if (!pt.ok) {
        std::printf ("PACED size=%dx%d round=%d error=%s\n", w, h, r + 1, pt.error.c_str ());
        rc = 1;
      }
      paced.push_back (std::move (pt));
    }
    for (auto & [d, v] : frames_of)
      for (GstBuffer *b : v)
        gst_buffer_unref (b);
  }

  std::printf ("\nchain: %s, devices %s, %" G_GUINT64_FORMAT " frames per pipeline\n\n", chain.c_str (), devs.c_str (),
      frames);
  std::printf ("| size | pipelines | frames/s (all) | per pipeline | vs 1 pipeline | frames on the wrong device |\n"
               "|---|---|---|---|---|---|\n");
  for (const Point & pt : points) {
    double one = 0;
    for (const Point & q : points)
      if (q.w == pt.w && q.h == pt.h && q.pipelines == 1)
        one = q.fps;
    std::printf ("| %dx%d | %d | %.0f | %.0f | %s | %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " |\n", pt.w, pt.h,
        pt.pipelines, pt.fps, pt.fps / pt.pipelines, one > 0 ? (std::to_string (pt.fps / one).substr (0, 4) + "x").c_str () : "-",
        pt.wrong, pt.checked);
  }
  /* Host time per element: "paced" is one pipeline fed a frame at a time
   * with the device idle in between, as a camera at video rate feeds it:
   * the element's own cost, and the figure the <= 20 us target is about.
   * Under full load (the throughput runs) the CPU runs ahead of the GPU and
   * a launch blocks while the device's launch queue is full, so those
   * figures also hold waits for the GPU; they are printed as
   * OVERHEAD_LOADED. */
  std::printf ("\nhost time per frame in each element (us, median / p90; target <= 20 when paced):\n\n"
               "| size | pipelines |");
  std::vector<std::string> kinds;
  for (const auto & e : split_list (chain, '!')) {
    const std::string kind = split_list (e, ' ')[0];
    kinds.push_back (kind);
    std::printf (" %s |", kind.c_str ());
  }
  std::printf ("\n|---|---|");
  for (size_t i = 0; i < kinds.size (); i++)
    std::printf ("---|");
  std::printf ("\n");
  auto rows = [&] (const std::vector<Point> & list, const char * label) {
    for (const Point & pt : list) {
      if (paced_rounds > 1 && &list == &paced)
        std::printf ("| %dx%d | %d%s, round %d |", pt.w, pt.h, pt.pipelines, label, pt.round + 1);
      else
        std::printf ("| %dx%d | %d%s |", pt.w, pt.h, pt.pipelines, label);
      for (const auto & k : kinds) {
        auto it = pt.element_us.find (k);
        if (it == pt.element_us.end () || it->second.empty ()) {
          std::printf (" - |");
          continue;
        }
        std::printf (" %.1f / %.1f |", percentile (it->second, 0.5), percentile (it->second, 0.9));
      }
      std::printf ("\n");
    }
  };
  rows (paced, " (paced)");
  rows (points, "");
  std::printf ("\n");
  auto lines = [&] (const std::vector<Point> & list, const char * tag) {
    for (const Point & pt : list)
      for (const auto & k : kinds) {
        auto it = pt.element_us.find (k);
        if (it == pt.element_us.end () || it->second.empty ())
          continue;
        const double med = percentile (it->second, 0.5), p90 = percentile (it->second, 0.9);
        std::printf ("%s size=%dx%d pipelines=%d element=%s median_us=%.1f p90_us=%.1f %s\n", tag, pt.w, pt.h,
            pt.pipelines, k.c_str (), med, p90, med <= 20.0 ? "PASS" : "OVER");
      }
  };
  /* paced: one line per size and element over its rounds */
  for (size_t first = 0; first < paced.size (); first += paced_rounds)
    for (const auto & k : kinds) {
      std::vector<double> medians, p90s;
      std::string each;
      for (size_t r = first; r < std::min (paced.size (), first + paced_rounds); r++) {
        auto it = paced[r].element_us.find (k);
        if (it == paced[r].element_us.end () || it->second.empty ())
          continue;
        medians.push_back (percentile (it->second, 0.5));
        p90s.push_back (percentile (it->second, 0.9));
        char buf[32];
        std::snprintf (buf, sizeof buf, "%s%.1f", each.empty () ? "" : ",", medians.back ());
        each += buf;
      }
      if (medians.empty ())
        continue;
      const double med = percentile (medians, 0.5), p90 = percentile (p90s, 0.5);
      std::printf ("OVERHEAD size=%dx%d pipelines=1 element=%s median_us=%.1f p90_us=%.1f %s%s%s%s\n",
          paced[first].w, paced[first].h, k.c_str (), med, p90, med <= 20.0 ? "PASS" : "OVER",
          paced_rounds > 1 ? " rounds=" : "", paced_rounds > 1 ? each.c_str () : "",
          paced_gap_us > 0 ? (" gap_us=" + std::to_string (paced_gap_us)).c_str () : "");
    }
  lines (points, "OVERHEAD_LOADED");
  for (auto & [d, c] : ctx)
    gst_object_unref (c);
  return rc;
}
