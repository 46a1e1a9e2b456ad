/* cudavision — the raw windows sorted, and their classes for the grouping
 * found, on the device (see facedetect_kernels.h).
 *
 * A crowd (or the LFW mosaic) gives thousands of raw windows; finding
 * which of them cluster (cv::partition over cv::SimilarRects) took the
 * host milliseconds per frame. Here:
 *  - the windows, one 64-bit key each (y, x, level: the host's order), are
 *    sorted with CUB's radix sort over the whole list's capacity (unused
 *    entries are all ones and sort last, so no count is needed on the
 *    host);
 *  - facedetect.group: a warp per window lists later windows it is
 *    similar to, enough of them for the classes (pairs_kernel). Sorted by
 *    y, they come right after it: similarity needs |dy| <= reach;
 *  - a union-find over those pairs links the larger root under the
 *    smaller (lock-free, by compare-and-swap), so each class's root is its
 *    first member, the window cv::partition numbers it by: in one block's
 *    shared memory for lists up to kBlockGroupMax windows, else over
 *    global memory. (Uniting pairs as the scan finds them waited on the L2
 *    for every link, and in one block the scan became the bottleneck.)
 *  - each window's root then goes into the low bits of its entry;
 *  - merge_kernel averages the classes and keeps and filters them as the
 *    host's merge_classes does, writing the grouped faces on the device
 *    (where the frame's graph may draw them), and publish_kernel copies
 *    them to the host with the counters.
 * The classes are the connected components of the similarity relation,
 * whatever the order of the unions: the same as the host's. */
#include "facedetect_kernels.h"
#include "face_grouping_math.h"
#include "../common/coalesced_append.cuh"
#include "../common/launch_util.cuh"

#include <algorithm>
#include <cooperative_groups.h>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>

namespace cg = cooperative_groups;

namespace cudavision {

namespace {

using facedetect::FaceKey;
using facedetect::LevelDesc;

using grouping::similar;

__device__ __forceinline__ FaceRect
to_rect (const int4 & v)
{
  FaceRect r;
  r.x = v.x;
  r.y = v.y;
  r.width = v.z;
  r.height = v.w;
  return r;
}

__device__ __forceinline__ FaceRect
rect_of (FaceKey k, const LevelDesc *levels)
{
  /* the key's layout: the same in every level's description */
  const int xs = levels[0].key_x_shift, ys = levels[0].key_y_shift;
  const LevelDesc & L = levels[facedetect::key_level (k, xs)];
  return to_rect (make_int4 (facedetect::key_x (k, xs, ys), facedetect::key_y (k, ys), L.win_width, L.win_height));
}

/* A union-find over `parent` (shared or global memory) that links the
 * larger root under the smaller: each class's root is its first member.
 * Finds halve their paths; every link is a compare-and-swap, so
 * concurrent unions never undo each other. */
template <typename Load>
__device__ __forceinline__ int
find (int *parent, int x, Load load)
{
  for (;;) {
    const int p = load (parent + x);
    if (p == x)
      return x;
    const int g = load (parent + p);
    if (g != p)
      atomicCAS (parent + x, p, g);
    x = g;
  }
}

template <typename Load>
__device__ void
unite (int *parent, int a, int b, Load load)
{
  for (;;) {
    a = find (parent, a, load);
    b = find (parent, b, load);
    if (a == b)
      return;
    if (a < b) {
      const int t = a;
      a = b;
      b = t;
    }
    if (atomicCAS (parent + a, a, b) == a)
      return;
  }
}

/* Shared memory: plain (volatile) loads see the other threads' links. */
struct SharedLoad {
  __device__ int operator() (const int *p) const { return *(const volatile int *) p; }
};
/* Global memory: loads bypass L1 (not coherent within a launch). */
struct GlobalLoad {
  __device__ int operator() (const int *p) const { return __ldcg (p); }
};

/* A frame's counters zero and its key list all ones (unused keys sort
 * last), and with `arg_words` the frame's arguments brought from their
 * page-locked block (copy_args' job, graph_io.h): one kernel instead of
 * two memsets and a copy, nodes fewer in the frame's graph. */
__global__ void
reset_kernel (uint32_t *header, unsigned words, FaceKey *keys, unsigned capacity, uint32_t *args,
    const uint32_t *host_args, unsigned arg_words)
{
  if (blockIdx.x == 0)
    for (unsigned i = threadIdx.x; i < arg_words; i += blockDim.x)
      args[i] = reinterpret_cast<const volatile uint32_t *> (host_args)[i];
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < capacity || i < words; i += gridDim.x * blockDim.x) {
    if (i < words)
      header[i] = 0;
    if (i < capacity)
      keys[i] = ~(FaceKey) 0;
  }
}

/* The frame's counters and all its sorted keys written straight into
 * mapped pinned host memory: in a captured graph a device-to-host copy
 * node costs the host several microseconds more a launch than a kernel
 * node, and a second copy for the
 * keys past a first chunk cost a crowd's frame a copy and a stream
 * synchronize on the host (the LFW mosaic's 5511 keys at 1080p are 44 KB
 * over PCIe, about a microsecond written from here). */
__global__ void
publish_kernel (const uint32_t *__restrict__ header, unsigned words, const FaceKey *__restrict__ sorted,
    unsigned capacity, uint32_t *host_header, FaceKey *host_keys, const int4 *__restrict__ merged,
    const int *__restrict__ merged_neighbors, unsigned merged_capacity, int4 *host_merged, int *host_neighbors,
    unsigned done_word, unsigned *blocks_done)
{
  const unsigned n = min (header[0], capacity);
  const unsigned m = merged ? min (header[2], merged_capacity) : 0u;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < words || i < n || i < m;
       i += gridDim.x * blockDim.x) {
    if (i < words && i != done_word)
      host_header[i] = header[i];
    if (i < n)
      host_keys[i] = sorted[i];
    if (i < m) {
      host_merged[i] = merged[i];
      host_neighbors[i] = merged_neighbors[i];
    }
  }
  /* The done word (graph_io.h) set by the last block to finish, after
   * every block's writes are out (the threadFenceReduction pattern): what
   * mark_done's kernel did, one node fewer. `blocks_done` is a counter of
   * the header the reset zeroed for this frame. */
  __threadfence_system ();
  __syncthreads ();
  if (threadIdx.x == 0 && atomicAdd (blocks_done, 1u) == gridDim.x - 1) {
    __threadfence_system ();
    reinterpret_cast<volatile uint32_t *> (host_header)[done_word] = 1;
    __threadfence_system ();
  }
}

