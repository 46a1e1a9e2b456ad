/* cudavision tests and benchmarks — the face detector's speed inputs (see
 * face_inputs.h). */
#include "face_inputs.h"

#include "gst_frames.h"
#include "dead_leaves.h" /* the tuner's synthetic photograph */

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace cvtest {

namespace {

std::string
data (const std::string & name)
{
  return std::string (CUDAVISION_TEST_DATA) + "/" + name;
}

/* The 100 cells of face_tiles.png without a face (face_tiles.csv lists the
 * face boxes; 72-pixel cells, 20 x 10), as a 10 x 10 mosaic. */
cv::Mat
nonface_mosaic (const cv::Mat & tiles)
{
  const int cell = 72;
  std::vector<bool> face (200, false);
  std::ifstream csv (data ("faces/face_tiles.csv"));
  std::string line;
  while (std::getline (csv, line)) {
    int x, y, w, h;
    if (std::sscanf (line.c_str (), "%d,%d,%d,%d", &x, &y, &w, &h) == 4)
      face[(y / cell) * 20 + x / cell] = true;
  }
  cv::Mat out (10 * cell, 10 * cell, CV_8U, cv::Scalar (0));
  int k = 0;
  for (int i = 0; i < 200 && k < 100; i++) {
    if (face[i])
      continue;
    tiles (cv::Rect ((i % 20) * cell, (i / 20) * cell, cell, cell))
        .copyTo (out (cv::Rect ((k % 10) * cell, (k / 10) * cell, cell, cell)));
    k++;
  }
  return out;
}

cv::Mat
portraits ()
{
  const cv::Mat a = to_gray (cvtest::load_rgb (data ("astronaut.png")));
  const cv::Mat g = to_gray (cvtest::load_rgb (data ("grace_hopper.jpg")));
  const int h = std::max (a.rows, g.rows);
  cv::Mat as, gs;
  cv::resize (a, as, cv::Size (a.cols * h / a.rows, h));
  cv::resize (g, gs, cv::Size (g.cols * h / g.rows, h));
  cv::Mat out;
  cv::hconcat (as, gs, out);
  return out;
}

}  // namespace

cv::Mat
face_input_source (const std::string & name)
{
  if (name == "mosaic")
    return to_gray (cvtest::load_rgb (data ("faces/face_tiles.png")));
  if (name == "nonface")
    return nonface_mosaic (to_gray (cvtest::load_rgb (data ("faces/face_tiles.png"))));
  if (name == "portraits")
    return portraits ();
  if (name == "noise")
    return cv::Mat ();
  return to_gray (cvtest::load_rgb (data (name)));
}

cv::Mat
face_input_at (const cv::Mat & src, int w, int h)
{
  cv::Mat out (h, w, CV_8U);
  if (src.empty ()) {
    std::mt19937 rng (w * 7919 + h);
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        out.at<uint8_t> (y, x) = (uint8_t) (rng () & 0xff);
    return out;
  }
  const bool down = w * h < src.cols * src.rows;
  cv::resize (src, out, cv::Size (w, h), 0, 0, down ? cv::INTER_AREA : cv::INTER_LINEAR);
  return out;
}

cv::Mat
face_input (const std::string & name, int w, int h)
{
  if (name != "leaves")
    return face_input_at (face_input_source (name), w, h);
  cv::Mat out (h, w, CV_8U);
  cvtune::dead_leaves_frame (w, h, 1, out.data, out.step);
  return out;
}

}  // namespace cvtest
