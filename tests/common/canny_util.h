/* cudavision tests — Canny cases, references and test frames, shared by
 * the CPU and GPU suites. */
#pragma once

#include "test_util.h"

#include <gst/gst.h>
#include <opencv2/core.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cvtest {

/* One cv::Canny configuration. */
struct CannyCase {
  int aperture;
  bool l2;
  double low, high;
};

/* Every bundled image as GRAY8 (cv::cvtColor), resized to `size` when
 * it is not empty. */
std::vector<cv::Mat> bundled_gray (cv::Size size = cv::Size ());

/* A threshold for a GstCvOtsuMeta that is not the frame's own Otsu
 * threshold `own`: 60 grey levels away, within 0..255. */
int other_threshold (int own);

/* A GstBuffer of a GRAY8 frame with a GstCvOtsuMeta of `threshold`. */
GstBuffer *gray_buffer_with_otsu_meta (const cv::Mat & gray, int threshold);

/* Apertures 3, 5, 7 x L1 / L2 x the default thresholds (50, 150) and two
 * others (lower, higher): 18 cases. */
std::vector<CannyCase> canny_cases ();

/* The NV12 and I420 suites' pictures, named: building.jpg, astronaut.png,
 * and building.jpg fitted to 321x239 (chroma 161x120). */
std::vector<std::pair<std::string, cv::Mat>> yuv_pictures ();

/* Their cases: L1 and L2 at aperture 3 with the default thresholds,
 * aperture 5 (L2) and 7 (L1) with others. */
std::vector<CannyCase> yuv_canny_cases ();

/* "aperture=5 l2-gradient=true low-threshold=50 high-threshold=150" */
std::string canny_props (const CannyCase & c);

/* The pre-blur kernel size cudacanny uses for blur-sigma: OpenCV's size
 * for the sigma, at most 31; 0 (no blur) below 3. */
int canny_blur_ksize (double sigma);

/* cv::GaussianBlur (OpenCV's kernel size for blur_sigma, at most 31 taps,
 * as cudacanny uses) when blur_sigma > 0, then cv::Canny. */
cv::Mat opencv_canny (const cv::Mat & gray, const CannyCase & c, double blur_sigma = 0);

/* `element` on one frame of `format` (buffer `in`, taken): its GRAY8, in
 * `out_feature` memory (nullptr: system), mapped on the host. */
cv::Mat luma_through (const std::string & element, GstBuffer * in, GstVideoFormat format, int w, int h,
    const char *out_feature = nullptr);

/* cpu::canny_model: what the GPU computes, on the host. */
cv::Mat model_canny (const cv::Mat & gray, const CannyCase & c);
/* model_canny of every frame with every case, frame-major (frame i, case
 * k at i * cases.size () + k), on all the host's cores: the model runs on
 * one thread, and at 4K it is what a fidelity test waits for. */
std::vector<cv::Mat> model_canny_each (const std::vector<cv::Mat> & frames, const std::vector<CannyCase> & cases);

/* Percentage of equal pixels. */
double equal_percent (const cv::Mat & a, const cv::Mat & b);

/* The lower median of a GRAY8 frame, by sorting (independent of the
 * histogram the element uses). */
int sorted_median (const cv::Mat & gray);

/* A frame where one edge snakes across the whole image: a band 5 pixels
 * wide along a random-walk curve in a serpentine (passes 32 rows apart
 * joined by half circles) over background 100, +40 (an L1 Sobel-3
 * magnitude of about 160, just above 150) over its first 64 points and
 * +20 (about 80, between 50 and 150) everywhere else. Both sides of the
 * band are single edges running the whole curve: only hysteresis from the
 * start reaches the end. `path` is the curve, in order. */
struct SnakeFrame {
  cv::Mat image;
  std::vector<cv::Point> path;
};
SnakeFrame snake_frame (int w, int h, uint64_t seed);

/* Alternating 0 / 255 squares of `cell` pixels: edges everywhere. */
cv::Mat checkerboard (int w, int h, int cell);

/* Runs a gst-launch description ending in "appsink name=out" whose caps
 * are set to `sink_caps` after the pipeline is linked (gst_parse_launch
 * would refuse the link itself: caps a sink asks for at run time), to EOS
 * or error. What GRAY8 elements say to a consumer of memory:CUDAMemory. */
BusResult run_with_sink_caps (const std::string & description, const std::string & sink_caps, int timeout_s = 60);

}  // namespace cvtest
