/* cudavision — the corner selection kernels and their launcher
 * (corner_selection.h describes the steps, corner_cells.h the parallel
 * greedy). */
#include "corner_selection.h"
#include "../common/launch_util.cuh"

#include <cub/block/block_radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cuda/atomic>

#include <algorithm>

namespace cudavision {
namespace {

using Key = unsigned long long;
static_assert (sizeof (Key) == sizeof (uint64_t), "64-bit keys");

constexpr unsigned kSelectThreads = 128;
constexpr int kSortThreads = 256, kSortItems = 8, kTile = kSortThreads * kSortItems;
constexpr unsigned kRankThreads = 256;
/* Above this many possible corners the tile ranks (quadratic in the tile
 * count) give way to a device radix sort of the padded list. */
constexpr size_t kTilesMaxBound = 512 * 1024;

struct CellBuffers {
  Key *keys;          /* per cell: key_slots () candidates, strongest first */
  uint32_t *count;
  Key *frontier;
  Key *kept;          /* per cell: kept_slots */
  CellState *state;
};

struct CandidateArgs {
  const float *resp;
  size_t pitch;
  const uint32_t *max_ordered;
  double quality;
  CellGrid g;
  CellBuffers c;
  uint32_t *counters;
  Key *unordered; /* the kept list, when every candidate is kept */
  uint32_t unordered_cap;
};

/* One block per cell: its candidates, sorted in shared memory by rank
 * (keys are unique: a key's rank is the number of larger ones), then the
 * cell's selection state. Any block shape works: threads stride over the
 * cell's pixels. */
template <int SHIFT>
__global__ void
corner_candidates_kernel (CandidateArgs a)
{
  constexpr int T = 1 << SHIFT;
  __shared__ Key s_keys[T * T];
  __shared__ uint32_t s_n, s_base;
  const int w = a.g.width, h = a.g.height;
  const int cx = blockIdx.x, cy = blockIdx.y;
  const int cell = cy * a.g.cols + cx;
  const int nthreads = blockDim.x * blockDim.y;
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  if (tid == 0)
    s_n = 0;
  __syncthreads ();
  const float thresh = corner_threshold (ordered_to_float (*a.max_ordered), a.quality);
  for (int p = tid; p < T * T; p += nthreads) {
    const int x = cx * T + (p & (T - 1)), y = cy * T + (p >> SHIFT);
    if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) /* goodFeaturesToTrack skips the outer ring */
      continue;
    auto at = [&] (int i, int j) {
      return reinterpret_cast<const float *> (reinterpret_cast<const char *> (a.resp) + (size_t) (y + j) * a.pitch)[x + i];
    };
    float v;
    if (is_corner_candidate (at, thresh, &v))
      s_keys[atomicAdd (&s_n, 1u)] = corner_key_yx (v, x, y);
  }
  __syncthreads ();
  const uint32_t n = s_n;

  if (a.g.all) { /* no distance test: the candidates are the kept list */
    if (tid == 0) {
      s_base = n ? atomicAdd (&a.counters[1], n) : 0;
      if (n)
        atomicAdd (&a.counters[0], n);
    }
    __syncthreads ();
    for (uint32_t e = tid; e < n; e += nthreads)
      if (s_base + e < a.unordered_cap)
        a.unordered[s_base + e] = s_keys[e];
    return;
  }

  Key *out = a.c.keys + (size_t) cell * (T * T);
  for (uint32_t e = tid; e < n; e += nthreads) {
    const Key k = s_keys[e];
    uint32_t rank = 0;
    for (uint32_t j = 0; j < n; j++)
      rank += s_keys[j] > k;
    out[rank] = k;
    if (rank == 0)
      a.c.frontier[cell] = k;
  }
  if (tid == 0) {
    a.c.count[cell] = n;
    if (n == 0)
      a.c.frontier[cell] = 0;
    else
      atomicAdd (&a.counters[0], n);
    a.c.kept[(size_t) cell * a.g.kept_slots] = 0;
    a.c.state[cell] = CellState { 0, 0 };
  }
}

/* corner_cells.h's accesses on the device: the frontier and the kept
 * lists through acquire / release atomics, the rest plain (written by the
 * candidate kernel, or by the cell's owner only). */
struct DeviceCells {
  CellGrid g;
  CellBuffers c;
  uint32_t *kept_total;
  Key *unordered;
  uint32_t unordered_cap;

