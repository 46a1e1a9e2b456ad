#include "canny_photos.h"

#include "canny_frame.h"
#include "../tests/common/gst_frames.h"

#include <opencv2/imgproc.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace cvbench {

std::vector<uint8_t>
canny_photo (const std::string & file, int w, int h, size_t pitch)
{
  cv::Mat rgb;
  try {
    rgb = cvtest::load_rgb (std::string (CUDAVISION_TEST_DATA) + "/" + file);
  } catch (const std::exception & e) {
    std::fprintf (stderr, "%s\n", e.what ());
    return {};
  }
  const cv::Mat scaled = cvtest::fit_picture (rgb, cv::Size (w, h));
  cv::Mat gray;
  cv::cvtColor (scaled, gray, cv::COLOR_RGB2GRAY);
  std::vector<uint8_t> out (pitch * h, 0);
  for (int y = 0; y < h; y++)
    std::memcpy (&out[(size_t) y * pitch], gray.ptr (y), (size_t) w);
  std::error_code ec;
  std::filesystem::create_directories (canny_photo_dir (), ec);
  std::ofstream f (canny_photo_path (file, w, h), std::ios::binary);
  f.write ((const char *) gray.data, (std::streamsize) gray.total ());
  if (!f)
    std::fprintf (stderr, "cannot write %s (the NPP baseline will lack it)\n", canny_photo_path (file, w, h).c_str ());
  return out;
}

}  // namespace cvbench
