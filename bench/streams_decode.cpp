/* cudavision-streams-decode — streams per GPU: N pipelines in one process,
 * each decoding a real 1080p H.264 clip (NVDEC by default) into a chain of
 * our elements, unpaced (aggregate frames/s) and paced at the clip's rate
 * (the largest N where every stream holds 30 frames/s with no frame lost).
 *
 *   cudavision-streams-decode [--clip PATH | --make-clip PATH] [--clip-size 1920x1080]
 *       [--clip-frames 300] [--clip-bitrate BPS] [--keep-clip]
 *       [--decoder nvh264dec] [--backend cuda|cpu] [--chains decode,face,face-detour,corners,flow,canny]
 *       [--chain NAME=DESC] [--mode both|unpaced|realtime]
 *       [--pipelines 1,2,4,8,16,32,48,64,96] [--seconds 5] [--warmup-frames 30]
 *       [--rt-seconds 10] [--rt-warmup 2] [--late-ms 20] [--rt-start N] [--rt-max 128]
 *       [--rt-resolution PCT] [--max-seconds 300] [--aligned] [--queue N]
 *       [--latency-frames 0|1] [--dmon]
 *
 * Why a program of its own rather than a mode of cudavision-streams: that
 * one feeds appsrc with device frames uploaded once and times each
 * element's host work; here the source is the decoder, the run loops a
 * file, paces it on the pipeline clock and searches N, and the figures are
 * per stream (on time, missing) and per device unit (dmon), with nothing
 * of its appsrc feeding or probes in the way.
 *
 * Every pipeline is
 *   filesrc ! qtdemux ! h264parse ! DECODER ! CHAIN [! queue] ! fakesink
 * with the clip looped by segment seeks (SEGMENT_DONE -> a non-flushing
 * segment seek to 0: the running time goes on, the decoder is drained at
 * the seam, no frame is lost or repeated). Each has its own streaming
 * thread (qtdemux's); one thread reads every bus. With --backend cuda all
 * pipelines share one GstCudaContext (the decoder's too), as an
 * application that wants zero copy must: nvh264dec's CUDA frames then go
 * to our elements in place.
 *
 * Chains (--chains; --chain NAME=DESC adds one; our elements get
 * backend=cuda|cpu):
 *   decode          nothing: the decoder's cost alone (CUDA memory out for nvh264dec)
 *   face            cudafacedetect draw=true
 *   corners         cudaharris draw=true
 *   flow            cudaflow draw=true            (sparse, the default mode)
 *   canny           cudacanny
 *   canny-gray      cudagray ! cudacanny
 *   X-detour        videoconvert ! video/x-raw,format=RGBA ! X's element (GRAY8 for canny):
 *                   the decoder downloads, videoconvert converts on the CPU, our element uploads
 *
 * Unpaced (fakesink sync=false): every pipeline as fast as it goes; after
 * each has passed --warmup-frames, the frames of all of them over
 * --seconds: aggregate frames/s, the slowest stream's, and that over 30
 * (how many 30 frames/s streams the throughput would feed), for every N
 * of --pipelines.
 *
 * Real time (fakesink sync=true, qos=false, max-lateness=-1: nothing is
 * dropped, every frame is rendered when due or as soon after as it
 * arrives): after --rt-warmup s, --rt-seconds s of frames per stream. A
 * frame is late when rendered more than --late-ms after its due time
 * (running time + latency + ts-offset; 20 ms is a video sink's default
 * max-lateness, where it would drop the frame); missing when not rendered
 * by the end (or a gap in the running times). A stream holds real time
 * when >= 99.9 % of its frames are on time and none is missing or dropped
 * (QoS messages, the sink's stats); N holds when every stream does. The
 * streams' phases are spread over a frame period (sink ts-offset i/N of a
 * frame), as independent cameras are; --aligned makes every stream's frame
 * due at the same instant instead. N is searched from the unpaced
 * throughput's estimate (or --rt-start, else 1): doubled while it holds,
 * then bisected, within --max-seconds per chain.
 *
 * What bounds N: each measured window also gives the process's CPU time
 * over the wall time (getrusage: cores busy, and the share of this
 * machine's cores), its threads, and with --dmon the averages of
 * `nvidia-smi dmon -s u` (sm %, mem %, enc %, dec %) over the window. A
 * unit at >= 90 % is named as the bound (NVDEC, SMs, host CPU); none:
 * the streams' own serial work (decode, then the chain, one thread each).
 *
 * --make-clip PATH writes the clip (bench/face_clip.h) and exits; without
 * --clip the program makes one in a fresh temporary directory, removed at
 * the end (--keep-clip, or CUDAVISION_KEEP_TEMP=1, keeps it). --backend cpu with --decoder avdec_h264
 * runs everything on the CPU: a check of this program where there is no
 * GPU.
 *
 * Prints "STREAMS_DECODE ..." lines (one per run) and "STREAMS_DECODE_MAX"
 * (one per chain), then Markdown tables. Exit status 1 when a run failed
 * with an error, 2 on a bad command line or a missing element. */
#include "bench_util.h"
#include "face_clip.h"
#include "frame_source.h"

#include "gstcvcontext.h"
#include "plugin.h"

#include <gst/base/gstbasesink.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudautils.h>

#include <glib/gstdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace cvbench;

