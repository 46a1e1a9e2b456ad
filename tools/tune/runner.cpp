/* cudavision-tune — the measuring loop. Every shape runs through the
 * family's normal launcher with a policy that forces it for the tuned
 * kernel (LaunchPolicy::force_block); a LaunchObserver records the timing
 * events around the tuned kernel's segment. The shapes of a (kernel, size)
 * take turns, each turn queued behind a LaunchGate (bench/launch_gate.h),
 * and each shape keeps the median of its timed launches. */
#include "runner.h"

#include "../../bench/bench_util.h"
#include "../../bench/launch_gate.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <chrono>

using namespace cudavision;

namespace cvtune {

namespace {

/* Watches the launches of one call of a launch function: remembers what
 * the tuned kernel was given, and records `start` when its shape is chosen
 * and `stop` at the next choice of another kernel, or at finish(). */
class Segment : public LaunchObserver {
public:
  Segment (std::string kernel, cudaStream_t stream) : kernel_ (std::move (kernel)), stream_ (stream) {}

  void arm (cudaEvent_t start, cudaEvent_t stop)
  {
    start_ = start;
    stop_ = stop;
    started_ = stopped_ = false;
    launches_ = 0;
  }

  void on_launch (const KernelTraits & k, const KernelResources & res, long width, long height,
      const LaunchConfig & c) override
  {
    if (k.name && kernel_ == k.name) {
      launches_++;
      seen = true;
      traits = &k;
      resources = res;
      work_w = width;
      work_h = height;
      config = c;
      if (!started_) {
        record (start_);
        started_ = true;
      }
    } else if (started_ && !stopped_) {
      record (stop_);
      stopped_ = true;
    }
  }

  /* After the launch function returned. Both events are always recorded,
   * so that the timing code can read them. */
  void finish ()
  {
    if (!started_)
      record (start_);
    if (!stopped_)
      record (stop_);
    started_ = stopped_ = true;
  }

  int launches () const { return launches_; }

  bool seen = false;
  const KernelTraits *traits = nullptr;
  KernelResources resources;
  long work_w = 0, work_h = 0;
  LaunchConfig config;

private:
  void record (cudaEvent_t e)
  {
    if (e)
      cvbench::check (cudaEventRecord (e, stream_), "cudaEventRecord");
  }

