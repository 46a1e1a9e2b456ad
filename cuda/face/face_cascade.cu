/* cudavision — the face detector's cascade, evaluated stage-parallel (see
 * facedetect_kernels.h and docs/elements/cudafacedetect.md).
 *
 * One thread walking the whole cascade for its window leaves most of its
 * warp idle as soon as neighbouring windows leave at different stages,
 * and most windows leave in the first two or three stages. So the cascade
 * runs in three kernels, each over every level of a batch:
 *  - cascade (front): one thread per window, 2D blocks over each level's
 *    window grid, the variance normalization and the first stages (short
 *    ones); after the first, the windows OpenCV's scan skips leave, and
 *    the block's survivors are compacted in shared memory after each
 *    stage so that the next runs in full warps. Survivors are appended to
 *    a list with one atomic per coalesced group of a warp.
 *  - stages (rounds; the default schedule has none): one thread per listed
 *    survivor, a few more stages, compacted again into another list.
 *  - deep: the last, long stages of the few windows left, a warp per
 *    window with each stage's weak classifiers spread over the lanes and
 *    summed with a butterfly reduction (or a thread per window, for
 *    cascades whose stage sums could round differently in another order);
 *    an accepted window then checks that OpenCV's scan evaluates it and
 *    is appended to the result list in frame pixels.
 * Every per-window computation is haar_eval.h's, so the windows are
 * OpenCV's bit for bit; only the order of work changes. */
#include "facedetect_kernels.h"
#include "../common/coalesced_append.cuh"
#include "../common/launch_util.cuh"

#include <cooperative_groups.h>

#include <map>
#include <mutex>
#include <tuple>
#include <type_traits>

namespace cg = cooperative_groups;

