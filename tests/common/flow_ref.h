/* cudavision tests — references for the optical flow: OpenCV's
 * calcOpticalFlowPyrLK and buildOpticalFlowPyramid, a host run of the GPU
 * tracker's code (cuda/flow_math.h) on OpenCV's own pyramids, synthetic
 * motion, the comparisons the CPU and GPU suites share, and cudaflow runs
 * over a sequence of frames with GstHarness. */
#pragma once

#include "../../core/flow/flow_params.h"

#include <cstdint>

#include <gst/gst.h>
#include <gst/video/video.h>
#include <opencv2/core.hpp>

#include <string>
#include <vector>

namespace cvtest {

/* The tracking parameters in one call. */
cudavision::FlowParams flow_params (int window, int max_level, int iterations, double epsilon, double min_eig);

/* Same points, same positions to the last bit, same status? Empty when
 * equal, else how many differ and the first difference. */
std::string diff_vectors (const std::vector<cudavision::FlowVector> & got,
    const std::vector<cudavision::FlowVector> & ref);

/* cv::calcOpticalFlowPyrLK (prev, next, xy) with p, no flags; vectors in
 * the points' order, OpenCV's status unchanged. */
std::vector<cudavision::FlowVector> opencv_lk (const cv::Mat & prev, const cv::Mat & next,
    const std::vector<cv::Point2f> & pts, const cudavision::FlowParams & p);

/* cv::goodFeaturesToTrack as cudaflow detects (Shi-Tomasi, blockSize 3,
 * Sobel 3). */
std::vector<cv::Point2f> opencv_features (const cv::Mat & gray, int max_corners, double quality = 0.01,
    double min_distance = 10);

/* The grid of flow_grid_point. */
std::vector<cv::Point2f> grid_points (int width, int height, int step);

/* cv::buildOpticalFlowPyramid (gray, pyr, window, max_level, true) split into
 * images and derivatives (CV_16SC2), each with its border as OpenCV made it
 * (the Mats are views into the bordered buffers). */
struct CvPyramid {
  std::vector<cv::Mat> images, derivs;
};
CvPyramid opencv_pyramid (const cv::Mat & gray, int window, int max_level);

/* The GPU kernels' pyramid computed on the host with their functions
 * (pyr_down_at, scharr_at): images (CV_8U) and derivatives (CV_16SC2). */
CvPyramid model_pyramid (const cv::Mat & gray, int window, int max_level);

/* The same pyramid made by the kernels' own per-thread code
 * (cuda/flow/flow_pyramid4.h: 4 pixels a thread from word loads), run on
 * the host over every thread, each level in its own exactly sized buffer
 * with the device's row pitch (a read past a level shows under ASan). */
CvPyramid model_pyramid4 (const cv::Mat & gray, int window, int max_level);

/* lk_track_point, the GPU tracker's code, run on the host on OpenCV's
 * pyramids of prev and next: what the kernel computes for these points,
 * up to nothing (its sums are exact integers either way). */
std::vector<cudavision::FlowVector> model_lk (const cv::Mat & prev, const cv::Mat & next,
    const std::vector<cv::Point2f> & pts, const cudavision::FlowParams & p);

/* The same with the kernel's warp layout (cuda/flow/lk_window.h): each of
 * the 32 lanes' share of the window sums computed by the lane's own code
 * and added up, on OpenCV's pyramids copied into exactly sized buffers with
 * the device's row pitch. Equal to model_lk bit for bit when the layout is
 * right. */
std::vector<cudavision::FlowVector> lane_model_lk (const cv::Mat & prev, const cv::Mat & next,
    const std::vector<cv::Point2f> & pts, const cudavision::FlowParams & p);

/* warpAffine with INTER_LINEAR, BORDER_REFLECT_101: the content moves by
 * (dx, dy) (multiples of 1/32 are exact: warpAffine quantizes to 1/32 px). */
cv::Mat shifted (const cv::Mat & gray, double dx, double dy);
/* Rotated by `degrees` about the centre (counter-clockwise on screen). */
cv::Mat rotated (const cv::Mat & gray, double degrees);

/* Endpoint errors of `got` against `ref` over the points both track. */
struct FlowCompare {
  size_t both = 0;          /* tracked by both */
  size_t status_same = 0;   /* same status */
  size_t n = 0;
  double median = 0, p90 = 0, max = 0;
  double agreement () const { return n ? (double) status_same / n : 1.0; }
  std::string str () const;
};
FlowCompare compare_flow (const std::vector<cudavision::FlowVector> & got,
    const std::vector<cudavision::FlowVector> & ref);

/* Endpoint errors against a known motion: `truth (x, y)` gives where the
 * point at (x, y) goes. Tracked points only; median and max. */
struct TruthError {
  size_t tracked = 0, n = 0;
  double median = 0, max = 0;
  std::string str () const;
};
TruthError truth_error (const std::vector<cudavision::FlowVector> & got, double dx, double dy);

/* cudaflow's rule on OpenCV's status (flow_in_frame). */
std::vector<cudavision::FlowVector> clipped (std::vector<cudavision::FlowVector> v, int width, int height);

/* What cudaflow put on each frame of a sequence pushed through GstHarness:
 * the flow meta's vectors (empty when a frame had none) and the output. */
struct FlowFrame {
  bool has_meta = false;
  std::vector<cudavision::FlowVector> vectors;
  unsigned grid_step = 0, grid_cols = 0, grid_rows = 0;
  cv::Mat out;
  std::vector<cv::Mat> planes; /* every plane of the output (buffer_planes) */
};

/* What an output buffer of `caps` carries: its flow meta and planes. */
FlowFrame flow_frame (GstBuffer * out, GstCaps * caps);

struct FlowRun {
  bool ok = false;
  std::vector<FlowFrame> frames;
  std::vector<GstStructure *> messages; /* "cudaflow" element messages, owned */
  ~FlowRun ();
  FlowRun () = default;
  FlowRun (FlowRun && o) noexcept;
  FlowRun & operator= (FlowRun &&) = delete;
};

/* One buffer to push: its bytes, flags and timestamps, and events before
 * it. */
struct FlowInput {
  GstBuffer *buffer = nullptr; /* taken */
  bool flush_before = false;
  bool segment_before = false;
};

/* Frames of one format made from RGB pictures (frame_buffer: rows padded
 * by `pad` bytes), with the planes and the luma (frame_luma) of their own
 * bytes. */
struct FrameSequence {
  std::string what, caps;
  GstVideoInfo info;
  GstVideoFormat format;
  int pad = 0;
  std::vector<cv::Mat> rgb, luma;
  std::vector<std::vector<cv::Mat>> planes;

