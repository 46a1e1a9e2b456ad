/* cudavision — Canny kernels, their launchers and the detection (canny.h
 * describes the steps, canny_math.h the arithmetic). */
#include "../blur/blur.h"
#include "canny.h"
#include "../common/launch_util.cuh"
#include "../otsu/otsu.h"

#include <algorithm>
#include <climits>
#include <cstddef>

namespace cudavision {
namespace {

constexpr int kTile = kCannyTile;
constexpr int kTileThreads = 256; /* 32 x 8 */
constexpr int kPixPerThread = kTile * kTile / kTileThreads;
constexpr unsigned kFull = 0xffffffffu;

/* Local component flags. */
constexpr int kFlagStrong = 1; /* holds a strong pixel */
constexpr int kFlagTouch = 2;  /* reaches a tile border with a tile beyond */

/* dst values between the steps: 0 and 255 are final; a pixel still to be
 * resolved by canny.weak holds kPending. */
constexpr uint8_t kPending = 1;

/* Upper bound of listed roots per tile: distinct border-touching
 * components own distinct border pixels. */
constexpr int kRootsPerTile = 4 * kTile;
/* Root list entries: the pixel index, and this bit for a strong component. */
constexpr uint32_t kRootStrong = 0x80000000u;

struct DeviceState {
  uint32_t root_count;   /* entries of the open-root list */
  uint32_t weak_count;   /* entries of the unresolved-weak list */
  uint32_t auto_value;   /* the automatic mode's value of the last frame */
  uint32_t hist[256];    /* the median's histogram: zero between frames */
};

/* ------------------------------------------------------------ union-find */

/* Shared memory (one tile): volatile reads see other threads' links. */
__device__ __forceinline__ int
find_shared (volatile int *parent, int x)
{
  for (;;) {
    const int p = parent[x];
    if (p == x)
      return x;
    x = p;
  }
}

/* Global memory, while unions run: loads bypass L1 (not coherent within a
 * launch). Path halving keeps the trees shallow (an edge that crosses many
 * tiles would otherwise chain their components one under the other), with
 * a compare-and-swap so that it never undoes a concurrent link: it only
 * replaces the exact parent it read by that parent's parent. */
__device__ __forceinline__ int
find_global (int *parent, int x)
{
  for (;;) {
    const int p = __ldcg (parent + x);
    if (p == x)
      return x;
    const int gp = __ldcg (parent + p);
    if (gp != p)
      atomicCAS (parent + x, p, gp);
    x = gp;
  }
}

/* Lock-free union (shared or global parents, with their find): the larger
 * root is linked under the smaller with atomicMin; a failed link (someone
 * linked that root first) retries from what it found there. Parents only
 * ever decrease, towards a root, so every union ends. */
template <typename Find>
__device__ __forceinline__ void
unite (int *parent, int a, int b, const Find & find)
{
  for (;;) {
    a = find (a);
    b = find (b);
    if (a == b)
      return;
    const int hi = max (a, b);
    const int old = atomicMin (&parent[hi], min (a, b));
    if (old == hi)
      return;
    (a > b ? a : b) = old;
  }
}

__device__ __forceinline__ void
unite_shared (int *parent, int a, int b)
{
  unite (parent, a, b, [parent] (int x) { return find_shared (parent, x); });
}

__device__ __forceinline__ void
unite_global (int *parent, int a, int b)
{
  unite (parent, a, b, [parent] (int x) { return find_global (parent, x); });
}

/* Find with full path compression, for after the last union (plain stores
 * could undo a concurrent atomicMin while unions still run). */
__device__ int
find_compress (int *parent, int x)
{
  int r = x;
  for (;;) {
    const int p = __ldcg (parent + r);
    if (p == r)
      break;
    r = p;
  }
  while (x != r) {
    const int p = __ldcg (parent + x);
    if (p == r)
      break;
    __stcg (parent + x, r);
    x = p;
  }
  return r;
}

/* Appends `value` for every lane with `push` set: one atomic per warp. All
 * 32 lanes must call it. */
__device__ __forceinline__ void
warp_append (bool push, uint32_t value, uint32_t *count, uint32_t *list)
{
  const unsigned ballot = __ballot_sync (kFull, push);
  if (!ballot)
    return;
  const int lane = threadIdx.x & 31;
  const int leader = __ffs (ballot) - 1;
  uint32_t base = 0;
  if (lane == leader)
    base = atomicAdd (count, (uint32_t) __popc (ballot));
  base = __shfl_sync (kFull, base, leader);
  if (push)
    list[base + __popc (ballot & ((1u << lane) - 1u))] = value;
}

/* ------------------------------------------------------------ step 1 */

struct TileArgs {
  const uint8_t *src;
  size_t spitch;
  uint8_t *dst;
  size_t dpitch;
  int w, h;
  CannyThresholds th;          /* when auto_value is null */
  const uint32_t *auto_value;  /* device: the automatic mode's value */
  bool l2;
  int blur_r;                  /* fused pre-blur radius, 0: none */
  int taps_x[kBlurMaxRadius + 1];
  int taps_y[kBlurMaxRadius + 1];
  int *labels;                 /* w * h parents */
  uint32_t *root_list;         /* open components' local roots (| kRootStrong) */
  uint32_t *weak_list;         /* pixels of open components without a strong one */
  DeviceState *state;
};

/* Shared memory of one tile. b: the (blurred) source over the tile, the
 * NMS halo (1) and the Sobel halo (R), with cv::Canny's replicated border
 * already applied; mag: magnitudes over the tile and the NMS halo, 0
 * outside the frame. The rest is used phase after phase. */
template <int K, bool BLUR>
struct TileSmem {
  static constexpr int R = K / 2;
  static constexpr int BW = kTile + 2 + 2 * R;
  static constexpr int MW = kTile + 2;
  static constexpr int SW = BLUR ? BW + 2 * kBlurMaxRadius : 1;
  uint8_t b[BW][BW];
  int mag[MW][MW];
  union {
    struct {
      uint8_t s[SW][SW]; /* source, reflect-101 */
      int h[SW][BW];     /* row pass, 8.8 fixed point */
    } blur;
    struct {
      int16_t d[BW][MW]; /* row derivative */
      int16_t s[BW][MW]; /* row smoothing */
    } rows;
    struct {
      int parent[kTile * kTile];
      int flags[kTile * kTile];
      uint8_t cls[kTile * kTile];
    } ccl;
  } u;
};

__device__ __forceinline__ int
clampi (int v, int lo, int hi)
{
  return min (max (v, lo), hi);
}

/* b = the pre-blurred frame over the tile (cv::GaussianBlur's fixed point,
 * reflect-101), at replicated positions: b[r][c] is the blurred pixel at
 * (clamp (X0 + c), clamp (Y0 + r)). The row pass runs at the clamped
 * columns and the column pass at the clamped rows, so the reflect-101
 * neighbourhood of each clamped position is read from the source tile. */
template <int K>
__device__ __forceinline__ void
load_blurred (TileSmem<K, true> &sm, const TileArgs &a, const int (*taps)[kBlurMaxRadius + 1], int X0, int Y0,
    int tid)
{
  using S = TileSmem<K, true>;
  const int rb = a.blur_r;
  const int sw = S::BW + 2 * rb;
  for (int i = tid; i < sw * sw; i += kTileThreads) {
    const int r = i / sw, c = i - r * sw;
    sm.u.blur.s[r][c] = a.src[(size_t) reflect101 (Y0 - rb + r, a.h) * a.spitch + reflect101 (X0 - rb + c, a.w)];
  }
  __syncthreads ();
  for (int i = tid; i < sw * S::BW; i += kTileThreads) {
    const int r = i / S::BW, c = i - r * S::BW;
    const int cx = clampi (X0 + c, 0, a.w - 1) - X0 + rb;
    const uint8_t *row = sm.u.blur.s[r];
    int acc = taps[0][0] * row[cx];
    for (int d = 1; d <= rb; d++)
      acc += taps[0][d] * (row[cx - d] + row[cx + d]);
    sm.u.blur.h[r][c] = acc;
  }
  __syncthreads ();
  for (int i = tid; i < S::BW * S::BW; i += kTileThreads) {
    const int r = i / S::BW, c = i - r * S::BW;
    const int cy = clampi (Y0 + r, 0, a.h - 1) - Y0 + rb;
    int acc = taps[1][0] * sm.u.blur.h[cy][c];
    for (int d = 1; d <= rb; d++)
      acc += taps[1][d] * (sm.u.blur.h[cy - d][c] + sm.u.blur.h[cy + d][c]);
    sm.b[r][c] = (uint8_t) ((acc + (1 << 15)) >> 16);
  }
}

template <int K>
__device__ __forceinline__ void
load_plain (TileSmem<K, false> &sm, const TileArgs &a, int X0, int Y0, int tid)
{
  using S = TileSmem<K, false>;
  for (int i = tid; i < S::BW * S::BW; i += kTileThreads) {
    const int r = i / S::BW, c = i - r * S::BW;
    sm.b[r][c] = a.src[(size_t) clampi (Y0 + r, 0, a.h - 1) * a.spitch + clampi (X0 + c, 0, a.w - 1)];
  }
}

/* The exact Sobel at magnitude position (mr, mc) from the row passes. */
template <int K, bool BLUR>
__device__ __forceinline__ void
sobel_from_rows (const TileSmem<K, BLUR> &sm, int mr, int mc, int *dx, int *dy)
{
  int sx = 0, sy = 0;
#pragma unroll
  for (int j = 0; j < K; j++) {
    sx += sobel_smooth (K, j) * sm.u.rows.d[mr + j][mc];
    sy += sobel_deriv (K, j) * sm.u.rows.s[mr + j][mc];
  }
  *dx = canny_deriv (sx, K);
  *dy = canny_deriv (sy, K);
}

template <int K, bool BLUR>
__global__ void __launch_bounds__ (kTileThreads)
canny_tile_kernel (TileArgs a)
{
  using S = TileSmem<K, BLUR>;
  __shared__ S sm;
  /* the taps, indexed at run time: from shared memory, not from the
   * parameter struct (which dynamic indexing would copy to local memory) */
  __shared__ int s_taps[2][kBlurMaxRadius + 1];
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  if (BLUR) {
#pragma unroll
    for (int i = 0; i <= kBlurMaxRadius; i++) {
      if (tid == i)
        s_taps[0][i] = a.taps_x[i];
      else if (tid == kBlurMaxRadius + 1 + i)
        s_taps[1][i] = a.taps_y[i];
    }
  } /* read after load_blurred's first barrier */
  const int lx = threadIdx.x;  /* this thread's pixels: column lx, rows ly0 + 8k */
  const int ly0 = threadIdx.y;

  CannyThresholds th = a.th;
  if (a.auto_value) {
    const uint32_t v = *a.auto_value;
    th = canny_auto_thresholds (v, K, a.l2);
    if (blockIdx.x == 0 && blockIdx.y == 0 && tid == 0)
      a.state->auto_value = v;
  }

  const int x0 = blockIdx.x * kTile;
  const int tiles_y = (a.h + kTile - 1) / kTile;
  for (int ty = blockIdx.y; ty < tiles_y; ty += gridDim.y) {
    const int y0 = ty * kTile;
    const int X0 = x0 - 1 - S::R, Y0 = y0 - 1 - S::R;

    /* 1. the (blurred) source with the replicated border */
    if constexpr (BLUR)
      load_blurred<K> (sm, a, s_taps, X0, Y0, tid);
    else
      load_plain<K> (sm, a, X0, Y0, tid);
    __syncthreads ();

    /* 2. Sobel row passes over every row of b, at the magnitude columns */
    for (int i = tid; i < S::BW * S::MW; i += kTileThreads) {
      const int r = i / S::MW, c = i - r * S::MW;
      int d = 0, s = 0;
#pragma unroll
      for (int k = 0; k < K; k++) {
        const int v = sm.b[r][c + k];
        d += sobel_deriv (K, k) * v;
        s += sobel_smooth (K, k) * v;
      }
      sm.u.rows.d[r][c] = (int16_t) d;
      sm.u.rows.s[r][c] = (int16_t) s;
    }
    __syncthreads ();

    /* 3. column passes: derivatives and magnitudes. A thread keeps its own
     * pixels' derivatives in registers; the halo ring (132 positions) is
     * spread over the first threads. */
    int dxs[kPixPerThread], dys[kPixPerThread], ms[kPixPerThread];
#pragma unroll
    for (int k = 0; k < kPixPerThread; k++) {
      const int ly = ly0 + 8 * k;
      const int x = x0 + lx, y = y0 + ly;
      sobel_from_rows (sm, ly + 1, lx + 1, &dxs[k], &dys[k]);
      ms[k] = x < a.w && y < a.h ? canny_magnitude (dxs[k], dys[k], a.l2) : 0;
      sm.mag[ly + 1][lx + 1] = ms[k];
    }
    if (tid < 4 * S::MW - 4) {
      int mr, mc;
      if (tid < S::MW) {
        mr = 0;
        mc = tid;
      } else if (tid < 2 * S::MW) {
        mr = S::MW - 1;
        mc = tid - S::MW;
      } else if (tid < 3 * S::MW - 2) {
        mr = tid - 2 * S::MW + 1;
        mc = 0;
      } else {
        mr = tid - (3 * S::MW - 2) + 1;
        mc = S::MW - 1;
      }
      const int x = x0 - 1 + mc, y = y0 - 1 + mr;
      int m = 0;
      if (x >= 0 && x < a.w && y >= 0 && y < a.h) {
        int dx, dy;
        sobel_from_rows (sm, mr, mc, &dx, &dy);
        m = canny_magnitude (dx, dy, a.l2);
      }
      sm.mag[mr][mc] = m;
    }
    __syncthreads ();

    /* 4. non-maximum suppression and the double threshold */
    int cls[kPixPerThread];
#pragma unroll
    for (int k = 0; k < kPixPerThread; k++) {
      const int ly = ly0 + 8 * k;
      const int p = ly * kTile + lx;
      cls[k] = kCannyNone;
      if (x0 + lx < a.w && y0 + ly < a.h) {
        cls[k] = canny_classify (ms[k], dxs[k], dys[k], th,
            [&] (int di, int dj) { return sm.mag[ly + 1 + dj][lx + 1 + di]; });
      }
      sm.u.ccl.cls[p] = (uint8_t) cls[k];
      sm.u.ccl.parent[p] = p;
      sm.u.ccl.flags[p] = 0;
    }
    __syncthreads ();

    /* 5. local components: unite each candidate with its candidate
     * neighbours on the left and above (the others do the rest) */
#pragma unroll
    for (int k = 0; k < kPixPerThread; k++) {
      if (!cls[k])
        continue;
      const int ly = ly0 + 8 * k;
      const int p = ly * kTile + lx;
      if (lx > 0 && sm.u.ccl.cls[p - 1])
        unite_shared (sm.u.ccl.parent, p, p - 1);
      if (ly > 0) {
        if (sm.u.ccl.cls[p - kTile])
          unite_shared (sm.u.ccl.parent, p, p - kTile);
        if (lx > 0 && sm.u.ccl.cls[p - kTile - 1])
          unite_shared (sm.u.ccl.parent, p, p - kTile - 1);
        if (lx < kTile - 1 && sm.u.ccl.cls[p - kTile + 1])
          unite_shared (sm.u.ccl.parent, p, p - kTile + 1);
      }
    }
    __syncthreads ();

    /* 6. roots and component flags */
    int root[kPixPerThread];
#pragma unroll
    for (int k = 0; k < kPixPerThread; k++) {
      root[k] = -1;
      if (!cls[k])
        continue;
      const int ly = ly0 + 8 * k;
      const int p = ly * kTile + lx;
      root[k] = find_shared (sm.u.ccl.parent, p);
      sm.u.ccl.parent[p] = root[k]; /* an ancestor either way: safe */
      const bool touch = (lx == 0 && x0 > 0) || (lx == kTile - 1 && x0 + kTile < a.w) || (ly == 0 && y0 > 0) ||
          (ly == kTile - 1 && y0 + kTile < a.h);
      const int f = (cls[k] == kCannyStrong ? kFlagStrong : 0) | (touch ? kFlagTouch : 0);
      if (f)
        atomicOr (&sm.u.ccl.flags[root[k]], f);
    }
    __syncthreads ();

    /* 7. final pixels, and what the global steps need */
#pragma unroll
    for (int k = 0; k < kPixPerThread; k++) {
      const int ly = ly0 + 8 * k;
      const int p = ly * kTile + lx;
      const int x = x0 + lx, y = y0 + ly;
      const int f = cls[k] ? sm.u.ccl.flags[root[k]] : 0;
      const bool open = cls[k] && (f & kFlagTouch);
      if (x < a.w && y < a.h) {
        a.dst[(size_t) y * a.dpitch + x] = !cls[k] ? 0 : (f & kFlagStrong) ? 255 : open ? kPending : 0;
        if (open) {
          const int r = root[k];
          a.labels[y * a.w + x] = (y0 + r / kTile) * a.w + x0 + r % kTile;
        }
      }
      warp_append (open && root[k] == p, (uint32_t) (y * a.w + x) | ((f & kFlagStrong) ? kRootStrong : 0u),
          &a.state->root_count, a.root_list);
      warp_append (open && !(f & kFlagStrong), (uint32_t) (y * a.w + x), &a.state->weak_count, a.weak_list);
    }
    __syncthreads (); /* the next tile reuses the shared memory */
  }
}

/* ------------------------------------------------------------ steps 2-4 */

__device__ __forceinline__ long
linear_thread ()
{
  const long block = (long) blockIdx.y * gridDim.x + blockIdx.x;
  return block * (blockDim.x * blockDim.y) + threadIdx.y * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ long
thread_count ()
{
  return (long) gridDim.x * gridDim.y * blockDim.x * blockDim.y;
}

/* Every tile's right column and bottom row, united with their candidate
 * neighbours in the next tiles (the left and top ones are those tiles'
 * right and bottom). All 8-adjacencies across tile borders are covered. */
__global__ void
canny_merge_kernel (const uint8_t *__restrict__ dst, size_t pitch, int w, int h, int tiles_x, long work,
    int *labels)
{
  for (long i = linear_thread (); i < work; i += thread_count ()) {
    const long tile = i / (2 * kTile);
    const int k = (int) (i - tile * 2 * kTile);
    const int x0 = (int) (tile % tiles_x) * kTile, y0 = (int) (tile / tiles_x) * kTile;
    if (k < kTile) {
      const int x = x0 + kTile - 1, y = y0 + k;
      if (x + 1 >= w || y >= h || !dst[(size_t) y * pitch + x])
        continue;
      for (int dy = -1; dy <= 1; dy++) {
        const int yy = y + dy;
        if (yy >= 0 && yy < h && dst[(size_t) yy * pitch + x + 1])
          unite_global (labels, y * w + x, yy * w + x + 1);
      }
    } else {
      const int x = x0 + k - kTile, y = y0 + kTile - 1;
      if (y + 1 >= h || x >= w || !dst[(size_t) y * pitch + x])
        continue;
      for (int dx = -1; dx <= 1; dx++) {
        const int xx = x + dx;
        if (xx >= 0 && xx < w && dst[(size_t) (y + 1) * pitch + xx])
          unite_global (labels, y * w + x, (y + 1) * w + xx);
      }
    }
  }
}

/* Every open component's local root: its parent becomes the final root
 * (so that step 4 needs two loads per pixel), and a strong component
 * marks that root 255. */
__global__ void
canny_roots_kernel (uint8_t *dst, size_t pitch, int w, int *labels, const uint32_t *list,
    const DeviceState *state)
{
  const long n = state->root_count;
  for (long i = linear_thread (); i < n; i += thread_count ()) {
    const uint32_t e = list[i];
    const int r = find_compress (labels, (int) (e & ~kRootStrong));
    if (e & kRootStrong)
      dst[(size_t) (r / w) * pitch + r % w] = 255;
  }
}

/* Unresolved weak pixels follow their final root: the parent of a pixel is
 * its local root, whose parent is now the final root. A weak root may turn
 * from kPending to 0 meanwhile: either reads "not 255". */
__global__ void
canny_weak_kernel (uint8_t *dst, size_t pitch, int w, const int *labels, const uint32_t *list,
    const DeviceState *state)
{
  const long n = state->weak_count;
  for (long i = linear_thread (); i < n; i += thread_count ()) {
    const int p = (int) list[i];
    const int r = labels[labels[p]];
    const uint8_t v = dst[(size_t) (r / w) * pitch + r % w] == 255 ? 255 : 0;
    dst[(size_t) (p / w) * pitch + p % w] = v;
  }
}

/* ------------------------------------------------------------ median */

/* The frame's histogram into st->hist: a shared histogram per block, one
 * global atomic per non-empty bin and block. Any block shape; each thread
 * counts 16 bytes of a row on every gridDim.y * blockDim.y-th row. */
__global__ void
canny_hist_kernel (const uint8_t *__restrict__ src, size_t pitch, int w, int h, DeviceState *st)
{
  __shared__ uint32_t s_hist[256];
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int nthreads = blockDim.x * blockDim.y;
  for (int i = tid; i < 256; i += nthreads)
    s_hist[i] = 0;
  __syncthreads ();
  const int xb = (blockIdx.x * blockDim.x + threadIdx.x) * 16;
  if (xb < w) {
    const int n = min (16, w - xb);
    for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < h; y += gridDim.y * blockDim.y) {
      const uint8_t *row = src + (size_t) y * pitch + xb;
      for (int k = 0; k < n; k++)
        atomicAdd (&s_hist[row[k]], 1u);
    }
  }
  __syncthreads ();
  for (int i = tid; i < 256; i += nthreads)
    if (s_hist[i])
      atomicAdd (&st->hist[i], s_hist[i]);
}

/* One warp: the lower median of st->hist into st->auto_value, and the
 * histogram zeroed for the next frame. Lane l owns bins 8l .. 8l + 7. */
__global__ void
canny_median_kernel (DeviceState *st)
{
  const int lane = threadIdx.x;
  uint32_t bins[8], own = 0;
#pragma unroll
  for (int k = 0; k < 8; k++) {
    bins[k] = st->hist[8 * lane + k];
    st->hist[8 * lane + k] = 0;
    own += bins[k];
  }
  uint32_t incl = own; /* pixels in bins 0 .. 8 lane + 7 */
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const uint32_t v = __shfl_up_sync (kFull, incl, o);
    if (lane >= o)
      incl += v;
  }
  const uint32_t total = __shfl_sync (kFull, incl, 31);
  const uint32_t rank = canny_median_rank (total);
  uint32_t below = incl - own; /* pixels in the bins before this lane's */
#pragma unroll
  for (int k = 0; k < 8; k++) {
    if (below <= rank && rank < below + bins[k])
      st->auto_value = (uint32_t) (8 * lane + k);
    below += bins[k];
  }
}

/* ------------------------------------------------------------ traits */

KernelTraits
traits_of (const char *name, BlockShape block, bool fixed, unsigned per_thread_x = 1, unsigned per_thread_y = 1)
{
  KernelTraits t;
  t.name = name;
  t.static_block = block;
  t.two_d = block.y > 1;
  t.fixed_block = fixed;
  t.items_per_thread_x = per_thread_x;
  t.items_per_thread_y = per_thread_y;
  return t;
}

template <int K, bool BLUR>
CudaStatus
launch_tile (const TileArgs & a, const LaunchPolicy & policy, cudaStream_t stream)
{
  auto kernel = canny_tile_kernel<K, BLUR>;
  const LaunchConfig c = policy.choose (canny_traits (CannyKernel::Tile), cached_resources (kernel), a.w, a.h);
  kernel<<<grid_dim (c), block_dim (c), 0, stream>>> (a);
  CV_CUDA_TRY_LAUNCH ("canny_tile_kernel");
  return {};
}

template <bool BLUR>
CudaStatus
launch_tile_k (int aperture, const TileArgs & a, const LaunchPolicy & policy, cudaStream_t stream)
{
  switch (aperture) {
    case 3: return launch_tile<3, BLUR> (a, policy, stream);
    case 5: return launch_tile<5, BLUR> (a, policy, stream);
    default: return launch_tile<7, BLUR> (a, policy, stream);
  }
}

CudaStatus
ensure_state (CannyScratch * s, cudaStream_t stream)
{
  if (!s->state.get ()) {
    CV_CUDA_TRY (s->state.allocate (sizeof (DeviceState)).err);
    s->state_ready = false;
  }
  if (!s->state_ready) {
    CV_CUDA_TRY (cudaMemsetAsync (s->state.get (), 0, sizeof (DeviceState), stream));
    s->state_ready = true;
  }
  return {};
}

/* The device word an automatic mode's value lands in. */
CudaStatus
auto_value_on_device (ConstImage8 src, CannyAuto mode, CannyScratch * s, const LaunchPolicy & policy,
    cudaStream_t stream, const uint32_t ** out)
{
  DeviceState *st = s->state.as<DeviceState> ();
  if (mode == CannyAuto::Otsu) {
    if (!s->otsu.get ()) {
      CV_CUDA_TRY (s->otsu.allocate (sizeof (OtsuDeviceState)).err);
      s->otsu_ready = false;
    }
    auto *ot = s->otsu.as<OtsuDeviceState> ();
    if (!s->otsu_ready) {
      CV_CUDA_TRY (otsu_state_init (ot, stream).err);
      s->otsu_ready = true;
    }
    /* a failure may leave the histogram half merged: clean it next time */
    s->otsu_ready = false;
    CV_CUDA_TRY (otsu_threshold (src, ot, policy, stream).err);
    s->otsu_ready = true;
    *out = &ot->threshold;
    return {};
  }
  /* each launch right after its choice: block-sizing=auto times a launch
   * from its choice to the next one */
  s->state_ready = false; /* until the median kernel cleans the histogram */
  auto hist = canny_hist_kernel;
  const LaunchConfig c = policy.choose (canny_traits (CannyKernel::Histogram), cached_resources (hist), src.width,
      src.height);
  hist<<<grid_dim (c), block_dim (c), 0, stream>>> (src.data, src.pitch, src.width, src.height, st);
  CV_CUDA_TRY_LAUNCH ("canny_hist_kernel");
  auto median = canny_median_kernel;
  const LaunchConfig cm = policy.choose (canny_traits (CannyKernel::Median), cached_resources (median), 32, 1);
  median<<<grid_dim (cm), block_dim (cm), 0, stream>>> (st);
  CV_CUDA_TRY_LAUNCH ("canny_median_kernel");
  s->state_ready = true;
  *out = &st->auto_value;
  return {};
}

}  // namespace

