#include "harris_cpu.h"

#include "../core/draw/corner_marker.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

namespace cudavision {
namespace cpu {

static cv::Mat
as_mat (ConstImage8 v)
{
  return cv::Mat (v.height, v.width, CV_8UC1, const_cast<uint8_t *> (v.data), v.pitch);
}

std::vector<Corner>
good_features (ConstImage8 gray, const CornerDetectParams & p)
{
  std::vector<Corner> out;
  if (gray.width <= 0 || gray.height <= 0)
    return out;
  std::vector<cv::Point2f> pts;
  std::vector<float> quality;
  cv::goodFeaturesToTrack (as_mat (gray), pts, p.max_corners, p.quality_level, p.min_distance, cv::noArray (),
      quality, p.corner.block_size, p.corner.aperture, p.corner.method == CornerMethod::Harris, p.corner.k);
  out.reserve (pts.size ());
  for (size_t i = 0; i < pts.size (); i++)
    out.push_back ({ pts[i].x, pts[i].y, i < quality.size () ? quality[i] : 0.f });
  return out;
}

void
normalized_response (ConstImage8 gray, const CornerParams & p, Image8 dst)
{
  if (gray.width <= 0 || gray.height <= 0)
    return;
  cv::Mat r;
  if (p.method == CornerMethod::Harris)
    cv::cornerHarris (as_mat (gray), r, p.block_size, p.aperture, p.k, cv::BORDER_REFLECT_101);
  else
    cv::cornerMinEigenVal (as_mat (gray), r, p.block_size, p.aperture, cv::BORDER_REFLECT_101);
  double maxv = 0;
  cv::minMaxLoc (r, nullptr, &maxv);
  cv::Mat d (dst.height, dst.width, CV_8UC1, dst.data, dst.pitch);
  if (maxv > 0)
    r.convertTo (d, CV_8U, 255.0 / maxv);
  else
    d.setTo (0);
}

void
draw_corners (const Canvas & canvas, const std::vector<Corner> & corners)
{
  for (const Corner & c : corners)
    paint_marker (canvas, (int) c.x, (int) c.y);
}

}  // namespace cpu
}  // namespace cudavision