namespace cudavision {

namespace {

using facedetect::BatchMap;
using facedetect::LevelDesc;
using facedetect::WindowEntry;

/* Threads per SM of a facedetect.stages round (launch_list). */
constexpr unsigned kRoundThreadsPerSm = 1024;

/* A listed window: its level and its top-left integral offset. */
struct Window {
  int level, gx, gy;
  size_t offset;
};

/* The integral offset of window (gx, gy) of level L: its top-left
 * entries (gx = 0: its row's first). */
__device__ __forceinline__ size_t
window_offset (const LevelDesc & L, int gx, int gy)
{
  return L.offset + (size_t) (gy * L.step) * L.pitch + (size_t) (gx * L.step);
}

__device__ __forceinline__ Window
locate (const LevelDesc *levels, const BatchMap & windows, unsigned index)
{
  Window w;
  w.level = windows.level_of ((int) index);
  const LevelDesc & L = levels[w.level];
  const int local = (int) index - windows.begin[w.level];
  /* rows of grid_x windows (make_batch_map's row): the division by a
   * multiply-high, exact for every unit (facedetect::divide) */
  w.gy = facedetect::divide (local, windows.row[w.level]);
  w.gx = local - w.gy * L.grid_x;
  w.offset = window_offset (L, w.gx, w.gy);
  return w;
}

/* The accepted window in frame pixels, as OpenCV reports it (its size is
 * its level's window), as a sortable key. */
__device__ __forceinline__ facedetect::FaceKey
frame_key (const LevelDesc & L, const Window & w)
{
  return facedetect::face_key (haar::round_f (haar::fmul ((float) (w.gx * L.step), L.scale)),
      haar::round_f (haar::fmul ((float) (w.gy * L.step), L.scale)), L.index, L.key_x_shift, L.key_y_shift);
}

/* Whether the front kernel reads stumps' shared corners once (haar::
 * SharedCornerLoad), as the stages rounds do. Off: on, the kernel took
 * 38 registers instead of 32 (48 warps an SM instead of 64; capped at
 * 32, 16 bytes spill) when it ran stages 0-1, for 16 of their 200 corner
 * loads (default cascade), and the whole frame was 1-2% slower
 * (docs/PERFORMANCE.md "Why the kernels are built as they are"); with
 * stages 0-3 (58 of 700 loads) it spills 84 bytes at 32. */
constexpr bool kFrontSharedCorners = false;

/* The first kernel's registers. Hopper: 32, without spills, 64 warps an
 * SM; capped at 40 or 48 the frame was 2-9% slower (docs/PERFORMANCE.md
 * "Why the kernels are built as they are"). Ampere and Ada: 40, what the
 * kernel took there before the compaction (12 bytes of spill in the
 * stumps' instance). Turing: 64, likewise, without spills. Measured on
 * Hopper only. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
constexpr int kFrontMaxRegisters = 32;
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
constexpr int kFrontMaxRegisters = 40;
#else
constexpr int kFrontMaxRegisters = 64;
#endif
/* The first kernel: a thread a window (a warp a row of 32 windows of its
 * level, blockDim.x = 32), its normalization and stages [0, last). About
 * half the windows leave at each of the first stages, so after each stage
 * the block's survivors are compacted in shared memory (`passed`: each
 * survivor's thread index in the block and its norm, dynamic, blockDim.x *
 * blockDim.y entries) and the block's first threads evaluate the next
 * stage of one survivor each: the later stages run in full warps instead
 * of in every warp at half its lanes or less, on the block's own windows
 * (their integral rows still in L1). The same stages of the same windows,
 * so the same list. */
template <bool STUMPS>
__global__ void
__maxnreg__ (kFrontMaxRegisters) front_kernel (haar::CascadeView c, const LevelDesc *__restrict__ levels,
    BatchMap blocks, BatchMap windows, const uint32_t *__restrict__ sum, const uint32_t *__restrict__ sq, int last,
    WindowEntry *out, uint32_t *out_count, unsigned out_capacity)
{
  extern __shared__ uint2 passed[];
  __shared__ unsigned n_passed;
  const int li = blocks.level_of (blockIdx.x);
  const LevelDesc & L = levels[li];
  const int b = blockIdx.x - blocks.begin[li];
  /* rows of nbx blocks (launch_front's map) */
  const int nbx = (L.grid_x + blockDim.x - 1) / blockDim.x;
  const int by = facedetect::divide (b, blocks.row[li]), bx = b - by * nbx;
  const int gx0 = bx * blockDim.x, gy0 = by * blockDim.y;
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  using Load = std::conditional_t<kFrontSharedCorners, haar::SharedCornerLoad, haar::GlobalLoad>;
  /* the integral offset of the block's window `t` (blockDim.x = 32) */
  auto origin = [&] (unsigned t) { return window_offset (L, gx0 + (int) (t & 31u), gy0 + (int) (t >> 5)); };
  /* the window this thread evaluates: its own, then a survivor's */
  uint2 e = make_uint2 ((unsigned) tid, 0u);
  bool pass = false, rejected = false;
  if (gx0 + (int) threadIdx.x < L.grid_x && gy0 + (int) threadIdx.y < L.grid_y) {
    const size_t o = origin ((unsigned) tid);
    const uint32_t *ws = haar::window_base (sum + o);
    float norm = 0;
    const bool normalized = haar::window_norm (ws, sq + o, L.pitch, c.window_width, c.window_height, &norm);
    pass = normalized && haar::eval_stages<STUMPS, Load> (c, ws, L.pitch, norm, 0, 1) == 1;
    rejected = normalized && !pass;
    e.y = __float_as_uint (norm);
  }
  const unsigned lane = threadIdx.x;
  /* OpenCV's scan skips the window after one its first stage rejects
   * (haar::evaluated_by_opencv): a window after an odd run of those is
   * never evaluated there, so it leaves here, before its later stages.
   * The warp is 32 neighbours of a row; where the run goes back past its
   * first, the window stays and the deep kernel's check decides, as it
   * does for every accepted window. */
  const unsigned rejected_lanes = __ballot_sync (0xffffffffu, rejected);
  if (pass)
    pass = haar::evaluated_in_run (rejected_lanes, (int) lane, gx0 == 0) != 0;
  for (int s = 1; s < last; s++) {
    /* every thread is here (the count is the block's): the previous
     * stage's entries and count have been read */
    if (tid == 0)
      n_passed = 0;
    __syncthreads ();
    const unsigned mask = __ballot_sync (0xffffffffu, pass);
    unsigned base = 0;
    if (lane == 0 && mask)
      base = atomicAdd (&n_passed, (unsigned) __popc (mask));
    base = __shfl_sync (0xffffffffu, base, 0);
    if (pass)
      passed[base + __popc (mask & ((1u << lane) - 1u))] = e;
    __syncthreads ();
    const unsigned n = n_passed;
    if (n == 0)
      return; /* the whole block */
    pass = (unsigned) tid < n;
    if (pass) {
      e = passed[tid];
      pass = haar::eval_stages<STUMPS, Load> (c, haar::window_base (sum + origin (e.x)), L.pitch, __uint_as_float (e.y),
                 s, s + 1) == 1;
    }
    if (s + 1 < last)
      __syncthreads ();
  }
  if (pass)
    coalesced_append (out, out_count, out_capacity,
        make_uint2 ((unsigned) (windows.begin[li] + (gy0 + (int) (e.x >> 5)) * L.grid_x + gx0 + (int) (e.x & 31u)),
            e.y));
}

/* haar::evaluated_by_opencv with the group's lanes walking LANES windows
 * left at a time: whether the run of first-stage rejections right before
 * window gx is even. */
template <bool STUMPS, int LANES>
__device__ bool
group_evaluated_by_opencv (const cg::thread_block_tile<LANES> & g, const haar::CascadeView & c,
    const uint32_t *row_sum, const uint32_t *row_sq, int pitch, int gx, int step)
{
  int zeros = 0;
  for (int base = gx - 1; base >= 0; base -= LANES) {
    const int x = base - (int) g.thread_rank ();
    const bool rejected = x >= 0 && haar::eval_window<STUMPS> (c, row_sum + x * step, row_sq + x * step, pitch, 1) == 0;
    const unsigned breaks = g.ballot (!rejected);
    if (breaks)
      return ((zeros + __ffs (breaks) - 1) & 1) == 0;
    zeros += LANES;
  }
  return (zeros & 1) == 0;
}

/* A lane's column of a deep window's patch: `rows` words `src_pitch`
 * apart in the integral, `dst_pitch` apart in shared memory. On sm_80 and
 * up as asynchronous copies (cp.async, through L1 like the loads they
 * replace): every row in flight at once, no register holding a word, one
 * wait for all of them (patch_copy_wait). A load and a store a row, as
 * before, gave each store its load's latency, two rows at a time: the
 * copy was 43% of the deep kernel's stall samples (long scoreboard on
 * the stores) for 23% of its instructions (a 1080p profile of the mosaic). The same
 * words either way. Before sm_80, loads and stores. */
__device__ __forceinline__ void
copy_patch_column (uint32_t *dst, const uint32_t *src, int rows, int dst_pitch, int src_pitch)
{
#if __CUDA_ARCH__ >= 800
  unsigned to = (unsigned) __cvta_generic_to_shared (dst);
#pragma unroll 5
  for (int r = 0; r < rows; r++) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(to), "l"(src) : "memory");
    to += (unsigned) dst_pitch * 4u;
    src += src_pitch;
  }
#else
  for (int r = 0; r < rows; r++)
    dst[r * dst_pitch] = haar::load_ro (src + (unsigned) (r * src_pitch));
#endif
}