/* Each window's rectangle, for the pair scan. */
__global__ void
decode_kernel (const FaceKey *__restrict__ keys, const uint32_t *count, unsigned capacity,
    const LevelDesc *__restrict__ levels, int4 *rects)
{
  const unsigned n = min (*count, capacity);
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const FaceRect r = rect_of (keys[i], levels);
    rects[i] = make_int4 (r.x, r.y, r.width, r.height);
  }
}

/* facedetect.group: enough similar pairs (i, j), i < j, for the classes,
 * a warp per window i, its lanes taking the later windows 32 at a time.
 * Sorted by y, the windows that can be similar to i come right after it
 * (similarity needs |dy| <= reach), so the ones in reach are a prefix.
 *
 * Not every similar pair is listed: with k the first window after i that
 * is similar to it, a later j similar to both i and k is left out, since
 * k's own scan connects k and j (by induction from the last window down,
 * every similar pair (k, j), k > i, ends up connected), and i-k-j then
 * are. The classes, the connected components, are the same; in a crowd's
 * cluster of mutually similar windows the list shrinks from about n^2 / 2
 * pairs to about n (the LFW mosaic at 1080p has some 110 000 similar
 * pairs). The count may pass the capacity (the host grows the list). */
__global__ void
pairs_kernel (const int4 *__restrict__ rects, const uint32_t *count, unsigned capacity, double eps, uint2 *edges,
    uint32_t *edge_count, unsigned edge_capacity)
{
  const unsigned n = min (*count, capacity);
  const unsigned lane = threadIdx.x & 31u;
  const unsigned warps = gridDim.x * (blockDim.x * blockDim.y / 32);
  for (unsigned i = blockIdx.x * (blockDim.x * blockDim.y / 32) + (threadIdx.y * blockDim.x + threadIdx.x) / 32; i < n;
       i += warps) {
    const FaceRect a = to_rect (rects[i]);
    /* delta <= eps * (a.width + a.height) / 2 for every partner */
    const int reach = (int) floor (eps * ((double) a.width + a.height) * 0.5);
    unsigned k = 0; /* the first similar window, once found */
    FaceRect rk;
    for (unsigned base = i + 1; base < n; base += 32) {
      const unsigned j = base + lane;
      FaceRect b;
      bool in = j < n;
      if (in) {
        b = to_rect (rects[j]);
        in = b.y - a.y <= reach;
      }
      const bool sim = in && abs (b.x - a.x) <= reach && similar (a, b, eps);
      const unsigned similar_lanes = __ballot_sync (0xffffffffu, sim);
      if (k == 0 && similar_lanes) {
        k = base + (unsigned) __ffs ((int) similar_lanes) - 1;
        rk = to_rect (rects[k]);
      }
      if (sim && (j == k || !similar (rk, b, eps)))
        coalesced_append (edges, edge_count, edge_capacity, make_uint2 (i, j));
      if (__ballot_sync (0xffffffffu, in) != 0xffffffffu)
        break;
    }
  }
}

