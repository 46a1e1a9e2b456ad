/* cudavision — the one launch policy that every kernel launch asks.
 *
 * Pure C++ (no CUDA, no GLib): the policy is a function of a device
 * description, a kernel's traits and resources, and the work size, so unit
 * tests can check its choices for fixed devices on machines without a GPU.
 *
 * Modes (the element property `block-sizing`):
 *  - Static:         the kernel's documented default shape, or the user's
 *                    `block-size` when one is set.
 *  - EmpiricalTable: the shape measured by cudavision-tune for this GPU,
 *                    kernel and size; a missing entry falls back to Model.
 *  - Model:          the occupancy model of Guerfi et al. (block size
 *                    selection for Viola-Jones on CUDA), extended with the
 *                    kernel's real registers / shared memory and 2D shapes.
 *  - Auto:           online: the first launches of every (kernel, size)
 *                    try a short list of shapes, timed without host waits,
 *                    and the fastest is kept (cuda/auto_tuner.h). Without
 *                    an AutoTuner attached, the list's first shape.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace cudavision {

/* A CUDA block shape. x is the fastest-varying (coalesced) dimension. */
struct BlockShape {
  unsigned x = 0;
  unsigned y = 1;

  unsigned threads () const { return x * y; }
  bool valid () const { return x > 0 && y > 0; }
  std::string str () const;   /* "32x8" */
  /* Parses "256" (as 256x1) or "32x8"; false on anything else, including
   * shapes over 1024 threads. */
  static bool parse (const std::string & s, BlockShape * out);
  bool operator== (const BlockShape & o) const { return x == o.x && y == o.y; }
  bool operator!= (const BlockShape & o) const { return !(*this == o); }
};

enum class BlockSizing { Static = 0, EmpiricalTable = 1, Model = 2, Auto = 3 };
const char *block_sizing_name (BlockSizing m);

/* What the model needs to know of a GPU. Filled from cudaDeviceProp on a
 * real device (cuda/device_info.h), or by hand for tests. */
struct DeviceDescription {
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int max_threads_per_block = 1024;
  int warp_size = 32;
  int regs_per_sm = 65536;
  int regs_per_block = 65536;
  size_t smem_per_sm = 0;
  size_t smem_per_block = 49152;
  int driver_version = 0;
  /* Peak DRAM bandwidth in GB/s (= bytes per ns): 2 x memory clock x bus
   * width, queried on a real device; 0 when unknown (the model then
   * assumes 25 GB/s per SM). */
  double dram_bandwidth_gbs = 0;
  /* Timing constants the CUDA API does not report: the DRAM latency under
   * load (Little's law: the bytes an SM must have in flight are its
   * bandwidth times this), the time the block scheduler needs per block of
   * a grid, and the fixed cost of a launch.
   * Defaults measured on an H100: docs/BLOCK-SIZING.md "What changed the result" */
  double dram_latency_ns = 750;
  double block_dispatch_ns = 0.6;
  double launch_overhead_ns = 3000;

  int max_warps_per_sm () const { return warp_size ? max_threads_per_sm / warp_size : 0; }
};

/* Fixed descriptions for tests and documentation. */
DeviceDescription gtx_1650_ti ();  /* the paper's GPU: CC 7.5, 16 SMs, 1024 thr/SM, 16 blocks/SM */
DeviceDescription h100_sxm ();     /* CC 9.0, 132 SMs, 2048 thr/SM, 32 blocks/SM */

/* A kernel's resource usage, from cudaFuncGetAttributes on a real device. */
struct KernelResources {
  int regs_per_thread = 32;
  size_t static_smem_bytes = 0;
  size_t dynamic_smem_per_block = 0;  /* fixed dynamic smem, if any */
  size_t dynamic_smem_per_thread = 0; /* dynamic smem that scales with block size */
  int max_threads_per_block = 1024;
};

/* How a kernel maps its threads onto work. Declared once per kernel next to
 * its launcher; `name` is the key in the tuning table. */
