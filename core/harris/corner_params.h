/* cudavision — the parameters of a corner detection, shared by the GPU
 * path (harris.h), the CPU backend (cpu/harris_cpu.h) and the element.
 * Pure C++: the CPU backend is built without the CUDA headers. */
#pragma once

namespace cudavision {

enum class CornerMethod { Harris = 0, ShiTomasi = 1 };

constexpr int kCornerMinBlock = 2, kCornerMaxBlock = 7;

struct CornerParams {
  CornerMethod method = CornerMethod::Harris;
  int block_size = 3; /* OpenCV's blockSize, 2..7 */
  int aperture = 3;   /* Sobel ksize: 3, 5 or 7 */
  double k = 0.04;    /* Harris free parameter */
};

struct CornerDetectParams {
  CornerParams corner;
  double quality_level = 0.01; /* > 0, as goodFeaturesToTrack requires */
  double min_distance = 10;
  int max_corners = 0; /* 0: no limit */
};

inline bool
corner_params_valid (const CornerParams & p)
{
  return p.block_size >= kCornerMinBlock && p.block_size <= kCornerMaxBlock &&
      (p.aperture == 3 || p.aperture == 5 || p.aperture == 7);
}

}  // namespace cudavision