  FrameSequence (const std::string & name, const std::vector<cv::Mat> & pictures, GstVideoFormat f, int row_pad = 0);
  /* The buffers to push (new ones, the same bytes every time). */
  std::vector<FlowInput> inputs () const;
};

/* Pushes `inputs` through the element description `element` (caps
 * `in_caps` -> `out_caps`) and collects every output. */
FlowRun run_flow (const std::string & element, const std::string & in_caps, const std::string & out_caps,
    std::vector<FlowInput> inputs);

/* GRAY8 frames in, GRAY8 out. */
FlowRun run_flow_gray (const std::string & element, const std::vector<cv::Mat> & frames);

/* The element description with every tracking parameter of `p`. */
std::string flow_element (const std::string & backend, const cudavision::FlowParams & p);

/* Consecutive frames of tests/data/realshort.mp4 as GRAY8, decoded with
 * GStreamer (qtdemux, h264parse, avdec_h264): for the CPU suite (the GPU
 * machine has no H.264 decoder). Empty when it cannot be decoded. */
std::vector<cv::Mat> realshort_gray (int max_frames);

/* Vectors as OpenCV points (previous positions). */
std::vector<cv::Point2f> prev_points (const std::vector<cudavision::FlowVector> & v);

/* ------------------------------------------------- draw=true, written out */

/* The pixels of the motion vectors draw=true paints: for each tracked
 * vector the line from its start to its end (each rounded to a pixel,
 * flow_round_px), max (|dx|, |dy|) + 1 evenly spaced pixels whose
 * positions are rounded half up, at most kFlowLineMax + 1 of them from the
 * start, clipped to the frame. Written here apart from flow_draw.h's
 * integer code. */
std::vector<cv::Point> flow_line_pixels (const std::vector<cudavision::FlowVector> & v, int width, int height);

/* The crosses of sparse mode: corner_mark_pixels at each tracked vector's
 * rounded end. */
std::vector<cv::Point> flow_marker_pixels (const std::vector<cudavision::FlowVector> & v, int width, int height);

/* Paints `pixels` on `planes` (a frame of `info`, caps_planes) in `argb`
 * as overlay_check.h states a painted pixel: packed RGB its R, G, B bytes
 * (and an alpha byte the colour's alpha), GRAY8 255, NV12 / I420 the luma
 * sample and the 4:2:0 chroma sample above it (overlay_color_bytes). A
 * later paint replaces an earlier one, samples shared included. */
void paint_pixels (std::vector<cv::Mat> & planes, const GstVideoInfo * info, uint32_t argb,
    const std::vector<cv::Point> & pixels);

/* The output draw=true must give for the vectors `v` on a frame whose
 * input planes are `in`: every line in `line_argb`, then (`markers`: sparse
 * mode) every cross in `marker_argb` on top. */
std::vector<cv::Mat> expected_flow_drawing (const std::vector<cv::Mat> & in, const GstVideoInfo * info,
    const std::vector<cudavision::FlowVector> & v, uint32_t line_argb, uint32_t marker_argb, bool markers);

}  // namespace cvtest
