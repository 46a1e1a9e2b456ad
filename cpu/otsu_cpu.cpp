#include "otsu_cpu.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

namespace cudavision {
namespace cpu {

int
otsu (ConstImage8 src, Image8 dst, bool binarize, bool invert)
{
  if (src.width <= 0 || src.height <= 0)
    return 0;
  cv::Mat s (src.height, src.width, CV_8UC1, const_cast<uint8_t *> (src.data), src.pitch);
  cv::Mat d (dst.height, dst.width, CV_8UC1, dst.data, dst.pitch);
  /* OpenCV 4.6 has no THRESH_DRYRUN: threshold-only binarizes into dst and
   * then copies the frame over it. */
  const double t = cv::threshold (s, d, 0, 255, (invert ? cv::THRESH_BINARY_INV : cv::THRESH_BINARY) | cv::THRESH_OTSU);
  if (!binarize)
    s.copyTo (d);
  return (int) t;
}

}  // namespace cpu
}  // namespace cudavision