struct KernelTraits {
  const char *name = "";
  BlockShape static_block { 32, 8 }; /* documented default for `static` */
  bool two_d = true;                 /* 2D shapes allowed; else x-only */
  unsigned items_per_thread_x = 1;   /* work items per thread along x */
  unsigned items_per_thread_y = 1;
  /* Stencil kernels that stage a tile in shared memory load halo_x work
   * items on each side of every tile row and halo_y rows above and below
   * it (a blur of radius R: R). The model's tile-efficiency term weighs
   * useful against loaded items with them; 0 for point-wise kernels. */
  unsigned halo_x = 0;
  unsigned halo_y = 0;
  /* Kernels that need a fixed shape (a shared-memory tile built for it)
   * set this; every mode then returns static_block. */
  bool fixed_block = false;
  /* DRAM traffic of one work item: bytes it loads (issued together, all a
   * thread's items at once) and bytes it stores. The model's memory time
   * and its Little's-law saturation use them; a kernel that does not
   * declare them is taken as a 32-bit word in and out. */
  unsigned load_bytes_per_item = 4;
  unsigned store_bytes_per_item = 4;
  /* Block-wide barriers (__syncthreads) per tile a block processes: a
   * kernel that stages tiles in shared memory waits for its slowest warp
   * at each, and the model charges that per warp of the block. */
  unsigned barriers = 0;
  /* Work items next to each other read overlapping memory (a list of
   * neighbouring windows, in the order a kernel wrote them): the items a
   * block holds at once share their lines in its SM's L1, which the
   * occupancy and time terms do not see. Where the work gives every SM
   * kLocalityBlocksPerSm of the largest candidate blocks, the model takes
   * that block (model_ranked). */
  bool neighbours_share_lines = false;
};

struct LaunchConfig {
  BlockShape block;
  unsigned grid_x = 0;
  unsigned grid_y = 0;
  /* Where the shape came from: "static", "user", "table", "model",
   * "table-miss:model", "fixed", "forced" (the tuner), and in auto mode
   * "auto:warmup" (first launches, untimed), "auto:trial" (a timed
   * candidate), "auto:wait" (timings not read yet),
   * "auto" (settled) or "auto:untimed" (no tuner attached). */
  const char *source = "";
};

/* Grid that covers width x height work items with the given block. */
LaunchConfig make_launch_config (const KernelTraits & k, BlockShape b, long width, long height,
    const char *source);

/* The model's candidate block sizes (1D thread counts): multiples of the
 * warp size up to min(max threads per block, kernel limit), with
 * B >= MaxThreadsPerSM / MaxBlocksPerSM (smaller blocks cannot fill an SM). */
std::vector<unsigned> model_search_space (const DeviceDescription & dev, const KernelResources & res);

/* The occupancy terms the paper defines, for one candidate block size and
 * a given number of work items (threads). */
struct OccupancyTerms {
  double warp_occupancy = 0;   /* active warps / max warps per SM */
  double block_occupancy = 0;  /* resident blocks / max blocks per SM */
  double sm_occupancy = 0;     /* SMs that get work / SM count */
  int resident_blocks = 0;     /* blocks per SM, limited by threads, blocks, regs, smem */
  double score = 0;            /* what the model maximizes */
};
OccupancyTerms model_terms (const DeviceDescription & dev, const KernelResources & res,
    unsigned block_threads, long total_threads);

/* Terms the project added to the paper's model (docs/BLOCK-SIZING.md,
 * "What changed the result"):
 *  - tile_efficiency: useful work items over loaded ones for a block's
 *    tile, (tw * th) / ((tw + 2 halo_x) * (th + 2 halo_y)), tw and th the
 *    tile's items (block x / y times items per thread); 1 without a halo.
 *  - halo_cost: what a useful item costs in loaded ones: a halo row
 *    (halo_y) a full item, a halo column item (halo_x) half of one, since
 *    it lies on the row segments the tile loads anyway (the neighbour
 *    block's lines, mostly L2 hits):
 *    (1 + ((tw + 2 halo_x) / tw - 1) / 2) * (th + 2 halo_y) / th.
 *  - saturating_warps: active warps per SM whose loads in flight cover the
 *    DRAM latency at the SM's share of the bandwidth (Little's law:
 *    bandwidth/SMs x latency bytes, each warp having 32 x items per thread
 *    x load bytes per item in flight). May exceed the SM's warp slots: the
 *    kernel is then latency bound at any occupancy.
 *  - sync_cost: 1 + 0.006 x warps per block x (1 + barriers): a block's
 *    slot (and, at a barrier, its warps) waits for its slowest warp.
 *  - estimate_time: the launch's time in ns: the launch overhead, then the
 *    busiest SM's rounds of `resident` blocks, each moving its bytes at the
 *    SM's bandwidth share times the fraction of saturation it reaches
 *    (times sync_cost); no block starts before the scheduler has
 *    dispatched it (block_dispatch_ns per block of the grid), so the
 *    rounds before the last take at least that long. */
double tile_efficiency (const KernelTraits & k, BlockShape b);
double halo_cost (const KernelTraits & k, BlockShape b);
int saturating_warps (const DeviceDescription & dev, const KernelTraits & k);
double sync_cost (const KernelTraits & k, BlockShape b, int warp_size = 32);
double estimate_time (const DeviceDescription & dev, const KernelTraits & k, BlockShape b, long blocks,
    int resident);

