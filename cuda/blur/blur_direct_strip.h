/* cudavision — what one thread of cudablur's direct kernel computes
 * (blur_direct.h): 4 GRAY8 pixels of a row on P consecutive rows, streamed
 * down the input rows. Host/device code (simd_hd.h, blur_arith.h), so the
 * CPU tests run the kernel's own code against cv::GaussianBlur. */
#pragma once

#include "blur_arith.h"

namespace cudavision {

/* The taps as the strip reads them. x: the 2R + 1 row taps as bytes, 4 a
 * word, in the order of the pixels they weigh (byte 0 of x[0] weighs pixel
 * -R), zero past 2R (so every tap must be below 256); y: the column taps by
 * distance from the centre, as floats. */
template <int R>
struct BlurDirectTaps {
  static constexpr int kWords = R / 2 + 1; /* ceil ((2R + 1) / 4) */
  uint32_t x[kWords];
  float y[R + 1];
};

namespace blur_detail {

/* 4 bytes of a row buffer of NW words from byte B (a compile-time
 * constant); past the buffer: zeros, which only ever meet zero taps. */
template <int NW, int B>
CV_HD uint32_t
window4 (const uint32_t (&w)[NW])
{
  constexpr int i = B / 4, off = B % 4;
  const uint32_t hi = i + 1 < NW ? w[i + 1 < NW ? i + 1 : i] : 0u;
  if (off == 0)
    return w[i];
  return hd_byte_perm (w[i], hi, 0x3210u + off * 0x1111u);
}

/* Exact float of an integer below 2^23. */
CV_HD float
u23_f (uint32_t v)
{
  return hd_u32_as_float (0x4B000000u | v) - 8388608.f;
}

/* The row pass of output pixel K (0..3) of the word: sum over d of
 * tap[d] * pixel (x + K - R + d), dp4a chunk Q on. */
template <int R, int NW, int K, int Q>
struct DirectRowSum {
  static CV_HD uint32_t
  run (const uint32_t (&w)[NW], const BlurDirectTaps<R> & t, uint32_t acc)
  {
    constexpr int nw0 = (R + 3) / 4;
    acc = hd_dp4a (window4<NW, K - R + 4 * Q + 4 * nw0> (w), t.x[Q], acc);
    return DirectRowSum<R, NW, K, Q + 1>::run (w, t, acc);
  }
};

template <int R, int NW, int K>
struct DirectRowSum<R, NW, K, BlurDirectTaps<R>::kWords> {
  static CV_HD uint32_t
  run (const uint32_t (&)[NW], const BlurDirectTaps<R> &, uint32_t acc)
  {
    return acc;
  }
};

/* An input row into the buffer: the word at byte x and nw0 = NW / 2 words
 * on each side. `inside`: all of them lie in the row; else each byte is
 * read on its own through reflect-101 (the frame's left and right edges). */
template <int NW>
CV_HD void
direct_row (const uint8_t *row, int x, int width, bool inside, uint32_t (&w)[NW])
{
  constexpr int nw0 = NW / 2;
  if (inside) {
    CV_UNROLL
    for (int n = 0; n < NW; n++)
      w[n] = hd_load_u32 (row + x + 4 * (n - nw0));
    return;
  }
  CV_UNROLL
  for (int n = 0; n < NW; n++) {
    uint32_t v = 0;
    CV_UNROLL
    for (int b = 0; b < 4; b++)
      v |= hd_load_u8 (row + reflect101 (x + 4 * (n - nw0) + b, width)) << (8 * b);
    w[n] = v;
  }
}

}  // namespace blur_detail

/* Output pixels x .. x + 3 (x a multiple of 4, below width) of rows y0 ..
 * y0 + P - 1 (those inside the frame) of the blur of a width x height GRAY8
 * frame. Reads input rows y0 - R .. y0 + P - 1 + R (reflected); each
 * row's 4 exact row sums go at once into the column sums of the output rows
 * they touch (acc[p] lives from input row p to p + 2R), and an output row
 * is packed and stored as soon as its last input row is in. Rows of src and
 * dst 4-byte aligned. */
template <int R, int P>
CV_HD void
blur_direct_strip (const uint8_t *src, size_t spitch, uint8_t *dst, size_t dpitch, int width, int height,
    const BlurDirectTaps<R> & taps, int x, int y0)
{
  using namespace blur_detail;
  constexpr int nw0 = (R + 3) / 4, NW = 2 * nw0 + 1;
  const bool inside = x >= 4 * nw0 && x + 4 * (nw0 + 1) <= width;
  const bool full = x + 4 <= width;
  float acc[P][4];
  CV_UNROLL
  for (int i = 0; i < P + 2 * R; i++) {
    uint32_t w[NW];
    direct_row<NW> (src + (size_t) reflect101 (y0 - R + i, height) * spitch, x, width, inside, w);
    const float h[4] = { u23_f (DirectRowSum<R, NW, 0, 0>::run (w, taps, 0u)),
      u23_f (DirectRowSum<R, NW, 1, 0>::run (w, taps, 0u)), u23_f (DirectRowSum<R, NW, 2, 0>::run (w, taps, 0u)),
      u23_f (DirectRowSum<R, NW, 3, 0>::run (w, taps, 0u)) };
    CV_UNROLL
    for (int p = 0; p < P; p++) {
      const int k = i - p; /* this input row's tap (0 .. 2R) for output row p */
      if (k < 0 || k > 2 * R)
        continue;
      const float tap = taps.y[k >= R ? k - R : R - k];
      CV_UNROLL
      for (int c = 0; c < 4; c++)
        acc[p][c] = k == 0 ? tap * h[c] : fmaf (tap, h[c], acc[p][c]);
    }
    if (i >= 2 * R) {
      const int p = i - 2 * R; /* output row p is complete */
      if (y0 + p < height) {
        const uint32_t word = pack4 (acc[p][0], acc[p][1], acc[p][2], acc[p][3]);
        uint8_t *d = dst + (size_t) (y0 + p) * dpitch + x;
        if (full) {
          hd_store_u32 (d, word);
        } else {
          for (int b = 0; b < width - x; b++)
            d[b] = (uint8_t) (word >> (8 * b));
        }
      }
    }
  }
}

/* The taps of a blur (blur.h) in the strip's form for radius class R
 * (the blur's radii at most R; x taps below 256). */
template <int R>
BlurDirectTaps<R>
blur_direct_taps (const uint16_t *x_half, int rx, const uint16_t *y_half, int ry)
{
  BlurDirectTaps<R> t {};
  for (int d = -rx; d <= rx; d++)
    t.x[(R + d) / 4] |= (uint32_t) x_half[d < 0 ? -d : d] << (8 * ((R + d) % 4));
  for (int d = 0; d <= ry; d++)
    t.y[d] = (float) y_half[d];
  return t;
}

}  // namespace cudavision