  __device__ static cuda::atomic_ref<Key, cuda::thread_scope_device> ref (Key & k)
  {
    return cuda::atomic_ref<Key, cuda::thread_scope_device> (k);
  }
  __device__ static constexpr bool pause () { return false; }
  __device__ CellState state (int cell) const { return c.state[cell]; }
  __device__ void set_state (int cell, CellState s) { c.state[cell] = s; }
  __device__ uint32_t count (int cell) const { return c.count[cell]; }
  __device__ uint64_t key (int cell, uint32_t i) const { return c.keys[(size_t) cell * g.key_slots () + i]; }
  __device__ uint64_t frontier_acquire (int cell) const { return ref (c.frontier[cell]).load (cuda::memory_order_acquire); }
  __device__ void frontier_release (int cell, uint64_t v) { ref (c.frontier[cell]).store (v, cuda::memory_order_release); }
  __device__ uint64_t kept_acquire (int cell, int j) const
  {
    return ref (c.kept[(size_t) cell * g.kept_slots + j]).load (cuda::memory_order_acquire);
  }
  __device__ void kept_release (int cell, int j, uint64_t v)
  {
    ref (c.kept[(size_t) cell * g.kept_slots + j]).store (v, cuda::memory_order_release);
  }
  __device__ void kept_relaxed_store (int cell, int j, uint64_t v)
  {
    ref (c.kept[(size_t) cell * g.kept_slots + j]).store (v, cuda::memory_order_relaxed);
  }
  __device__ void emit (uint64_t k)
  {
    const uint32_t i = atomicAdd (kept_total, 1u);
    if (i < unordered_cap)
      unordered[i] = k;
  }
};

/* Persistent: every thread resident (cooperative launch), each walking its
 * cells round robin until all are done; a thread that could not advance
 * any of them backs off briefly. Deadlock-free: the cell with the frame's
 * strongest undecided candidate can always advance. */
__global__ void __launch_bounds__ (kSelectThreads)
corner_select_kernel (DeviceCells m)
{
  const int stride = gridDim.x * blockDim.x;
  const int first = blockIdx.x * blockDim.x + threadIdx.x;
  const int cells = m.g.cells ();
  for (;;) {
    bool waiting = false, moved = false;
    for (int cell = first; cell < cells; cell += stride)
      if (advance_cell (m.g, m, cell, &moved) == CellWalk::Waiting)
        waiting = true;
    if (!waiting)
      return;
    if (!moved)
      __nanosleep (256);
  }
}

/* Step 3a: sorts each 2048-key tile of the kept list, strongest first
 * (zeros pad the last tile and sort after every key). */
__global__ void __launch_bounds__ (kSortThreads)
corner_tile_sort_kernel (const Key *unordered, const uint32_t *counters, uint32_t cap, Key *tiles)
{
  using Sort = cub::BlockRadixSort<Key, kSortThreads, kSortItems>;
  __shared__ typename Sort::TempStorage temp;
  const uint32_t n = min (counters[1], cap);
  const uint32_t base = blockIdx.x * kTile;
  if (base >= n)
    return;
  Key k[kSortItems];
#pragma unroll
  for (int i = 0; i < kSortItems; i++) {
    const uint32_t idx = base + threadIdx.x * kSortItems + i;
    k[i] = idx < n ? unordered[idx] : 0;
  }
  Sort (temp).SortDescending (k);
#pragma unroll
  for (int i = 0; i < kSortItems; i++)
    tiles[base + threadIdx.x * kSortItems + i] = k[i];
}

struct ListArgs {
  const Key *ordered;       /* sorted tiles, or one sorted list */
  bool one_list;
  const uint32_t *counters; /* [0] candidates, [1] kept */
  uint32_t cap;             /* of the kept list */
  uint32_t limit;           /* max_corners, or ~0 */
  Corner *list;             /* device, `limit` or cap entries */
  uint32_t *listed;         /* device: the list's length */
  CornerListHeader *host;
  Corner *host_list;
  uint32_t host_cap;
};

/* Step 3b and 4: a warp per kept corner finds its rank (its place in its
 * tile plus, by binary search, the keys above it in every other tile) and
 * writes it there if it is among the first max_corners. */
__global__ void __launch_bounds__ (kRankThreads)
corner_list_kernel (ListArgs a)
{
  const uint32_t n = min (a.counters[1], a.cap);
  const uint32_t listed = min (n, a.limit);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    *a.listed = listed;
    a.host->count = listed;
    a.host->candidates = a.counters[0];
    a.host->kept = n;
    a.host->reserved = 0;
  }
  const unsigned lane = threadIdx.x & 31;
  const uint32_t warps = gridDim.x * (blockDim.x / 32);
  const uint32_t tiles = (n + kTile - 1) / kTile;
  for (uint32_t e = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; e < n; e += warps) {
    const Key v = a.ordered[e];
    uint32_t rank = e;
    if (!a.one_list) {
      const uint32_t t = e / kTile;
      uint32_t above = 0;
      for (uint32_t u = lane; u < tiles; u += 32) {
        if (u == t)
          continue;
        const Key *tile = a.ordered + (size_t) u * kTile;
        uint32_t lo = 0, hi = min ((uint32_t) kTile, n - u * kTile);
        while (lo < hi) { /* first key not above v (descending tile) */
          const uint32_t mid = (lo + hi) / 2;
          if (tile[mid] > v)
            lo = mid + 1;
          else
            hi = mid;
        }
        above += lo;
      }
#pragma unroll
      for (int off = 16; off > 0; off >>= 1)
        above += __shfl_down_sync (0xffffffffu, above, off);
      rank = e - t * kTile + above;
    }
    if (lane == 0 && rank < listed) {
      const Corner c { (float) corner_key_x (v), (float) corner_key_y (v), corner_key_value (v) };
      a.list[rank] = c;
      if (rank < a.host_cap)
        a.host_list[rank] = c;
    }
  }
}