/* Lists up to this long take their union-find in one block's shared
 * memory (32 KB): no wait on the L2 for every link. */
constexpr unsigned kBlockGroupMax = 8192;

/* The classes from the pairs, and each window's root into its key. One
 * block in shared memory for short lists (SHARED), else a grid over
 * global memory in three launches (init, unite, roots); each returns at
 * once when the list is not its size. */
__global__ void
classes_block_kernel (FaceKey *keys, const uint32_t *count, unsigned capacity, const uint2 *__restrict__ edges,
    const uint32_t *edge_count, unsigned edge_capacity)
{
  __shared__ int parent[kBlockGroupMax];
  const unsigned n = min (*count, capacity);
  if (n > kBlockGroupMax)
    return;
  const unsigned m = min (*edge_count, edge_capacity);
  for (unsigned i = threadIdx.x; i < n; i += blockDim.x)
    parent[i] = (int) i;
  __syncthreads ();
  for (unsigned e = threadIdx.x; e < m; e += blockDim.x)
    unite (parent, (int) edges[e].x, (int) edges[e].y, SharedLoad ());
  __syncthreads ();
  for (unsigned i = threadIdx.x; i < n; i += blockDim.x)
    keys[i] |= (FaceKey) find (parent, (int) i, SharedLoad ());
}

__global__ void
init_kernel (int *parent, const uint32_t *count, unsigned capacity)
{
  const unsigned n = min (*count, capacity);
  if (n <= kBlockGroupMax)
    return;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    parent[i] = (int) i;
}

__global__ void
unite_kernel (const uint32_t *count, unsigned capacity, const uint2 *__restrict__ edges, const uint32_t *edge_count,
    unsigned edge_capacity, int *parent)
{
  if (min (*count, capacity) <= kBlockGroupMax)
    return;
  const unsigned m = min (*edge_count, edge_capacity);
  for (unsigned e = blockIdx.x * blockDim.x + threadIdx.x; e < m; e += gridDim.x * blockDim.x)
    unite (parent, (int) edges[e].x, (int) edges[e].y, GlobalLoad ());
}

__global__ void
roots_kernel (FaceKey *keys, const uint32_t *count, unsigned capacity, int *parent)
{
  const unsigned n = min (*count, capacity);
  if (n <= kBlockGroupMax)
    return;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    keys[i] |= (FaceKey) find (parent, (int) i, GlobalLoad ());
}

/* The grouping's last step, face_grouping.cpp's merge_classes, on the
 * device: one block, after the classes (each key's root in its low bits).
 * Each class's integer sums by atomics (exact in any order), its mean,
 * margins and containment test face_grouping_math.h's (the host's), the classes with more than min_neighbors members
 * kept in class order (a block scan), the containment test of each kept
 * class against every other, and the survivors, in the same order, into
 * `out` with their count in *out_count and their member counts (OpenCV's
 * numDetections) in `out_neighbors`. The host then
 * reads a few rectangles instead of grouping thousands of windows. */
constexpr int kMergeThreads = 1024;

