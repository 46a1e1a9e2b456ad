/* cudavision — the launch policy: static shapes, the tuning table, and the
 * occupancy model of Guerfi, Kriaa and Saidane (2022), extended with real
 * kernel resources, 2D shapes and tail effects. docs/BLOCK-SIZING.md has
 * the equations; this file is their implementation and nothing else.
 *
 * Pure C++17: no CUDA, no GLib, so every choice can be unit-tested for fixed
 * device descriptions on machines without a GPU. */
#include "launch_policy.h"

#include "auto_tuner.h"
#include "tuning_table.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <sstream>

namespace cudavision {

namespace {

long
ceil_div (long a, long b)
{
  return b > 0 ? (a + b - 1) / b : 0;
}

long
round_up (long a, long unit)
{
  return unit > 0 ? ceil_div (a, unit) * unit : a;
}

int
warp_of (const DeviceDescription & dev)
{
  return dev.warp_size > 0 ? dev.warp_size : 32;
}

/* The model needs these to say anything; a default-constructed description
 * (no device queried) has none of them. */
bool
model_usable (const DeviceDescription & dev)
{
  return dev.sm_count > 0 && dev.max_threads_per_sm > 0 && dev.max_blocks_per_sm > 0 &&
      dev.max_warps_per_sm () > 0;
}

/* Largest block the device and the kernel both accept. */
long
thread_limit (const DeviceDescription & dev, const KernelResources & res)
{
  long lim = dev.max_threads_per_block > 0 ? dev.max_threads_per_block : 1024;
  if (res.max_threads_per_block > 0)
    lim = std::min<long> (lim, res.max_threads_per_block);
  return std::max<long> (lim, 1);
}

/* Architecture constants the CUDA occupancy calculator (cuda_occupancy.h)
 * uses and cudaDeviceProp does not report. They have been the same since
 * Volta; older parts only differ in ways the model does not care about. */
constexpr int kRegAllocUnit = 256;        /* registers, per warp */
constexpr int kMaxRegsPerThread = 255;

int
sub_partitions (const DeviceDescription & dev)
{
  return (dev.cc_major == 6 && dev.cc_minor == 0) ? 2 : 4;
}

long
smem_alloc_unit (const DeviceDescription & dev)
{
  return dev.cc_major >= 7 ? 128 : 256;
}

long
smem_reserved_per_block (const DeviceDescription & dev)
{
  /* Ampere and later keep 1 KiB of every block's shared memory for the
   * system. */
  return dev.cc_major >= 8 ? 1024 : 0;
}

/* Blocks of `block_threads` threads one SM holds at once: the minimum of the
 * warp-slot, block-slot, register and shared-memory limits, computed the way
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor does (registers allocated
 * per warp in 256-register units within each of the SM's sub-partitions).
 * 0 when the block cannot launch at all. */
int
resident_blocks (const DeviceDescription & dev, const KernelResources & res, long block_threads)
{
  if (block_threads <= 0 || !model_usable (dev) || block_threads > thread_limit (dev, res))
    return 0;
  const long warp = warp_of (dev);
  const long wpb = ceil_div (block_threads, warp);

  const long by_warps = dev.max_warps_per_sm () / wpb;
  const long by_blocks = dev.max_blocks_per_sm;

  long by_regs = LONG_MAX;
  if (res.regs_per_thread > kMaxRegsPerThread)
    return 0;
  if (res.regs_per_thread > 0) {
    const long parts = sub_partitions (dev);
    const long regs_per_warp = round_up ((long) res.regs_per_thread * warp, kRegAllocUnit);
    /* The hardware's per-block check rounds the warps up to the number of
     * sub-partitions. */
    const long regs_assumed = regs_per_warp * round_up (wpb, parts);
    if (dev.regs_per_block > 0 &&
        (regs_assumed > dev.regs_per_block || regs_per_warp * wpb > dev.regs_per_block))
      return 0;
    if (dev.regs_per_sm > 0) {
      const long warps_per_part = (dev.regs_per_sm / parts) / regs_per_warp;
      by_regs = (warps_per_part * parts) / wpb;
    }
  }

  long by_smem = LONG_MAX;
  const long user_smem = (long) res.static_smem_bytes + (long) res.dynamic_smem_per_block +
      (long) res.dynamic_smem_per_thread * block_threads;
  if (user_smem > 0) {
    if (dev.smem_per_block > 0 && user_smem > (long) dev.smem_per_block)
      return 0;
    const long alloc = round_up (user_smem + smem_reserved_per_block (dev), smem_alloc_unit (dev));
    const long per_sm = dev.smem_per_sm > 0 ? (long) dev.smem_per_sm : (long) dev.smem_per_block;
    by_smem = per_sm / alloc;
  }

  const long r = std::min (std::min (by_warps, by_blocks), std::min (by_regs, by_smem));
  return (int) std::max<long> (r, 0);
}

/* The paper's terms for a launch of `blocks` blocks of `block_threads`
 * threads doing `useful_threads` threads of work. `blocks` may exceed
 * ceil(useful / block) when a 2D shape pads the image edges. */
OccupancyTerms
terms_for (const DeviceDescription & dev, const KernelResources & res, long block_threads,
    long useful_threads, long blocks)
{
  OccupancyTerms t;
  t.resident_blocks = resident_blocks (dev, res, block_threads);
  if (t.resident_blocks <= 0 || useful_threads <= 0 || blocks <= 0)
    return t;
  const long warp = warp_of (dev);
  const long wpb = ceil_div (block_threads, warp);
  const long sms = dev.sm_count;
  const long r = t.resident_blocks;

  t.warp_occupancy = std::min (1.0, (double) (r * wpb) / dev.max_warps_per_sm ());
  t.block_occupancy = (double) r / dev.max_blocks_per_sm;
  t.sm_occupancy = (double) std::min (blocks, sms) / sms;

  /* Tail effect: the grid runs in waves of sms * r blocks; the last one is
   * partial unless the block count is a multiple of that. */
  const long waves = ceil_div (blocks, sms * r);
  const double wave_eff = std::min (1.0,
      (double) useful_threads / ((double) waves * (double) (sms * r) * (double) block_threads));

  t.score = t.sm_occupancy * t.warp_occupancy * wave_eff;
  return t;
}

/* The 2D layout rule (docs/BLOCK-SIZING.md, "2D shapes"): x is a multiple
 * of the warp size that divides the thread count and is no wider than the
 * work rounded up to a warp; of those, the one that pads the grid least
 * (padded width x padded height), the widest on a tie, since a wider x
 * means fewer, longer coalesced row segments. */
BlockShape
layout_2d (long threads, long work_x, long work_y, long warp)
{
  if (threads < warp || threads % warp != 0)
    return { (unsigned) std::max<long> (threads, 1), 1 };
  const long max_x = round_up (std::max<long> (work_x, 1), warp);
  BlockShape best { (unsigned) warp, (unsigned) (threads / warp) };
  long best_area = LONG_MAX;
  for (long x = threads; x >= warp; x -= warp) {
    if (threads % x != 0 || x > max_x)
      continue;
    const long y = threads / x;
    const long area = round_up (work_x, x) * round_up (work_y, y);
    if (area < best_area) {
      best_area = area;
      best = { (unsigned) x, (unsigned) y };
    }
  }
  return best;
}

/* Degrades a shape to one the device and the kernel accept: y shrinks
 * first (x carries the coalescing), then x, keeping it a warp multiple. */
BlockShape
clamp_shape (BlockShape b, const DeviceDescription & dev, const KernelResources & res)
{
  if (!b.valid ())
    return b;
  const unsigned lim = (unsigned) thread_limit (dev, res);
  const unsigned warp = (unsigned) warp_of (dev);
  if (b.x > lim)
    b.x = lim >= warp ? lim / warp * warp : lim;
  if (b.threads () > lim)
    b.y = std::max (1u, lim / b.x);
  return b;
}

bool
is_pow2_warp (unsigned x, long warp)
{
  if (x < (unsigned) warp || x % warp != 0)
    return false;
  const unsigned m = x / (unsigned) warp;
  return (m & (m - 1)) == 0;
}

/* KernelTraits::neighbours_share_lines: the largest block once the work
 * holds this many of them per SM (facedetect.stages with fewer, at 720x480
 * and 600x800, was no faster in its widest block than in 256 threads).
 * 1024 threads 8-20% faster than 256 from 1280x720 up (H100): docs/BLOCK-SIZING.md "What the face detector taught the tuner" */
constexpr long kLocalityBlocksPerSm = 6;

/* Estimated times within this fraction of the best are a tie. */
constexpr double kTimeTolerance = 0.02;

/* A halo column item's cost relative to a tile item (halo_cost): the
 * neighbour block's own data, mostly L2 hits.
 * Fitted to H100 timings: docs/BLOCK-SIZING.md "The model" */
constexpr double kHaloColumnWeight = 0.5;

/* What each warp of a block adds to its time, per point where the block
 * waits for its slowest warp (its end, and each barrier): sync_cost.
 * Fitted to H100 timings: docs/BLOCK-SIZING.md "The model" */
constexpr double kSyncCostPerWarp = 0.006;

/* DRAM bandwidth per SM when the description has none: an H100's share
 * (3352 GB/s over 132 SMs). */
constexpr double kAssumedBandwidthPerSm = 25.0;

double
bandwidth_per_sm (const DeviceDescription & dev)
{
  if (dev.dram_bandwidth_gbs > 0 && dev.sm_count > 0)
    return dev.dram_bandwidth_gbs / dev.sm_count;
  return kAssumedBandwidthPerSm;
}

/* Bytes an SM must have in flight to move its bandwidth share. */
double
bytes_to_saturate (const DeviceDescription & dev)
{
  return bandwidth_per_sm (dev) * std::max (0.0, dev.dram_latency_ns);
}

/* A block's output tile in work items: block x (y) times items per
 * thread along x (y). False for an empty block. */
bool
tile_items (const KernelTraits & k, BlockShape b, double *tw, double *th)
{
  *tw = (double) b.x * (k.items_per_thread_x ? k.items_per_thread_x : 1);
  *th = (double) b.y * (k.items_per_thread_y ? k.items_per_thread_y : 1);
  return *tw > 0 && *th > 0;
}

double
items_per_thread (const KernelTraits & k)
{
  return (double) (k.items_per_thread_x ? k.items_per_thread_x : 1) *
      (k.items_per_thread_y ? k.items_per_thread_y : 1);
}

}  // namespace

double
tile_efficiency (const KernelTraits & k, BlockShape b)
{
  double tw, th;
  if (!tile_items (k, b, &tw, &th))
    return 0;
  return (tw * th) / ((tw + 2.0 * k.halo_x) * (th + 2.0 * k.halo_y));
}

double
halo_cost (const KernelTraits & k, BlockShape b)
{
  double tw, th;
  if (!tile_items (k, b, &tw, &th))
    return 0;
  /* Halo rows are extra rows: loaded (and, in a fused stencil, computed)
   * like tile rows. Halo columns extend row segments the tile loads
   * anyway and are the neighbour block's own data, mostly L2 hits:
   * kHaloColumnWeight an item each. */
  const double x_cost = 1.0 + kHaloColumnWeight * (2.0 * k.halo_x / tw);
  const double y_cost = (th + 2.0 * k.halo_y) / th;
  return x_cost * y_cost;
}

int
saturating_warps (const DeviceDescription & dev, const KernelTraits & k)
{
  /* Little's law: to move its share of the bandwidth an SM needs
   * bandwidth share x latency bytes in flight; a warp has 32 x items per
   * thread x load bytes per item in flight (a thread issues its loads
   * together). */
  const double in_flight = (double) warp_of (dev) * items_per_thread (k) * k.load_bytes_per_item;
  if (in_flight <= 0)
    return 1;
  return (int) std::max (1.0, std::ceil (bytes_to_saturate (dev) / in_flight));
}

double
sync_cost (const KernelTraits & k, BlockShape b, int warp_size)
{
  const long warps = ceil_div (b.threads (), warp_size > 0 ? warp_size : 32);
  return 1.0 + kSyncCostPerWarp * (double) warps * (1.0 + k.barriers);
}

double
estimate_time (const DeviceDescription & dev, const KernelTraits & k, BlockShape b, long blocks, int resident)
{
  if (!b.valid () || blocks <= 0 || resident <= 0 || dev.sm_count <= 0)
    return 0;
  const double share = bandwidth_per_sm (dev);                   /* bytes per ns */
  const double need = bytes_to_saturate (dev);                   /* bytes in flight */
  const double items = items_per_thread (k);
  const double bytes_per_block = (double) b.threads () * items *
      (k.load_bytes_per_item + k.store_bytes_per_item) * halo_cost (k, b);
  const double in_flight_per_block = (double) b.threads () * items * k.load_bytes_per_item;
  const double sync = sync_cost (k, b, warp_of (dev));
  auto round_time = [&] (long conc) {
    /* A round below saturation takes as long as a saturated one would
     * with its bytes: latency, not bandwidth, bounds it. */
    const double sat = need > 0 && in_flight_per_block > 0
        ? std::min (1.0, (double) conc * in_flight_per_block / need)
        : 1.0;
    return (double) conc * bytes_per_block / (share * sat) * sync;
  };
  const long on_busiest = ceil_div (blocks, dev.sm_count);
  const long rounds = ceil_div (on_busiest, resident);
  const long last = on_busiest - (rounds - 1) * resident;
  const double t_last = round_time (last);
  const double t_before = (double) (rounds - 1) * round_time (resident);
  /* The last round starts no earlier than the scheduler has dispatched
   * the whole grid. */
  const double dispatch = (double) blocks * std::max (0.0, dev.block_dispatch_ns);
  return std::max (0.0, dev.launch_overhead_ns) + std::max (dispatch, t_before) + t_last;
}

namespace {

std::string
describe (const KernelTraits & k, long width, long height)
{
  std::ostringstream s;
  s << "kernel " << (k.name ? k.name : "") << ' ' << width << 'x' << height;
  return s.str ();
}

}  // namespace

/* ---- BlockShape ---- */

std::string
BlockShape::str () const
{
  return std::to_string (x) + "x" + std::to_string (y);
}

bool
BlockShape::parse (const std::string & s, BlockShape * out)
{
  /* Digits only: no signs, spaces or suffixes, so "32x" and "-1" fail. */
  auto number = [] (const std::string & t, unsigned long *v) {
    if (t.empty () || t.size () > 5)
      return false;
    unsigned long n = 0;
    for (char c : t) {
      if (c < '0' || c > '9')
        return false;
      n = n * 10 + (unsigned long) (c - '0');
    }
    *v = n;
    return true;
  };
  unsigned long x = 0, y = 1;
  const size_t sep = s.find ('x');
  if (sep == std::string::npos) {
    if (!number (s, &x))
      return false;
  } else if (!number (s.substr (0, sep), &x) || !number (s.substr (sep + 1), &y)) {
    return false;
  }
  if (x == 0 || y == 0 || x * y > 1024)
    return false;
  if (out)
    *out = { (unsigned) x, (unsigned) y };
  return true;
}

const char *
block_sizing_name (BlockSizing m)
{
  /* The nicks of the element property (gst/gstcvenums.cpp). */
  switch (m) {
    case BlockSizing::Static:
      return "static";
    case BlockSizing::EmpiricalTable:
      return "empirical-table";
    case BlockSizing::Model:
      return "model";
    case BlockSizing::Auto:
      return "auto";
  }
  return "unknown";
}

/* ---- Fixed devices ---- */

DeviceDescription
gtx_1650_ti ()
{
  DeviceDescription d;
  d.name = "NVIDIA GeForce GTX 1650 Ti";
  d.cc_major = 7;
  d.cc_minor = 5;
  d.sm_count = 16;
  d.max_threads_per_sm = 1024;
  d.max_blocks_per_sm = 16;
  d.max_threads_per_block = 1024;
  d.warp_size = 32;
  d.regs_per_sm = 65536;
  d.regs_per_block = 65536;
  d.smem_per_sm = 65536;
  d.smem_per_block = 49152;
  d.dram_bandwidth_gbs = 192;   /* GDDR6, 12 Gbps x 128 bits */
  return d;
}

DeviceDescription
h100_sxm ()
{
  DeviceDescription d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.max_threads_per_sm = 2048;
  d.max_blocks_per_sm = 32;
  d.max_threads_per_block = 1024;
  d.warp_size = 32;
  d.regs_per_sm = 65536;
  d.regs_per_block = 65536;
  d.smem_per_sm = 233472;
  d.smem_per_block = 49152;
  d.dram_bandwidth_gbs = 3352;  /* HBM3: 2 x 2619 MHz x 5120 bits */
  return d;
}

/* ---- Launch configuration ---- */

LaunchConfig
make_launch_config (const KernelTraits & k, BlockShape b, long width, long height, const char *source)
{
  const long ipx = k.items_per_thread_x ? k.items_per_thread_x : 1;
  const long ipy = k.items_per_thread_y ? k.items_per_thread_y : 1;
  const long tx = ceil_div (std::max<long> (width, 1), ipx);
  const long ty = ceil_div (std::max<long> (height, 1), ipy);
  LaunchConfig c;
  c.block = b;
  c.grid_x = (unsigned) std::max<long> (1, ceil_div (tx, std::max (1u, b.x)));
  c.grid_y = (unsigned) std::max<long> (1, ceil_div (ty, std::max (1u, b.y)));
  c.source = source;
  return c;
}

/* ---- The model ---- */

std::vector<unsigned>
model_search_space (const DeviceDescription & dev, const KernelResources & res)
{
  std::vector<unsigned> out;
  if (!model_usable (dev))
    return out;
  const long warp = warp_of (dev);
  /* The paper's lower bound: below MaxThreadsPerSM / MaxBlocksPerSM the
   * block-slot limit stops an SM from ever filling up. */
  const long lo = std::max (warp, round_up (ceil_div (dev.max_threads_per_sm, dev.max_blocks_per_sm), warp));
  const long hi = thread_limit (dev, res) / warp * warp;
  for (long b = lo; b <= hi; b += warp) {
    /* Sizes the kernel's registers or shared memory cannot launch at all
     * are no candidates. */
    if (resident_blocks (dev, res, b) > 0)
      out.push_back ((unsigned) b);
  }
  return out;
}

OccupancyTerms
model_terms (const DeviceDescription & dev, const KernelResources & res, unsigned block_threads,
    long total_threads)
{
  if (block_threads == 0)
    return {};
  return terms_for (dev, res, block_threads, total_threads, ceil_div (total_threads, block_threads));
}

std::vector<BlockShape>
model_ranked (const DeviceDescription & dev, const KernelResources & res, const KernelTraits & k,
    long width, long height, size_t n)
{
  if (n == 0)
    return {};
  if (k.fixed_block || !model_usable (dev))
    return { k.static_block };

  const long warp = warp_of (dev);
  const long ipx = k.items_per_thread_x ? k.items_per_thread_x : 1;
  const long ipy = k.items_per_thread_y ? k.items_per_thread_y : 1;
  const long tx = ceil_div (std::max<long> (width, 1), ipx);
  const long ty = ceil_div (std::max<long> (height, 1), ipy);
  const long total = tx * ty;

  /* Never a block larger than the work: a 2D block can cover the whole
   * image, an x-only block only one row of it. */
  const long cap = round_up (k.two_d ? total : tx, warp);

  std::vector<long> sizes;
  for (unsigned b : model_search_space (dev, res))
    if ((long) b <= cap)
      sizes.push_back (b);
  if (sizes.empty ()) {
    /* Less work than the smallest candidate: one block just big enough, as
     * the paper's lower bound is about filling an SM there is no work for. */
    sizes.push_back (std::min (cap, thread_limit (dev, res)));
  }

  struct Candidate {
    long threads;
    BlockShape shape;
    OccupancyTerms terms;
    long load;     /* threads on the busiest SM */
    double time;   /* estimated time, ns (estimate_time) */
  };
  std::vector<Candidate> remaining;
  for (long b : sizes) {
    /* Every layout of b threads with x a power-of-two multiple of the warp
     * (the tuner's search space); the fastest estimate, the old padding
     * rule (layout_2d) on a tie. */
    std::vector<BlockShape> layouts;
    if (k.two_d) {
      const BlockShape pref = layout_2d (b, tx, ty, warp);
      layouts.push_back (pref);
      for (long x = warp; x <= b; x *= 2)
        if (b % x == 0 && x <= round_up (tx, warp))
          layouts.push_back ({ (unsigned) x, (unsigned) (b / x) });
      if (!is_pow2_warp (pref.x, warp))
        layouts.erase (layouts.begin ());
      if (layouts.empty ())
        layouts.push_back ({ (unsigned) warp, (unsigned) (b / warp) });
    } else {
      layouts.push_back ({ (unsigned) b, 1 });
    }
    Candidate best_c;
    best_c.threads = 0;
    for (BlockShape shape : layouts) {
      Candidate c;
      c.threads = b;
      c.shape = shape;
      const long blocks = ceil_div (tx, c.shape.x) * ceil_div (ty, c.shape.y);
      c.terms = terms_for (dev, res, b, total, blocks);
      c.load = ceil_div (blocks, dev.sm_count) * b;
      if (c.terms.resident_blocks <= 0)
        continue;
      c.time = estimate_time (dev, k, c.shape, blocks, c.terms.resident_blocks);
      if (best_c.threads == 0 || c.time < best_c.time * (1 - 1e-9))
        best_c = c;
    }
    if (best_c.threads > 0)
      remaining.push_back (best_c);
  }
  if (remaining.empty ())
    return { clamp_shape (k.static_block, dev, res) };

  /* 1. the lowest estimated time, within 2% (finer differences are below
   * what the model can tell apart); 2. of those, the highest warp
   * occupancy (more latency hiding than the estimate credits); 3. the best
   * balanced busiest SM, within 1%; 4. the largest block, as
   * cudaOccupancyMaxPotentialBlockSize does: fewer blocks to schedule. */
  auto pick = [] (std::vector<Candidate> cands) {
    auto keep = [&] (auto pred) {
      cands.erase (std::remove_if (cands.begin (), cands.end (),
                       [&] (const Candidate & c) { return !pred (c); }),
          cands.end ());
    };
    double best = cands.front ().time;
    for (const auto & c : cands)
      best = std::min (best, c.time);
    keep ([&] (const Candidate & c) { return c.time <= best * (1 + kTimeTolerance); });
    double best_warp = 0;
    for (const auto & c : cands)
      best_warp = std::max (best_warp, c.terms.warp_occupancy);
    keep ([&] (const Candidate & c) { return c.terms.warp_occupancy >= best_warp - 1e-12; });
    long min_load = LONG_MAX;
    for (const auto & c : cands)
      min_load = std::min (min_load, c.load);
    keep ([&] (const Candidate & c) { return (double) c.load <= (double) min_load * 1.01; });
    long threads = cands.front ().threads;
    for (const auto & c : cands)
      threads = std::max (threads, c.threads);
    return threads;
  };

  std::vector<BlockShape> out;
  /* neighbours_share_lines on large work: the widest block first */
  if (k.neighbours_share_lines) {
    auto widest = std::max_element (remaining.begin (), remaining.end (),
        [] (const Candidate & a, const Candidate & b) { return a.threads < b.threads; });
    if (total >= kLocalityBlocksPerSm * (long) dev.sm_count * widest->threads) {
      out.push_back (widest->shape);
      remaining.erase (widest);
    }
  }
  /* The rules' choice, then the runners-up: the same rules over what is
   * left. */
  while (out.size () < n && !remaining.empty ()) {
    const long t = pick (remaining);
    auto it = std::find_if (remaining.begin (), remaining.end (), [&] (const Candidate & c) { return c.threads == t; });
    out.push_back (it->shape);
    remaining.erase (it);
  }
  return out;
}

BlockShape
model_choose (const DeviceDescription & dev, const KernelResources & res, const KernelTraits & k,
    long width, long height)
{
  return model_ranked (dev, res, k, width, height, 1).front ();
}

BlockShape
clamp_block (BlockShape b, const DeviceDescription & dev, const KernelResources & res)
{
  return clamp_shape (b, dev, res);
}

/* ---- LaunchPolicy ---- */

LaunchPolicy::LaunchPolicy (DeviceDescription dev, BlockSizing mode, BlockShape user_static,
    std::shared_ptr<const TuningTable> table)
    : dev_ (std::move (dev)), mode_ (mode), user_static_ (user_static), table_ (std::move (table))
{
}

void
LaunchPolicy::log (int level, const std::string & msg) const
{
  if (logger_)
    logger_ (level, msg);
}

LaunchConfig
LaunchPolicy::choose (const KernelTraits & k, const KernelResources & res, long width, long height) const
{
  BlockShape b;
  const char *source = "";

  if (k.fixed_block) {
    /* The kernel's shared-memory tiles are built for this shape: it is not
     * clamped or replaced, whatever the mode. */
    b = k.static_block;
    source = "fixed";
    /* Not timed, but it ends the auto tuner's timing of the launch before. */
    if (auto_ && mode_ == BlockSizing::Auto)
      auto_->on_untimed_launch ();
  } else if (const BlockShape *f = forced_for (k.name)) {
    b = clamp_shape (*f, dev_, res);
    source = "forced";
  } else {
    switch (mode_) {
      case BlockSizing::Static:
        if (user_static_.valid ()) {
          b = clamp_shape (user_static_, dev_, res);
          source = "user";
        } else {
          b = clamp_shape (k.static_block, dev_, res);
          source = "static";
        }
        break;
      case BlockSizing::EmpiricalTable: {
        std::optional<TuningEntry> e;
        if (table_)
          e = table_->lookup (dev_, k.name ? k.name : "", width, height);
        if (e && e->block.valid ()) {
          b = clamp_shape (e->block, dev_, res);
          source = "table";
        } else {
          b = clamp_shape (model_shape (k, res, width, height), dev_, res);
          source = "table-miss:model";
          bool first = false;
          {
            std::lock_guard<std::mutex> g (miss_lock_);
            first = reported_misses_.emplace (k.name ? k.name : "", width, height).second;
          }
          if (first && logger_) {
            log (LOG_DEBUG, describe (k, width, height) + ": no tuning-table entry for " + dev_.name +
                (table_ ? "" : " (no table loaded)") + "; using the model");
          }
        }
        break;
      }
      case BlockSizing::Model:
        b = clamp_shape (model_shape (k, res, width, height), dev_, res);
        source = "model";
        break;
      case BlockSizing::Auto:
        source = choose_auto (k, res, width, height, &b);
        break;
    }
  }

  if (!b.valid ()) {
    /* Only a broken static_block gets here; one warp still launches. */
    b = { (unsigned) warp_of (dev_), 1 };
  }
  LaunchConfig c = make_launch_config (k, b, width, height, source);
  /* choose() runs for every frame: build the message only for a listener. */
  if (logger_)
    log (LOG_DEBUG, describe (k, width, height) + ": block " + c.block.str () + " grid " +
      std::to_string (c.grid_x) + "x" + std::to_string (c.grid_y) + " (" + source + ")");
  if (observer_)
    observer_->on_launch (k, res, width, height, c);
  return c;
}

/* Everything model_choose reads of a kernel's traits and resources but
 * the name (a field added to either belongs here too). */
static bool
same_model_inputs (const KernelTraits & a, const KernelResources & ra, const KernelTraits & b,
    const KernelResources & rb)
{
  return a.static_block.x == b.static_block.x && a.static_block.y == b.static_block.y && a.two_d == b.two_d &&
      a.items_per_thread_x == b.items_per_thread_x && a.items_per_thread_y == b.items_per_thread_y &&
      a.halo_x == b.halo_x && a.halo_y == b.halo_y && a.fixed_block == b.fixed_block &&
      a.load_bytes_per_item == b.load_bytes_per_item && a.store_bytes_per_item == b.store_bytes_per_item &&
      a.barriers == b.barriers && a.neighbours_share_lines == b.neighbours_share_lines &&
      ra.regs_per_thread == rb.regs_per_thread && ra.static_smem_bytes == rb.static_smem_bytes &&
      ra.dynamic_smem_per_block == rb.dynamic_smem_per_block &&
      ra.dynamic_smem_per_thread == rb.dynamic_smem_per_thread && ra.max_threads_per_block == rb.max_threads_per_block;
}

BlockShape
LaunchPolicy::model_shape (const KernelTraits & k, const KernelResources & res, long width, long height) const
{
  constexpr size_t kModelMemoSize = 64;
  std::lock_guard<std::mutex> g (model_lock_);
  const char *name = k.name ? k.name : "";
  for (const ModelAnswer & a : model_memo_)
    if (a.width == width && a.height == height && same_model_inputs (a.traits, a.res, k, res) && a.name == name)
      return a.block;
  const BlockShape b = model_choose (dev_, res, k, width, height);
  if (model_memo_.size () >= kModelMemoSize)
    model_memo_.clear ();
  KernelTraits traits = k;
  traits.name = nullptr;
  model_memo_.push_back ({ name, traits, res, width, height, b });
  return b;
}

const char *
LaunchPolicy::choose_auto (const KernelTraits & k, const KernelResources & res, long width, long height,
    BlockShape * b) const
{
  auto candidates = [&] { return auto_candidates (dev_, res, k, width, height, table_.get ()); };
  if (!auto_) {
    *b = candidates ().front ();
    return "auto:untimed";
  }
  const AutoTuner::Choice a = auto_->on_choose (k.name ? k.name : "", width, height, candidates);
  /* The candidates were clamped already; a shape from a stale state is
   * clamped again rather than trusted. */
  *b = clamp_shape (a.block, dev_, res);
  switch (a.phase) {
    case AutoTuner::Phase::Warmup:
      return "auto:warmup";
    case AutoTuner::Phase::Trial:
      return "auto:trial";
    case AutoTuner::Phase::Waiting:
      return "auto:wait";
    case AutoTuner::Phase::Settled:
      break;
  }
  return "auto";
}

bool
LaunchPolicy::replays_allowed () const
{
  if (!forced_.empty () || observer_)
    return false;
  return mode_ != BlockSizing::Auto || (auto_ && auto_->quiet ());
}

void
LaunchPolicy::force_block (const std::string & kernel, BlockShape shape)
{
  forced_.erase (std::remove_if (forced_.begin (), forced_.end (), [&] (const auto & f) { return f.first == kernel; }),
      forced_.end ());
  if (shape.valid ())
    forced_.emplace_back (kernel, shape);
}

const BlockShape *
LaunchPolicy::forced_for (const char *kernel) const
{
  if (!kernel)
    return nullptr;
  for (const auto & f : forced_)
    if (f.first == kernel)
      return &f.second;
  return nullptr;
}

}  // namespace cudavision
