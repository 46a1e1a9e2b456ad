/* cudavision — what one lane of cudablur's direct kernel computes
 * (blur_direct.h): 16 GRAY8 pixels of a row on consecutive rows,
 * streamed down the input rows, columns first. Host/device code
 * (simd.h, blur_arith.h): the kernel (blur_direct.cu) ties the lanes
 * together with warp shuffles, and the CPU tests run these very functions
 * for every lane of a simulated warp against cv::GaussianBlur.
 *
 * Why columns first is exact: the blur is sum_i sum_j tx_i ty_j p(x+i, y+j)
 * in integers (taps of 8 fraction bits, each axis summing to 256), and
 * OpenCV's row-then-column order only changes the order of exact integer
 * additions. A column sum is at most 255 * 256 < 2^16, so two of them fit in
 * one 32-bit word (bytes 0 and 2 of a word in one, bytes 1 and 3 in the
 * other) and one integer multiply-add weighs two pixels at once. The row
 * pass then runs in 32-bit integers for radius 1 and 2
 * (strip_row_pass_pairs: OpenCV's sum exactly) and in float for 3 and 4,
 * with the row taps scaled by 2^-16 and the rounding half added up front
 * (strip_row_pass says why that is exact), so that a pixel's last step is
 * one round-down add. */
#pragma once

#include "blur_arith.h"

