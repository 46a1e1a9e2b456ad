/* cudavision — the per-pixel helpers both blur kernel files share (the
 * border rule and the exact float form of blur.h's fixed point), as
 * host/device code (simd.h) so that the direct kernel's per-thread code
 * also runs in the CPU tests. */
#pragma once

#include "../../core/simd.h"

#include <cmath>
#include <cstdint>

namespace cudavision {
namespace blur_detail {

/* Reflect-101 with the index folded as often as needed (images smaller
 * than the kernel); a length of 1 maps everything to 0. */
CV_HD int
reflect101 (int p, int len)
{
  if (len == 1)
    return 0;
  while ((unsigned) p >= (unsigned) len)
    p = p < 0 ? -p : 2 * len - 2 - p;
  return p;
}

/* (s + 2^15) >> 16 for an integer-valued s < 2^24, in the low byte: the
 * sum below lies in [2^23, 2^24), where floats are the integers, so
 * rounding it down adds the floor. */
CV_HD uint32_t
out_bits (float s)
{
#ifdef __CUDA_ARCH__
  return __float_as_uint (__fadd_rd (fmaf (s, 1.f / 65536.f, 0.5f), 8388608.f));
#else
  return hd_float_as_u32 (std::floor (std::fmaf (s, 1.f / 65536.f, 0.5f)) + 8388608.f);
#endif
}

CV_HD uint32_t
pack4 (float a, float b, float c, float d)
{
  const uint32_t lo = hd_byte_perm (out_bits (a), out_bits (b), 0x0040);
  const uint32_t hi = hd_byte_perm (out_bits (c), out_bits (d), 0x0040);
  return hd_byte_perm (lo, hi, 0x5410);
}

}  // namespace blur_detail
}  // namespace cudavision