void
CannyScratch::release ()
{
  labels.reset ();
  lists.reset ();
  state.reset ();
  otsu.reset ();
  blurred.reset ();
  state_ready = otsu_ready = false;
}

const char *
canny_variant_name (CannyVariant v)
{
  switch (v) {
    case CannyVariant::Auto: return "auto";
    case CannyVariant::Fused: return "fused";
    case CannyVariant::Separate: return "separate";
  }
  return "unknown";
}

const KernelTraits &
canny_traits (CannyKernel k)
{
  /* canny.tile: 32 x 32 pixels for 32 x 8 threads; canny.histogram: 16
   * bytes on about 8 rows a thread, few blocks to merge; canny.median: one
   * warp; the list and border kernels: one item a thread. */
  static const KernelTraits tile = traits_of ("canny.tile", { 32, 8 }, true, 1, kPixPerThread);
  static const KernelTraits merge = traits_of ("canny.merge", { 256, 1 }, false);
  static const KernelTraits roots = traits_of ("canny.roots", { 256, 1 }, false);
  static const KernelTraits weak = traits_of ("canny.weak", { 256, 1 }, false);
  static const KernelTraits histogram = traits_of ("canny.histogram", { 32, 8 }, false, 16, 8);
  static const KernelTraits median = traits_of ("canny.median", { 32, 1 }, true);
  switch (k) {
    case CannyKernel::Tile: return tile;
    case CannyKernel::Merge: return merge;
    case CannyKernel::Roots: return roots;
    case CannyKernel::Weak: return weak;
    case CannyKernel::Histogram: return histogram;
    case CannyKernel::Median: return median;
  }
  return tile;
}