__global__ void __launch_bounds__ (kMergeThreads)
merge_kernel (const FaceKey *__restrict__ keys, const int4 *__restrict__ rects, const uint32_t *count,
    unsigned capacity, int min_neighbors, double eps, int4 *sums, int *members, int4 *kept, int4 *kept_info,
    uint32_t *out_count, int4 *out, int *out_neighbors)
{
  using Scan = cub::BlockScan<int, kMergeThreads>;
  __shared__ typename Scan::TempStorage scan;
  const int n = (int) min (*count, capacity);
  const int tid = threadIdx.x;
  for (int i = tid; i < n; i += kMergeThreads) {
    sums[i] = make_int4 (0, 0, 0, 0);
    members[i] = 0;
  }
  __syncthreads ();
  for (int i = tid; i < n; i += kMergeThreads) {
    const int r = facedetect::key_root (keys[i]);
    const int4 v = rects[i];
    atomicAdd (&sums[r].x, v.x);
    atomicAdd (&sums[r].y, v.y);
    atomicAdd (&sums[r].z, v.z);
    atomicAdd (&sums[r].w, v.w);
    atomicAdd (&members[r], 1);
  }
  __syncthreads ();
  /* the kept classes, in class order (a class is its root, its first
   * member: roots ascending are the host's class numbers ascending) */
  int nkept = 0;
  for (int c0 = 0; c0 < n; c0 += kMergeThreads) {
    const int c = c0 + tid;
    const int m = c < n ? members[c] : 0;
    const int keep = m > min_neighbors ? 1 : 0;
    int pos, total;
    Scan (scan).ExclusiveSum (keep, pos, total);
    if (keep) {
      const FaceRect mean = grouping::class_mean (to_rect (sums[c]), m);
      kept[nkept + pos] = make_int4 (mean.x, mean.y, mean.width, mean.height);
      kept_info[nkept + pos] = make_int4 (m, grouping::containment_margin (mean.width, eps),
          grouping::containment_margin (mean.height, eps), 0);
    }
    nkept += total;
    __syncthreads (); /* the scan's storage, reused */
  }
  __syncthreads ();
  /* a kept class inside a stronger one is dropped (small faces inside
   * large), the others leave in order */
  int nout = 0;
  for (int c0 = 0; c0 < nkept; c0 += kMergeThreads) {
    const int k1 = c0 + tid;
    int keep = 0, n1 = 0;
    int4 r1 = make_int4 (0, 0, 0, 0);
    if (k1 < nkept) {
      r1 = kept[k1];
      n1 = kept_info[k1].x;
      bool inside = false;
      for (int k2 = 0; k2 < nkept && !inside; k2++) {
        if (k2 == k1)
          continue;
        const int4 i2 = kept_info[k2];
        inside = grouping::inside_stronger (to_rect (r1), n1, to_rect (kept[k2]), i2.x, i2.y, i2.z);
      }
      keep = inside ? 0 : 1;
    }
    int pos, total;
    Scan (scan).ExclusiveSum (keep, pos, total);
    if (keep) {
      out[nout + pos] = r1;
      out_neighbors[nout + pos] = n1;
    }
    nout += total;
    __syncthreads ();
  }
  if (tid == 0)
    *out_count = (uint32_t) nout;
}

}  // namespace

const KernelTraits &
facedetect_group_traits ()
{
  static const KernelTraits t = kernel_traits ("facedetect.group", { 128, 1 }, false);
  return t;
}