namespace cudavision {

/* The taps as a lane reads them: y, the column taps by distance from the
 * centre, as integers (they multiply packed 16-bit sums); x, the row taps
 * by distance, as floats scaled by 2^-16 (exact: a power of two), so that
 * the float row pass (radius 3 and 4) sums the output's value, not 2^16
 * times it; xi, the row taps as integers (radius 1 and 2). */
template <int R>
struct BlurDirectTaps {
  uint32_t y[R + 1];
  float x[R + 1];
  uint32_t xi[R + 1];
  /* The row taps as bytes for strip_row_pass_dp2a (radius 1 and 2), when
   * every one fits a byte (xb_ok; a centre tap of 256, the identity along
   * x, does not): xb[0] = [t0, t2, t2, t0], xb[1] = [t1, t1, 0, t2], xb[2]
   * = [t2, 0, 0, 0], byte 0 first (t2 = 0 for radius 1). */
  uint32_t xb[3];
  bool xb_ok;
};

/* The words a lane holds for one row: its 16 pixels as 4 words, and the
 * word beside them that a segment's first lane (pixels x - 4 .. x - 1) or
 * last lane (x + 16 .. x + 19) loads for the segment's halo; 0 elsewhere. */
constexpr int kStripWords = 5;
constexpr int kStripExt = 4;

/* Which halo word a lane loads. */
enum class StripEdge { None, Left, Right };

namespace blur_detail {

/* Bytes 0 and 2 of w in the low halves of the two 16-bit lanes, and bytes 1
 * and 3. */
CV_HD uint32_t
even_bytes (uint32_t w)
{
  return hd_byte_perm (w, 0u, 0x4240u);
}

CV_HD uint32_t
odd_bytes (uint32_t w)
{
  return hd_byte_perm (w, 0u, 0x4341u);
}

/* Exact float of the low or high 16 bits of a packed sum. */
CV_HD float
lo16 (uint32_t v)
{
  return hd_u32_as_float (hd_byte_perm (v, 0x4B000000u, 0x7610u)) - 8388608.f;
}

CV_HD float
hi16 (uint32_t v)
{
  return hd_u32_as_float (hd_byte_perm (v, 0x4B000000u, 0x7632u)) - 8388608.f;
}

/* 4 bytes of a row from byte xb on, reflect-101 per byte outside. */
CV_HD uint32_t
gather4 (const uint8_t *row, int xb, int width)
{
  uint32_t v = 0;
  for (int k = 0; k < 4; k++)
    v |= hd_load_u8 (row + reflect101 (xb + k, width)) << (8 * k);
  return v;
}

/* The low byte of floor (a) for 0 <= a < 2^23: the round-down add puts
 * floor (a) in the low mantissa bits of 2^23 + floor (a). */
CV_HD uint32_t
floor_bits (float a)
{
#ifdef __CUDA_ARCH__
  return __float_as_uint (__fadd_rd (a, 8388608.f));
#else
  return hd_float_as_u32 (std::floor (a) + 8388608.f);
#endif
}

/* Column sums of 4 pixels (a word's even and odd bytes, packed) as floats,
 * in pixel order. */
CV_HD void
unpack_sums (uint32_t e, uint32_t o, float *c)
{
  c[0] = lo16 (e);
  c[1] = lo16 (o);
  c[2] = hi16 (e);
  c[3] = hi16 (o);
}

/* One byte of each of 16 words, in order, as 4 words: `pick` is the byte
 * permutation taking that byte from each of two words (0x0040: the low
 * bytes; 0x0062: byte 2). */
CV_HD void
pack_bytes16 (const uint32_t (&v)[16], uint32_t pick, uint32_t (&out)[4])
{
  CV_UNROLL
  for (int n = 0; n < 4; n++) {
    const uint32_t lo = hd_byte_perm (v[4 * n], v[4 * n + 1], pick);
    const uint32_t hi = hd_byte_perm (v[4 * n + 2], v[4 * n + 3], pick);
    out[n] = hd_byte_perm (lo, hi, 0x5410);
  }
}

}  // namespace blur_detail

/* One input row into a lane's words: the 16 pixels from byte x (a
 * multiple of 16) and its halo word, read as whole words where they lie in
 * the row and per byte through reflect-101 where not (the frame's left and
 * right edges). Words from byte width + 4 on are no pixel's neighbours
 * (R <= 4) and stay 0, so the lanes past the frame's right edge cost next
 * to nothing. */
CV_HD void
strip_load_row (const uint8_t *row, int x, int width, StripEdge edge, uint32_t (&w)[kStripWords])
{
  using namespace blur_detail;
  auto word = [&] (int xb) -> uint32_t {
    if (xb >= 0 && xb + 4 <= width)
      return hd_load_u32 (row + xb);
    return xb < width + 4 ? gather4 (row, xb, width) : 0u;
  };
  CV_UNROLL
  for (int n = 0; n < 4; n++)
    w[n] = word (x + 4 * n);
  w[kStripExt] = edge == StripEdge::Left ? word (x - 4) : edge == StripEdge::Right ? word (x + 16) : 0u;
}

/* acc (the packed column sums of one output row) += tap * the row's words;
 * `first`: acc = tap * words. Exact: a sum stays below 2^16 per half. */
CV_HD void
strip_accumulate (const uint32_t (&w)[kStripWords], uint32_t tap, bool first, uint32_t (&acc)[2 * kStripWords])
{
  using namespace blur_detail;
  CV_UNROLL
  for (int n = 0; n < kStripWords; n++) {
    const uint32_t e = even_bytes (w[n]) * tap, o = odd_bytes (w[n]) * tap;
    acc[2 * n] = first ? e : acc[2 * n] + e;
    acc[2 * n + 1] = first ? o : acc[2 * n + 1] + o;
  }
}

/* Radius 1 and 2 need 2 column sums on each side of a lane's 16: packed as
 * one word, in pixel order: left [x - 2, x - 1], right
 * [x + 16, x + 17], each sum in a 16-bit half (lo the first pixel). The
 * selectors that cut such a pair out of a halo word of bytes (the left
 * halo word holds pixels x - 4 .. x - 1, the right one x + 16 .. x + 19),
 * bytes widened to 16 bits. */
constexpr uint32_t kLeftPairSel = 0x4342;
constexpr uint32_t kRightPairSel = 0x4140;

/* The row pass of an output row for radius 1 or 2: its 16 column sums (acc
 * words 0..7, the even and odd packed sums of its 4 words) and the pairs of
 * sums beside them (left [x - 2, x - 1], right [x + 16, x + 17]), into 16
 * output bytes as 4 words. In integers: OpenCV's sum itself (below 2^24)
 * plus 2^15, whose byte 2 is the output. Fewer instructions than the float
 * form of strip_row_pass (a sum unpacks in one instruction instead of two,
 * the output packs straight from byte 2), which outweighs the integer
 * multiply-adds' half FMA rate. */
template <int R>
CV_HD void
strip_row_pass_pairs (const uint32_t *acc, uint32_t left, uint32_t right, const BlurDirectTaps<R> & t,
    uint32_t (&out)[4])
{
  static_assert (R >= 1 && R <= 2, "the pairs hold 2 sums a side");
  uint32_t c[20]; /* pixels x - 2 .. x + 17 */
  c[0] = left & 0xffffu;
  c[1] = left >> 16;
  CV_UNROLL
  for (int n = 0; n < 4; n++) {
    c[2 + 4 * n] = acc[2 * n] & 0xffffu;
    c[3 + 4 * n] = acc[2 * n + 1] & 0xffffu;
    c[4 + 4 * n] = acc[2 * n] >> 16;
    c[5 + 4 * n] = acc[2 * n + 1] >> 16;
  }
  c[18] = right & 0xffffu;
  c[19] = right >> 16;
  uint32_t v[16];
  CV_UNROLL
  for (int q = 0; q < 16; q++) {
    uint32_t a = t.xi[0] * c[2 + q] + 0x8000u;
    CV_UNROLL
    for (int d = 1; d <= R; d++)
      a += t.xi[d] * (c[2 + q - d] + c[2 + q + d]);
    v[q] = a;
  }
  blur_detail::pack_bytes16 (v, 0x0062, out); /* the outputs are the sums' byte 2 */
}

/* The packed words the streaming kernel keeps of an input row: its 4
 * words' even and odd bytes widened to 16 bits (u[2n], u[2n + 1]) and, in
 * u[8], the one pair of halo pixels the row pass needs (hsel:
 * kLeftPairSel or kRightPairSel; 0 where the lane has no halo word). */
constexpr int kStripSums = 9;

CV_HD void
strip_unpack_row (const uint32_t (&w)[kStripWords], uint32_t hsel, uint32_t (&u)[kStripSums])
{
  using namespace blur_detail;
  CV_UNROLL
  for (int n = 0; n < 4; n++) {
    u[2 * n] = even_bytes (w[n]);
    u[2 * n + 1] = odd_bytes (w[n]);
  }
  u[8] = hd_byte_perm (w[kStripExt], 0u, hsel);
}

/* The packed column sums of an output row from its 2R + 1 unpacked input
 * rows (row (k), k = 0 the top one), the symmetric taps applied to pair
 * sums: t0 * centre + sum_d t_d * (above_d + below_d), two pixels an
 * instruction. Exact, no carry between the halves: every partial sum is at
 * most the whole, 255 * 256. */
template <int R, class Rows>
CV_HD void
strip_column_sums (const Rows & row, const uint32_t (&ty)[R + 1], uint32_t (&acc)[kStripSums])
{
  CV_UNROLL
  for (int m = 0; m < kStripSums; m++) {
    uint32_t s = row (R)[m] * ty[0];
    CV_UNROLL
    for (int d = 1; d <= R; d++)
      s += (row (R - d)[m] + row (R + d)[m]) * ty[d];
    acc[m] = s;
  }
}

/* strip_row_pass_pairs with two-way dot products (16-bit sums times byte
 * taps, __dp2a_lo / __dp2a_hi): 3 instructions a pixel at radius 2 (2 at
 * radius 1) and one byte permute a pair of pixels, where the pairs form
 * unpacked sums, 2 multiply-adds and 2 adds a pixel. The same integer sum
 * (OpenCV's, plus 2^15; the output is its byte 2), so the same pixels; only
 * for taps that fit a byte (t.xb_ok). acc[2n] holds sums [4n, 4n + 2],
 * acc[2n + 1] [4n + 1, 4n + 3]; left [-2, -1], right [16, 17]. */
template <int R>
CV_HD void
strip_row_pass_dp2a (const uint32_t *acc, uint32_t left, uint32_t right, const BlurDirectTaps<R> & t,
    uint32_t (&out)[4])
{
  static_assert (R >= 1 && R <= 2, "the pairs hold 2 sums a side");
  const uint32_t ka = t.xb[0], kb = t.xb[1], kc = t.xb[2];
  uint32_t v[16];
  CV_UNROLL
  for (int n = 0; n < 4; n++) {
    const uint32_t e = acc[2 * n], o = acc[2 * n + 1];
    /* [c(4n - 2), c(4n - 1)] as the low and high half of the words before */
    const uint32_t e_prev = n == 0 ? left : acc[2 * n - 2]; /* c(4n - 2): hi, or lo of left */
    const uint32_t o_prev = n == 0 ? left : acc[2 * n - 1]; /* c(4n - 1): hi */
    const uint32_t e_next = n == 3 ? right : acc[2 * n + 2]; /* c(4n + 4): lo */
    const uint32_t o_next = n == 3 ? right : acc[2 * n + 3]; /* c(4n + 5): lo, or hi of right */
    const uint32_t x = hd_byte_perm (o_prev, o, 0x5432);     /* [c(4n - 1), c(4n + 1)] */
    const uint32_t y = hd_byte_perm (e, e_next, 0x5432);     /* [c(4n + 2), c(4n + 4)] */
    /* 4n: t0 c(4n) + t2 c(4n + 2), t1 (c(4n - 1) + c(4n + 1)), t2 c(4n - 2) */
    uint32_t a = hd_dp2a_lo (x, kb, hd_dp2a_lo (e, ka, 0x8000u));
    if (R == 2)
      a = n == 0 ? hd_dp2a_lo (e_prev, kc, a) : hd_dp2a_hi (e_prev, kb, a);
    v[4 * n] = a;
    /* 4n + 1: t0 c(4n + 1) + t2 c(4n + 3), t1 (c(4n) + c(4n + 2)), t2 c(4n - 1) */
    a = hd_dp2a_lo (e, kb, hd_dp2a_lo (o, ka, 0x8000u));
    if (R == 2)
      a = hd_dp2a_hi (o_prev, kb, a);
    v[4 * n + 1] = a;
    /* 4n + 2: t2 c(4n) + t0 c(4n + 2), t1 (c(4n + 1) + c(4n + 3)), t2 c(4n + 4) */
    a = hd_dp2a_lo (o, kb, hd_dp2a_hi (e, ka, 0x8000u));
    if (R == 2)
      a = hd_dp2a_lo (e_next, kc, a);
    v[4 * n + 2] = a;
    /* 4n + 3: t2 c(4n + 1) + t0 c(4n + 3), t1 (c(4n + 2) + c(4n + 4)), t2 c(4n + 5) */
    a = hd_dp2a_lo (y, kb, hd_dp2a_hi (o, ka, 0x8000u));
    if (R == 2)
      a = n == 3 ? hd_dp2a_hi (o_next, kb, a) : hd_dp2a_lo (o_next, kc, a);
    v[4 * n + 3] = a;
  }
  blur_detail::pack_bytes16 (v, 0x0062, out); /* the outputs are the sums' byte 2 */
}

/* The row pass of an output row: its 16 column sums (acc, words 0..3)
 * and the 4 sums on each side (left: pixels x - 4 .. x - 1, right: x + 16
 * .. x + 19, each as a word's even and odd packed sums), into 16 output
 * bytes as 4 words. Radius 1 and 2 go through strip_row_pass_pairs (the
 * pairs are the high halves of the left words, the low halves of the
 * right ones), which the direct kernel runs.
 *
 * Exact: with the taps scaled by 2^-16 (blur_direct_taps), every partial
 * sum is 1/2 + N / 2^16 for an integer N with N + 2^15 <= 255 * 2^16 + 2^15
 * < 2^24, a float (the products and pair sums are integers below 2^17 times
 * a power of two), so each FMA is exact and the last one holds
 * (s + 2^15) / 2^16 for OpenCV's integer s; its floor is the output. */
template <int R>
CV_HD void
strip_row_pass (const uint32_t (&acc)[2 * kStripWords], uint32_t left_e, uint32_t left_o, uint32_t right_e,
    uint32_t right_o, const BlurDirectTaps<R> & t, uint32_t (&out)[4])
{
  using namespace blur_detail;
  static_assert (R >= 1 && R <= 4, "the halo is one word on each side");
  if constexpr (R <= 2) {
    strip_row_pass_pairs<R> (acc, hd_byte_perm (left_e, left_o, 0x7632), hd_byte_perm (right_e, right_o, 0x5410), t,
        out);
    return;
  }
  float c[24]; /* pixels x - 4 .. x + 19 */
  unpack_sums (left_e, left_o, c);
  CV_UNROLL
  for (int n = 0; n < 4; n++)
    unpack_sums (acc[2 * n], acc[2 * n + 1], c + 4 + 4 * n);
  unpack_sums (right_e, right_o, c + 20);
  uint32_t b[16];
  CV_UNROLL
  for (int q = 0; q < 16; q++) {
    float a = fmaf (t.x[0], c[4 + q], 0.5f);
    CV_UNROLL
    for (int d = 1; d <= R; d++)
      a = fmaf (t.x[d], c[4 + q - d] + c[4 + q + d], a);
    b[q] = floor_bits (a);
  }
  pack_bytes16 (b, 0x0040, out);
}

/* The taps of a blur (blur.h) in the lane's form for radius class R (the
 * blur's radii at most R). */
template <int R>
BlurDirectTaps<R>
blur_direct_taps (const uint16_t *x_half, int rx, const uint16_t *y_half, int ry)
{
  BlurDirectTaps<R> t {};
  for (int d = 0; d <= rx; d++) {
    t.x[d] = (float) x_half[d] * (1.f / 65536.f);
    t.xi[d] = x_half[d];
  }
  for (int d = 0; d <= ry; d++)
    t.y[d] = y_half[d];
  uint32_t k[3] = { 0u, 0u, 0u }; /* t0, t1, t2 */
  t.xb_ok = rx <= 2;
  for (int d = 0; d <= rx; d++) {
    t.xb_ok = t.xb_ok && x_half[d] <= 255;
    if (d < 3)
      k[d] = x_half[d];
  }
  if (t.xb_ok) {
    t.xb[0] = k[0] | k[2] << 8 | k[2] << 16 | k[0] << 24;
    t.xb[1] = k[1] | k[1] << 8 | k[2] << 24;
    t.xb[2] = k[2];
  }
  return t;
}

}  // namespace cudavision