CudaStatus
canny (ConstImage8 src, Image8 dst, const CannyParams & p, CannyScratch * scratch, const LaunchPolicy & policy,
    cudaStream_t stream, int auto_value, CannyVariant variant)
{
  if (!canny_params_valid (p))
    return { cudaErrorInvalidValue, "canny: aperture 3, 5 or 7; blur kernel odd 3..31 with sigma > 0, or none" };
  if (!scratch)
    return { cudaErrorInvalidValue, "canny: no scratch" };
  if (src.width != dst.width || src.height != dst.height)
    return { cudaErrorInvalidValue, "canny: src and dst differ in size" };
  const int w = src.width, h = src.height;
  if (w <= 0 || h <= 0)
    return {};
  if ((long long) w * h > INT_MAX)
    return { cudaErrorInvalidValue, "canny: frames up to 2^31 pixels" };

  const int tiles_x = (w + kTile - 1) / kTile, tiles_y = (h + kTile - 1) / kTile;
  const long tiles = (long) tiles_x * tiles_y;
  const size_t pixels = (size_t) w * h;
  CV_CUDA_TRY (ensure_state (scratch, stream).err);
  CV_CUDA_TRY (scratch->labels.ensure (pixels * sizeof (int)).err);
  CV_CUDA_TRY (scratch->lists.ensure ((pixels + (size_t) tiles * kRootsPerTile) * sizeof (uint32_t)).err);
  DeviceState *st = scratch->state.as<DeviceState> ();

  TileArgs a {};
  a.src = src.data;
  a.spitch = src.pitch;
  a.dst = dst.data;
  a.dpitch = dst.pitch;
  a.w = w;
  a.h = h;
  a.l2 = p.l2_gradient;
  a.labels = scratch->labels.as<int> ();
  a.weak_list = scratch->lists.as<uint32_t> ();
  a.root_list = a.weak_list + pixels;
  a.state = st;

  /* the list counts, and the reported automatic value when the device
   * computes none this frame */
  static_assert (offsetof (DeviceState, weak_count) == 4 && offsetof (DeviceState, auto_value) == 8,
      "the counts lead DeviceState");
  const bool device_auto = p.auto_threshold != CannyAuto::Off && auto_value < 0;
  CV_CUDA_TRY (cudaMemsetAsync (st, 0, (device_auto ? 2 : 3) * sizeof (uint32_t), stream));

  /* the thresholds: given, from the host's automatic value, or on the device */
  if (p.auto_threshold == CannyAuto::Off)
    a.th = canny_thresholds (p.low_threshold, p.high_threshold, p.aperture, p.l2_gradient);
  else if (!device_auto)
    a.th = canny_auto_thresholds ((unsigned) auto_value, p.aperture, p.l2_gradient);
  else
    CV_CUDA_TRY (auto_value_on_device (src, p.auto_threshold, scratch, policy, stream, &a.auto_value).err);

  /* the pre-blur: fused into the tile kernel, or a separate pass */
  const bool blur = p.blur_ksize > 1;
  if (variant == CannyVariant::Auto)
    variant = CannyVariant::Fused;
  BlurTaps taps;
  if (blur)
    taps = make_blur_taps (p.blur_ksize, p.blur_ksize, p.blur_sigma, p.blur_sigma);
  if (blur && variant == CannyVariant::Separate) {
    const size_t bpitch = aligned_pitch ((size_t) w);
    CV_CUDA_TRY (scratch->blurred.ensure (bpitch * h).err);
    Image8 b { scratch->blurred.as<uint8_t> (), bpitch, w, h };
    CV_CUDA_TRY (gaussian_blur (src, b, 1, taps, policy, stream, nullptr, BlurVariant::Fused).err);
    a.src = b.data;
    a.spitch = bpitch;
  }
  if (blur && variant == CannyVariant::Fused) {
    a.blur_r = taps.radius_x ();
    for (int d = 0; d <= a.blur_r; d++) {
      a.taps_x[d] = taps.x[d];
      a.taps_y[d] = taps.y[d];
    }
    CV_CUDA_TRY (launch_tile_k<true> (p.aperture, a, policy, stream).err);
  } else {
    CV_CUDA_TRY (launch_tile_k<false> (p.aperture, a, policy, stream).err);
  }

  /* one tile: no component reaches a border with a tile beyond, nothing
   * is left open */
  if (tiles == 1)
    return {};
  {
    const long work = tiles * 2 * kTile;
    auto kernel = canny_merge_kernel;
    const LaunchConfig c = policy.choose (canny_traits (CannyKernel::Merge), cached_resources (kernel), work, 1);
    kernel<<<grid_dim (c), block_dim (c), 0, stream>>> (dst.data, dst.pitch, w, h, tiles_x, work, a.labels);
    CV_CUDA_TRY_LAUNCH ("canny_merge_kernel");
  }
  {
    /* the list lengths are known on the device only: a grid for a typical
     * frame, striding over longer lists */
    const long work = std::max<long> (tiles * kTile, 1024);
    auto roots = canny_roots_kernel;
    const LaunchConfig c = policy.choose (canny_traits (CannyKernel::Roots), cached_resources (roots), work, 1);
    roots<<<grid_dim (c), block_dim (c), 0, stream>>> (dst.data, dst.pitch, w, a.labels, a.root_list, st);
    CV_CUDA_TRY_LAUNCH ("canny_roots_kernel");
    auto weak = canny_weak_kernel;
    const LaunchConfig cw = policy.choose (canny_traits (CannyKernel::Weak), cached_resources (weak), work, 1);
    weak<<<grid_dim (cw), block_dim (cw), 0, stream>>> (dst.data, dst.pitch, w, a.labels, a.weak_list, st);
    CV_CUDA_TRY_LAUNCH ("canny_weak_kernel");
  }
  return {};
}

CudaStatus
canny_read_counts (const CannyScratch & scratch, cudaStream_t stream, CannyCounts * out)
{
  *out = {};
  if (!scratch.state.get ())
    return {};
  DeviceState st;
  CV_CUDA_TRY (cudaMemcpyAsync (&st, scratch.state.get (), 3 * sizeof (uint32_t), cudaMemcpyDeviceToHost, stream));
  CV_CUDA_TRY (cudaStreamSynchronize (stream));
  out->open_components = st.root_count;
  out->unresolved = st.weak_count;
  out->auto_value = st.auto_value;
  return {};
}

}  // namespace cudavision