namespace {

using Clock = std::chrono::steady_clock;

struct ChainDef {
  std::string name, desc;
};

const ChainDef kChains[] = {
  { "decode", "" },
  { "face", "cudafacedetect draw=true" },
  { "corners", "cudaharris draw=true" },
  { "flow", "cudaflow draw=true" },
  { "canny", "cudacanny" },
  { "canny-gray", "cudagray ! cudacanny" },
  { "face-detour", "videoconvert ! video/x-raw,format=RGBA ! cudafacedetect draw=true" },
  { "corners-detour", "videoconvert ! video/x-raw,format=RGBA ! cudaharris draw=true" },
  { "flow-detour", "videoconvert ! video/x-raw,format=RGBA ! cudaflow draw=true" },
  { "canny-detour", "videoconvert ! video/x-raw,format=GRAY8 ! cudacanny" },
};

/* The issue's targets, streams at 1080p30 on an H200; 0: none (or not a
 * 1080p clip, where they say nothing). */
int
target_of (const std::string & chain, int width, int height)
{
  if (width != 1920 || height != 1080)
    return 0;
  return chain == "face" ? 32 : chain == "corners" ? 64 : 0;
}

struct Options {
  std::string clip, make_clip, decoder = "nvh264dec", backend = "cuda", mode = "both";
  ClipSpec spec;
  bool keep_clip = false, aligned = false, dmon = false;
  std::vector<ChainDef> chains;
  std::vector<int> pipelines { 1, 2, 4, 8, 16, 32, 48, 64, 96 };
  double seconds = 5, rt_seconds = 10, rt_warmup = 2, late_ms = 20, max_seconds = 300, rt_resolution = 0;
  int warmup_frames = 30, rt_start = 0, rt_max = 128, queue = 0, latency_frames = -1;
};


/* ------------------------------------------------------- command line */

void
usage (const char *argv0)
{
  std::fprintf (stderr,
      "usage: %s [--clip PATH | --make-clip PATH] [--clip-size WxH] [--clip-frames N] [--clip-bitrate BPS]\n"
      "          [--keep-clip] [--decoder nvh264dec|avdec_h264] [--backend cuda|cpu] [--chains NAME,...]\n"
      "          [--chain NAME=DESC] [--mode both|unpaced|realtime] [--pipelines 1,2,4,...] [--seconds S]\n"
      "          [--warmup-frames N] [--rt-seconds S] [--rt-warmup S] [--late-ms MS] [--rt-start N]\n"
      "          [--rt-max N] [--rt-resolution PCT] [--max-seconds S] [--aligned] [--queue N]\n"
      "          [--latency-frames 0|1] [--dmon]\n"
      "chains:",
      argv0);
  for (const ChainDef & c : kChains)
    std::fprintf (stderr, " %s", c.name.c_str ());
  std::fprintf (stderr, "\n");
}

/* 0: go on; otherwise the exit status */
int
parse_args (int argc, char **argv, Options & o)
{
  std::string chains = "decode,face,face-detour,corners,flow,canny";
  std::vector<ChainDef> custom;
  for (int i = 1; i < argc; i++) {
    const std::string a = argv[i];
    const bool flag = a == "--keep-clip" || a == "--aligned" || a == "--dmon" || a == "--help" || a == "-h";
    if (!flag && i + 1 >= argc) {
      std::fprintf (stderr, "%s needs a value\n", a.c_str ());
      usage (argv[0]);
      return 2;
    }
    const std::string v = flag ? "" : argv[i + 1];
    if (!flag)
      i++;
    bool ok = true;
    if (a == "--help" || a == "-h") {
      usage (argv[0]);
      return 2;
    } else if (a == "--keep-clip") {
      o.keep_clip = true;
    } else if (a == "--aligned") {
      o.aligned = true;
    } else if (a == "--dmon") {
      o.dmon = true;
    } else if (a == "--clip") {
      o.clip = v;
    } else if (a == "--make-clip") {
      o.make_clip = v;
    } else if (a == "--clip-size") {
      const Dims d = arg_dims (a, v, 64, 8192);
      if (d.w % 2 || d.h % 2)
        bad_usage (a + ": '" + v + "' has an odd side (the encoder's 4:2:0 needs even ones)");
      o.spec.width = d.w;
      o.spec.height = d.h;
    } else if (a == "--clip-frames") {
      o.spec.frames = arg_int (a, v, 1, 100000);
    } else if (a == "--clip-bitrate") {
      o.spec.bitrate = (unsigned) arg_double (a, v, 10000, 4e9);
    } else if (a == "--decoder") {
      o.decoder = v;
    } else if (a == "--backend") {
      o.backend = v;
      if (v != "cuda" && v != "cpu") {
        std::fprintf (stderr, "--backend: cuda or cpu, not '%s'\n", v.c_str ());
        ok = false;
      }
    } else if (a == "--chains") {
      chains = v;
    } else if (a == "--chain") {
      const size_t eq = v.find ('=');
      if (eq == std::string::npos || eq == 0) {
        std::fprintf (stderr, "--chain: NAME=DESC, e.g. blur=\"cudagray ! cudablur\", not '%s'\n", v.c_str ());
        ok = false;
      } else {
        custom.push_back ({ v.substr (0, eq), v.substr (eq + 1) });
      }
    } else if (a == "--mode") {
      o.mode = v;
      if (v != "both" && v != "unpaced" && v != "realtime") {
        std::fprintf (stderr, "--mode: both, unpaced or realtime, not '%s'\n", v.c_str ());
        ok = false;
      }
    } else if (a == "--pipelines") {
      o.pipelines = arg_int_list (a, v, 1, 4096);
    } else if (a == "--seconds") {
      o.seconds = arg_double (a, v, 0.5, 3600);
    } else if (a == "--warmup-frames") {
      o.warmup_frames = arg_int (a, v, 0, 100000);
    } else if (a == "--rt-seconds") {
      o.rt_seconds = arg_double (a, v, 1, 3600);
    } else if (a == "--rt-warmup") {
      o.rt_warmup = arg_double (a, v, 0, 600);
    } else if (a == "--late-ms") {
      o.late_ms = arg_double (a, v, 0, 10000);
    } else if (a == "--rt-start") {
      o.rt_start = arg_int (a, v, 1, 4096);
    } else if (a == "--rt-max") {
      o.rt_max = arg_int (a, v, 1, 4096);
    } else if (a == "--rt-resolution") {
      o.rt_resolution = arg_double (a, v, 0, 100);
    } else if (a == "--max-seconds") {
      o.max_seconds = arg_double (a, v, 1, 86400);
    } else if (a == "--queue") {
      o.queue = arg_int (a, v, 0, 1000);
    } else if (a == "--latency-frames") {
      o.latency_frames = arg_int (a, v, 0, 1);
    } else {
      std::fprintf (stderr, "unknown option %s\n", a.c_str ());
      usage (argv[0]);
      return 2;
    }
    if (!ok)
      return 2;
  }
  if (o.rt_start > o.rt_max) {
    std::fprintf (stderr, "--rt-start %d is above --rt-max %d\n", o.rt_start, o.rt_max);
    return 2;
  }
  for (const auto & name : split_list (chains, ',')) {
    const ChainDef *def = nullptr;
    for (const ChainDef & c : kChains)
      if (c.name == name)
        def = &c;
    for (const ChainDef & c : custom)
      if (c.name == name)
        def = &c;
    if (!def) {
      std::fprintf (stderr, "--chains: no chain '%s'\n", name.c_str ());
      usage (argv[0]);
      return 2;
    }
    o.chains.push_back (*def);
  }
  /* a --chain not named in --chains runs too */
  for (const ChainDef & c : custom) {
    bool listed = false;
    for (const ChainDef & d : o.chains)
      listed = listed || d.name == c.name;
    if (!listed)
      o.chains.push_back (c);
  }
  if (o.chains.empty () && o.make_clip.empty ()) {
    std::fprintf (stderr, "--chains: no chain given\n");
    return 2;
  }
  return 0;
}

/* Every element factory a description names (caps left out). */
std::vector<std::string>
factories_of (const std::string & desc)
{
  std::vector<std::string> out;
  for (const auto & part : split_list (desc, '!')) {
    const std::string first = split_list (part, ' ')[0];
    if (first.find ('/') == std::string::npos && first.find ('(') == std::string::npos)
      out.push_back (first);
  }
  return out;
}

/* A clear error naming the first missing element; "" when all are there. */
std::string
missing_element (const Options & o)
{
  std::vector<std::pair<std::string, std::string>> need;  /* factory, what it is for */
  for (const char *f : { "filesrc", "qtdemux", "h264parse", "fakesink" })
    need.push_back ({ f, "every pipeline" });
  if (o.queue > 0)
    need.push_back ({ "queue", "--queue" });
  for (const auto & f : factories_of (o.decoder))
    need.push_back ({ f, "--decoder" });
  for (const ChainDef & c : o.chains)
    for (const auto & f : factories_of (c.desc))
      need.push_back ({ f, "chain " + c.name });
  for (const auto & [f, what] : need) {
    GstElementFactory *fac = gst_element_factory_find (f.c_str ());
    if (fac) {
      gst_object_unref (fac);
      continue;
    }
    std::string msg = "GStreamer element '" + f + "' not found (" + what + ")";
    if (g_str_has_prefix (f.c_str (), "nv"))
      msg += ": nvh264dec is nvcodec's (gst-plugins-bad), registered only where the NVIDIA driver's "
             "libnvcuvid loads (a GPU with NVDEC); --decoder avdec_h264 decodes on the CPU";
    else if (f == "avdec_h264")
      msg += ": gst-libav's; --decoder nvh264dec decodes with NVDEC";
    return msg;
  }
  return "";
}

/* ------------------------------------------------------ host and device */

double
cpu_seconds ()
{
  struct rusage ru {};
  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

int
thread_count ()
{
  std::ifstream f ("/proc/self/status");
  std::string line;
  while (std::getline (f, line))
    if (line.rfind ("Threads:", 0) == 0)
      return std::atoi (line.c_str () + 8);
  return 0;
}

/* `nvidia-smi dmon -s u` over a window: a sample a second for `seconds`
 * samples (it ends by itself), read in a thread of its own; the averages
 * of each column (sm, mem, enc, dec, and jpg, ofa where the driver has
 * them) over the samples. */
class Dmon {
public:
  static bool available ()
  {
    gchar *p = g_find_program_in_path ("nvidia-smi");
    const bool ok = p != nullptr;
    g_free (p);
    return ok;
  }
  void start (int seconds)
  {
    thread_ = std::thread ([this, seconds] () {
      const std::string cmd = "nvidia-smi dmon -s u -d 1 -i 0 -c " + std::to_string (std::max (1, seconds)) + " 2>&1";
      FILE *p = popen (cmd.c_str (), "r");
      if (!p)
        return;
      char buf[512];
      std::vector<std::string> names;
      while (std::fgets (buf, sizeof buf, p)) {
        std::vector<std::string> tok = split_list (std::string (buf).substr (0, std::strcspn (buf, "\r\n")), ' ');
        if (tok.empty ())
          continue;
        if (tok[0] == "#") {
          if (tok.size () > 1 && tok[1] == "gpu")
            names.assign (tok.begin () + 1, tok.end ());
          continue;
        }
        if (tok[0][0] == '#') {
          if (tok[0] == "#gpu")
            names.assign (tok.begin (), tok.end ()), names[0] = "gpu";
          continue;
        }
        std::lock_guard<std::mutex> g (lock_);
        for (size_t k = 1; k < tok.size () && k < names.size (); k++) {
          char *end = nullptr;
          const double v = g_ascii_strtod (tok[k].c_str (), &end);
          if (end != tok[k].c_str () && !*end) {
            sum_[names[k]] += v;
            n_[names[k]]++;
          }
        }
      }
      pclose (p);
    });
  }
  std::map<std::string, double> finish ()
  {
    if (thread_.joinable ())
      thread_.join ();
    std::map<std::string, double> avg;
    std::lock_guard<std::mutex> g (lock_);
    for (const auto & [k, s] : sum_)
      avg[k] = s / n_[k];
    return avg;
  }

private:
  std::thread thread_;
  std::mutex lock_;
  std::map<std::string, double> sum_;
  std::map<std::string, int> n_;
};

/* ------------------------------------------------------------ streams */

struct Stream {
  GstElement *pipe = nullptr, *sink = nullptr;
  GSource *watch = nullptr;
  /* the handoff's (streaming thread); read by the main thread once the
   * pipeline is stopped, except `frames` */
  std::atomic<guint64> frames { 0 };
  guint64 first = G_MAXUINT64, count = 0;  /* the paced window, by frame index */
  GstClockTime period = GST_SECOND / 30, late_ns = 20 * GST_MSECOND;
  GstClockTimeDiff offset = 0;             /* the sink's ts-offset */
  guint64 in_window = 0, late = 0, gap_missing = 0;
  GstClockTimeDiff max_late = 0;
  GstClockTime last_rt = GST_CLOCK_TIME_NONE;
  /* the bus thread's */
  std::mutex lock;
  std::string error;
  guint64 qos = 0, loops = 0;
  bool eos = false;

  std::string get_error ()
  {
    std::lock_guard<std::mutex> g (lock);
    return error;
  }
};

void
on_handoff (GstElement * sink, GstBuffer * buf, GstPad *, gpointer data)
{
  auto *s = (Stream *) data;
  const guint64 j = s->frames.load (std::memory_order_relaxed);
  if (j >= s->first && j - s->first < s->count) {
    /* the segment changes only in this (the streaming) thread */
    const GstClockTime rt = gst_segment_to_running_time (&GST_BASE_SINK (sink)->segment, GST_FORMAT_TIME,
        GST_BUFFER_PTS (buf));
    const GstClockTime now = gst_element_get_current_running_time (sink);
    s->in_window++;
    if (GST_CLOCK_TIME_IS_VALID (rt) && GST_CLOCK_TIME_IS_VALID (now)) {
      const GstClockTimeDiff due = (GstClockTimeDiff) (rt + gst_base_sink_get_latency (GST_BASE_SINK (sink))) + s->offset;
      const GstClockTimeDiff late = GST_CLOCK_DIFF (due, (GstClockTimeDiff) now);
      if (late > (GstClockTimeDiff) s->late_ns)
        s->late++;
      s->max_late = std::max (s->max_late, late);
      /* a frame that never came (dropped on the way) leaves a gap */
      if (j > s->first && GST_CLOCK_TIME_IS_VALID (s->last_rt) && rt > s->last_rt) {
        const double gap = (double) (rt - s->last_rt) / s->period;
        if (gap > 1.5)
          s->gap_missing += (guint64) std::lround (gap) - 1;
      }
    }
    s->last_rt = rt;
  } else if (j + 1 == s->first) {
    s->last_rt = gst_segment_to_running_time (&GST_BASE_SINK (sink)->segment, GST_FORMAT_TIME, GST_BUFFER_PTS (buf));
  }
  s->frames.store (j + 1, std::memory_order_release);
}

gboolean
on_bus (GstBus *, GstMessage * m, gpointer data)
{
  auto *s = (Stream *) data;
  switch (GST_MESSAGE_TYPE (m)) {
    case GST_MESSAGE_ERROR: {
      GError *e = nullptr;
      gchar *dbg = nullptr;
      gst_message_parse_error (m, &e, &dbg);
      std::lock_guard<std::mutex> g (s->lock);
      if (s->error.empty ())
        s->error = std::string (GST_OBJECT_NAME (GST_MESSAGE_SRC (m))) + ": " + e->message + (dbg ? " | " : "") +
            (dbg ? dbg : "");
      g_clear_error (&e);
      g_free (dbg);
      break;
    }
    case GST_MESSAGE_SEGMENT_DONE: {
      /* the loop: a non-flushing segment seek back to the start; the
       * running time goes on from the end of the clip */
      if (!gst_element_seek (s->pipe, 1.0, GST_FORMAT_TIME, GST_SEEK_FLAG_SEGMENT, GST_SEEK_TYPE_SET, 0,
              GST_SEEK_TYPE_NONE, GST_CLOCK_TIME_NONE)) {
        std::lock_guard<std::mutex> g (s->lock);
        if (s->error.empty ())
          s->error = "the loop's segment seek failed";
      }
      std::lock_guard<std::mutex> g (s->lock);
      s->loops++;
      break;
    }
    case GST_MESSAGE_EOS: {
      std::lock_guard<std::mutex> g (s->lock);
      s->eos = true;
      if (s->error.empty ())
        s->error = "EOS: the clip ended instead of looping";
      break;
    }
    case GST_MESSAGE_QOS: {
      std::lock_guard<std::mutex> g (s->lock);
      s->qos++;
      break;
    }
    default:
      break;
  }
  return TRUE;
}

/* One thread reading every pipeline's bus (as an application's main loop
 * does), running the loop seeks. */
class BusThread {
public:
  BusThread ()
  {
    ctx_ = g_main_context_new ();
    loop_ = g_main_loop_new (ctx_, FALSE);
    thread_ = std::thread ([this] () {
      g_main_context_push_thread_default (ctx_);
      g_main_loop_run (loop_);
      g_main_context_pop_thread_default (ctx_);
    });
  }
  ~BusThread ()
  {
    stop ();
    g_main_loop_unref (loop_);
    g_main_context_unref (ctx_);
  }
  void watch (Stream & s)
  {
    GstBus *bus = gst_element_get_bus (s.pipe);
    s.watch = gst_bus_create_watch (bus);
    g_source_set_callback (s.watch, (GSourceFunc) (void (*) ()) on_bus, &s, nullptr);
    g_source_attach (s.watch, ctx_);
    gst_object_unref (bus);
  }
  void stop ()
  {
    if (!thread_.joinable ())
      return;
    g_main_loop_quit (loop_);
    thread_.join ();
  }

private:
  GMainContext *ctx_ = nullptr;
  GMainLoop *loop_ = nullptr;
  std::thread thread_;
};

struct ClipInfo {
  int width = 0, height = 0;
  double fps = 30;
};

/* The clip's size and rate, from h264parse's caps after preroll; also the
 * first check that the clip is H.264 in MP4 that qtdemux reads. */
bool
probe_clip (const std::string & path, ClipInfo & info, std::string & error)
{
  GError *err = nullptr;
  GstElement *pipe = gst_parse_launch ("filesrc name=src ! qtdemux ! h264parse name=parse ! fakesink", &err);
  if (err) {
    error = err->message;
    g_clear_error (&err);
    return false;
  }
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src"), *parse = gst_bin_get_by_name (GST_BIN (pipe), "parse");
  g_object_set (src, "location", path.c_str (), nullptr);
  gst_element_set_state (pipe, GST_STATE_PAUSED);
  bool ok = gst_element_get_state (pipe, nullptr, nullptr, 30 * GST_SECOND) == GST_STATE_CHANGE_SUCCESS;
  GstPad *pad = gst_element_get_static_pad (parse, "src");
  GstCaps *caps = ok ? gst_pad_get_current_caps (pad) : nullptr;
  if (caps) {
    const GstStructure *st = gst_caps_get_structure (caps, 0);
    int n = 0, d = 1;
    gst_structure_get_int (st, "width", &info.width);
    gst_structure_get_int (st, "height", &info.height);
    if (gst_structure_get_fraction (st, "framerate", &n, &d) && n > 0 && d > 0)
      info.fps = (double) n / d;
    gst_caps_unref (caps);
  } else {
    ok = false;
  }
  if (!ok)
    error = "cannot read " + path + " as H.264 in MP4 (filesrc ! qtdemux ! h264parse)";
  gst_object_unref (pad);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (parse);
  gst_object_unref (src);
  gst_object_unref (pipe);
  return ok && info.width > 0;
}

struct Run {
  std::string chain;
  int n = 0;
  bool paced = false;
  std::string error;
  /* unpaced */
  double fps = 0, slowest_fps = 0;
  /* paced */
  bool pass = false;
  guint64 expected = 0, late = 0, missing = 0, drops = 0, loops = 0;  /* loops: the fewest of any stream */
  double worst_on_time = 0, max_late_ms = 0;
  /* the window's host and device figures */
  double seconds = 0, cpu_cores = 0;
  int threads = 0;
  std::map<std::string, double> dmon;
};

std::string
bound_of (const Run & r, int cores)
{
  std::string b;
  auto add = [&] (const char *what) { b += (b.empty () ? "" : "+") + std::string (what); };
  auto it = r.dmon.find ("dec");
  if (it != r.dmon.end () && it->second >= 90)
    add ("NVDEC");
  it = r.dmon.find ("sm");
  if (it != r.dmon.end () && it->second >= 90)
    add ("SMs");
  if (r.cpu_cores >= 0.9 * cores)
    add ("host-CPU");
  /* nothing at 90 %: the streams' own serial work (or, without dmon, a
   * device unit nobody sampled) */
  return b.empty () ? (r.dmon.empty () ? "unknown(no-dmon)" : "none") : b;
}

std::string
dmon_figure (const Run & r, const char *key)
{
  auto it = r.dmon.find (key);
  if (it == r.dmon.end ())
    return "-";
  char buf[32];
  std::snprintf (buf, sizeof buf, "%.0f", it->second);
  return buf;
}

class Bench {
public:
  Bench (const Options & o, const ClipInfo & clip, GstCudaContext * ctx, bool dmon)
      : o_ (o), clip_ (clip), ctx_ (ctx), dmon_ (dmon), cores_ ((int) sysconf (_SC_NPROCESSORS_ONLN))
  {
  }
  int cores () const { return cores_; }

  std::string description (const ChainDef & c) const
  {
    std::string d = "filesrc name=src ! qtdemux ! h264parse ! " + o_.decoder;
    /* decode alone: keep nvh264dec's frames on the device, as in front of
     * our elements (fakesink takes any caps, and it could download) */
    if (c.desc.empty () && g_str_has_prefix (o_.decoder.c_str (), "nv") && o_.backend == "cuda")
      d += " ! video/x-raw(memory:CUDAMemory)";
    if (!c.desc.empty ())
      d += " ! " + c.desc;
    if (o_.queue > 0)
      d += " ! queue max-size-buffers=" + std::to_string (o_.queue) + " max-size-bytes=0 max-size-time=0";
    return d + " ! fakesink name=sink qos=false max-lateness=-1 enable-last-sample=false signal-handoffs=true";
  }

  Run run (const ChainDef & c, int n, bool paced)
  {
    Run r;
    r.chain = c.name;
    r.n = n;
    r.paced = paced;
    std::vector<std::unique_ptr<Stream>> streams;
    auto bus = std::make_unique<BusThread> ();
    const std::string desc = description (c);
    const GstClockTime period = (GstClockTime) (GST_SECOND / clip_.fps);
    for (int i = 0; i < n && r.error.empty (); i++) {
      auto s = std::make_unique<Stream> ();
      GError *err = nullptr;
      s->pipe = gst_parse_launch (desc.c_str (), &err);
      if (err) {
        r.error = "cannot build " + desc + ": " + err->message;
        g_clear_error (&err);
        if (s->pipe)
          gst_object_unref (s->pipe);
        s->pipe = nullptr;
        break;
      }
      GstElement *src = gst_bin_get_by_name (GST_BIN (s->pipe), "src");
      g_object_set (src, "location", o_.clip.c_str (), nullptr);
      gst_object_unref (src);
      s->sink = gst_bin_get_by_name (GST_BIN (s->pipe), "sink");
      s->period = period;
      s->late_ns = (GstClockTime) (o_.late_ms * GST_MSECOND);
      s->offset = (paced && !o_.aligned) ? (GstClockTimeDiff) (period * (double) i / n) : 0;
      g_object_set (s->sink, "sync", paced ? TRUE : FALSE, "ts-offset", (gint64) s->offset, nullptr);
      g_signal_connect (s->sink, "handoff", G_CALLBACK (on_handoff), s.get ());
      configure_elements (s->pipe);
      if (ctx_) {
        GstContext *gc = gst_context_new_cuda_context (ctx_);
        gst_element_set_context (s->pipe, gc);
        gst_context_unref (gc);
      }
      bus->watch (*s);
      streams.push_back (std::move (s));
    }
    /* preroll all at once (each in its own thread), then the segment seek
     * that makes the clip loop, and preroll again */
    auto settle = [&] (const char *what) {
      for (auto & s : streams)
        if (r.error.empty () && gst_element_get_state (s->pipe, nullptr, nullptr, 120 * GST_SECOND) !=
            GST_STATE_CHANGE_SUCCESS) {
          g_usleep (200000);  /* the bus thread reads the error */
          const std::string e = s->get_error ();
          r.error = std::string (what) + " failed" + (e.empty () ? " (no error message; timed out?)" : ": " + e);
        }
    };
    if (r.error.empty ()) {
      for (auto & s : streams)
        gst_element_set_state (s->pipe, GST_STATE_PAUSED);
      settle ("preroll");
    }
    if (r.error.empty ()) {
      for (auto & s : streams)
        if (!gst_element_seek (s->pipe, 1.0, GST_FORMAT_TIME, (GstSeekFlags) (GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_SEGMENT),
                GST_SEEK_TYPE_SET, 0, GST_SEEK_TYPE_NONE, GST_CLOCK_TIME_NONE) && r.error.empty ())
          r.error = "the first segment seek failed";
      settle ("preroll after the segment seek");
    }
    const guint64 first = (guint64) std::llround (o_.rt_warmup * clip_.fps);
    const guint64 count = (guint64) std::llround (o_.rt_seconds * clip_.fps);
    if (r.error.empty ()) {
      for (auto & s : streams) {
        if (paced) {
          s->first = first;
          s->count = count;
        }
        s->frames = 0;
      }
      for (auto & s : streams)
        gst_element_set_state (s->pipe, GST_STATE_PLAYING);
    }
    const auto t_play = Clock::now ();
    auto failed = [&] () {
      for (auto & s : streams) {
        const std::string e = s->get_error ();
        if (!e.empty ()) {
          r.error = e;
          return true;
        }
      }
      return false;
    };
    auto sleep_until = [&] (Clock::time_point t, const std::function<bool ()> & done) {
      while (Clock::now () < t && !failed () && !(done && done ()))
        std::this_thread::sleep_for (std::chrono::milliseconds (20));
    };
    Dmon dmon;
    double cpu0 = 0;
    Clock::time_point t0;
    std::vector<guint64> c0;
    if (r.error.empty () && !paced) {
      /* warm-up: every stream past its first frames */
      sleep_until (t_play + std::chrono::seconds (120), [&] () {
        for (auto & s : streams)
          if (s->frames.load () < (guint64) o_.warmup_frames)
            return false;
        return true;
      });
      if (r.error.empty () && Clock::now () >= t_play + std::chrono::seconds (120))
        r.error = "warm-up: not every stream reached " + std::to_string (o_.warmup_frames) + " frames in 120 s";
      if (r.error.empty ()) {
        for (auto & s : streams)
          c0.push_back (s->frames.load ());
        t0 = Clock::now ();
        cpu0 = cpu_seconds ();
        if (dmon_)
          dmon.start ((int) std::lround (o_.seconds));
        sleep_until (t0 + std::chrono::microseconds ((gint64) (o_.seconds * 1e6)), nullptr);
      }
    } else if (r.error.empty ()) {
      sleep_until (t_play + std::chrono::microseconds ((gint64) (o_.rt_warmup * 1e6)), nullptr);
      t0 = Clock::now ();
      cpu0 = cpu_seconds ();
      if (dmon_)
        dmon.start ((int) std::lround (o_.rt_seconds));
      /* until every stream rendered its window, or 2 s after the window's
       * end (a stream behind by then has missing frames) */
      sleep_until (t_play + std::chrono::microseconds ((gint64) ((o_.rt_warmup + o_.rt_seconds + 2) * 1e6)),
          [&] () {
            for (auto & s : streams)
              if (s->frames.load (std::memory_order_acquire) < first + count)
                return false;
            return true;
          });
    }
    const auto t1 = Clock::now ();
    r.threads = thread_count ();
    if (t0 != Clock::time_point ()) {
      r.seconds = std::chrono::duration<double> (t1 - t0).count ();
      r.cpu_cores = (cpu_seconds () - cpu0) / r.seconds;
    }
    std::vector<guint64> c1;
    for (auto & s : streams)
      c1.push_back (s->frames.load ());
    /* stop: the bus thread first (no more loop seeks), then the pipelines */
    bus->stop ();
    for (auto & s : streams)
      gst_element_set_state (s->pipe, GST_STATE_NULL);
    r.dmon = dmon.finish ();
    if (r.error.empty ()) {
      if (!paced) {
        guint64 total = 0;
        r.slowest_fps = -1;
        for (size_t i = 0; i < streams.size (); i++) {
          total += c1[i] - c0[i];
          const double f = (c1[i] - c0[i]) / r.seconds;
          r.slowest_fps = r.slowest_fps < 0 ? f : std::min (r.slowest_fps, f);
        }
        r.fps = total / r.seconds;
      } else {
        r.expected = count;
        r.worst_on_time = 1;
        r.pass = true;
        r.loops = G_MAXUINT64;
        for (auto & s : streams) {
          r.loops = std::min (r.loops, s->loops);
          const guint64 missing = (count > s->in_window ? count - s->in_window : 0) + s->gap_missing;
          guint64 dropped = s->qos;
          GstStructure *st = nullptr;
          g_object_get (s->sink, "stats", &st, nullptr);
          guint64 sink_dropped = 0;
          if (st && gst_structure_get_uint64 (st, "dropped", &sink_dropped))
            dropped += sink_dropped;
          if (st)
            gst_structure_free (st);
          const double on_time = count ? (double) (s->in_window - std::min (s->in_window, s->late)) / count : 1;
          r.late += s->late;
          r.missing += missing;
          r.drops += dropped;
          r.worst_on_time = std::min (r.worst_on_time, on_time);
          r.max_late_ms = std::max (r.max_late_ms, s->max_late / 1e6);
          if (missing || dropped || on_time < 0.999)
            r.pass = false;
        }
      }
    }
    for (auto & s : streams) {
      if (s->watch) {
        g_source_destroy (s->watch);
        g_source_unref (s->watch);
      }
      if (s->sink)
        gst_object_unref (s->sink);
      gst_object_unref (s->pipe);
    }
    /* the watches are gone: the bus thread's context can go */
    bus.reset ();
    return r;
  }

private:
  /* our elements: backend=cuda|cpu, and --latency-frames where given */
  void configure_elements (GstElement * pipe) const
  {
    GstIterator *it = gst_bin_iterate_recurse (GST_BIN (pipe));
    GValue v = G_VALUE_INIT;
    while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
      GstElement *e = GST_ELEMENT (g_value_get_object (&v));
      GObjectClass *k = G_OBJECT_GET_CLASS (e);
      if (g_object_class_find_property (k, "backend"))
        gst_util_set_object_arg (G_OBJECT (e), "backend", o_.backend.c_str ());
      if (o_.latency_frames >= 0 && g_object_class_find_property (k, "latency-frames"))
        g_object_set (e, "latency-frames", (guint) o_.latency_frames, nullptr);
      g_value_reset (&v);
    }
    g_value_unset (&v);
    gst_iterator_free (it);
  }

  const Options & o_;
  ClipInfo clip_;
  GstCudaContext *ctx_;
  bool dmon_;
  int cores_;
};

void
print_run (const Run & r, const Options & o, const ClipInfo & clip, int cores)
{
  const std::string common = "chain=" + r.chain + " decoder=" + split_list (o.decoder, ' ')[0] + " backend=" + o.backend +
      " size=" + std::to_string (clip.width) + "x" + std::to_string (clip.height) + " pipelines=" + std::to_string (r.n);
  char host[160];
  std::snprintf (host, sizeof host, "cpu_cores=%.2f cpu_pct=%.0f threads=%d sm=%s mem=%s enc=%s dec=%s", r.cpu_cores,
      100 * r.cpu_cores / cores, r.threads, dmon_figure (r, "sm").c_str (), dmon_figure (r, "mem").c_str (),
      dmon_figure (r, "enc").c_str (), dmon_figure (r, "dec").c_str ());
  if (!r.error.empty ()) {
    std::printf ("STREAMS_DECODE mode=%s %s error=%s\n", r.paced ? "realtime" : "unpaced", common.c_str (),
        r.error.c_str ());
  } else if (!r.paced) {
    std::printf ("STREAMS_DECODE mode=unpaced %s fps=%.1f slowest_stream_fps=%.1f streams_at_%.0f=%.1f %s bound=%s\n",
        common.c_str (), r.fps, r.slowest_fps, clip.fps, r.fps / clip.fps, host, bound_of (r, cores).c_str ());
  } else {
    std::printf ("STREAMS_DECODE mode=realtime %s result=%s expected=%" G_GUINT64_FORMAT " on_time_min_pct=%.2f "
                 "late=%" G_GUINT64_FORMAT " missing=%" G_GUINT64_FORMAT " drops=%" G_GUINT64_FORMAT
                 " max_late_ms=%.1f loops=%" G_GUINT64_FORMAT " %s bound=%s\n",
        common.c_str (), r.pass ? "PASS" : "FAIL", r.expected, 100 * r.worst_on_time, r.late, r.missing, r.drops,
        r.max_late_ms, r.loops, host, bound_of (r, cores).c_str ());
  }
  std::fflush (stdout);
}

struct Search {
  std::string chain;
  int largest = 0, first_fail = 0, trials = 0;
  double seconds = 0, unpaced_best = 0;
  int unpaced_best_n = 0;
  bool cut = false, broken = false;
  Run at_fail;
};

}  // namespace

