/* cudavision — the corner selection kernels and their launcher
 * (corner_selection.h describes the steps, corner_cells.h the parallel
 * greedy). */
#include "corner_selection.h"
#include "../common/launch_util.cuh"

#include <cooperative_groups.h>
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
/* Lists of up to this many candidates take the one-block rounds (a
 * decision byte each in shared memory, 2 bits each in a thread's register
 * while a round is computed: 32 per thread), when the cells are 16 pixels
 * wide (min_distance <= 16): a candidate's stronger, too-close ones then
 * lie in the 3x3 small cells around it, a short list. With larger
 * distances the lists would hold hundreds of candidates (64-pixel cells,
 * 7x7 of them at min_distance 150), where the cell walk only looks at kept
 * ones. */
constexpr unsigned kSmallThreads = 1024;
constexpr uint32_t kSmallMax = 32 * kSmallThreads;
constexpr int kSmallShift = 4;
/* Longer lists (16-pixel cells) up to this many candidates take the same
 * rounds over the whole GPU (the cooperative kernel, a grid barrier a
 * round, decisions in global memory): noise, about 120 000 candidates at
 * 1080p and 480 000 at 4K, where the cell walk waits in long chains of
 * cells. Its buffers take 54 bytes a candidate (owner, list,
 * count, decision). */
constexpr uint32_t kRoundsMax = 1u << 20;
/* Stronger, too-close candidates listed per candidate for the rounds
 * (more: once the listed ones are all rejected, that candidate looks at
 * its cells instead, some 60 dependent loads from L2 each round). An
 * entry is 16 bits: which of the 3x3 cells around the candidate's own
 * (with 16-pixel cells and min_distance <= 16 the stronger, too-close
 * ones are there) and the place in that cell's list (below 256). */
constexpr uint32_t kNeighbourSlots = kCornerNeighbourSlots;
using NeighbourEntry = uint16_t;
static_assert ((1 << kSmallShift) * (1 << kSmallShift) <= 256, "a place in a cell fits 8 bits");

/* Which step 2 a frame takes, decided on the device from its candidate
 * count: the one-block rounds, the grid-wide rounds (up to rounds_cap
 * candidates: 0 where cooperative launches are not available) or the
 * cell walk. */
enum class SelectPath { Small, Rounds, Walk };

struct PathCaps {
  uint32_t small;  /* kSmallMax, or 0 (tests: CornerSelectPath) */
  uint32_t rounds; /* the rounds' buffers' capacity, or 0 */
};

