/* cudavision — the RGB to grey weights, shared by the CUDA kernel and the
 * unit test that proves them bit-exact to OpenCV without a GPU.
 *
 * OpenCV's cvtColor(COLOR_RGB2GRAY) for 8-bit data is fixed point with a
 * 14-bit shift: Y = (R*4899 + G*9617 + B*1868 + 2^13) >> 14, BT.601 luma. */
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#define CV_HD __host__ __device__ __forceinline__
#else
#define CV_HD inline
#endif

namespace cudavision {

constexpr int kGrayShift = 14;
constexpr uint32_t kGrayR = 4899, kGrayG = 9617, kGrayB = 1868;

CV_HD uint8_t
rgb_to_gray_u8 (uint32_t r, uint32_t g, uint32_t b)
{
  return (uint8_t) ((r * kGrayR + g * kGrayG + b * kGrayB + (1u << (kGrayShift - 1))) >> kGrayShift);
}

}  // namespace cudavision
