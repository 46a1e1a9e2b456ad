#include "facedetect_cpu.h"

#include "../core/draw/face_draw.h"

#include <opencv2/core.hpp>
#include <opencv2/objdetect.hpp>

#include <algorithm>
#include <cstring>
#include <tuple>

namespace cudavision {
namespace cpu {

FaceDetectorCpu::FaceDetectorCpu () = default;
FaceDetectorCpu::~FaceDetectorCpu () = default;

bool
FaceDetectorCpu::load (const std::string & path, std::string * error)
{
  auto c = std::make_unique<cv::CascadeClassifier> ();
  bool ok = false;
  try {
    ok = c->load (path);
  } catch (const std::exception & e) {
    /* cv::Exception, and what its FileStorage lets through (std::length_error
     * on type_id="str") */
    if (error)
      *error = path + ": OpenCV could not load the cascade: " + e.what ();
    return false;
  }
  if (!ok) {
    if (error)
      *error = path + ": OpenCV could not load the cascade";
    return false;
  }
  cascade_ = std::move (c);
  return true;
}

bool
FaceDetectorCpu::loaded () const
{
  return cascade_ && !cascade_->empty ();
}

std::vector<FaceRect>
FaceDetectorCpu::detect (ConstImage8 gray, const FaceDetectParams & p, std::vector<int> * neighbors)
{
  std::vector<FaceRect> out;
  if (neighbors)
    neighbors->clear ();
  if (!loaded () || gray.width <= 0 || gray.height <= 0)
    return out;
  const cv::Mat m (gray.height, gray.width, CV_8UC1, const_cast<uint8_t *> (gray.data), gray.pitch);
  /* detectMultiScale's own steps, in a fixed order: its threads append
   * the raw windows in whatever order they finish, so the grouped faces
   * come out in an order that changes from run to run. Sorted (y, x, size,
   * as the GPU backend sorts them) and grouped as it groups them
   * (groupRectangles, eps 0.2, with its weights: the numDetections of
   * detectMultiScale's overload): the same faces, always in one order, the
   * GPU backend's. */
  std::vector<cv::Rect> rects;
  cascade_->detectMultiScale (m, rects, p.scale_factor, 0, 0, cv::Size (p.min_width, p.min_height),
      cv::Size (p.max_width, p.max_height));
  std::sort (rects.begin (), rects.end (), [] (const cv::Rect & a, const cv::Rect & b) {
    return std::tie (a.y, a.x, a.width, a.height) < std::tie (b.y, b.x, b.width, b.height);
  });
  std::vector<int> weights (rects.size (), 1);
  if (p.min_neighbors > 0)
    cv::groupRectangles (rects, weights, p.min_neighbors, kFaceGroupEps);
  for (const cv::Rect & r : rects)
    out.push_back ({ r.x, r.y, r.width, r.height });
  if (neighbors)
    *neighbors = std::move (weights);
  return out;
}

void
draw_face_boxes (const Canvas & canvas, const std::vector<FaceRect> & boxes)
{
  for (const FaceRect & r : boxes) {
    const BoxBorder b = box_border (r.x, r.y, r.width, r.height, canvas.width, canvas.height);
    for (int i = 0; i < b.count (); i++) {
      int x, y;
      b.pixel (i, &x, &y);
      canvas.paint (x, y);
    }
  }
}

}  // namespace cpu
}  // namespace cudavision