/* Until this lane's copy_patch_column has landed (then a warp barrier
 * shows it to the other lanes). */
__device__ __forceinline__ void
patch_copy_wait ()
{
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

/* At most 48 registers a thread, what the deep kernel took before its
 * queue: uncapped, the queue's loop took it to 56 (fewer blocks an SM);
 * capped, nothing spills (sm_90, CUDA 13). */
constexpr int kListMaxRegisters = 48;

/* Stages [first, last) of every listed window, LANES lanes per window:
 * lane l takes weak classifiers l, l + LANES, ... of each stage, and the
 * group adds its lanes' sums with a butterfly. With one lane that is
 * OpenCV's order; with more, the stage sum is the same in any order
 * (haar::stage_sums_exact, which the host checks before it asks for more
 * than one lane), so every lane holds OpenCV's sum and the group decides
 * as one. The windows that pass go to `out` (a round of facedetect.stages)
 * or, FINAL (facedetect.deep, last = every stage), to the result list in
 * frame pixels once OpenCV's scan is known to evaluate them. */
template <bool STUMPS, int LANES, bool FINAL>
__global__ void __maxnreg__ (kListMaxRegisters)
list_kernel (haar::CascadeView c, const LevelDesc *__restrict__ levels, BatchMap windows,
    const uint32_t *__restrict__ sum, const uint32_t *__restrict__ sq, const WindowEntry *__restrict__ in,
    const uint32_t *in_count, unsigned in_capacity, int first, int last, WindowEntry *out, uint32_t *out_count,
    unsigned out_capacity, facedetect::FaceKey *faces, int patch_from, uint32_t *queue, bool spread)
{
  /* facedetect.deep, a warp per window: from stage patch_from on, the
   * window's integral corners ((W + 1) x (H + 1) words, rows at the
   * cascade's patch pitch) are copied into the warp's patch of shared
   * memory once and read there. The warp's 32 lanes read 32 different
   * weak classifiers' corners of one window: from L1 that is about one
   * wavefront per distinct line, from shared memory one per bank
   * conflict, which the cascade's layout keeps few (the pitch, the weak
   * classifiers sharing a round and the order of their corner loads:
   * patch_layout.h). The copy (one coalesced row a step) is paid by every
   * window that reaches patch_from: at the deep kernel's first stage, the
   * default, it was the fastest on every input (a later stage, which
   * spares the windows that leave early, was slower: facedetect.h). */
  constexpr bool kPatch = FINAL && LANES == 32;
  extern __shared__ uint32_t window_patches[];
  const int patch_w = c.window_width + 1, patch_h = c.window_height + 1, patch_pitch = haar::patch_pitch_of (c);
  const cg::thread_block_tile<LANES> g = cg::tiled_partition<LANES> (cg::this_thread_block ());
  const unsigned groups = blockDim.x * blockDim.y / LANES;
  const unsigned group = (threadIdx.y * blockDim.x + threadIdx.x) / LANES;
  const int lane = (int) g.thread_rank ();
  const unsigned n = min (*in_count, in_capacity);
  /* A group's first window is its index in the grid. With a queue (a
   * counter at 0), each warp then takes its groups' next windows from it,
   * 32 / LANES at a time, consecutive (the list's entries stay coalesced):
   * a window's stages take from a few to hundreds of weak classifiers, and
   * with the grid stride the wave's slowest warps held several long windows
   * while the others idled (docs/PERFORMANCE.md "Why the kernels are built as they are"). The next windows are asked
   * for as the current ones start, so the atomic's round trip hides behind
   * their stages. A warp runs until none of its groups has a window. */
  auto window = [&] (unsigned i) {
    const WindowEntry e = in[i];
    const Window w = locate (levels, windows, e.x);
    const LevelDesc & L = levels[w.level];
    const uint32_t *ws = haar::window_base (sum + w.offset);
    const float norm = __uint_as_float (e.y);
    bool pass = true;
    bool in_patch = false;
    uint32_t *patch = window_patches + group * (unsigned) (patch_pitch * patch_h);
    for (int si = first; si < last && pass; si++) {
      if (kPatch && !in_patch && si >= patch_from) {
        g.sync ();  /* the previous window's reads are done */
        if (lane < patch_w)
          copy_patch_column (patch + lane, ws + lane, patch_h, patch_pitch, L.pitch);
        patch_copy_wait ();
        g.sync (); /* every lane's column is in */
        in_patch = true;
      }
      const haar::Stage st = haar::load_stage (c.stages + si);
      double acc = 0;
      /* unrolled: the loads of several weak classifiers in flight at once
       * (the sum still adds them in order) */
      if (kPatch && in_patch && STUMPS) {
        /* stumps read their rectangles' corners from their PatchNodes
         * (laid out for this patch) */
        const haar::PatchWords words (patch);
#pragma unroll 4
        for (int t = lane; t < st.count; t += LANES)
          acc = haar::dadd (acc, (double) haar::patch_stump_value (c, (unsigned) (st.first + t), words, norm));
      } else if (kPatch && in_patch) {
        /* trees compute their corners */
#pragma unroll 4
        for (int t = lane; t < st.count; t += LANES)
          acc = haar::dadd (acc,
              (double) haar::weak_value<STUMPS, haar::PatchLoad> (c, st.first + t, patch, patch_pitch, norm));
      } else {
        /* the rounds: shared corners read once (haar::SharedCornerLoad) */
        using Load = std::conditional_t<FINAL, haar::GlobalLoad, haar::SharedCornerLoad>;
#pragma unroll 4
        for (int t = lane; t < st.count; t += LANES)
          acc = haar::dadd (acc, (double) haar::weak_value<STUMPS, Load> (c, st.first + t, ws, L.pitch, norm));
      }
#pragma unroll
      for (int o = LANES / 2; o > 0; o >>= 1)
        acc = haar::dadd (acc, g.shfl_xor (acc, o));
      pass = !(acc < (double) st.threshold);
    }
    if (!pass)
      return;
    if (!FINAL) {
      if (lane == 0)
        coalesced_append (out, out_count, out_capacity, e);
      return;
    }
    const size_t row = window_offset (L, 0, w.gy);
    if (!group_evaluated_by_opencv<STUMPS, LANES> (g, c, sum + row, sq + row, L.pitch, w.gx, L.step))
      return;
    if (lane == 0)
      coalesced_append (faces, out_count, out_capacity, frame_key (L, w));
  };
  const unsigned stride = gridDim.x * groups;
  const unsigned in_warp = (threadIdx.x & 31u) / LANES;
  /* A warp's first windows: block after block, or, for a list no longer
   * than the grid (spread), warp w of every block before warp w + 1 of
   * any, so that a short list spreads over all blocks (and SMs) instead of
   * filling the first blocks: the grid fills the GPU for the longest list,
   * and a short one left the last blocks idle however many threads a
   * block had (docs/PERFORMANCE.md "Why the kernels are built as they are"). */
  const unsigned warps = groups * LANES / 32, warp = group * LANES / 32;
  const unsigned first_warp = spread && n <= stride ? warp * gridDim.x + blockIdx.x : blockIdx.x * warps + warp;
  for (unsigned i = first_warp * (32u / LANES) + in_warp; __any_sync (0xffffffffu, i < n);) {
    unsigned taken = 0;
    if (queue && (threadIdx.x & 31u) == 0)
      taken = atomicAdd (queue, 32u / LANES);
    if (i < n)
      window (i);
    i = queue ? __shfl_sync (0xffffffffu, taken, 0) + stride + in_warp : i + stride;
  }
}

template <bool FINAL, int LANES>
const void *
list_kernel_for (bool stumps)
{
  return stumps ? (const void *) list_kernel<true, LANES, FINAL> : (const void *) list_kernel<false, LANES, FINAL>;
}

/* The list kernel instance for `lanes` (1, 2, 4, 8, 16 or 32). */
template <bool FINAL>
const void *
list_kernel_of (bool stumps, int lanes)
{
  switch (lanes) {
    case 1: return list_kernel_for<FINAL, 1> (stumps);
    case 2: return list_kernel_for<FINAL, 2> (stumps);
    case 4: return list_kernel_for<FINAL, 4> (stumps);
    case 8: return list_kernel_for<FINAL, 8> (stumps);
    case 16: return list_kernel_for<FINAL, 16> (stumps);
    default: return list_kernel_for<FINAL, 32> (stumps);
  }
}

}  // namespace

