/* cudavision — face detection results and parameters, shared by the GPU
 * detector (cuda/facedetect.h), the CPU backend (cpu/facedetect_cpu.h) and
 * the element. Pure C++. */
#pragma once

namespace cudavision {

/* A detection in the pixels of the analysed frame. */
struct FaceRect {
  int x = 0, y = 0, width = 0, height = 0;

  bool operator== (const FaceRect & o) const
  {
    return x == o.x && y == o.y && width == o.width && height == o.height;
  }
  bool operator!= (const FaceRect & o) const { return !(*this == o); }
  bool operator< (const FaceRect & o) const
  {
    if (y != o.y) return y < o.y;
    if (x != o.x) return x < o.x;
    if (width != o.width) return width < o.width;
    return height < o.height;
  }
};

/* cv::CascadeClassifier::detectMultiScale's parameters (flags 0). Sizes of
 * 0 mean "no limit", as in OpenCV. */
struct FaceDetectParams {
  double scale_factor = 1.1;
  int min_neighbors = 3;
  int min_width = 0, min_height = 0;
  int max_width = 0, max_height = 0;
};

/* OpenCV's grouping tolerance (CascadeClassifierImpl::detectMultiScale). */
constexpr double kFaceGroupEps = 0.2;

}  // namespace cudavision