/* The model's choice: a pure function of its inputs. For 2D kernels the
 * chosen thread count is laid out with x a multiple of 32 (coalescing). */
BlockShape model_choose (const DeviceDescription & dev, const KernelResources & res,
    const KernelTraits & k, long width, long height);

/* The model's `n` best shapes, best first. The first is model_choose's;
 * each next one is what the same rules pick among the thread counts not
 * yet taken. Fewer when the search space is smaller; a fixed-block kernel
 * gets its static_block alone. */
std::vector<BlockShape> model_ranked (const DeviceDescription & dev, const KernelResources & res,
    const KernelTraits & k, long width, long height, size_t n);

/* A shape degraded to what the device and the kernel accept, by the rule
 * every mode applies (y shrinks first, then x, kept a warp multiple). */
BlockShape clamp_block (BlockShape b, const DeviceDescription & dev, const KernelResources & res);

class TuningTable;
class AutoTuner;

/* Sees every choice right before the launch it configures, on the
 * launching thread: cudavision-tune times launches with it. */
class LaunchObserver {
public:
  virtual ~LaunchObserver () = default;
  virtual void on_launch (const KernelTraits & k, const KernelResources & res, long width, long height,
      const LaunchConfig & c) = 0;
};

class LaunchPolicy {
public:
  using Logger = std::function<void (int level, const std::string & msg)>;
  enum { LOG_DEBUG = 5, LOG_INFO = 4, LOG_WARNING = 2 };

  LaunchPolicy () = default;
  LaunchPolicy (DeviceDescription dev, BlockSizing mode, BlockShape user_static = {},
      std::shared_ptr<const TuningTable> table = nullptr);

  LaunchConfig choose (const KernelTraits & k, const KernelResources & res, long width,
      long height) const;

  const DeviceDescription & device () const { return dev_; }
  BlockSizing mode () const { return mode_; }
  void set_logger (Logger l) { logger_ = std::move (l); }

  /* Every later choice for the kernel named `kernel` gets `shape`, clamped
   * as a user shape is, in any mode; source "forced". Fixed-block kernels
   * keep their shape. cudavision-tune forces candidates through the
   * launchers' own code paths with it (and the kernels whose output a
   * candidate reads to their tuned shapes). Several kernels may be forced
   * at once; an invalid shape removes the kernel's. */
  void force_block (const std::string & kernel, BlockShape shape);
  void set_observer (std::shared_ptr<LaunchObserver> o) { observer_ = std::move (o); }
  /* The online tuner of block-sizing=auto; set before the first launch. */
  void set_auto_tuner (std::shared_ptr<AutoTuner> t) { auto_ = std::move (t); }
  AutoTuner *auto_tuner () const { return auto_.get (); }
  /* Whether a frame's launches may be replayed from a captured graph
   * (captured_graphs.h): the same choices every frame and nobody timing
   * each launch; not under a forced shape (cudavision-tune's candidates)
   * or an observer, and under auto only once its tuner is quiet (every
   * kernel it has seen settled, nothing being timed: a graph is captured
   * on a key's second frame, when its kernels have all been seen). */
  bool replays_allowed () const;
  const std::shared_ptr<const TuningTable> & table () const { return table_; }

private:
  void log (int level, const std::string & msg) const;
  const BlockShape *forced_for (const char *kernel) const;
  const char *choose_auto (const KernelTraits & k, const KernelResources & res, long width, long height,
      BlockShape * b) const;
  /* model_choose for this policy's device, remembered (model_memo_) */
  BlockShape model_shape (const KernelTraits & k, const KernelResources & res, long width, long height) const;

  DeviceDescription dev_;
  BlockSizing mode_ = BlockSizing::Static;
  BlockShape user_static_;
  std::shared_ptr<const TuningTable> table_;
  Logger logger_;
  std::vector<std::pair<std::string, BlockShape>> forced_;
  std::shared_ptr<LaunchObserver> observer_;
  std::shared_ptr<AutoTuner> auto_;
  /* Table misses already reported, so each is logged once. */
  mutable std::mutex miss_lock_;
  mutable std::set<std::tuple<std::string, long, long>> reported_misses_;
  /* The model's answers by kernel, resources and size. The model searches
   * every block size (microseconds of host time) and its answer depends on
   * nothing else, so the launches of every frame after the first read it
   * here; a few kernels and sizes an element, cleared when full. */
  struct ModelAnswer {
    std::string name; /* a copy: the traits' name need not outlive the call */
    KernelTraits traits;
    KernelResources res;
    long width, height;
    BlockShape block;
  };
  mutable std::mutex model_lock_;
  mutable std::vector<ModelAnswer> model_memo_;
};

}  // namespace cudavision