/* x-only: the shape's thread count is what counts; the launcher lays it
 * out one warp of windows wide (coalesced loads along a level's row) and
 * as many rows tall as it has warps. A wider block only adds idle threads
 * on the pyramid's narrow levels: every best shape the tuner found was 32
 * wide, where the model, seeing an ordinary 2D kernel over the frame,
 * chose wider and slower ones (docs/BLOCK-SIZING.md, "What the face
 * detector taught the tuner"). */
const KernelTraits &
facedetect_cascade_traits ()
{
  static const KernelTraits t = kernel_traits ("facedetect.cascade", { 256, 1 }, false);
  return t;
}

/* The rounds read the first kernel's list, neighbouring windows next to
 * each other: a block's windows share their integral rows in L1, so large
 * blocks do better than the model's terms alone say (docs/BLOCK-SIZING.md,
 * "What the face detector taught the tuner"). */
const KernelTraits &
facedetect_stages_traits ()
{
  static const KernelTraits t = kernel_traits ("facedetect.stages", { 256, 1 }, false).neighbours_share_lines ();
  return t;
}

unsigned
facedetect_round_pass_threads (unsigned threads, const DeviceDescription & dev)
{
  threads = facedetect::list_block_threads (threads);
  return facedetect::round_grid (list_kernel_of<false> (true, 1), threads, dev) * threads;
}