__host__ __device__ inline SelectPath
select_path (const CellGrid & g, uint32_t candidates, PathCaps caps)
{
  if (g.all || g.shift != kSmallShift)
    return SelectPath::Walk;
  if (candidates <= caps.small)
    return SelectPath::Small;
  return candidates <= caps.rounds ? SelectPath::Rounds : SelectPath::Walk;
}

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
  uint32_t *offsets; /* the rounds' numbering (16-pixel cells), else null */
  uint32_t *owner;
  uint32_t owner_cap;
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

  /* The cell's candidates are numbered s_base .. s_base + n - 1 in
   * strength order (cells in the order their blocks ran): the small path's
   * decisions are indexed by these numbers. */
  if (tid == 0) {
    s_base = n ? atomicAdd (&a.counters[0], n) : 0;
    a.c.count[cell] = n;
    if (n == 0)
      a.c.frontier[cell] = 0;
    if (a.offsets)
      a.offsets[cell] = s_base;
    a.c.kept[(size_t) cell * a.g.kept_slots] = 0;
    a.c.state[cell] = CellState { 0, 0 };
  }
  __syncthreads ();
  Key *out = a.c.keys + (size_t) cell * (T * T);
  for (uint32_t e = tid; e < n; e += nthreads) {
    const Key k = s_keys[e];
    uint32_t rank = 0;
    for (uint32_t j = 0; j < n; j++)
      rank += s_keys[j] > k;
    out[rank] = k;
    if (rank == 0)
      a.c.frontier[cell] = k;
    if (a.owner && s_base + rank < a.owner_cap)
      a.owner[s_base + rank] = (uint32_t) cell;
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

/* The rounds' reads for decide_candidate: the cells' sorted lists and the
 * decisions (shared memory in the one-block rounds; global memory, read
 * through L2, in the grid-wide ones). */
struct SmallCells {
  const CellGrid &g;
  const Key *keys;
  const uint32_t *counts;
  const uint32_t *offsets;
  const uint8_t *decisions;

  __device__ uint32_t count (int cell) const { return counts[cell]; }
  __device__ uint64_t key (int cell, uint32_t i) const { return keys[(size_t) cell * g.key_slots () + i]; }
  __device__ CornerDecision decision (int cell, uint32_t i) const { return decision_of (offsets[cell] + i); }
  __device__ CornerDecision decision_of (uint32_t j) const { return (CornerDecision) decisions[j]; }
};

struct GlobalCells : SmallCells {
  __device__ CornerDecision decision (int cell, uint32_t i) const { return decision_of (offsets[cell] + i); }
  __device__ CornerDecision decision_of (uint32_t j) const { return (CornerDecision) __ldcg (decisions + j); }
};

struct SmallArgs {
  CellGrid g;
  CellBuffers c;
  const uint32_t *candidates;
  PathCaps caps;               /* select_path's */
  const uint32_t *offsets;     /* per cell: its first candidate's number */
  const uint32_t *owner;       /* per candidate: its cell */
  NeighbourEntry *neighbours;  /* per candidate: kNeighbourSlots entries */
  uint8_t *neighbour_count;    /* per candidate: how many, or kIncomplete */
  uint8_t *decisions;          /* per candidate, the grid-wide rounds' */
  uint32_t *undecided;         /* 3 counters, the grid-wide rounds' */
  uint32_t *kept_total;
  Key *unordered;
  uint32_t unordered_cap;
};

/* More than kNeighbourSlots: the first kNeighbourSlots are listed. */
constexpr uint8_t kIncomplete = 0xff;
static_assert (kNeighbourSlots < kIncomplete, "a count fits below kIncomplete");

__device__ inline NeighbourEntry
neighbour_entry (const CellGrid & g, int own, int cell, uint32_t i)
{
  const int dx = cell % g.cols - own % g.cols, dy = cell / g.cols - own / g.cols;
  return (NeighbourEntry) ((((dy + 1) * 3 + dx + 1) << 8) | i);
}

/* stronger_close_list's reads, its index () the entry of a candidate in
 * cell `own`. */
struct EntryCells : SmallCells {
  int own;
  __device__ NeighbourEntry index (int cell, uint32_t i) const { return neighbour_entry (g, own, cell, i); }
};

/* The candidate number an entry of a candidate in cell `own` stands for. */
__device__ inline uint32_t
neighbour_number (const SmallArgs & a, int own, NeighbourEntry e)
{
  const int code = e >> 8;
  return a.offsets[own + (code / 3 - 1) * a.g.cols + code % 3 - 1] + (e & 0xffu);
}

/* Candidate j's decision in a round, from the decisions `m` reads: its
 * listed neighbours first; when the list is incomplete and every listed
 * one is rejected, the rest are looked up in the cells in reach. */
template <typename Cells>
__device__ CornerDecision
decide_listed (const SmallArgs & a, const Cells & m, uint32_t j)
{
  const uint8_t listed = a.neighbour_count[j];
  const uint32_t k = listed == kIncomplete ? kNeighbourSlots : listed;
  const int c = (int) a.owner[j];
  DecisionFold f;
  const NeighbourEntry *list = a.neighbours + (size_t) j * kNeighbourSlots;
  for (uint32_t q = 0; q < k; q++) {
    if (!f.add (m.decision_of (neighbour_number (a, c, list[q]))))
      break;
  }
  const CornerDecision d = f.result ();
  if (listed != kIncomplete || d != CornerDecision::Kept)
    return d;
  return decide_candidate (a.g, m, c, j - a.offsets[c]);
}

/* After the rounds: candidate j into the unordered list if it was kept. */
__device__ inline void
emit_if_kept (const SmallArgs & a, const uint8_t *dec, uint32_t j)
{
  if (dec[j] != (uint8_t) CornerDecision::Kept)
    return;
  const uint32_t c = a.owner[j];
  const uint32_t i = atomicAdd (a.kept_total, 1u);
  if (i < a.unordered_cap)
    a.unordered[i] = a.c.keys[(size_t) c * a.g.key_slots () + (j - a.offsets[c])];
}

/* Step 2 for 16-pixel cells up to rounds_cap candidates, first half:
 * every candidate's stronger, too-close candidates as entries
 * (stronger_close_list), a thread per candidate over the whole GPU, so
 * that the rounds read short lists instead of walking cells (9 dependent
 * loads a candidate on one SM). */
__global__ void
corner_neighbours_kernel (SmallArgs a)
{
  const uint32_t n = *a.candidates;
  if (select_path (a.g, n, a.caps) == SelectPath::Walk)
    return;
  for (uint32_t j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += gridDim.x * blockDim.x) {
    const int c = (int) a.owner[j];
    const EntryCells m { { a.g, a.c.keys, a.c.count, a.offsets, nullptr }, c };
    const uint32_t k = stronger_close_list (a.g, m, c, j - a.offsets[c], a.neighbours + (size_t) j * kNeighbourSlots,
        kNeighbourSlots);
    a.neighbour_count[j] = k > kNeighbourSlots ? kIncomplete : (uint8_t) k;
  }
}

/* Step 2 for at most kSmallMax candidates, second half, in one block
 * (corner_cells.h): rounds in which every undecided candidate decides from
 * the last round's decisions (computed into registers, then written after
 * a barrier) until none is undecided; the kept ones go to the unordered
 * list. A round costs a barrier and a few reads per candidate, where the
 * cooperative walk below pays a trip through L2 per step of a chain of
 * waiting cells. */
__global__ void __launch_bounds__ (kSmallThreads)
corner_select_small_kernel (SmallArgs a)
{
  __shared__ uint8_t dec[kSmallMax];
  const uint32_t n = *a.candidates;
  if (select_path (a.g, n, a.caps) != SelectPath::Small || n == 0)
    return;
  for (uint32_t j = threadIdx.x; j < n; j += kSmallThreads)
    dec[j] = (uint8_t) CornerDecision::Undecided;
  __syncthreads ();
  const SmallCells m { a.g, a.c.keys, a.c.count, a.offsets, dec };
  for (;;) {
    uint64_t round = 0;
    bool undecided = false;
    for (uint32_t j = threadIdx.x, k = 0; j < n; j += kSmallThreads, k++) {
      if (dec[j] != (uint8_t) CornerDecision::Undecided)
        continue;
      const CornerDecision d = decide_listed (a, m, j);
      round |= (uint64_t) d << (2 * k);
      undecided |= d == CornerDecision::Undecided;
    }
    __syncthreads ();
    for (uint32_t j = threadIdx.x, k = 0; j < n; j += kSmallThreads, k++) {
      const uint8_t d = (uint8_t) ((round >> (2 * k)) & 3);
      if (d)
        dec[j] = d;
    }
    if (!__syncthreads_or (undecided))
      break;
  }
  for (uint32_t j = threadIdx.x; j < n; j += kSmallThreads)
    emit_if_kept (a, dec, j);
}

/* Step 2 for kSmallMax < n <= rounds_cap candidates, second half: the
 * same rounds over the whole grid, a grid barrier each. A candidate
 * decides from whatever decisions it reads (L2, never a stale L1 line):
 * decisions only go from undecided to final and a final one is the
 * greedy's, so one written earlier in the same round is as good as one of
 * the last round, and the frame's strongest undecided candidate still
 * decides every round. Counters undecided[r % 3] say whether round r left
 * work: counter r + 1 is cleared during round r, after everyone read
 * counter r - 2 at barrier r - 1. */
__device__ void
select_rounds (const SmallArgs & a, uint32_t n)
{
  namespace cg = cooperative_groups;
  cg::grid_group grid = cg::this_grid ();
  const uint32_t stride = gridDim.x * blockDim.x;
  const uint32_t first = blockIdx.x * blockDim.x + threadIdx.x;
  uint8_t *dec = a.decisions;
  for (uint32_t j = first; j < n; j += stride)
    dec[j] = (uint8_t) CornerDecision::Undecided;
  if (first == 0)
    a.undecided[0] = a.undecided[1] = a.undecided[2] = 0;
  grid.sync ();
  const GlobalCells m { { a.g, a.c.keys, a.c.count, a.offsets, dec } };
  for (uint32_t r = 0;; r++) {
    bool undecided = false;
    for (uint32_t j = first; j < n; j += stride) {
      if (__ldcg (dec + j) != (uint8_t) CornerDecision::Undecided)
        continue;
      const CornerDecision d = decide_listed (a, m, j);
      if (d == CornerDecision::Undecided)
        undecided = true;
      else
        __stcg (dec + j, (uint8_t) d);
    }
    if (__syncthreads_or (undecided) && threadIdx.x == 0)
      atomicAdd (&a.undecided[r % 3], 1u);
    if (first == 0)
      a.undecided[(r + 1) % 3] = 0;
    grid.sync ();
    if (__ldcg (&a.undecided[r % 3]) == 0)
      break;
  }
  for (uint32_t j = first; j < n; j += stride)
    emit_if_kept (a, dec, j);
}

/* Persistent: every thread resident (cooperative launch). On the
 * grid-wide rounds' frames, select_rounds; else each thread walks its
 * cells round robin until all are done; a thread that could not advance
 * any of them backs off briefly. Deadlock-free: the cell with the frame's
 * strongest undecided candidate can always advance. */
__global__ void __launch_bounds__ (kSelectThreads)
corner_select_kernel (DeviceCells m, SmallArgs a)
{
  const uint32_t n = *a.candidates;
  switch (select_path (m.g, n, a.caps)) {
    case SelectPath::Small: return;
    case SelectPath::Rounds: select_rounds (a, n); return;
    case SelectPath::Walk: break;
  }
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

/* Kept lists of at most this many corners are not sorted: the list kernel
 * ranks each corner by counting the stronger ones in the unordered list, a
 * warp per corner, n / 32 coalesced loads each, where the sort of one tile
 * is a 64-bit block radix sort, 16 passes over 2048 keys on one SM. */
constexpr uint32_t kScanMax = kTile;

/* Step 3a: sorts each 2048-key tile of the kept list, strongest first
 * (zeros pad the last tile and sort after every key), when there are more
 * than kScanMax. */
__global__ void __launch_bounds__ (kSortThreads)
corner_tile_sort_kernel (const Key *unordered, const uint32_t *counters, uint32_t cap, Key *tiles)
{
  using Sort = cub::BlockRadixSort<Key, kSortThreads, kSortItems>;
  __shared__ typename Sort::TempStorage temp;
  const uint32_t n = min (counters[1], cap);
  const uint32_t base = blockIdx.x * kTile;
  if (base >= n || n <= kScanMax)
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
  const Key *unordered;     /* the kept list as step 2 left it */
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

/* Step 3b and 4: a warp per kept corner finds its rank (up to kScanMax
 * kept: the stronger keys of the unordered list, counted; else its place in
 * its tile plus, by binary search, the keys above it in every other tile)
 * and writes it there if it is among the first max_corners. */
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
  const bool scan = !a.one_list && n <= kScanMax;
  for (uint32_t e = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; e < n; e += warps) {
    const Key v = scan ? a.unordered[e] : a.ordered[e];
    uint32_t rank = e;
    if (scan) { /* keys are distinct (they hold the position) */
      uint32_t above = 0;
      for (uint32_t u = lane; u < n; u += 32)
        above += a.unordered[u] > v;
#pragma unroll
      for (int off = 16; off > 0; off >>= 1)
        above += __shfl_down_sync (0xffffffffu, above, off);
      rank = above;
    } else if (!a.one_list) {
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

template <int SHIFT>
CudaStatus
launch_candidates (const CandidateArgs & a, const LaunchPolicy & policy, cudaStream_t stream)
{
  auto kernel = corner_candidates_kernel<SHIFT>;
  const LaunchConfig c = policy.choose (harris_candidates_traits (), cached_resources (kernel),
      std::max (1, a.g.width - 2), std::max (1, a.g.height - 2));
  /* the policy's block shape; the grid is the cells */
  kernel<<<dim3 ((unsigned) a.g.cols, (unsigned) a.g.rows), block_dim (c), 0, stream>>> (a);
  CV_CUDA_TRY_LAUNCH ("corner_candidates_kernel");
  return {};
}

}  // namespace

const KernelTraits &
harris_candidates_traits ()
{
  /* a float response in (its 3x3 neighbours are cache hits); a key out
   * only for the rare candidate */
  static const KernelTraits t = kernel_traits ("harris.candidates", { 32, 8 }, true).bytes (4, 0);
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

  CudaStatus s = counters_.ensure (8 * sizeof (uint32_t));
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
  CV_CUDA_TRY (cudaMemsetAsync (counters, 0, 8 * sizeof (uint32_t), stream));
  if (!tiles) /* the radix sort orders the whole bound: zeros sort last */
    CV_CUDA_TRY (cudaMemsetAsync (unordered_.get (), 0, bound * sizeof (Key), stream));

  const CellBuffers cb { keys_.as<Key> (), counts_.as<uint32_t> (), frontier_.as<Key> (), kept_.as<Key> (),
    state_.as<CellState> () };
  if (!g.all && coresident_blocks_ == 0) {
    int dev = 0, per_sm = 0, coop = 0;
    CV_CUDA_TRY (cudaGetDevice (&dev));
    CV_CUDA_TRY (cudaDeviceGetAttribute (&sm_count_, cudaDevAttrMultiProcessorCount, dev));
    CV_CUDA_TRY (cudaDeviceGetAttribute (&coop, cudaDevAttrCooperativeLaunch, dev));
    CV_CUDA_TRY (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, corner_select_kernel, kSelectThreads, 0));
    coresident_blocks_ = std::max (1, sm_count_ * per_sm);
    cooperative_ = coop != 0;
  }
  /* The rounds (16-pixel cells): candidates numbered by the candidates
   * kernel, up to `cap` of them (the grid-wide rounds need a cooperative
   * launch for their barrier). */
  const bool rounds = !g.all && g.shift == kSmallShift;
  PathCaps caps { 0, 0 };
  if (rounds) {
    const bool grid_rounds = cooperative_ && path_ != CornerSelectPath::Walk;
    caps.small = path_ == CornerSelectPath::Auto ? kSmallMax : 0;
    caps.rounds = grid_rounds
        ? (uint32_t) std::min<size_t> (kRoundsMax, std::max<size_t> (kSmallMax, (size_t) w * h / 8))
        : 0;
    const size_t cap = std::max (caps.small, caps.rounds);
    CV_CUDA_TRY (offsets_.ensure ((size_t) g.cells () * sizeof (uint32_t)).err);
    CV_CUDA_TRY (owner_.ensure (cap * sizeof (uint32_t)).err);
    CV_CUDA_TRY (neighbours_.ensure (cap * kNeighbourSlots * sizeof (NeighbourEntry)).err);
    CV_CUDA_TRY (neighbour_count_.ensure (cap).err);
    CV_CUDA_TRY (decisions_.ensure (std::max<size_t> (caps.rounds, 1)).err);
  }
  CandidateArgs ca { response.data, response.pitch, max_ordered, p.quality_level, g, cb, counters,
    unordered_.as<Key> (), (uint32_t) bound, rounds ? offsets_.as<uint32_t> () : nullptr,
    rounds ? owner_.as<uint32_t> () : nullptr, std::max (caps.small, caps.rounds) };
  switch (g.shift) {
    case 4: s = launch_candidates<4> (ca, policy, stream); break;
    case 5: s = launch_candidates<5> (ca, policy, stream); break;
    default: s = launch_candidates<6> (ca, policy, stream); break;
  }
  if (!s.ok ())
    return s;

  if (!g.all) {
    SmallArgs sa { g, cb, counters, caps, offsets_.as<const uint32_t> (), owner_.as<const uint32_t> (),
      neighbours_.as<NeighbourEntry> (), neighbour_count_.as<uint8_t> (), decisions_.as<uint8_t> (), counters + 4,
      counters + 1, unordered_.as<Key> (), (uint32_t) bound };
    const uint32_t cap = std::max (caps.small, caps.rounds);
    if (cap) {
      /* a thread per candidate up to the larger cap (the count is on the
       * device); the kernels that do not fit the count return at once */
      corner_neighbours_kernel<<<std::min<uint32_t> ((cap + 255) / 256, 8 * sm_count_), 256, 0, stream>>> (sa);
      CV_CUDA_TRY_LAUNCH ("corner_neighbours_kernel");
      if (caps.small) {
        corner_select_small_kernel<<<1, kSmallThreads, 0, stream>>> (sa);
        CV_CUDA_TRY_LAUNCH ("corner_select_small_kernel");
      }
    }
    DeviceCells m { g, cb, counters + 1, unordered_.as<Key> (), (uint32_t) bound };
    int blocks = std::min (coresident_blocks_, (int) ((g.cells () + kSelectThreads - 1) / kSelectThreads));
    if (caps.rounds) /* the grid-wide rounds: a few blocks per SM */
      blocks = std::max (blocks, std::min (coresident_blocks_, 4 * sm_count_));
    if (cooperative_) {
      void *args[] = { &m, &sa };
      CV_CUDA_TRY (cudaLaunchCooperativeKernel ((const void *) corner_select_kernel, dim3 (blocks),
          dim3 (kSelectThreads), args, 0, stream));
    } else {
      corner_select_kernel<<<blocks, kSelectThreads, 0, stream>>> (m, sa);
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
  la.unordered = unordered_.as<const Key> ();
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
  offsets_.reset ();
  owner_.reset ();
  neighbours_.reset ();
  neighbour_count_.reset ();
  decisions_.reset ();
  unordered_.reset ();
  ordered_.reset ();
  sort_temp_.reset ();
  list_.reset ();
  out_capacity_ = 0;
}

}  // namespace cudavision