  std::string kernel_;
  cudaStream_t stream_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  bool started_ = false, stopped_ = false;
  int launches_ = 0;
};

/* One call of the launch function under `policy`, watched. */
CudaStatus
probe (const Tunable & t, LaunchPolicy & policy, cudaStream_t stream, FrameSize f, TuneInputs & in, Segment & seg)
{
  seg.arm (nullptr, nullptr);
  in.set_iteration (0);
  CudaStatus s = t.launch (policy, stream, f.width, f.height, in);
  if (s.ok ())
    s.err = cudaStreamSynchronize (stream);
  return s;
}

size_t
estimate (const Tunable & t)
{
  return search_space (*t.traits).size () + 2;
}

std::vector<FrameSize>
sizes_of (const Tunable & t, const TuneOptions & opt)
{
  return t.expand_sizes ? t.expand_sizes (opt.sizes) : opt.sizes;
}

std::string
describe (const Measurement & m)
{
  const ShapeTime *b = m.fastest (), *kept = m.best ();
  const ShapeTime *s = m.find (m.static_block);
  const ShapeTime *md = m.find (m.model_block);
  char buf[320];
  std::snprintf (buf, sizeof buf, "%s %ldx%ld: best %s %.2f us; static %s %.2f us; model %s %.2f us (%+.1f%%)",
      m.kernel.c_str (), m.width, m.height, b->block.str ().c_str (), b->median_us, m.static_block.str ().c_str (),
      s ? s->median_us : 0.0, m.model_block.str ().c_str (), md ? md->median_us : 0.0,
      md && b->median_us > 0 ? 100.0 * (md->median_us / b->median_us - 1) : 0.0);
  std::string out = buf;
  if (kept != b)
    out += "; kept " + kept->block.str () + " (" + std::to_string (kept->median_us).substr (0, 6) +
        " us: its pass holds the most)";
  return out;
}

size_t
max_frame_bytes (const std::vector<const Tunable *> & ts, const TuneOptions & opt)
{
  size_t m = 0;
  for (const Tunable *t : ts)
    for (FrameSize f : sizes_of (*t, opt))
      m = std::max (m, aligned_pitch ((size_t) f.width * 4) * (size_t) f.height);
  return m;
}

}  // namespace

std::vector<const Tunable *>
selected_tunables (const TuneOptions & opt)
{
  std::vector<const Tunable *> out;
  for (const Tunable & t : tunables ())
    if (kernel_selected (opt.kernels, t.name))
      out.push_back (&t);
  return out;
}

bool
run_tuning (const TuneOptions & opt, const DeviceDescription & dev, cudaStream_t stream, TuningTable & table,
    Progress & progress, TuneRun * run, const std::function<bool ()> & checkpoint, std::string * error)
{
  /* Kernels this machine cannot run (a missing data file) are left out
   * before anything is planned or allocated for them. */
  std::vector<const Tunable *> ts;
  for (const Tunable *t : selected_tunables (opt)) {
    const std::string why = t->unavailable ? t->unavailable () : std::string ();
    if (why.empty ()) {
      ts.push_back (t);
      continue;
    }
    run->notes.push_back (t->name + ": not measured: " + why);
    progress.message (run->notes.back ());
  }
  ts = tuning_order (std::move (ts));
  size_t total = 0;
  for (const Tunable *t : ts)
    if (!t->traits->fixed_block)
      total += estimate (*t) * sizes_of (*t, opt).size ();
  progress.set_total (total);

  TuneInputs in;
  CudaStatus s = in.init (max_frame_bytes (ts, opt));
  if (!s.ok ()) {
    *error = "random input frames: " + s.message ();
    return false;
  }

  cvbench::LaunchGate gate;
  for (const Tunable *t : ts) {
    if (t->traits->fixed_block) {
      const std::string note = t->name + ": fixed " + t->traits->static_block.str () +
          " block (its shared-memory layout is built for it): not tuned";
      run->notes.push_back (note);
      progress.message (note);
      continue;
    }
    std::vector<Measurement> mine;
    const std::vector<FrameSize> sizes = sizes_of (*t, opt);
    /* the gate until a launch of this kernel's waits on the stream */
    bool gated = gate.ok ();
    const auto t_start = std::chrono::steady_clock::now ();
    if (sizes.empty ()) {
      run->notes.push_back (t->name + ": no size to measure (the run's sizes give it no work)");
      progress.message (run->notes.back ());
    }
    for (FrameSize f : sizes) {
      const size_t planned = estimate (*t);
      const std::string label = t->name + " " + f.str ();
      auto seg = std::make_shared<Segment> (t->name, stream);

      /* What static and the model launch, and the work size the launcher
       * asks for (the table key). */
      LaunchPolicy stat (dev, BlockSizing::Static);
      stat.set_observer (seg);
      s = probe (*t, stat, stream, f, in, *seg);
      if (!s.ok ()) {
        *error = label + ": " + s.message ();
        return false;
      }
      if (!seg->seen) {
        run->notes.push_back (label + ": the kernel is not launched at this size");
        progress.message (run->notes.back ());
        progress.set_total (progress.total () - planned);
        continue;
      }
      Measurement m;
      m.kernel = t->name;
      m.frame = f;
      m.width = seg->work_w;
      m.height = seg->work_h;
      m.static_block = seg->config.block;
      const KernelResources res = seg->resources;
      if (opt.resume && already_tuned (table, dev, m.kernel, m.width, m.height)) {
        run->notes.push_back (label + ": in the table already (--resume)");
        progress.message (run->notes.back ());
        progress.set_total (progress.total () - planned);
        continue;
      }
      LaunchPolicy model (dev, BlockSizing::Model);
      model.set_observer (seg);
      s = probe (*t, model, stream, f, in, *seg);
      if (!s.ok ()) {
        *error = label + ": " + s.message ();
        return false;
      }
      m.model_block = seg->config.block;

      const std::vector<BlockShape> shapes = timed_shapes (*t->traits, dev, res, m.static_block, m.model_block);
      progress.set_total (progress.total () - planned + shapes.size ());
      /* the kernels it reads from at their tuned shapes */
      std::vector<std::pair<std::string, BlockShape>> with;
      for (const std::string & d : t->tuned_with)
        if (const auto e = table.lookup (dev, d, m.width, m.height))
          with.emplace_back (d, e->block);
      /* The shapes take turns: every shape's launch i before any shape's
       * launch i + 1, so that a slow stretch of the GPU or the host (a
       * clock change, another process) falls on all shapes alike instead
       * of on the few timed during it (docs/BLOCK-SIZING.md "What is
       * measured"). Each turn is queued behind a LaunchGate, so that the
       * launches run back to back and the events time the kernels, not the
       * host's launch rate. */
      const int warmup = t->max_warmup > 0 ? std::min (opt.warmup, t->max_warmup) : opt.warmup;
      const int iters = t->max_iters > 0 ? std::min (opt.iters, t->max_iters) : opt.iters;
      struct Turns {
        Turns (BlockShape b, const DeviceDescription & d, int iters)
            : block (b), forced (d, BlockSizing::Static), events (2 * (size_t) iters)
        {
        }
        BlockShape block;
        LaunchPolicy forced;
        std::vector<Event> events;  /* start, stop per timed launch */
        CudaStatus failed;
        bool launched_as_asked = true;
      };
      std::deque<Turns> runs;
      for (BlockShape b : shapes) {
        Turns & r = runs.emplace_back (b, dev, iters);
        for (const auto & [d, shape] : with)
          r.forced.force_block (d, shape);
        r.forced.force_block (t->name, b);
        r.forced.set_observer (seg);
        for (Event & e : r.events)
          cvbench::check (e.create (true).err, "event");
      }
      int launch_no = 0;  /* the inputs rotate over every launch */
      auto launch = [&] (Turns & r, cudaEvent_t start, cudaEvent_t stop) {
        if (!r.failed.ok ())
          return;
        seg->arm (start, stop);
        in.set_iteration (launch_no++);
        CudaStatus c = t->launch (r.forced, stream, f.width, f.height, in);
        seg->finish ();
        if (!c.ok ())
          r.failed = c;
        /* The policy clamps; a shape launched as another is not this one. */
        if (seg->config.block != r.block)
          r.launched_as_asked = false;
      };
      for (Turns & r : runs)
        for (int i = 0; i < warmup; i++)
          launch (r, nullptr, nullptr);
      for (int i = 0; i < iters; i++) {
        if (gated)
          cvbench::check (gate.hold (stream), "launch gate");
        for (Turns & r : runs)
          launch (r, r.events[2 * i].get (), r.events[2 * i + 1].get ());
        /* a launch function that waits on the stream (a detection reading
         * its list back) held the gate open until its timeout: not gated
         * from here on */
        if (gated && !gate.release ())
          gated = false;
      }
      cvbench::check (cudaStreamSynchronize (stream), "sync");
      cvbench::check (cudaGetLastError (), "launch");
      for (Turns & r : runs) {
        progress.advance (1, label + " " + r.block.str ());
        if (!r.failed.ok ()) {
          run->notes.push_back (label + " " + r.block.str () + ": " + r.failed.message ());
          progress.message (run->notes.back ());
          continue;
        }
        if (!r.launched_as_asked)
          continue;
        const cvbench::Timing tm = cvbench::event_timing (r.events);
        m.times.push_back ({ r.block, tm.median_us, tm.p10_us, tm.p90_us });
        run->shapes_timed++;
      }
      if (t->headroom)
        m.chosen = most_headroom (m, kHeadroomTies, [&] (BlockShape b) { return t->headroom (b, dev); });
      if (m.best ()) {
        progress.message (describe (m), true);
        mine.push_back (m);
      }
    }
    in.release_state ();
    {
      char b[200];
      std::snprintf (b, sizeof b, "%s: %zu sizes in %.2f s%s", t->name.c_str (), mine.size (),
          std::chrono::duration<double> (std::chrono::steady_clock::now () - t_start).count (),
          gate.ok () && !gated ? " (not gated: a turn held its gate past the timeout, as a launch that waits on the stream does)" : "");
      progress.message (b);
    }
    record_best (mine, dev, &table);
    run->measured.insert (run->measured.end (), mine.begin (), mine.end ());
    if (checkpoint && !checkpoint ()) {
      *error = "could not save the table";
      return false;
    }
  }
  return true;
}

}  // namespace cvtune