const KernelTraits &
facedetect_deep_traits ()
{
  /* x-only: a block is a number of warps (a window each in warp mode) */
  static const KernelTraits t = kernel_traits ("facedetect.deep", { 128, 1 }, false);
  return t;
}

namespace facedetect {

unsigned
filling_grid (const void *kernel, unsigned threads, const DeviceDescription & dev, size_t shared_bytes)
{
  static std::mutex lock;
  static std::map<std::tuple<const void *, unsigned, int, size_t>, unsigned> cache;
  int device = 0;
  cudaGetDevice (&device);
  std::lock_guard<std::mutex> g (lock);
  const auto key = std::make_tuple (kernel, threads, device, shared_bytes);
  auto it = cache.find (key);
  if (it == cache.end ()) {
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, kernel, (int) threads, shared_bytes) != cudaSuccess) {
      cudaGetLastError ();
      per_sm = 1;
    }
    it = cache.emplace (key, (unsigned) std::max (1, per_sm) * (unsigned) std::max (1, dev.sm_count)).first;
  }
  return it->second;
}

/* A round's threads each walk a window of their own: fewer at a time
 * keep more of their integral rows in L1 (the fastest shapes ran 1024 to
 * 1280 threads an SM, full occupancy slower: docs/BLOCK-SIZING.md, "What
 * the face detector taught the tuner"). So the grid holds about
 * kRoundThreadsPerSm threads per SM, whatever the shape, or what the SM
 * holds where that is less (48 registers a thread: 40 warps an SM, one
 * block of more than 640 threads). A list longer than the grid takes a
 * second pass (facedetect_round_pass_threads). */
