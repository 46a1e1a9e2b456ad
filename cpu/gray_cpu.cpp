#include "gray_cpu.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

namespace cudavision {
namespace cpu {

void
rgb_to_gray (ConstImage8 src, PackedRgb layout, Image8 dst)
{
  if (src.width <= 0 || src.height <= 0)
    return;
  const PackedRgbLayout l = packed_rgb_layout (layout);
  cv::Mat s (src.height, src.width, CV_8UC (l.channels), const_cast<uint8_t *> (src.data), src.pitch);
  cv::Mat d (dst.height, dst.width, CV_8UC1, dst.data, dst.pitch);
  if (l.channels == 3) {
    cv::cvtColor (s, d, l.r == 0 ? cv::COLOR_RGB2GRAY : cv::COLOR_BGR2GRAY);
    return;
  }
  switch (layout) {
    case PackedRgb::RGBA: case PackedRgb::RGBx:
      cv::cvtColor (s, d, cv::COLOR_RGBA2GRAY);
      return;
    case PackedRgb::BGRA: case PackedRgb::BGRx:
      cv::cvtColor (s, d, cv::COLOR_BGRA2GRAY);
      return;
    default: {
      /* ARGB/ABGR: OpenCV has no direct code; drop the leading byte with
       * mixChannels into RGB order, then cvtColor. */
      cv::Mat rgb (src.height, src.width, CV_8UC3);
      const int from_to[] = { l.r, 0, l.g, 1, l.b, 2 };
      cv::mixChannels (&s, 1, &rgb, 1, from_to, 3);
      cv::cvtColor (rgb, d, cv::COLOR_RGB2GRAY);
      return;
    }
  }
}

void
copy_plane (ConstImage8 src, Image8 dst)
{
  cv::Mat s (src.height, src.width, CV_8UC1, const_cast<uint8_t *> (src.data), src.pitch);
  cv::Mat d (dst.height, dst.width, CV_8UC1, dst.data, dst.pitch);
  s.copyTo (d);
}

}  // namespace cpu
}  // namespace cudavision
