#include "blur_cpu.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <vector>

namespace cudavision {
namespace cpu {

void
gaussian_blur (ConstImage8 src, Image8 dst, int channels, int ksize_x, int ksize_y, double sigma_x, double sigma_y)
{
  if (src.width <= 0 || src.height <= 0)
    return;
  cv::Mat s (src.height, src.width, CV_8UC (channels), const_cast<uint8_t *> (src.data), src.pitch);
  cv::Mat d (dst.height, dst.width, CV_8UC (channels), dst.data, dst.pitch);
  cv::GaussianBlur (s, d, cv::Size (ksize_x, ksize_y), sigma_x, sigma_y > 0 ? sigma_y : sigma_x,
      cv::BORDER_REFLECT_101);
}

static int
reflect101 (int p, int len)
{
  if (len == 1)
    return 0;
  while (p < 0 || p >= len)
    p = p < 0 ? -p : 2 * len - 2 - p;
  return p;
}

void
gaussian_blur_fixed_reference (ConstImage8 src, Image8 dst, int channels, const uint16_t *taps_x, int ksize_x,
    const uint16_t *taps_y, int ksize_y)
{
  const int w = src.width, h = src.height, c = channels;
  const int rx = ksize_x / 2, ry = ksize_y / 2;
  std::vector<uint32_t> mid ((size_t) w * h * c);
  for (int y = 0; y < h; y++) {
    const uint8_t *s = src.data + (size_t) y * src.pitch;
    for (int x = 0; x < w; x++)
      for (int k = 0; k < c; k++) {
        uint32_t acc = 0;
        for (int j = -rx; j <= rx; j++)
          acc += (uint32_t) taps_x[j + rx] * s[reflect101 (x + j, w) * c + k];
        mid[((size_t) y * w + x) * c + k] = acc;
      }
  }
  for (int y = 0; y < h; y++) {
    uint8_t *d = dst.data + (size_t) y * dst.pitch;
    for (int x = 0; x < w * c; x++) {
      uint32_t acc = 0;
      for (int j = -ry; j <= ry; j++)
        acc += (uint32_t) taps_y[j + ry] * mid[(size_t) reflect101 (y + j, h) * w * c + x];
      const uint32_t v = (acc + (1u << 15)) >> 16;
      d[x] = (uint8_t) (v > 255 ? 255 : v);
    }
  }
}

}  // namespace cpu
}  // namespace cudavision