namespace facedetect {

CudaStatus
launch_reset_results (uint32_t *header, unsigned words, FaceKey *keys, unsigned capacity, const FrameArgsCopy & args,
    cudaStream_t stream)
{
  if (((reinterpret_cast<uintptr_t> (args.device) | reinterpret_cast<uintptr_t> (args.host) | args.bytes) & 3) != 0)
    return { cudaErrorInvalidValue, "facedetect reset: the frame's arguments are not whole words" };
  const unsigned n = std::max (words, capacity);
  const unsigned blocks = std::max (1u, std::min (1024u, (n + 255) / 256));
  reset_kernel<<<blocks, 256, 0, stream>>> (header, words, keys, capacity, static_cast<uint32_t *> (args.device),
      static_cast<const uint32_t *> (args.host), (unsigned) (args.bytes / 4));
  CV_CUDA_TRY_LAUNCH ("facedetect reset_kernel");
  return {};
}

CudaStatus
launch_publish_results (uint32_t *header, unsigned words, const FaceKey *sorted, unsigned capacity,
    uint32_t *host_header, FaceKey *host_keys, const MergedFaces & merged, unsigned merged_capacity,
    const MergedFaces & host_merged, unsigned done_word, cudaStream_t stream)
{
  if (done_word >= words)
    return { cudaErrorInvalidValue, "facedetect publish: the done word is outside the header" };
  const unsigned most = std::max ({ words, capacity, merged.rects ? merged_capacity : 0u });
  const unsigned blocks = std::max (1u, std::min (64u, (most + 255) / 256));
  publish_kernel<<<blocks, 256, 0, stream>>> (header, words, sorted, capacity, host_header, host_keys, merged.rects,
      merged.neighbors, merged_capacity, host_merged.rects, host_merged.neighbors, done_word, header + done_word);
  CV_CUDA_TRY_LAUNCH ("facedetect publish_kernel");
  return {};
}

CudaStatus
launch_merge_classes (const FaceKey *sorted, const uint32_t *count, unsigned capacity, int min_neighbors,
    const GroupScratch & g, const MergeScratch & m, uint32_t *out_count, const MergedFaces & out,
    cudaStream_t stream)
{
  merge_kernel<<<1, kMergeThreads, 0, stream>>> (sorted, g.rects, count, capacity, min_neighbors, kFaceGroupEps,
      m.sums, m.members, m.kept, m.kept_info, out_count, out.rects, out.neighbors);
  CV_CUDA_TRY_LAUNCH ("facedetect merge_kernel");
  return {};
}

CudaStatus
sort_faces_scratch_bytes (unsigned capacity, size_t *bytes)
{
  *bytes = 0;
  CV_CUDA_TRY (cub::DeviceRadixSort::SortKeys (nullptr, *bytes, (const FaceKey *) nullptr, (FaceKey *) nullptr,
      (int) capacity, kFaceKeySortBit, 64));
  return {};
}

CudaStatus
launch_sort_and_group (const FaceKey *keys, FaceKey *sorted, const uint32_t *count, unsigned capacity, int end_bit,
    bool group, const LevelDesc *levels, const GroupScratch & g, const LaunchPolicy & policy, cudaStream_t stream,
    const HookContext & hc)
{
  /* the scratch was sized for bits [kFaceKeySortBit, 64): enough for fewer */
  size_t bytes = g.sort_bytes;
  CV_CUDA_TRY (cub::DeviceRadixSort::SortKeys (g.sort, bytes, keys, sorted, (int) capacity, kFaceKeySortBit,
      std::min (std::max (end_bit, kFaceKeySortBit + 1), 64), stream));
  if (!group)
    return {};
  const unsigned blocks = std::max (1u, std::min (1024u, (capacity + 255) / 256));
  decode_kernel<<<blocks, 256, 0, stream>>> (sorted, count, capacity, levels, g.rects);
  CV_CUDA_TRY_LAUNCH ("facedetect decode_kernel");
  const KernelTraits & t = facedetect_group_traits ();
  LaunchConfig c = policy.choose (t, cached_resources (pairs_kernel), hc.frame_width, hc.frame_height);
  /* whole warps: a warp per window */
  c.block = { std::max (32u, (c.block.threads () + 31) / 32 * 32), 1 };
  const unsigned windows_per_block = c.block.threads () / 32;
  c.grid_x = std::min (filling_grid ((const void *) pairs_kernel, c.block.threads (), policy.device ()),
      std::max (1u, (capacity + windows_per_block - 1) / windows_per_block));
  c.grid_y = 1;
  hook_call (hc, t, hc.frame_width, hc.frame_height, c, false, stream);
  pairs_kernel<<<dim3 (c.grid_x), block_dim (c), 0, stream>>> (g.rects, count, capacity, kFaceGroupEps, g.edges,
      g.edge_count, g.edge_capacity);
  CV_CUDA_TRY_LAUNCH ("facedetect pairs_kernel");
  hook_call (hc, t, hc.frame_width, hc.frame_height, c, true, stream);
  classes_block_kernel<<<1, 1024, 0, stream>>> (sorted, count, capacity, g.edges, g.edge_count, g.edge_capacity);
  CV_CUDA_TRY_LAUNCH ("facedetect classes_block_kernel");
  if (capacity > kBlockGroupMax) {
    init_kernel<<<blocks, 256, 0, stream>>> (g.parent, count, capacity);
    CV_CUDA_TRY_LAUNCH ("facedetect init_kernel");
    unite_kernel<<<blocks, 256, 0, stream>>> (count, capacity, g.edges, g.edge_count, g.edge_capacity, g.parent);
    CV_CUDA_TRY_LAUNCH ("facedetect unite_kernel");
    roots_kernel<<<blocks, 256, 0, stream>>> (sorted, count, capacity, g.parent);
    CV_CUDA_TRY_LAUNCH ("facedetect roots_kernel");
  }
  return {};
}

}  // namespace facedetect
}  // namespace cudavision
