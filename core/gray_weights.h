/* cudavision — the RGB to grey weights, shared by the CUDA kernel and the
 * unit test that proves them bit-exact to OpenCV without a GPU.
 *
 * OpenCV's cvtColor(COLOR_RGB2GRAY) for 8-bit data (4.x, RGB2Gray<uchar>)
 * is fixed point with a 15-bit shift:
 *   Y = (R*9798 + G*19235 + B*3735 + 2^14) >> 15, BT.601 luma.
 * (The 14-bit weights 4899/9617/1868 of its YCrCb code round differently
 * for about 1 colour in 8: tests/unit/test_gray_weights.cpp checks all 2^24.) */
#pragma once

#include "hd.h"

#include <cstdint>


namespace cudavision {

constexpr int kGrayShift = 15;
constexpr uint32_t kGrayR = 9798, kGrayG = 19235, kGrayB = 3735;

CV_HD uint8_t
rgb_to_gray_u8 (uint32_t r, uint32_t g, uint32_t b)
{
  return (uint8_t) ((r * kGrayR + g * kGrayG + b * kGrayB + (1u << (kGrayShift - 1))) >> kGrayShift);
}

}  // namespace cudavision