unsigned
round_grid (const void *kernel, unsigned threads, const DeviceDescription & dev)
{
  const unsigned per_sm = (kRoundThreadsPerSm + threads - 1) / threads;
  return std::min (filling_grid (kernel, threads, dev), per_sm * (unsigned) std::max (1, dev.sm_count));
}

CudaStatus
launch_front (const haar::CascadeView & cascade, bool stumps, const BatchView & b, int last, const WindowList & out,
    const LaunchPolicy & policy, cudaStream_t stream, const HookContext & hc)
{
  const KernelTraits & t = facedetect_cascade_traits ();
  auto kernel = stumps ? front_kernel<true> : front_kernel<false>;
  KernelResources res = cached_resources (kernel);
  res.dynamic_smem_per_thread = sizeof (uint2); /* the stage-0 survivors */
  LaunchConfig c = policy.choose (t, res, hc.frame_width, hc.frame_height);
  c.block = { 32, std::max (1u, c.block.threads () / 32) };
  const int bx = (int) c.block.x, by = (int) c.block.y;
  const BatchMap blocks = make_batch_map (
      *b.plan, *b.batch,
      [bx, by] (const LevelDesc & d) { return ((d.grid_x + bx - 1) / bx) * ((d.grid_y + by - 1) / by); },
      [bx] (const LevelDesc & d) { return (d.grid_x + bx - 1) / bx; });
  const BatchMap windows = window_map (*b.plan, *b.batch);
  if (blocks.total () == 0)
    return {};
  c.grid_x = (unsigned) blocks.total ();
  c.grid_y = 1;
  hook_call (hc, t, hc.frame_width, hc.frame_height, c, false, stream);
  const size_t smem = (size_t) c.block.threads () * sizeof (uint2);
  kernel<<<dim3 (c.grid_x), block_dim (c), smem, stream>>> (cascade, b.levels, blocks, windows, b.sum, b.sq, last,
      out.items, out.count, out.capacity);
  CV_CUDA_TRY_LAUNCH ("facedetect front_kernel");
  hook_call (hc, t, hc.frame_width, hc.frame_height, c, true, stream);
  return {};
}

