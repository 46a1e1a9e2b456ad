/* cudavision benchmarks — the frame the Canny benchmarks detect on, ours
 * (bench_kernels.cpp) and NPP's (npp/npp_canny.cu) alike.
 *
 * Photographs have edges on a few percent of their pixels; the uniform
 * random frames of the other benchmarks make nearly every pixel an edge
 * candidate (the worst case, also timed) and a flat frame none. This one
 * is 24x24 cells of random grey, their borders smoothed by a 5x5 box, with
 * +-2 of noise: long edges along the cell borders with magnitudes spread
 * over the default thresholds, texture that Canny rejects inside the cells.
 * Header-only and plain C++, so the NPP programs build it without the
 * rest of the benchmarks. */
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace cvbench {

/* Host bytes of the frame, rows `pitch` bytes apart. */
inline std::vector<uint8_t>
canny_frame (int w, int h, size_t pitch, unsigned seed = 11)
{
  std::mt19937 rng (seed);
  const int cw = w / 24 + 1;
  std::vector<uint8_t> cell ((size_t) cw * (h / 24 + 1));
  for (auto & c : cell)
    c = (uint8_t) (rng () & 0xff);
  /* the cells, then a 5x5 box over them (clamped at the frame border) */
  std::vector<int> raw ((size_t) w * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      raw[(size_t) y * w + x] = cell[(size_t) (y / 24) * cw + x / 24];
  std::vector<int> rows ((size_t) w * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      int s = 0;
      for (int d = -2; d <= 2; d++)
        s += raw[(size_t) y * w + std::min (std::max (x + d, 0), w - 1)];
      rows[(size_t) y * w + x] = s;
    }
  std::vector<uint8_t> out (pitch * h, 0);
  std::uniform_int_distribution<int> noise (-2, 2);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      int s = 0;
      for (int d = -2; d <= 2; d++)
        s += rows[(size_t) std::min (std::max (y + d, 0), h - 1) * w + x];
      const int v = (s + 12) / 25 + noise (rng);
      out[(size_t) y * pitch + x] = (uint8_t) std::min (std::max (v, 0), 255);
    }
  return out;
}

/* The bundled photographs the Canny rows also detect on, scaled to each
 * benchmark size. cudavision-bench-kernels decodes them (GStreamer, as the
 * tests do) and, for npp/npp_canny.cu, which links neither GStreamer nor
 * OpenCV, leaves each scaled GRAY8 frame (w x h bytes, no padding) in
 * $CUDAVISION_CANNY_FRAMES: run the kernel benchmark first, with the same
 * variable set. Without it the frames go to a fresh directory of that run
 * (cvbench::TempDir), removed when it ends (kept, and named on stderr,
 * with CUDAVISION_KEEP_TEMP=1): there is no fixed default path, which in a
 * shared /tmp could be a symlink another user planted. */
static const char *const kCannyPhotos[] = { "building.jpg", "astronaut.png", "grace_hopper.jpg" };

/* $CUDAVISION_CANNY_FRAMES, or empty when it is not set. */
inline std::string
canny_photo_dir ()
{
  const char *d = std::getenv ("CUDAVISION_CANNY_FRAMES");
  return d && *d ? d : "";
}

/* "<dir>/building_3840x2160.gray" */
inline std::string
canny_photo_file (const std::string & dir, const std::string & photo, int w, int h)
{
  return dir + "/" + photo.substr (0, photo.find ('.')) + "_" + std::to_string (w) + "x" + std::to_string (h) +
      ".gray";
}

/* The frame in canny_photo_dir (); with the variable unset, a path under
 * the literal "$CUDAVISION_CANNY_FRAMES", so that a reader's "no such
 * file" names what to set. */
inline std::string
canny_photo_path (const std::string & photo, int w, int h)
{
  const std::string dir = canny_photo_dir ();
  return canny_photo_file (dir.empty () ? "$CUDAVISION_CANNY_FRAMES" : dir, photo, w, h);
}

}  // namespace cvbench
