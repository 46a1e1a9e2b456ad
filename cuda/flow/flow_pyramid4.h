/* cudavision — what one thread of cudaflow's pyramid kernels computes
 * (flow_pyramid.cu): 4 horizontally adjacent pixels of a pyrDown level or
 * of the Scharr derivatives, from aligned 32-bit words of the source rows.
 * Host/device code (simd.h), so the CPU tests run the kernels' own code
 * against cv::buildOpticalFlowPyramid.
 *
 * pyrDown's 4 outputs x0 .. x0 + 3 read source columns 2 x0 - 2 .. 2 x0 + 8
 * as the 16 bytes from 2 x0 - 4 (4 words) of each of 5 rows; a row's
 * contribution to an output is two dp4a (taps 1 4 6 4 on 4 bytes, plus the
 * fifth byte). Scharr's 4 pixels read columns x0 - 1 .. x0 + 4 as the 12
 * bytes from x0 - 4 (3 words) of each of 3 rows. Where the words would
 * leave the row (the frame's left and right edges, levels narrower than
 * the words) every byte is read on its own through reflect101, as OpenCV's
 * bordered buffers hold it. The integers are pyr_down_at's and scharr_at's
 * (flow_math.h), so the results are OpenCV's bit for bit. Rows must be
 * 4-byte aligned (aligned_pitch). */
#pragma once

#include "flow_math.h"
#include "../../core/simd.h"

namespace cudavision {

/* Byte B (0..15) of four words. */
template <int B>
CV_HD int
words_byte (const uint32_t (&w)[4])
{
  return (int) ((w[B / 4] >> (8 * (B % 4))) & 0xffu);
}

/* The 4 bytes from byte B of four words (B + 3 < 16). */
template <int B>
CV_HD uint32_t
words_at (const uint32_t (&w)[4])
{
  if (B % 4 == 0)
    return w[B / 4];
  return hd_byte_perm (w[B / 4], w[B / 4 + (B % 4 ? 1 : 0)], 0x3210u + (B % 4) * 0x1111u);
}

/* NW words of a row from byte x (a multiple of 4): loaded when `inside`
 * (all of them in the row), else byte by byte through reflect101. */
template <int NW>
CV_HD void
row_words (const uint8_t *row, int x, int width, bool inside, uint32_t (&w)[4])
{
  if (inside) {
    CV_UNROLL
    for (int n = 0; n < NW; n++)
      w[n] = hd_load_u32 (row + x + 4 * n);
    return;
  }
  CV_UNROLL
  for (int n = 0; n < NW; n++) {
    uint32_t v = 0;
    CV_UNROLL
    for (int b = 0; b < 4; b++)
      v |= hd_load_u8 (row + reflect101 (x + 4 * n + b, width)) << (8 * b);
    w[n] = v;
  }
}

/* Pixels x0 .. x0 + 3 (x0 a multiple of 4) of row y of the pyrDown of a
 * sw x sh level, pixel x0 in the low byte (bytes past the level's width are
 * computed from reflected columns, for the caller to drop). */
CV_HD uint32_t
pyr_down4_at (const uint8_t *src, size_t sp, int sw, int sh, int x0, int y)
{
  const int sx = 2 * x0 - 4;
  const bool inside = sx >= 0 && sx + 16 <= sw;
  constexpr uint32_t k1464 = 0x04060401u; /* taps 1 4 6 4 on bytes 0..3 */
  int sum[4] = { 128, 128, 128, 128 };    /* (sum + 128) >> 8 */
  CV_UNROLL
  for (int j = 0; j < 5; j++) {
    uint32_t w[4];
    row_words<4> (src + (size_t) reflect101 (2 * y - 2 + j, sh) * sp, sx, sw, inside, w);
    const int kj = j == 2 ? 6 : (j == 1 || j == 3) ? 4 : 1;
    /* output k: bytes 2k + 2 .. 2k + 6 of the words, taps 1 4 6 4 1 */
    sum[0] += kj * (int) hd_dp4a (words_at<2> (w), k1464, (uint32_t) words_byte<6> (w));
    sum[1] += kj * (int) hd_dp4a (words_at<4> (w), k1464, (uint32_t) words_byte<8> (w));
    sum[2] += kj * (int) hd_dp4a (words_at<6> (w), k1464, (uint32_t) words_byte<10> (w));
    sum[3] += kj * (int) hd_dp4a (words_at<8> (w), k1464, (uint32_t) words_byte<12> (w));
  }
  return (uint32_t) (sum[0] >> 8) | (uint32_t) (sum[1] >> 8) << 8 | (uint32_t) (sum[2] >> 8) << 16 |
      (uint32_t) (sum[3] >> 8) << 24;
}

/* scharr_at's vertical passes over byte B of the three rows' words: t0
 * smooths, t1 differentiates. */
template <int B>
CV_HD int
scharr4_t0 (const uint32_t (&up)[4], const uint32_t (&mid)[4], const uint32_t (&down)[4])
{
  return (words_byte<B> (up) + words_byte<B> (down)) * 3 + words_byte<B> (mid) * 10;
}

template <int B>
CV_HD int
scharr4_t1 (const uint32_t (&up)[4], const uint32_t (&down)[4])
{
  return words_byte<B> (down) - words_byte<B> (up);
}

/* Pixel K of the 4: column x0 + K is byte 4 + K of the words. */
template <int K>
CV_HD uint32_t
scharr4_pixel (const uint32_t (&up)[4], const uint32_t (&mid)[4], const uint32_t (&down)[4])
{
  const int ix = scharr4_t0<5 + K> (up, mid, down) - scharr4_t0<3 + K> (up, mid, down);
  const int iy = (scharr4_t1<3 + K> (up, down) + scharr4_t1<5 + K> (up, down)) * 3 + scharr4_t1<4 + K> (up, down) * 10;
  return pack_deriv ((int16_t) ix, (int16_t) iy);
}

/* calcScharrDeriv of pixels x0 .. x0 + 3 (x0 a multiple of 4) of row y of
 * a w x h level: pack_deriv pairs (past the width: from reflected columns,
 * for the caller to drop). */
CV_HD void
scharr4_at (const uint8_t *src, size_t sp, int w, int h, int x0, int y, uint32_t (&out)[4])
{
  const bool inside = x0 >= 4 && x0 + 8 <= w;
  uint32_t up[4], mid[4], down[4];
  row_words<3> (src + (size_t) reflect101 (y - 1, h) * sp, x0 - 4, w, inside, up);
  row_words<3> (src + (size_t) y * sp, x0 - 4, w, inside, mid);
  row_words<3> (src + (size_t) reflect101 (y + 1, h) * sp, x0 - 4, w, inside, down);
  up[3] = mid[3] = down[3] = 0;
  out[0] = scharr4_pixel<0> (up, mid, down);
  out[1] = scharr4_pixel<1> (up, mid, down);
  out[2] = scharr4_pixel<2> (up, mid, down);
  out[3] = scharr4_pixel<3> (up, mid, down);
}

}  // namespace cudavision
