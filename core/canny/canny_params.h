/* cudavision — the parameters of a Canny edge detection, shared by the GPU
 * path (canny.h), the CPU backend (cpu/canny_cpu.h) and the element.
 * Pure C++: the CPU backend is built without the CUDA headers. */
#pragma once

namespace cudavision {

/* Where the thresholds come from. Otsu and Median: high = the frame's Otsu
 * threshold (cv::threshold's THRESH_OTSU value) or its median, low =
 * high / 2; computed from the frame the detection receives, before any
 * pre-blur. */
enum class CannyAuto { Off = 0, Otsu = 1, Median = 2 };

struct CannyParams {
  double low_threshold = 50;
  double high_threshold = 150;
  int aperture = 3; /* Sobel ksize: 3, 5 or 7 */
  bool l2_gradient = false;
  CannyAuto auto_threshold = CannyAuto::Off;
  /* Gaussian pre-blur, as cv::GaussianBlur (src, tmp, Size (k, k), sigma,
   * sigma, BORDER_REFLECT_101): blur_ksize odd 3..31, or 0 for none. */
  int blur_ksize = 0;
  double blur_sigma = 0;
};

inline bool
canny_params_valid (const CannyParams & p)
{
  const bool blur_ok = p.blur_ksize == 0 || (p.blur_ksize >= 3 && p.blur_ksize <= 31 && (p.blur_ksize & 1) &&
      p.blur_sigma > 0);
  return (p.aperture == 3 || p.aperture == 5 || p.aperture == 7) && blur_ok;
}

}  // namespace cudavision
