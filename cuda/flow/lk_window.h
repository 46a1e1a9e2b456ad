/* cudavision — the Lucas-Kanade tracker's window on one warp (cudaflow):
 * the `Exec` that lk_track_point (flow_math.h) calls for the sums of a
 * level, four window samples at a time. The lane's work is host/device
 * code (simd.h): tests run it on the host for all 32 lanes and compare
 * with the host model; the warp sums are device code.
 *
 * Layout. The win x win window is cut into segments of 4 horizontally
 * adjacent samples, SPR = ceil (win / 4) a row (the last of a row may hold
 * fewer), segment s at row s / SPR, column 4 (s % SPR); lane l owns
 * segments l, l + 32, ... (at most KS of them). The 4 bilinear samples of a
 * segment read bytes x .. x + 4 of two image rows: per row one or two
 * aligned 32-bit loads and two byte permutes give the words that start at
 * x and at x + 1, and each sample's fixed-point bilinear sum is two dp2a
 * instructions (two signed 16-bit weights times two bytes, plus an
 * accumulator).
 * That is at most 4 loads and 8 dot products for 4 samples, where one
 * sample at a time takes 4 byte loads and 4 multiply-adds each.
 *
 * Mismatch sums. sum (J - I) Ix = sum J Ix - sum I Ix, the second sum being
 * a constant of the level, summed with the gradient matrix in setup (). All
 * are exact integers, so the difference is the integer flow_math.h's
 * LkSums2 describes, bit for bit, and a lane keeps only the Ix, Iy of its
 * samples (int16 pairs, pack_deriv): 4 KS registers, not 8 KS.
 *
 * Warp sums. A lane's partial sums fit in 32 bits (at most 32 samples a
 * lane, products below 2^25); the warp's total may not, so it is reduced in
 * two halves with the hardware's warp reduction (one REDUX instruction
 * each): the low 16 bits (unsigned) and the rest (signed), joined in 64
 * bits. Every lane gets the totals and runs lk_track_point's scalar steps
 * alike, so the warp never diverges. */
#pragma once

#include "flow_math.h"
#include "../../core/simd.h"