/* Launches list_kernel<FINAL> for `lanes` through its address (the
 * instance is picked at run time). */
template <bool FINAL>
CudaStatus
launch_list (const KernelTraits & t, const haar::CascadeView & cascade, bool stumps, int lanes, const BatchView & b,
    const WindowList & in, int first, int last, WindowEntry *out, uint32_t *out_count, unsigned out_capacity,
    FaceKey *faces, int patch_from, uint32_t *queue, bool spread, const LaunchPolicy & policy, cudaStream_t stream,
    const HookContext & hc)
{
  const void *kernel = list_kernel_of<FINAL> (stumps, lanes);
  LaunchConfig c = policy.choose (t, cached_kernel_resources (kernel), hc.frame_width, hc.frame_height);
  c.block = { list_block_threads (c.block.threads ()), 1 };
  const unsigned per_block = c.block.threads () / (unsigned) lanes;
  /* the deep kernel's window patches: a warp's each, a lane per column;
   * stumps only where their nodes hold their corners in it */
  const int patch_w = cascade.window_width + 1, patch_h = cascade.window_height + 1;
  if (!FINAL || lanes != 32 || patch_w > 32 || patch_from >= last || (stumps && cascade.patch_pitch <= 0))
    patch_from = kNoPatch;
  size_t shared = patch_from == kNoPatch
      ? 0
      : (size_t) (c.block.threads () / 32) * (size_t) (haar::patch_pitch_of (cascade) * patch_h) * sizeof (uint32_t);
  /* beyond the default dynamic shared memory (blocks of many warps), the
   * windows stay in global memory: allowing more (cudaFuncSetAttribute)
   * made some blocks faster and others slower, the carve-out leaving L1
   * too little for the cascade */
  if (shared > 48 * 1024) {
    patch_from = kNoPatch;
    shared = 0;
  }
  const unsigned grid = FINAL ? filling_grid (kernel, c.block.threads (), policy.device (), shared)
                              : round_grid (kernel, c.block.threads (), policy.device ());
  c.grid_x = std::min (grid, std::max (1u, (in.capacity + per_block - 1) / per_block));
  c.grid_y = 1;
  BatchMap windows = window_map (*b.plan, *b.batch);
  haar::CascadeView view = cascade;
  const LevelDesc *levels = b.levels;
  const uint32_t *sum = b.sum, *sq = b.sq;
  const WindowEntry *items = in.items;
  const uint32_t *count = in.count;
  unsigned capacity = in.capacity;
  void *args[] = { &view, &levels, &windows, &sum, &sq, &items, &count, &capacity, &first, &last, &out, &out_count,
    &out_capacity, &faces, &patch_from, &queue, &spread };
  hook_call (hc, t, hc.frame_width, hc.frame_height, c, false, stream);
  CV_CUDA_TRY (cudaLaunchKernel (kernel, dim3 (c.grid_x), block_dim (c), args, shared, stream));
  hook_call (hc, t, hc.frame_width, hc.frame_height, c, true, stream);
  return {};
}

CudaStatus
launch_stages (const haar::CascadeView & cascade, bool stumps, int lanes, const BatchView & b, const WindowList & in,
    int first, int last, const WindowList & out, bool spread, const LaunchPolicy & policy, cudaStream_t stream,
    const HookContext & hc)
{
  return launch_list<false> (facedetect_stages_traits (), cascade, stumps, lanes, b, in, first, last, out.items,
      out.count, out.capacity, nullptr, kNoPatch, nullptr, spread, policy, stream, hc);
}

CudaStatus
launch_deep (const haar::CascadeView & cascade, bool stumps, int lanes, const BatchView & b, const WindowList & in,
    int first, int patch_from, const RectList & faces, uint32_t *queue, const LaunchPolicy & policy,
    cudaStream_t stream, const HookContext & hc)
{
  return launch_list<true> (facedetect_deep_traits (), cascade, stumps, lanes, b, in, first, cascade.nstages,
      nullptr, faces.count, faces.capacity, faces.items, patch_from, queue, false, policy, stream, hc);
}

}  // namespace facedetect
}  // namespace cudavision
