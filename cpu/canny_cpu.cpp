#include "canny_cpu.h"

#include "blur_cpu.h"

#include "../core/canny/canny_math.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace cudavision {
namespace cpu {

static cv::Mat
mat_of (ConstImage8 v)
{
  return cv::Mat (v.height, v.width, CV_8UC1, const_cast<uint8_t *> (v.data), v.pitch);
}

int
median_u8 (ConstImage8 src)
{
  if (src.width <= 0 || src.height <= 0)
    return 0;
  unsigned long long hist[256] = {};
  for (int y = 0; y < src.height; y++) {
    const uint8_t *row = src.data + (size_t) y * src.pitch;
    for (int x = 0; x < src.width; x++)
      hist[row[x]]++;
  }
  const unsigned long long rank = canny_median_rank ((unsigned long long) src.width * src.height);
  unsigned long long below = 0;
  for (int v = 0; v < 256; v++) {
    below += hist[v];
    if (below > rank)
      return v;
  }
  return 255;
}

int
canny_auto_value (ConstImage8 src, CannyAuto mode)
{
  if (src.width <= 0 || src.height <= 0)
    return 0;
  if (mode == CannyAuto::Median)
    return median_u8 (src);
  cv::Mat unused;
  return (int) cv::threshold (mat_of (src), unused, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU);
}

void
canny (ConstImage8 src, Image8 dst, const CannyParams & p, int auto_value)
{
  if (src.width <= 0 || src.height <= 0)
    return;
  double low = p.low_threshold, high = p.high_threshold;
  if (p.auto_threshold != CannyAuto::Off) {
    const int v = auto_value >= 0 ? auto_value : canny_auto_value (src, p.auto_threshold);
    high = v;
    low = v / 2.0;
  }
  cv::Mat s = mat_of (src);
  cv::Mat d (dst.height, dst.width, CV_8UC1, dst.data, dst.pitch);
  cv::Mat blurred;
  if (p.blur_ksize > 0) {
    blurred.create (src.height, src.width, CV_8UC1);
    gaussian_blur (src, { blurred.data, blurred.step, blurred.cols, blurred.rows }, 1, p.blur_ksize, p.blur_ksize,
        p.blur_sigma, p.blur_sigma);
    s = blurred;
  }
  cv::Canny (s, d, low, high, p.aperture, p.l2_gradient);
}

/* ------------------------------------------------------------ model */

template <int K>
static void
gradients (ConstImage8 src, std::vector<int> & dx, std::vector<int> & dy)
{
  const int w = src.width, h = src.height;
  auto at = [&] (int x, int y) {
    return (int) src.data[(size_t) std::clamp (y, 0, h - 1) * src.pitch + std::clamp (x, 0, w - 1)];
  };
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      int sx, sy;
      sobel_at<K> ([&] (int i, int j) { return at (x + i, y + j); }, &sx, &sy);
      dx[(size_t) y * w + x] = canny_deriv (sx, K);
      dy[(size_t) y * w + x] = canny_deriv (sy, K);
    }
}

void
canny_model (ConstImage8 src, Image8 dst, double low, double high, int aperture, bool l2)
{
  const int w = src.width, h = src.height;
  if (w <= 0 || h <= 0)
    return;
  const size_t n = (size_t) w * h;
  std::vector<int> dx (n), dy (n), mag (n);
  if (aperture == 7)
    gradients<7> (src, dx, dy);
  else if (aperture == 5)
    gradients<5> (src, dx, dy);
  else
    gradients<3> (src, dx, dy);
  for (size_t i = 0; i < n; i++)
    mag[i] = canny_magnitude (dx[i], dy[i], l2);

  const CannyThresholds t = canny_thresholds (low, high, aperture, l2);
  std::vector<uint8_t> cls (n);
  std::vector<size_t> stack;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const size_t i = (size_t) y * w + x;
      auto m_at = [&] (int di, int dj) {
        const int xx = x + di, yy = y + dj;
        return xx < 0 || xx >= w || yy < 0 || yy >= h ? 0 : mag[(size_t) yy * w + xx];
      };
      cls[i] = (uint8_t) canny_classify (mag[i], dx[i], dy[i], t, m_at);
      if (cls[i] == kCannyStrong)
        stack.push_back (i);
    }
  /* hysteresis: every candidate 8-connected to a strong one */
  std::vector<uint8_t> edge (n, 0);
  for (size_t i : stack)
    edge[i] = 1;
  while (!stack.empty ()) {
    const size_t i = stack.back ();
    stack.pop_back ();
    const int x = (int) (i % w), y = (int) (i / w);
    for (int dj = -1; dj <= 1; dj++)
      for (int di = -1; di <= 1; di++) {
        const int xx = x + di, yy = y + dj;
        if (xx < 0 || xx >= w || yy < 0 || yy >= h)
          continue;
        const size_t j = (size_t) yy * w + xx;
        if (cls[j] != kCannyNone && !edge[j]) {
          edge[j] = 1;
          stack.push_back (j);
        }
      }
  }
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      dst.data[(size_t) y * dst.pitch + x] = edge[(size_t) y * w + x] ? 255 : 0;
}

}  // namespace cpu
}  // namespace cudavision