int
main (int argc, char **argv)
{
  Options o;
  gst_init (&argc, &argv);
  if (int rc = parse_args (argc, argv, o))
    return rc;
  cudavision_register_static ();

  if (!o.make_clip.empty ()) {
    std::string error;
    const auto t = Clock::now ();
    if (!make_face_clip (o.make_clip, o.spec, error)) {
      std::fprintf (stderr, "%s\n", error.c_str ());
      return 1;
    }
    std::printf ("clip: %s, %dx%d, %d frames at 30 frames/s, made in %.1f s\n", o.make_clip.c_str (), o.spec.width,
        o.spec.height, o.spec.frames, std::chrono::duration<double> (Clock::now () - t).count ());
    return 0;
  }
  const std::string missing = missing_element (o);
  if (!missing.empty ()) {
    std::fprintf (stderr, "%s\n", missing.c_str ());
    return 2;
  }
  GstCudaContext *ctx = nullptr;
  if (o.backend == "cuda") {
    if (!gst_cv_cuda_available ()) {
      std::fprintf (stderr, "no CUDA device (--backend cpu runs the elements on the CPU)\n");
      return 77;
    }
    /* one context for every pipeline and the decoder: zero copy from
     * nvh264dec, and no time-slicing between contexts */
    ctx = gst_cuda_context_new (0);
    if (!ctx) {
      std::fprintf (stderr, "cannot create a CUDA context on device 0\n");
      return 1;
    }
  }
  bool dmon = false;
  if (o.dmon) {
    dmon = Dmon::available ();
    if (!dmon)
      std::printf ("note: --dmon: nvidia-smi not found, no sm/mem/enc/dec figures\n");
  }

  /* the clip: given, or made now in a directory of its own */
  std::unique_ptr<TempDir> tmpdir;  /* removed on every way out, unless kept */
  if (o.clip.empty ()) {
    tmpdir = std::make_unique<TempDir> ("cudavision-streams");
    if (!tmpdir->ok ()) {
      std::fprintf (stderr, "%s\n", tmpdir->error ().c_str ());
      return 1;
    }
    if (o.keep_clip)
      tmpdir->keep ();
    o.clip = tmpdir->path () + "/face-mosaic-" + std::to_string (o.spec.width) + "x" +
        std::to_string (o.spec.height) + ".mp4";
    std::string error;
    const auto t = Clock::now ();
    if (!make_face_clip (o.clip, o.spec, error)) {
      std::fprintf (stderr, "%s\n", error.c_str ());
      return 1;
    }
    std::printf ("clip: made %s (%d frames) in %.1f s\n", o.clip.c_str (), o.spec.frames,
        std::chrono::duration<double> (Clock::now () - t).count ());
  }
  ClipInfo clip;
  std::string error;
  if (!probe_clip (o.clip, clip, error)) {
    std::fprintf (stderr, "%s\n", error.c_str ());
    return 1;
  }
  Bench bench (o, clip, ctx, dmon);
  std::printf ("clip %s: %dx%d at %.2f frames/s; decoder %s, backend %s, %d CPU cores%s%s\n", o.clip.c_str (),
      clip.width, clip.height, clip.fps, o.decoder.c_str (), o.backend.c_str (), bench.cores (),
      o.aligned ? ", paced streams aligned" : "", o.queue ? (", queue " + std::to_string (o.queue)).c_str () : "");
  std::fflush (stdout);

  int rc = 0;
  std::vector<Run> unpaced, paced;
  std::vector<Search> searches;
  const bool do_unpaced = o.mode != "realtime", do_rt = o.mode != "unpaced";
  for (const ChainDef & c : o.chains) {
    Search s;
    s.chain = c.name;
    if (do_unpaced)
      for (int n : o.pipelines) {
        Run r = bench.run (c, n, false);
        print_run (r, o, clip, bench.cores ());
        if (!r.error.empty ())
          rc = 1;
        else if (r.fps > s.unpaced_best) {
          s.unpaced_best = r.fps;
          s.unpaced_best_n = n;
        }
        unpaced.push_back (std::move (r));
      }
    if (do_rt) {
      /* the unpaced throughput's streams of the clip's rate, where known */
      int probe = o.rt_start;
      if (!probe)
        probe = s.unpaced_best > 0 ? std::clamp ((int) (s.unpaced_best / clip.fps), 1, o.rt_max) : 1;
      int lo = 0, hi = o.rt_max + 1;
      const auto t_search = Clock::now ();
      const double trial_s = o.rt_warmup + o.rt_seconds + 3;
      while (true) {
        const double spent = std::chrono::duration<double> (Clock::now () - t_search).count ();
        if (s.trials > 0 && spent + trial_s > o.max_seconds) {
          s.cut = true;
          break;
        }
        Run r = bench.run (c, probe, true);
        s.trials++;
        print_run (r, o, clip, bench.cores ());
        const bool pass = r.error.empty () && r.pass;
        if (!r.error.empty ())
          rc = 1;
        if (pass) {
          lo = probe;
        } else {
          hi = probe;
          s.at_fail = r;
        }
        paced.push_back (std::move (r));
        if (!pass && probe == 1 && !paced.back ().error.empty ()) {
          s.broken = true;
          break;
        }
        if (hi - lo <= 1 || (o.rt_resolution > 0 && hi - lo <= std::max (1.0, lo * o.rt_resolution / 100)))
          break;
        probe = hi == o.rt_max + 1 ? std::min (2 * lo, o.rt_max) : (lo + hi) / 2;
        if (probe <= lo)
          break;
      }
      s.largest = lo;
      s.first_fail = hi == o.rt_max + 1 ? 0 : hi;
      s.seconds = std::chrono::duration<double> (Clock::now () - t_search).count ();
      const int target = target_of (c.name, clip.width, clip.height);
      std::printf ("STREAMS_DECODE_MAX chain=%s decoder=%s backend=%s size=%dx%d realtime_n=%d first_fail=%s "
                   "rt_max=%d trials=%d seconds=%.0f unpaced_best_fps=%.1f unpaced_best_n=%d bound=%s%s%s%s\n",
          c.name.c_str (), split_list (o.decoder, ' ')[0].c_str (), o.backend.c_str (), clip.width, clip.height, s.largest,
          s.first_fail ? std::to_string (s.first_fail).c_str () : "none", o.rt_max, s.trials, s.seconds,
          s.unpaced_best, s.unpaced_best_n, s.first_fail ? bound_of (s.at_fail, bench.cores ()).c_str () : "-",
          target ? (" target=" + std::to_string (target) + (s.largest >= target ? " MET" : " MISSED")).c_str () : "",
          s.cut ? " cut=max-seconds" : "", s.broken ? " broken=one-stream-fails" : "");
      std::fflush (stdout);
    }
    searches.push_back (s);
  }

  const std::string dec = split_list (o.decoder, ' ')[0];
  std::printf ("\nclip %dx%d at %.0f frames/s, decoder %s, backend %s, %d CPU cores\n", clip.width, clip.height,
      clip.fps, dec.c_str (), o.backend.c_str (), bench.cores ());
  if (!unpaced.empty ()) {
    std::printf ("\nunpaced (%.1f s after %d frames of warm-up per stream):\n\n"
                 "| chain | pipelines | frames/s (all) | slowest stream | streams of %.0f frames/s | CPU cores busy | "
                 "threads | sm %% | mem %% | dec %% | saturated |\n"
                 "|---|---|---|---|---|---|---|---|---|---|---|\n",
        o.seconds, o.warmup_frames, clip.fps);
    for (const Run & r : unpaced) {
      if (!r.error.empty ()) {
        std::printf ("| %s | %d | error: %s |||||||||\n", r.chain.c_str (), r.n, r.error.c_str ());
        continue;
      }
      std::printf ("| %s | %d | %.0f | %.1f | %.1f | %.1f of %d | %d | %s | %s | %s | %s |\n", r.chain.c_str (), r.n,
          r.fps, r.slowest_fps, r.fps / clip.fps, r.cpu_cores, bench.cores (), r.threads, dmon_figure (r, "sm").c_str (),
          dmon_figure (r, "mem").c_str (), dmon_figure (r, "dec").c_str (), bound_of (r, bench.cores ()).c_str ());
    }
  }
  if (!paced.empty ()) {
    std::printf ("\nreal time (%.0f s per stream after %.0f s, late = over %.0f ms after due; %s phases):\n\n"
                 "| chain | pipelines | result | slowest stream on time | frames late | missing or dropped | "
                 "worst lateness ms | CPU cores busy | sm %% | dec %% | saturated |\n"
                 "|---|---|---|---|---|---|---|---|---|---|---|\n",
        o.rt_seconds, o.rt_warmup, o.late_ms, o.aligned ? "aligned" : "spread");
    for (const Run & r : paced) {
      if (!r.error.empty ()) {
        std::printf ("| %s | %d | error: %s |||||||||\n", r.chain.c_str (), r.n, r.error.c_str ());
        continue;
      }
      std::printf ("| %s | %d | %s | %.2f %% | %" G_GUINT64_FORMAT " | %" G_GUINT64_FORMAT " | %.1f | %.1f of %d | "
                   "%s | %s | %s |\n",
          r.chain.c_str (), r.n, r.pass ? "PASS" : "FAIL", 100 * r.worst_on_time, r.late, r.missing + r.drops,
          r.max_late_ms, r.cpu_cores, bench.cores (), dmon_figure (r, "sm").c_str (), dmon_figure (r, "dec").c_str (),
          bound_of (r, bench.cores ()).c_str ());
    }
    std::printf ("\nstreams per GPU (each at %.0f frames/s, none late or lost):\n\n"
                 "| chain | largest N | first N that fails | saturated there | unpaced best frames/s (N) | target |\n"
                 "|---|---|---|---|---|---|\n",
        clip.fps);
    for (const Search & s : searches) {
      const int target = target_of (s.chain, clip.width, clip.height);
      std::printf ("| %s | %d%s | %s | %s | %s | %s |\n", s.chain.c_str (), s.largest,
          s.cut ? " (search cut by --max-seconds)" : "",
          s.first_fail ? std::to_string (s.first_fail).c_str () : ("none up to " + std::to_string (o.rt_max)).c_str (),
          s.first_fail ? bound_of (s.at_fail, bench.cores ()).c_str () : "-",
          s.unpaced_best_n ? (std::to_string ((int) s.unpaced_best) + " (" + std::to_string (s.unpaced_best_n) + ")").c_str ()
                           : "-",
          target ? (">= " + std::to_string (target) + (s.largest >= target ? ": met" : ": missed")).c_str () : "-");
    }
  }

  if (tmpdir && tmpdir->kept ())
    std::printf ("\nclip kept: %s\n", o.clip.c_str ());
  if (ctx)
    gst_object_unref (ctx);
  return rc;
}
