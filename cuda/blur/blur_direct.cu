/* cudavision — cudablur's direct GRAY8 kernel: its launcher and
 * traits (blur_direct.h says how it works and why, blur_direct_strip.h
 * holds a lane's code, blur.h the arithmetic). */
#include "blur_direct.h"
#include "blur_direct_strip.h"
#include "../common/launch_util.cuh"

#include <algorithm>
#include <string>
#include <type_traits>

namespace cudavision {
namespace {

/* One lane: output pixels x .. x + 15 of rows y0 .. y0 + P - 1, from input
 * rows y0 - R .. y0 + P - 1 + R (reflected). Each input row's words go
 * at once into the column sums of the output rows they touch (acc[p] lives
 * from input row p to p + 2R); an output row is finished by the row pass
 * as soon as its last input row is in, with the 4 column sums on either
 * side taken from the neighbouring lanes of the segment (a shuffle) or, at
 * the segment's ends, from the lane's halo word. Every lane of the warp
 * runs every step (the shuffles need them); only the stores are
 * predicated. */
template <int R, int P>
__device__ __forceinline__ void
direct_strip (const uint8_t *__restrict__ src, size_t spitch, uint8_t *__restrict__ dst, size_t dpitch,
    int width, int height, const BlurDirectTaps<R> &taps, int x, int y0, StripEdge edge, bool first_lane,
    bool last_lane, int seg, unsigned mask)
{
  constexpr int N = P + 2 * R;
  /* All input rows first: N independent 16-byte loads in flight per lane
   * (a lane that loaded row by row waited on each). */
  uint32_t w[N][kStripWords];
  const int ext = edge == StripEdge::Left ? x - 4 : x + 16;
  if (x + 16 <= width && (edge == StripEdge::None || (ext >= 0 && ext + 4 <= width))) {
#pragma unroll
    for (int i = 0; i < N; i++) {
      const uint8_t *row = src + (size_t) blur_detail::reflect101 (y0 - R + i, height) * spitch;
      const uint4 v = __ldg (reinterpret_cast<const uint4 *> (row + x));
      w[i][0] = v.x;
      w[i][1] = v.y;
      w[i][2] = v.z;
      w[i][3] = v.w;
      w[i][kStripExt] = edge != StripEdge::None ? __ldg (reinterpret_cast<const uint32_t *> (row + ext)) : 0u;
    }
  } else {
#pragma unroll
    for (int i = 0; i < N; i++)
      strip_load_row (src + (size_t) blur_detail::reflect101 (y0 - R + i, height) * spitch, x, width, edge, w[i]);
  }
  uint32_t acc[P][2 * kStripWords];
#pragma unroll
  for (int i = 0; i < N; i++) {
#pragma unroll
    for (int p = 0; p < P; p++) {
      const int k = i - p; /* this input row's tap (0 .. 2R) for output row p */
      if (k >= 0 && k <= 2 * R)
        strip_accumulate (w[i], taps.y[k >= R ? k - R : R - k], k == 0, acc[p]);
    }
    if (i >= 2 * R) {
      const int p = i - 2 * R; /* output row p is complete */
      const uint32_t *a = acc[p];
      const uint32_t up_e = __shfl_up_sync (mask, a[6], 1, seg), up_o = __shfl_up_sync (mask, a[7], 1, seg);
      const uint32_t dn_e = __shfl_down_sync (mask, a[0], 1, seg), dn_o = __shfl_down_sync (mask, a[1], 1, seg);
      const uint32_t ext_e = a[2 * kStripExt], ext_o = a[2 * kStripExt + 1];
      uint32_t out[4];
      strip_row_pass<R> (acc[p], first_lane ? ext_e : up_e, first_lane ? ext_o : up_o, last_lane ? ext_e : dn_e,
          last_lane ? ext_o : dn_o, taps, out);
      const int y = y0 + p;
      if (y < height && x < width) {
        uint8_t *d = dst + (size_t) y * dpitch + x;
        if (x + 16 <= width) {
          *reinterpret_cast<uint4 *> (d) = make_uint4 (out[0], out[1], out[2], out[3]);
        } else {
          for (int b = 0; b < width - x; b++)
            d[b] = (uint8_t) (out[b >> 2] >> (8 * (b & 3)));
        }
      }
    }
  }
}

/* Lanes form segments of `seg` consecutive threads along x (a warp, or the
 * block's width when that is narrower), each covering 16 * seg adjacent
 * bytes of its strip; strips go down the frame with a grid stride, the
 * warp's lanes together until none of its segments has rows left. */
template <int R, int P>
__global__ void __launch_bounds__ (kBlurDirectThreads, blur_direct_min_blocks (R))
blur_direct_kernel (const uint8_t *__restrict__ src, size_t spitch, uint8_t *__restrict__ dst, size_t dpitch,
    int width, int height, const BlurDirectTaps<R> taps)
{
  const unsigned mask = __activemask ();
  const int seg = blockDim.x >= 32 ? 32 : (int) blockDim.x;
  const int lane = threadIdx.x & (seg - 1);
  const bool first = lane == 0, last = lane == seg - 1;
  const StripEdge edge = first ? StripEdge::Left : last ? StripEdge::Right : StripEdge::None;
  const int x = 16 * (blockIdx.x * blockDim.x + threadIdx.x);
  for (int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * P; __any_sync (mask, y0 < height);
       y0 += gridDim.y * blockDim.y * P)
    direct_strip<R, P> (src, spitch, dst, dpitch, width, height, taps, x, y0, edge, first, last, seg, mask);
}

/* ---- the streaming form (radius classes 1 and 2) ---- */

/* Lanes of a segment: the shuffles' width, fixed by the 16x16 block. */
constexpr int kSeg = 16;

/* The frame's row for y in [-R, height - 1 + R], reflect-101 with one fold
 * (the launcher sends frames of height <= R to the 2-row kernel), and some
 * row of the frame for y beyond (the rows only outputs past the frame's
 * last row read): 4 instructions, no loop, no branch. */
__device__ __forceinline__ int
frame_row (int y, int height)
{
  const int a = abs (y);
  return max (0, min (a, 2 * height - 2 - a));
}

/* What a lane is, for the whole launch. */
struct StreamLane {
  int x;           /* its first pixel */
  int ext;         /* its halo word's first byte (segment ends) */
  uint32_t hsel;   /* kLeftPairSel or kRightPairSel */
  bool first, last;
  bool load_main;  /* its 16 bytes lie in the frame */
  bool load_ext;   /* it loads a halo word that lies in the frame */
  bool refl_left;  /* x == 0: the left pair is its own pixels 2 and 1 */
  bool refl_right; /* x + 16 == width: the right pair is its pixels 14 and 13 */
};

/* One input row's words. Aligned (width a multiple of 16): whole loads,
 * nothing outside the frame (the frame's left and right edges reflect in
 * the row pass). Otherwise strip_load_row, which reflects per byte. */
template <bool Aligned>
__device__ __forceinline__ void
stream_load (const uint8_t *row, const StreamLane & l, int width, uint32_t (&w)[kStripWords])
{
  if (Aligned) {
    uint4 v = make_uint4 (0u, 0u, 0u, 0u);
    if (l.load_main)
      v = __ldg (reinterpret_cast<const uint4 *> (row + l.x));
    w[0] = v.x;
    w[1] = v.y;
    w[2] = v.z;
    w[3] = v.w;
    w[kStripExt] = l.load_ext ? __ldg (reinterpret_cast<const uint32_t *> (row + l.ext)) : 0u;
  } else {
    strip_load_row (row, l.x, width,
        l.first ? StripEdge::Left : l.last ? StripEdge::Right : StripEdge::None, w);
  }
}

/* Asynchronous copies of global memory into shared memory (sm_80 and up):
 * a thread's copies form groups in the order it commits them, and waiting
 * for all but its newest N groups makes the older ones' bytes visible to
 * it (each lane reads only what it copied itself: no barrier). Before
 * sm_80 (no cp.async) the copy goes through registers at once, and the
 * commits and waits are nothing: the same words, only not in flight. */
template <int Bytes>
__device__ __forceinline__ void
cp_async (void *smem, const void *gmem)
{
  static_assert (Bytes == 16 || Bytes == 4, "a ring slot's 16 bytes or a halo word");
#if __CUDA_ARCH__ >= 800
  const unsigned to = (unsigned) __cvta_generic_to_shared (smem);
  /* .cg (L2 only) takes 16 bytes alone */
  if constexpr (Bytes == 16)
    asm volatile ("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(to), "l"(gmem) : "memory");
  else
    asm volatile ("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(to), "l"(gmem) : "memory");
#else
  using Word = std::conditional_t<Bytes == 16, uint4, uint32_t>;
  *static_cast<Word *> (smem) = __ldg (static_cast<const Word *> (gmem));
#endif
}

__device__ __forceinline__ void
cp_async_commit ()
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("cp.async.commit_group;\n" ::: "memory");
#endif
}

template <int N>
__device__ __forceinline__ void
cp_async_wait ()
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

/* Aligned frames read their rows through a ring of kRingSlots rows in
 * shared memory, kRingSlots - 1 of them in flight (the register prefetch
 * had one row in flight a lane and waited for DRAM at every step). A slot
 * is 16 bytes a lane (main) and a word a segment end (ext); 6 slots are 25
 * KiB a block. The slot a row is copied into is unused yet or the one read
 * the step before, whose words are already in registers. A deeper ring is
 * slower: every warp asks for all its rows at the start, and the deeper
 * the ring, the later each warp's first row comes back.
 * 11.0 us a 5x5 4K frame on an H200, 4 or 7 slots 11.2: docs/PERFORMANCE.md "Why the kernels are built as they are" */
constexpr int kRingSlots = 6;
constexpr int kRingExt = 2 * kBlurDirectThreads / kSeg; /* the segments' two end lanes */
struct RingSlots {
  uint4 *main;   /* the lane's 16 bytes of slot 0; slot s at main[s * kBlurDirectThreads] */
  uint32_t *ext; /* its halo word of slot 0 (segment ends); slot s at ext[s * kRingExt] */
};

/* Input row j of a unit (n_in rows; row_of (j) its address) into its
 * slot, as one commit group (empty past the unit's last row, so that a
 * step waits for a fixed count of groups). */
template <class RowOf>
__device__ __forceinline__ void
ring_issue (const RowOf & row_of, const StreamLane & l, RingSlots ring, int j, int n_in)
{
  if (j < n_in) {
    const uint8_t *row = row_of (j);
    const int slot = j % kRingSlots;
    if (l.load_main)
      cp_async<16> (ring.main + slot * kBlurDirectThreads, row + l.x);
    if (l.load_ext)
      cp_async<4> (ring.ext + slot * kRingExt, row + l.ext);
  }
  cp_async_commit ();
}

/* Input row j's words, once its group (the oldest but kRingSlots - 2) is
 * in; what lies outside the frame reads as 0, as stream_load<true> gives
 * it. */
__device__ __forceinline__ void
ring_take (const StreamLane & l, RingSlots ring, int j, uint32_t (&w)[kStripWords])
{
  cp_async_wait<kRingSlots - 2> ();
  const int slot = j % kRingSlots;
  uint4 v = make_uint4 (0u, 0u, 0u, 0u);
  if (l.load_main)
    v = ring.main[slot * kBlurDirectThreads];
  w[0] = v.x;
  w[1] = v.y;
  w[2] = v.z;
  w[3] = v.w;
  w[kStripExt] = l.load_ext ? ring.ext[slot * kRingExt] : 0u;
}

/* One lane's unit: pixels x .. x + 15 of output rows y0 .. y0 + rows - 1,
 * streamed down its rows + 2R input rows. Each input row is unpacked once
 * (strip_unpack_row: its bytes widened to 16-bit pairs) into a ring of
 * L = 2R + 1 rows of registers (input row j in slot j % L); when an output
 * row's last input row is in, its packed column sums are formed at once
 * from pair sums of the symmetric taps (strip_column_sums: at radius 2, 2
 * adds and 3 multiply-adds a word, half of them adds where accumulating
 * each row into the 5 outputs it touches took 5 multiply-adds), and its
 * row pass runs by two-way dot products (strip_row_pass_dp2a: 3 a pixel).
 * Aligned frames take their rows from the shared-memory ring (ring_issue,
 * ring_take: kRingSlots - 1 rows requested ahead); the others load the next
 * row into registers before a row is summed, so it has a step to arrive.
 * The loop body is unrolled L times so that every slot of the ring is a
 * constant. The steps' guards are the same for every lane (the warp's
 * units have the same height), so the shuffles, full-warp, stay
 * converged; only the stores are predicated. Row offsets are 32-bit (the
 * launcher checked that pitch * height fits): fewer instructions a row. */
template <int R, bool Aligned>
__device__ __forceinline__ void
stream_unit (const uint8_t *__restrict__ src, size_t spitch, uint8_t *__restrict__ dst, size_t dpitch, int width,
    int height, const BlurDirectTaps<R> &taps, const StreamLane &l, int y0, int rows, bool store, RingSlots ring)
{
  constexpr int L = 2 * R + 1;
  constexpr int ahead = kRingSlots - 1; /* rows in flight (aligned) */
  const int n_in = rows + 2 * R;
  auto row_of = [&] (int j) { return src + (uint32_t) frame_row (y0 - R + j, height) * (uint32_t) spitch; };
  uint32_t u[L][kStripSums];  /* input row j in u[j % L] */
  uint32_t next[kStripWords]; /* unaligned: the next input row */
  /* the first 2R input rows */
  if constexpr (Aligned) {
#pragma unroll
    for (int j = 0; j < ahead; j++)
      ring_issue (row_of, l, ring, j, n_in);
#pragma unroll
    for (int j = 0; j < 2 * R; j++) {
      uint32_t w[kStripWords];
      ring_take (l, ring, j, w);
      ring_issue (row_of, l, ring, j + ahead, n_in);
      strip_unpack_row (w, l.hsel, u[j]);
    }
  } else {
#pragma unroll
    for (int j = 0; j < 2 * R; j++) {
      uint32_t w[kStripWords];
      stream_load<Aligned> (row_of (j), l, width, w);
      strip_unpack_row (w, l.hsel, u[j]);
    }
    stream_load<Aligned> (row_of (2 * R), l, width, next);
  }
  for (int p0 = 0; p0 < rows; p0 += L) {
#pragma unroll
    for (int r = 0; r < L; r++) {
      const int p = p0 + r; /* the output row this step finishes; input row p + 2R comes in */
      if (p < rows) {
        uint32_t w[kStripWords];
        if constexpr (Aligned) {
          ring_take (l, ring, p + 2 * R, w);
          ring_issue (row_of, l, ring, p + 2 * R + ahead, n_in);
        } else {
#pragma unroll
          for (int n = 0; n < kStripWords; n++)
            w[n] = next[n];
          /* past the unit's last step a row is loaded for nothing (a row of
           * the frame): cheaper than a test every step */
          stream_load<Aligned> (row_of (p + 2 * R + 1), l, width, next);
        }
        strip_unpack_row (w, l.hsel, u[(r + 2 * R) % L]);
        uint32_t a[kStripSums]; /* output row p's column sums; its input row k in slot (r + k) % L */
        strip_column_sums<R> ([&] (int k) -> const uint32_t (&)[kStripSums] { return u[(r + k) % L]; }, taps.y, a);
        const uint32_t send_up = __byte_perm (a[6], a[7], 0x7632); /* [x + 14, x + 15] */
        const uint32_t send_dn = __byte_perm (a[0], a[1], 0x5410); /* [x, x + 1] */
        const uint32_t from_left = __shfl_up_sync (0xffffffffu, send_up, 1, kSeg);
        const uint32_t from_right = __shfl_down_sync (0xffffffffu, send_dn, 1, kSeg);
        uint32_t left = l.first ? a[8] : from_left, right = l.last ? a[8] : from_right;
        if (Aligned) {
          if (l.refl_left)
            left = __byte_perm (a[0], a[1], 0x5432); /* [x + 2, x + 1] */
          if (l.refl_right)
            right = __byte_perm (a[6], a[7], 0x5432); /* [x + 14, x + 13] */
        }
        uint32_t out[4];
        strip_row_pass_dp2a<R> (a, left, right, taps, out);
        const int y = y0 + p;
        if (store && y < height && l.x < width) {
          uint8_t *d = dst + (uint32_t) y * (uint32_t) dpitch + l.x;
          if (Aligned || l.x + 16 <= width) {
            *reinterpret_cast<uint4 *> (d) = make_uint4 (out[0], out[1], out[2], out[3]);
          } else {
            /* the frame's last pixels; constant indices keep out[] in registers */
#pragma unroll
            for (int b = 0; b < 16; b++)
              if (b < width - l.x)
                d[b] = (uint8_t) (out[b >> 2] >> (8 * (b & 3)));
          }
        }
      }
    }
  }
}

/* Blocks an SM holds: registers uncapped (at radius 2: 87 with the
 * shared-memory ring, 25 KiB a block; 102 unaligned). Capping them for 3
 * blocks was slower: more warps, but shorter units, so more rows read
 * twice, and no more instructions issued a cycle. */
constexpr int kStreamMinBlocks = 2;

/* Work units: a band of kSeg lanes (16 * kSeg pixels) across `rows` output
 * rows, bands first. The grid is the blocks the GPU holds at once, and
 * block b takes units [b U / B, (b + 1) U / B), its segments in turn: as
 * many units to every block to within one, so every SM has the same work
 * and none idles while others finish (handing out whole blocks, or units
 * to segments round robin, left SMs with 2 blocks of work beside SMs with
 * 3). A warp's two segments run the same
 * number of units (one with none left runs a copy of the last, storing
 * nothing), so every shuffle is full-warp. */
template <int R, bool Aligned>
__global__ void __launch_bounds__ (kBlurDirectThreads, kStreamMinBlocks)
blur_stream_kernel (const uint8_t *__restrict__ src, size_t spitch, uint8_t *__restrict__ dst, size_t dpitch,
    int width, int height, const BlurDirectTaps<R> taps, int rows, int bands, int units)
{
  const int lane = threadIdx.x;
  RingSlots ring { nullptr, nullptr };
  if constexpr (Aligned) {
    __shared__ uint4 ring_main[kRingSlots][kBlurDirectThreads];
    __shared__ uint32_t ring_ext[kRingSlots][kRingExt];
    ring.main = &ring_main[0][threadIdx.y * kSeg + lane];
    ring.ext = &ring_ext[0][2 * threadIdx.y + (lane == kSeg - 1)];
  }
  const int ub = (int) ((long) blockIdx.x * units / gridDim.x);
  const int ue = (int) ((long) (blockIdx.x + 1) * units / gridDim.x);
  for (int u = ub + threadIdx.y; __any_sync (0xffffffffu, u < ue); u += blockDim.y) {
    const int v = u < ue ? u : ue - 1;
    StreamLane l;
    l.x = 16 * ((v % bands) * kSeg + lane);
    l.first = lane == 0;
    l.last = lane == kSeg - 1;
    l.ext = l.first ? l.x - 4 : l.x + 16;
    l.hsel = l.first ? kLeftPairSel : kRightPairSel;
    l.load_main = l.x < width;
    l.load_ext = (l.first && l.x > 0 && l.x < width) || (l.last && l.x + 16 < width);
    l.refl_left = l.x == 0;
    l.refl_right = l.x + 16 == width;
    stream_unit<R, Aligned> (src, spitch, dst, dpitch, width, height, taps, l, (v / bands) * rows, rows, u < ue,
        ring);
  }
}

/* Fixed: the shape sets the shuffle segments (16 lanes, 256 pixels) and
 * how many warps share the halo rows in L2, which the model does not see
 * (its pick at 4K, 64x3, was half again as slow as the tuner's 16x16). */
template <int R>
const KernelTraits &
class_traits ()
{
  static const std::string name = "blur.direct.c1.r" + std::to_string (R);
  static const KernelTraits t = kernel_traits (name.c_str (), { 16, kBlurDirectThreads / 16 }, true)
                                    .fixed ()
                                    .items (16, kBlurDirectRows)
                                    .bytes (1, 1);
  return t;
}

/* The block is fixed (class_traits), so every mode gives the 16-lane
 * segments the kernel is built for (a width of at least 2 that is a power
 * of two or a multiple of the warp would also do). */
template <int R>
CudaStatus
launch (ConstImage8 src, Image8 dst, const BlurTaps & bt, const LaunchPolicy & policy, cudaStream_t stream)
{
  const BlurDirectTaps<R> t = blur_direct_taps<R> (bt.x, bt.radius_x (), bt.y, bt.radius_y ());
  auto kernel = blur_direct_kernel<R, kBlurDirectRows>;
  const LaunchConfig c = policy.choose (class_traits<R> (), cached_resources (kernel), src.width, src.height);
  kernel<<<grid_dim (c), block_dim (c), 0, stream>>> (src.data, src.pitch, dst.data, dst.pitch, src.width,
      src.height, t);
  CV_CUDA_TRY_LAUNCH ("blur_direct_kernel");
  return {};
}

/* The streaming kernel: one resident wave of blocks, each unit `rows` rows
 * high so that the units fill it (a segment has one unit, or a few for
 * frames larger than the GPU holds at once). */
template <int R, bool Aligned>
CudaStatus
launch_stream (ConstImage8 src, Image8 dst, const BlurDirectTaps<R> & t, const LaunchPolicy & policy,
    cudaStream_t stream)
{
  auto kernel = blur_stream_kernel<R, Aligned>;
  const KernelResources & res = cached_resources (kernel);
  (void) policy.choose (class_traits<R> (), res, src.width, src.height); /* fixed block: for the policy's records */
  const DeviceDescription & dev = policy.device ();
  const int per_sm = std::max (1, model_terms (dev, res, kBlurDirectThreads, kBlurDirectThreads).resident_blocks);
  const long blocks_resident = (long) std::max (1, dev.sm_count) * per_sm;
  const long segments = blocks_resident * (kBlurDirectThreads / kSeg);
  const int bands = ((src.width + 15) / 16 + kSeg - 1) / kSeg;
  const int rows = (int) std::min<long> (src.height, ((long) src.height * bands + segments - 1) / segments);
  const long units = (long) bands * ((src.height + rows - 1) / rows);
  const unsigned blocks = (unsigned) std::min (units, blocks_resident);
  kernel<<<blocks, dim3 (kSeg, kBlurDirectThreads / kSeg), 0, stream>>> (src.data, src.pitch, dst.data, dst.pitch,
      src.width, src.height, t, rows, bands, (int) units);
  CV_CUDA_TRY_LAUNCH ("blur_stream_kernel");
  return {};
}

/* Radius classes 1 and 2: the streaming kernel (its 32-bit row offsets
 * hold for every frame up to 16384 x 16384; larger pitches fall back; so
 * do row taps that are no byte, a centre tap of 256 being the identity
 * along x, and frames of R rows or fewer, which reflect more than once);
 * 3 and 4: the 2-row kernel. */
template <int R>
CudaStatus
launch_class (ConstImage8 src, Image8 dst, const BlurTaps & bt, const LaunchPolicy & policy, cudaStream_t stream)
{
  if constexpr (R <= 2) {
    const BlurDirectTaps<R> t = blur_direct_taps<R> (bt.x, bt.radius_x (), bt.y, bt.radius_y ());
    const bool fits = (size_t) src.pitch * src.height <= 0xffffffffu && (size_t) dst.pitch * dst.height <= 0xffffffffu;
    if (fits && t.xb_ok && src.height > R)
      return src.width % 16 == 0 ? launch_stream<R, true> (src, dst, t, policy, stream)
                                 : launch_stream<R, false> (src, dst, t, policy, stream);
  }
  return launch<R> (src, dst, bt, policy, stream);
}

}  // namespace

bool
blur_direct_supported (int channels, const BlurTaps & taps, ConstImage8 src, Image8 dst)
{
  if (channels != 1 || !taps.valid () || std::max (taps.radius_x (), taps.radius_y ()) > kBlurDirectMaxRadius)
    return false;
  return (uintptr_t) src.data % 16 == 0 && src.pitch % 16 == 0 && (uintptr_t) dst.data % 16 == 0 &&
      dst.pitch % 16 == 0;
}

CudaStatus
blur_direct (ConstImage8 src, Image8 dst, const BlurTaps & taps, const LaunchPolicy & policy, cudaStream_t stream)
{
  switch (blur_radius_class (std::max (taps.radius_x (), taps.radius_y ()))) {
    case 1: return launch_class<1> (src, dst, taps, policy, stream);
    case 2: return launch_class<2> (src, dst, taps, policy, stream);
    case 3: return launch_class<3> (src, dst, taps, policy, stream);
    case 4: return launch_class<4> (src, dst, taps, policy, stream);
    default: return { cudaErrorInvalidValue, "blur_direct: radius above kBlurDirectMaxRadius" };
  }
}

const KernelTraits &
blur_direct_traits (int radius)
{
  switch (blur_radius_class (radius)) {
    case 1: return class_traits<1> ();
    case 2: return class_traits<2> ();
    case 3: return class_traits<3> ();
    case 4: return class_traits<4> ();
    default: return blur_fused_traits (1, radius); /* what gaussian_blur runs for Direct there */
  }
}

}  // namespace cudavision
