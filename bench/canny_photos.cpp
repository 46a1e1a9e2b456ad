#include "canny_photos.h"

#include "bench_util.h"
#include "canny_frame.h"
#include "../frames/gst_frames.h"

#include <opencv2/imgproc.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

namespace cvbench {

namespace {

/* Where the frames go: $CUDAVISION_CANNY_FRAMES (made when missing), else
 * a directory of this run's own, removed at exit; empty when neither can
 * be had (said once). */
std::string
frames_dir ()
{
  static std::unique_ptr<TempDir> own;
  static std::string dir;
  static bool done = false;
  if (done)
    return dir;
  done = true;
  dir = canny_photo_dir ();
  if (!dir.empty ()) {
    std::error_code ec;
    std::filesystem::create_directories (dir, ec);
    return dir;
  }
  own = std::make_unique<TempDir> ("cudavision-canny-frames");
  if (!own->ok ()) {
    std::fprintf (stderr, "%s (the NPP baseline will lack the photographs)\n", own->error ().c_str ());
    return dir;
  }
  dir = own->path ();
  std::fprintf (stderr, "the scaled photographs for the NPP baseline: %s, %s (CUDAVISION_CANNY_FRAMES=DIR keeps them "
      "in DIR)\n", dir.c_str (), own->kept () ? "kept" : "removed at exit");
  return dir;
}

}  // namespace

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
  const std::string dir = frames_dir ();
  std::string why;
  if (!dir.empty () && !write_file_replacing (canny_photo_file (dir, file, w, h), gray.data, gray.total (), &why))
    std::fprintf (stderr, "%s (the NPP baseline will lack it)\n", why.c_str ());
  return out;
}

}  // namespace cvbench
