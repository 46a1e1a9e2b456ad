/* cudavision — the byte-permute and small dot-product instructions (and
 * read-only loads) as host/device functions: in a kernel the intrinsic, on
 * the host the same arithmetic. A kernel whose per-thread work is written
 * with them can run that very code on the host, so a CPU test checks the
 * kernel's logic (indices, borders, tap packing) against OpenCV without a
 * GPU. Pure C++ for the host compiler; CV_HD from gray_weights.h. */
#pragma once

#include "hd.h"

#include <cstdint>
#include <cstring>

#ifdef __CUDA_ARCH__
#define CV_UNROLL _Pragma ("unroll")
#else
#define CV_UNROLL
#endif

namespace cudavision {

/* __byte_perm (a, b, s) for selectors whose nibbles are 0..7 (byte n of
 * the pair b:a; no sign-replicate mode). */
CV_HD uint32_t
hd_byte_perm (uint32_t a, uint32_t b, uint32_t s)
{
#ifdef __CUDA_ARCH__
  return __byte_perm (a, b, s);
#else
  const uint64_t ab = (uint64_t) b << 32 | a;
  uint32_t r = 0;
  for (int i = 0; i < 4; i++)
    r |= (uint32_t) ((ab >> (8 * ((s >> (4 * i)) & 7))) & 0xffu) << (8 * i);
  return r;
#endif
}

/* __dp4a, unsigned: c + sum over the 4 bytes of a[i] * b[i]. */
CV_HD uint32_t
hd_dp4a (uint32_t a, uint32_t b, uint32_t c)
{
#ifdef __CUDA_ARCH__
  return __dp4a (a, b, c);
#else
  for (int i = 0; i < 4; i++)
    c += ((a >> (8 * i)) & 0xffu) * ((b >> (8 * i)) & 0xffu);
  return c;
#endif
}

/* __dp2a_lo and __dp2a_hi, unsigned: c + a's low 16 bits * byte 0 (lo) or 2
 * (hi) of b + a's high 16 bits * byte 1 (lo) or 3 (hi) of b. */
CV_HD uint32_t
hd_dp2a_lo (uint32_t a, uint32_t b, uint32_t c)
{
#ifdef __CUDA_ARCH__
  return __dp2a_lo (a, b, c);
#else
  return c + (a & 0xffffu) * (b & 0xffu) + (a >> 16) * ((b >> 8) & 0xffu);
#endif
}

CV_HD uint32_t
hd_dp2a_hi (uint32_t a, uint32_t b, uint32_t c)
{
#ifdef __CUDA_ARCH__
  return __dp2a_hi (a, b, c);
#else
  return c + (a & 0xffffu) * ((b >> 16) & 0xffu) + (a >> 16) * (b >> 24);
#endif
}

/* Read-only loads (through the read-only cache on the device). */
CV_HD uint32_t
hd_load_u8 (const uint8_t *p)
{
#ifdef __CUDA_ARCH__
  return __ldg (p);
#else
  return *p;
#endif
}

CV_HD uint32_t
hd_load_u32 (const void *p)
{
#ifdef __CUDA_ARCH__
  return __ldg (static_cast<const unsigned *> (p));
#else
  uint32_t v;
  std::memcpy (&v, p, sizeof v);
  return v;
#endif
}

/* A 32-bit store to 4-byte aligned memory. */
CV_HD void
hd_store_u32 (void *p, uint32_t v)
{
#ifdef __CUDA_ARCH__
  *static_cast<uint32_t *> (p) = v;
#else
  std::memcpy (p, &v, sizeof v);
#endif
}

CV_HD float
hd_u32_as_float (uint32_t v)
{
#ifdef __CUDA_ARCH__
  return __uint_as_float (v);
#else
  float f;
  std::memcpy (&f, &v, sizeof f);
  return f;
#endif
}

CV_HD uint32_t
hd_float_as_u32 (float f)
{
#ifdef __CUDA_ARCH__
  return __float_as_uint (f);
#else
  uint32_t v;
  std::memcpy (&v, &f, sizeof v);
  return v;
#endif
}

}  // namespace cudavision
