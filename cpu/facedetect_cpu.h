/* cudavision — cudafacedetect's CPU backend: cv::CascadeClassifier::
 * detectMultiScale with the element's parameters (flags 0, no histogram
 * equalization), and the same boxes the GPU draws. */
#pragma once

#include "../core/draw/canvas.h"
#include "../core/face/face_types.h"
#include "../core/image.h"

#include <memory>
#include <string>
#include <vector>

namespace cv {
class CascadeClassifier;
}

namespace cudavision {
namespace cpu {

class FaceDetectorCpu {
public:
  FaceDetectorCpu ();
  ~FaceDetectorCpu ();

  /* cv::CascadeClassifier::load; false (with a message) when OpenCV
   * refuses the file. */
  bool load (const std::string & path, std::string * error);
  bool loaded () const;

  /* The faces; with `neighbors`, each face's count of raw windows, as
   * detectMultiScale's numDetections (1 each where min_neighbors is 0). */
  std::vector<FaceRect> detect (ConstImage8 gray, const FaceDetectParams & params,
      std::vector<int> * neighbors = nullptr);

private:
  std::unique_ptr<cv::CascadeClassifier> cascade_;
};

/* Draws the boxes of face_draw.h on a frame's canvas. */
void draw_face_boxes (const Canvas & canvas, const std::vector<FaceRect> & boxes);

}  // namespace cpu
}  // namespace cudavision
