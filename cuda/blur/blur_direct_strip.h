/* cudavision — what one lane of cudablur's direct kernel computes
 * (blur_direct.h): 16 GRAY8 pixels of a row on P consecutive rows,
 * streamed down the input rows, columns first. Host/device code
 * (simd_hd.h, blur_arith.h): the kernel (blur_direct.cu) ties the lanes
 * together with warp shuffles, and the CPU tests run these very functions
 * for every lane of a simulated warp against cv::GaussianBlur.
 *
 * Why columns first is exact: the blur is sum_i sum_j tx_i ty_j p(x+i, y+j)
 * in integers (taps of 8 fraction bits, each axis summing to 256), and
 * OpenCV's row-then-column order only changes the order of exact integer
 * additions. A column sum is at most 255 * 256 < 2^16, so two of them fit in
 * one 32-bit word (bytes 0 and 2 of a word in one, bytes 1 and 3 in the
 * other) and one integer multiply-add weighs two pixels at once; the row
 * pass then runs in float on integers below 2^24, rounded by
 * blur_detail::out_bits as everywhere else. */
#pragma once

#include "blur_arith.h"

namespace cudavision {

/* The taps as a lane reads them: y, the column taps by distance from the
 * centre, as integers (they multiply packed 16-bit sums); x, the row taps
 * by distance, as floats. */
template <int R>
struct BlurDirectTaps {
  uint32_t y[R + 1];
  float x[R + 1];
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

/* The row pass of an output row: its 16 column sums (acc, words 0..3)
 * and the 4 sums on each side (left: pixels x - 4 .. x - 1, right: x + 16
 * .. x + 19, each as a word's even and odd packed sums), into 16 output
 * bytes as 4 words. */
template <int R>
CV_HD void
strip_row_pass (const uint32_t (&acc)[2 * kStripWords], uint32_t left_e, uint32_t left_o, uint32_t right_e,
    uint32_t right_o, const BlurDirectTaps<R> & t, uint32_t (&out)[4])
{
  using namespace blur_detail;
  static_assert (R >= 1 && R <= 4, "the halo is one word on each side");
  float c[24]; /* pixels x - 4 .. x + 19 */
  unpack_sums (left_e, left_o, c);
  CV_UNROLL
  for (int n = 0; n < 4; n++)
    unpack_sums (acc[2 * n], acc[2 * n + 1], c + 4 + 4 * n);
  unpack_sums (right_e, right_o, c + 20);
  float s[16];
  CV_UNROLL
  for (int q = 0; q < 16; q++) {
    float a = t.x[0] * c[4 + q];
    CV_UNROLL
    for (int d = 1; d <= R; d++)
      a = fmaf (t.x[d], c[4 + q - d] + c[4 + q + d], a);
    s[q] = a;
  }
  CV_UNROLL
  for (int n = 0; n < 4; n++)
    out[n] = pack4 (s[4 * n], s[4 * n + 1], s[4 * n + 2], s[4 * n + 3]);
}

/* The taps of a blur (blur.h) in the lane's form for radius class R (the
 * blur's radii at most R). */
template <int R>
BlurDirectTaps<R>
blur_direct_taps (const uint16_t *x_half, int rx, const uint16_t *y_half, int ry)
{
  BlurDirectTaps<R> t {};
  for (int d = 0; d <= rx; d++)
    t.x[d] = (float) x_half[d];
  for (int d = 0; d <= ry; d++)
    t.y[d] = y_half[d];
  return t;
}

}  // namespace cudavision