KernelTraits
make_candidates_traits ()
{
  KernelTraits t;
  t.name = "harris.candidates";
  t.static_block = { 32, 8 };
  t.two_d = true;
  t.items_per_thread_y = 1;
  t.fixed_block = false;
  /* a float response in (its 3x3 neighbours are cache hits); a key out
   * only for the rare candidate */
  t.load_bytes_per_item = 4;
  t.store_bytes_per_item = 0;
  return t;
}

template <int SHIFT>
CudaStatus
launch_candidates (const CandidateArgs & a, const LaunchPolicy & policy, cudaStream_t stream)
{
  auto kernel = corner_candidates_kernel<SHIFT>;
  const LaunchConfig c = policy.choose (corner_candidates_traits (), cached_resources (kernel),
      std::max (1, a.g.width - 2), std::max (1, a.g.height - 2));
  /* the policy's block shape; the grid is the cells */
  kernel<<<dim3 ((unsigned) a.g.cols, (unsigned) a.g.rows), block_dim (c), 0, stream>>> (a);
  CV_CUDA_TRY_LAUNCH ("corner_candidates_kernel");
  return {};
}

}  // namespace

const KernelTraits &
corner_candidates_traits ()
{
  static const KernelTraits t = make_candidates_traits ();
  return t;
}

