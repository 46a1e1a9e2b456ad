/* cudavision tests — references for the corner detector: OpenCV's
 * response and corners, the comparisons the CPU and GPU suites share, and
 * the chessboard ground truth of left01.jpg. */
#pragma once

#include "../../core/harris/corner_params.h"
#include "../../core/harris/corner_select.h"

#include "video_frames.h"

#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <opencv2/core.hpp>

#include <string>
#include <vector>

namespace cvtest {

/* Parameters in one call, and their description for failure messages. */
cudavision::CornerParams corner_params (cudavision::CornerMethod m, int block, int aperture, double k = 0.04);
std::string describe (const cudavision::CornerParams & p);

/* The element description with every detection parameter of `p` set. */
std::string harris_element (const std::string & backend, const cudavision::CornerDetectParams & p);

/* cv::cornerHarris or cv::cornerMinEigenVal of a GRAY8 image. */
cv::Mat opencv_response (const cv::Mat & gray, const cudavision::CornerParams & p);

/* cv::goodFeaturesToTrack with the same parameters, with cornersQuality. */
std::vector<cudavision::Corner> opencv_corners (const cv::Mat & gray, const cudavision::CornerDetectParams & p);

/* What output=response gives: the response map convertTo (CV_8U, 255 / max),
 * all 0 when the maximum is not positive. */
cv::Mat opencv_normalized_response (const cv::Mat & gray, const cudavision::CornerParams & p);

/* The GPU path modelled on the host with the kernels' own functions
 * (harris_math.h) in the kernels' order: Sobel at the reflected in-image
 * position for halo products, horizontal then vertical float box sums, the
 * response. The kernel is expected to give it bit for bit. */
cv::Mat model_response (const cv::Mat & gray, const cudavision::CornerParams & p);

/* The GPU path's selection on a response map: the candidate test, sort
 * keys in descending order, and select_corners. */
std::vector<cudavision::Corner> model_corners (const cv::Mat & response, const cudavision::CornerDetectParams & p);

/* The device's selection (cuda/harris/corner_cells.h, the same code) run
 * on the host: cells filled as the candidate kernel fills them, walked by a
 * scheduler that visits them in shuffled orders (`seed`) and lets each
 * decide at most `steps` candidates per visit (0: as many as it can), then
 * ordered and cut at max_corners as the list kernel does. A schedule that
 * stops advancing fails (throws): the walk must never deadlock. */
std::vector<cudavision::Corner> cells_corners (const cv::Mat & response, const cudavision::CornerDetectParams & p,
    unsigned seed, int steps);

/* The one-block path's selection (corner_cells.h, decide_candidate) run
 * on the host: every undecided candidate decides from the last round's
 * decisions until none is left; `rounds` says how many it took. Throws if
 * a round decides nothing. */
std::vector<cudavision::Corner> rounds_corners (const cv::Mat & response, const cudavision::CornerDetectParams & p,
    int *rounds);

/* Response maps (CV_32F) that stress the selection: long chains of
 * candidates each suppressing the next, equal responses (ties go to the
 * later raster position), plateaus where every pixel is a candidate,
 * corners exactly at and just inside the minimum distance across cell
 * borders, dense random peaks. `d` is the minimum distance they are built
 * around. */
struct StressMap {
  std::string name;
  cv::Mat map;
};
std::vector<StressMap> selection_stress_maps (double d);

/* A GRAY8 frame of identical squares at irregular spacings (some closer
 * than the default minimum distance): every square gives the same
 * responses, so the corner list is decided by goodFeaturesToTrack's tie
 * order (equal responses: the later raster position first). */
cv::Mat tie_pattern_image (int width, int height);

/* max |a - b| / max |ref| over the frame (0 when both are all zero): the
 * "relative error" of a response map, which is relative to the frame's
 * scale because single pixels cross zero. */
double response_rel_error (const cv::Mat & got, const cv::Mat & ref, cv::Point * where = nullptr);

/* Fraction of `ref` points with a point of `got` within `radius` pixels. */
double recall (const std::vector<cudavision::Corner> & got, const std::vector<cudavision::Corner> & ref,
    double radius);

/* Same sets, same order, same scores? Empty string when equal, else the
 * first difference described. */
std::string diff_corner_lists (const std::vector<cudavision::Corner> & got,
    const std::vector<cudavision::Corner> & ref);

/* The 54 inner corners of left01.jpg by cv::findChessboardCorners (9x6),
 * refined with cornerSubPix; empty when not found. */
std::vector<cv::Point2f> left01_chessboard (const cv::Mat & gray);

/* Tolerance for left01's chessboard: OpenCV's own goodFeaturesToTrack
 * (blockSize 3, quality 0.01, min distance 10) is 1.7 px from the refined
 * corners on average and 2.39 px at worst, as Harris peaks sit beside the
 * saddle point of an X junction. */
constexpr double kChessboardRadius = 2.5;

/* How many of `truth` have a corner of `got` within `radius`. */
int matched (const std::vector<cv::Point2f> & truth, const std::vector<cudavision::Corner> & got, double radius);

/* The bundled images as GRAY8 (cv::cvtColor of their RGB). */
cv::Mat load_gray (const std::string & path);

/* One frame through a cudaharris description with GstHarness: the output,
 * the keypoints meta and the "cudaharris" element messages. */
struct HarrisRun {
  bool ok = false;                        /* an output buffer came */
  cv::Mat out;                            /* plane 0 of the output */
  std::vector<cv::Mat> planes;            /* every plane of the output (buffer_planes) */
  bool has_meta = false;
  std::vector<cudavision::Corner> corners; /* from GstCvKeypointsMeta */
  int messages = 0;
  unsigned msg_count = 0;                 /* "count" of the last message */
  std::vector<cudavision::Corner> msg_corners;
};
HarrisRun run_harris (const std::string & element, const std::string & in_caps, const std::string & out_caps,
    GstBuffer * in);
/* The same with a GRAY8 frame in. */
HarrisRun run_harris_gray (const std::string & element, const cv::Mat & gray,
    GstVideoFormat out = GST_VIDEO_FORMAT_GRAY8, const char *out_feature = nullptr);

/* The same with an RGB image in as format `f` (rgb_to_buffer), `out` the
 * output format. */
HarrisRun run_harris_rgb (const std::string & element, const cv::Mat & rgb, GstVideoFormat f, GstVideoFormat out);

/* Checks draw=true's marks on a 4-byte frame: `orig` the input bytes,
 * `out` the output. Counts marker pixels that are not red (the fourth
 * byte kept: for x layouts, whose padding the marks leave alone) and
 * pixels outside the markers that changed. */
struct MarkCheck {
  long marker_pixels = 0;
  long not_red = 0;
  long changed_outside = 0;
};
MarkCheck check_marks (const cv::Mat & out, const cv::Mat & orig, const std::vector<cudavision::Corner> & corners,
    int r_offset, int g_offset, int b_offset);

/* The bytes rgb_to_buffer makes for `f`, as a Mat (4-byte formats). */
cv::Mat packed_frame (const cv::Mat & rgb, GstVideoFormat f);

/* The corners of a buffer's GstCvKeypointsMeta; `has` says whether it
 * had one. */
std::vector<cudavision::Corner> buffer_corners (GstBuffer * buf, bool *has = nullptr);

/* The pixels draw=true paints for `corners` in a `width` x `height` frame:
 * the cross of corner_marker_offset at each corner's pixel, clipped to
 * the frame (repeats where crosses overlap). */
std::vector<cv::Point> corner_mark_pixels (const std::vector<cudavision::Corner> & corners, int width, int height);

/* A GstHarness around the elements of `description` in a bin (its
 * unlinked pads ghosted as "sink" and "src"), given the shared CUDA
 * context first: chains of elements, e.g. one that uploads the frames
 * before the element under test, driven frame by frame. nullptr when the
 * description does not parse. */
GstHarness *harness_for_bin (const std::string & description);

}  // namespace cvtest