namespace cudavision {

#ifdef __CUDACC__
/* The exact sum of `v` over the warp, in every lane. */
__device__ __forceinline__ long long
lk_warp_total (int v)
{
#if __CUDA_ARCH__ >= 800
  const unsigned lo = __reduce_add_sync (0xffffffffu, (unsigned) v & 0xffffu);
  const int hi = __reduce_add_sync (0xffffffffu, v >> 16);
  return (long long) hi * 65536 + (long long) lo;
#else
  /* sm_75 has no warp reduction instruction: the same exact total in 64
   * bits by a butterfly (every lane ends with it) */
  long long s = v;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    s += __shfl_xor_sync (0xffffffffu, s, o);
  return s;
#endif
}
#endif

/* Bytes x .. x + 3 (w0) and x + 1 .. x + 4 (w1) of an image row. */
struct LkRowWords {
  uint32_t w0, w1;
};

/* Inside the level: `row` is the row's first byte (4-aligned: pitches and
 * allocations are), x .. x + n the bytes the samples need. The second
 * aligned word is read only when they reach into it, so no load touches a
 * word without a pixel of the row. */
CV_HD LkRowWords
lk_row_direct (const uint8_t *row, int x, bool second)
{
  const uint8_t *p = row + (x & ~3);
  const uint32_t a = hd_load_u32 (p);
  const uint32_t b = second ? hd_load_u32 (p + 4) : a;
  const uint32_t sel = 0x3210u + (uint32_t) (x & 3) * 0x1111u;
  return { hd_byte_perm (a, b, sel), hd_byte_perm (a, b, sel + 0x1111u) };
}

/* Near the border: each byte through lk_pixel's reflection, as OpenCV's
 * bordered level holds it. */
CV_HD LkRowWords
lk_row_reflect (const uint8_t *img, size_t pitch, int w, int h, int x, int y)
{
  uint32_t b[5];
CV_UNROLL
  for (int j = 0; j < 5; j++)
    b[j] = (uint32_t) lk_pixel (img, pitch, w, h, x + j, y, false);
  return { b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24, b[1] | b[2] << 8 | b[3] << 16 | b[4] << 24 };
}

/* dp2a with signed 16-bit weights and unsigned bytes (the CUDA intrinsics
 * take both signed or both unsigned): acc + a.lo * b[lo] + a.hi * b[lo+1],
 * b's bytes 0, 1 (HI false) or 2, 3 (HI true). */
template <bool HI>
CV_HD int
lk_dp2a (uint32_t a, uint32_t b, int acc)
{
#ifdef __CUDA_ARCH__
  int d;
  if (HI)
    asm ("dp2a.hi.s32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(acc));
  else
    asm ("dp2a.lo.s32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(acc));
  return d;
#else /* the same on the host (a model of the kernel for tests) */
  const int s = HI ? 16 : 0;
  return acc + (int) (int16_t) (a & 0xffffu) * (int) ((b >> s) & 0xffu) +
      (int) (int16_t) (a >> 16) * (int) ((b >> (s + 8)) & 0xffu);
#endif
}

/* Two weights as the signed 16-bit halves of a word (w11 may be -1:
 * lk_weights gives it what the other three leave of 2^14). */
CV_HD uint32_t
lk_weight_pair (int lo, int hi)
{
  return ((unsigned) lo & 0xffffu) | (unsigned) hi << 16;
}

/* lk_descale (v, kLkWBits - 5) of a bilinear sum: the accumulator's start. */
constexpr int kLkHalf9 = 1 << (kLkWBits - 6);

/* Sample J (0..3) of a segment, I * 32 as lk_prev_sample / lk_next_sample
 * compute it: descale (w00 p(x+J, y) + w01 p(x+J+1, y) + w10 p(x+J, y+1) +
 * w11 p(x+J+1, y+1), 9), the weights in pairs (wt: w00, w01; wb: w10, w11). */
template <int J>
CV_HD int
lk_bilinear (uint32_t wt, uint32_t wb, const LkRowWords & top, const LkRowWords & bottom)
{
  const uint32_t t = (J & 1) ? top.w1 : top.w0;
  const uint32_t b = (J & 1) ? bottom.w1 : bottom.w0;
  return lk_dp2a<(J >= 2)> (wb, b, lk_dp2a<(J >= 2)> (wt, t, kLkHalf9)) >> (kLkWBits - 5);
}

template <int KS>
struct LkSegmentWindow {
  int seg[KS];           /* row | column << 8 | samples << 16; -1: no segment */
  uint32_t d[KS][4];     /* Ix, Iy of the samples (pack_deriv), 0 outside the window */
  long long c1 = 0, c2 = 0; /* sum I Ix, sum I Iy over the window */

  CV_HD LkSegmentWindow (int lane, int win)
  {
    const int spr = (win + 3) / 4;
CV_UNROLL
    for (int k = 0; k < KS; k++) {
      const int s = lane + 32 * k;
      const int r = s / spr, c = 4 * (s - r * spr);
      seg[k] = r < win ? r | c << 8 | (win - c < 4 ? win - c : 4) << 16 : -1;
    }
  }

  /* This lane's share of setup (): the previous level's samples of its
   * segments, their Ix, Iy kept; partial sums of Ix^2, Ix Iy, Iy^2, I Ix,
   * I Iy (s[0..4]). */
  CV_HD void lane_setup (const LkLevel & L, int ax, int ay, bool direct, const LkWeights & w, int *s)
  {
    const uint32_t wt = lk_weight_pair (w.w00, w.w01), wb = lk_weight_pair (w.w10, w.w11);
    s[0] = s[1] = s[2] = s[3] = s[4] = 0;
CV_UNROLL
    for (int k = 0; k < KS; k++) {
      d[k][0] = d[k][1] = d[k][2] = d[k][3] = 0;
      if (seg[k] < 0)
        continue;
      const int n = seg[k] >> 16;
      const int x = ax + ((seg[k] >> 8) & 0xff), y = ay + (seg[k] & 0xff);
      LkRowWords top, bottom;
      uint32_t dt[5], db[5];
      if (direct) {
        const uint8_t *row = L.prev + (size_t) y * L.prev_pitch;
        const bool second = (x & 3) + n >= 4;
        top = lk_row_direct (row, x, second);
        bottom = lk_row_direct (row + L.prev_pitch, x, second);
      } else {
        top = lk_row_reflect (L.prev, L.prev_pitch, L.width, L.height, x, y);
        bottom = lk_row_reflect (L.prev, L.prev_pitch, L.width, L.height, x, y + 1);
      }
CV_UNROLL
      for (int j = 0; j < 5; j++) {
        dt[j] = j <= n ? lk_deriv (L, x + j, y, direct) : 0u;
        db[j] = j <= n ? lk_deriv (L, x + j, y + 1, direct) : 0u;
      }
      const int iv[4] = { lk_bilinear<0> (wt, wb, top, bottom), lk_bilinear<1> (wt, wb, top, bottom),
        lk_bilinear<2> (wt, wb, top, bottom), lk_bilinear<3> (wt, wb, top, bottom) };
CV_UNROLL
      for (int j = 0; j < 4; j++) {
        if (j >= n)
          continue;
        const int ix = lk_descale (deriv_x (dt[j]) * w.w00 + deriv_x (dt[j + 1]) * w.w01 +
                deriv_x (db[j]) * w.w10 + deriv_x (db[j + 1]) * w.w11,
            kLkWBits);
        const int iy = lk_descale (deriv_y (dt[j]) * w.w00 + deriv_y (dt[j + 1]) * w.w01 +
                deriv_y (db[j]) * w.w10 + deriv_y (db[j + 1]) * w.w11,
            kLkWBits);
        d[k][j] = pack_deriv (ix, iy);
        s[0] += ix * ix;
        s[1] += ix * iy;
        s[2] += iy * iy;
        s[3] += iv[j] * ix;
        s[4] += iv[j] * iy;
      }
    }
  }

  /* This lane's share of iterate (): partial sums of J Ix, J Iy (s[0..1])
   * over its segments of the next level. */
  CV_HD void lane_iterate (const LkLevel & L, int ax, int ay, bool direct, const LkWeights & w, int *s) const
  {
    const uint32_t wt = lk_weight_pair (w.w00, w.w01), wb = lk_weight_pair (w.w10, w.w11);
    int b1 = 0, b2 = 0;
CV_UNROLL
    for (int k = 0; k < KS; k++) {
      if (seg[k] < 0)
        continue;
      const int n = seg[k] >> 16;
      const int x = ax + ((seg[k] >> 8) & 0xff), y = ay + (seg[k] & 0xff);
      LkRowWords top, bottom;
      if (direct) {
        const uint8_t *row = L.next + (size_t) y * L.next_pitch;
        const bool second = (x & 3) + n >= 4;
        top = lk_row_direct (row, x, second);
        bottom = lk_row_direct (row + L.next_pitch, x, second);
      } else {
        top = lk_row_reflect (L.next, L.next_pitch, L.width, L.height, x, y);
        bottom = lk_row_reflect (L.next, L.next_pitch, L.width, L.height, x, y + 1);
      }
      /* samples past the window's edge have Ix = Iy = 0: they add nothing */
      const int jv[4] = { lk_bilinear<0> (wt, wb, top, bottom), lk_bilinear<1> (wt, wb, top, bottom),
        lk_bilinear<2> (wt, wb, top, bottom), lk_bilinear<3> (wt, wb, top, bottom) };
CV_UNROLL
      for (int j = 0; j < 4; j++) {
        b1 += jv[j] * deriv_x (d[k][j]);
        b2 += jv[j] * deriv_y (d[k][j]);
      }
    }
    s[0] = b1;
    s[1] = b2;
  }

#ifdef __CUDACC__
  __device__ LkSums3 setup (const LkLevel & L, int ax, int ay, bool direct, const LkWeights & w)
  {
    int p[5];
    lane_setup (L, ax, ay, direct, w, p);
    c1 = lk_warp_total (p[3]);
    c2 = lk_warp_total (p[4]);
    LkSums3 s;
    s.a11 = lk_warp_total (p[0]);
    s.a12 = lk_warp_total (p[1]);
    s.a22 = lk_warp_total (p[2]);
    return s;
  }

  __device__ LkSums2 iterate (const LkLevel & L, int ax, int ay, bool direct, const LkWeights & w)
  {
    int p[2];
    lane_iterate (L, ax, ay, direct, w, p);
    LkSums2 s;
    s.b1 = lk_warp_total (p[0]) - c1;
    s.b2 = lk_warp_total (p[1]) - c2;
    return s;
  }
#endif
};

/* Segments a lane owns for a window: KS is the smallest of 1, 2, 4, 8 that
 * covers ceil (win / 4) * win segments with 32 lanes (8 at win 32). */
inline int
lk_segments_per_lane (int win)
{
  const int nseg = (win + 3) / 4 * win;
  return nseg <= 32 ? 1 : nseg <= 64 ? 2 : nseg <= 128 ? 4 : 8;
}

}  // namespace cudavision