CudaStatus
CornerSelection::enqueue (ImageView<const float> response, const uint32_t * max_ordered,
    const CornerDetectParams & p, const LaunchPolicy & policy, cudaStream_t stream, CornerListHeader * host,
    size_t host_capacity)
{
  const int w = response.width, h = response.height;
  const CellGrid g = make_cell_grid (w, h, p.min_distance);
  const size_t bound = std::max<size_t> (kept_bound (g), 1);
  const size_t limit = p.max_corners > 0 ? std::min (bound, (size_t) p.max_corners) : bound;
  const bool tiles = order_ == CornerOrder::Tiles || (order_ == CornerOrder::Auto && bound <= kTilesMaxBound);
  const size_t padded = (bound + kTile - 1) / kTile * kTile;

  CudaStatus s = counters_.ensure (4 * sizeof (uint32_t));
  if (s.ok () && !g.all) {
    const size_t cells = (size_t) g.cells ();
    s = keys_.ensure (cells * g.key_slots () * sizeof (Key));
    if (s.ok ())
      s = counts_.ensure (cells * sizeof (uint32_t));
    if (s.ok ())
      s = frontier_.ensure (cells * sizeof (Key));
    if (s.ok ())
      s = kept_.ensure (cells * (size_t) g.kept_slots * sizeof (Key));
    if (s.ok ())
      s = state_.ensure (cells * sizeof (CellState));
  }
  if (s.ok ())
    s = unordered_.ensure (bound * sizeof (Key));
  if (s.ok ())
    s = ordered_.ensure (padded * sizeof (Key));
  if (s.ok ())
    s = list_.ensure (limit * sizeof (Corner));
  size_t temp = 0;
  if (s.ok () && !tiles) {
    CV_CUDA_TRY (cub::DeviceRadixSort::SortKeysDescending (nullptr, temp, (const Key *) nullptr, (Key *) nullptr,
        (int) bound, 0, 64, stream));
    s = sort_temp_.ensure (temp);
  }
  if (!s.ok ())
    return s;
  out_capacity_ = limit;

  uint32_t *counters = counters_.as<uint32_t> ();
  CV_CUDA_TRY (cudaMemsetAsync (counters, 0, 4 * sizeof (uint32_t), stream));
  if (!tiles) /* the radix sort orders the whole bound: zeros sort last */
    CV_CUDA_TRY (cudaMemsetAsync (unordered_.get (), 0, bound * sizeof (Key), stream));

  const CellBuffers cb { keys_.as<Key> (), counts_.as<uint32_t> (), frontier_.as<Key> (), kept_.as<Key> (),
    state_.as<CellState> () };
  CandidateArgs ca { response.data, response.pitch, max_ordered, p.quality_level, g, cb, counters,
    unordered_.as<Key> (), (uint32_t) bound };
  switch (g.shift) {
    case 4: s = launch_candidates<4> (ca, policy, stream); break;
    case 5: s = launch_candidates<5> (ca, policy, stream); break;
    default: s = launch_candidates<6> (ca, policy, stream); break;
  }
  if (!s.ok ())
    return s;

  if (!g.all) {
    if (coresident_blocks_ == 0) {
      int dev = 0, sms = 0, per_sm = 0, coop = 0;
      CV_CUDA_TRY (cudaGetDevice (&dev));
      CV_CUDA_TRY (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, dev));
      CV_CUDA_TRY (cudaDeviceGetAttribute (&coop, cudaDevAttrCooperativeLaunch, dev));
      CV_CUDA_TRY (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, corner_select_kernel, kSelectThreads, 0));
      coresident_blocks_ = std::max (1, sms * per_sm);
      cooperative_ = coop != 0;
    }
    DeviceCells m { g, cb, counters + 1, unordered_.as<Key> (), (uint32_t) bound };
    const int blocks = std::min (coresident_blocks_, (int) ((g.cells () + kSelectThreads - 1) / kSelectThreads));
    if (cooperative_) {
      void *args[] = { &m };
      CV_CUDA_TRY (cudaLaunchCooperativeKernel ((const void *) corner_select_kernel, dim3 (blocks),
          dim3 (kSelectThreads), args, 0, stream));
    } else {
      corner_select_kernel<<<blocks, kSelectThreads, 0, stream>>> (m);
    }
    CV_CUDA_TRY_LAUNCH ("corner_select_kernel");
  }

  if (tiles) {
    corner_tile_sort_kernel<<<(unsigned) (padded / kTile), kSortThreads, 0, stream>>> (unordered_.as<const Key> (),
        counters, (uint32_t) bound, ordered_.as<Key> ());
    CV_CUDA_TRY_LAUNCH ("corner_tile_sort_kernel");
  } else {
    CV_CUDA_TRY (cub::DeviceRadixSort::SortKeysDescending (sort_temp_.get (), temp, unordered_.as<const Key> (),
        ordered_.as<Key> (), (int) bound, 0, 64, stream));
  }

  ListArgs la;
  la.ordered = ordered_.as<const Key> ();
  la.one_list = !tiles;
  la.counters = counters;
  la.cap = (uint32_t) bound;
  la.limit = (uint32_t) limit;
  la.list = list_.as<Corner> ();
  la.listed = counters + 2;
  la.host = host;
  la.host_list = reinterpret_cast<Corner *> (host + 1);
  la.host_cap = (uint32_t) host_capacity;
  const unsigned warps_per_block = kRankThreads / 32;
  const unsigned blocks = (unsigned) std::min<size_t> ((bound + warps_per_block - 1) / warps_per_block, 2048);
  corner_list_kernel<<<blocks, kRankThreads, 0, stream>>> (la);
  CV_CUDA_TRY_LAUNCH ("corner_list_kernel");
  return {};
}

void
CornerSelection::release ()
{
  counters_.reset ();
  keys_.reset ();
  counts_.reset ();
  frontier_.reset ();
  kept_.reset ();
  state_.reset ();
  unordered_.reset ();
  ordered_.reset ();
  sort_temp_.reset ();
  list_.reset ();
  out_capacity_ = 0;
}

}  // namespace cudavision
