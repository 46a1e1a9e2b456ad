/* cudavision tests — shared helpers: the bundled images, frames to and from
 * GstBuffers, and pipelines with a bus to read errors and warnings from. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <opencv2/core.hpp>

#include "../../frames/gst_frames.h" /* load_rgb, buffer_to_mat, to_gray */
#include "sanitizer_pass.h"

#include <string>
#include <vector>

namespace cvtest {

/* Every image in tests/data (PNG and JPEG), sorted. */
std::vector<std::string> test_images ();
/* The photographs a long sweep runs over: test_images (), or under
 * sanitizer_pass () four of them (paths sorted as there) that hold the
 * sweep's cases: a drawn and a photographed chessboard (corners, ties,
 * long edges), and two odd heights (coins 384x303, sudoku 558x563). */
std::vector<std::string> sweep_images ();
std::string data_path (const std::string & name);

/* Random RGB frame of any size, seeded. */
cv::Mat random_rgb (int width, int height, uint64_t seed);

/* Converts an RGB image into the bytes of one GStreamer format, planes
 * packed with GstVideoInfo's default strides. Packed formats with an x or
 * A byte get noise there, so tests prove it is ignored. */
GstBuffer *rgb_to_buffer (const cv::Mat & rgb, GstVideoFormat format);

/* The same bytes with every row padded by `pad` bytes (an odd pad gives an
 * odd stride), the GstVideoMeta saying so: producers with odd pitches. */
GstBuffer *with_row_padding (GstBuffer * packed, GstVideoFormat format, int width, int height, int pad);

/* The expected GRAY8 of cudagray for a frame made by rgb_to_buffer. */
cv::Mat expected_gray (const cv::Mat & rgb, GstVideoFormat format);

/* GRAY8 / RGBA frames to and from buffers with default strides. */
GstBuffer *mat_to_buffer (const cv::Mat & m, GstVideoFormat format);

/* A new buffer holding `meta` (one of `b`'s) through its transform for a
 * scale of GRAY8 frames from `from` to `to` (videoscale's); nullptr when
 * the transform refuses. */
GstBuffer *scaled_meta_buffer (GstBuffer * b, GstMeta * meta, cv::Size from, cv::Size to);

std::string caps_string (GstVideoFormat format, int width, int height, const char *feature = nullptr);

/* `description` with every "%s" replaced by `backend` ("cpu", "cuda"):
 * one chain written once for both backends. */
std::string with_backend (const std::string & description, const char *backend);

/* Whether GStreamer has the element `name` (nvcodec's are optional). */
bool have_element (const char *name);

/* RGBA of an RGB image with seeded noise in A, which elements must ignore. */
cv::Mat to_rgba (const cv::Mat & rgb, uint64_t seed);
/* Seeded uniform random Mat of any type. */
cv::Mat random_mat (int w, int h, int type, uint64_t seed);
/* "WxHxC" for messages. */
std::string size_str (const cv::Mat & m);

/* The launch-policy settings every GPU test runs: each must give the same
 * pixels (the empirical table path is a missing file: model fallback). */
extern const char *const kBlockSizingModes[7];

/* Max |a-b| and the number of differing pixels. */
struct Diff {
  double max_abs = 0;
  long differing = 0;
};
Diff compare (const cv::Mat & a, const cv::Mat & b);

/* What an error or a warning message says: the name of the object that
 * posted it, "message | debug", and the GError's domain. */
struct BusError {
  bool is_error = false;
  std::string source;
  std::string text;
  GQuark domain = 0;
};
BusError parse_bus_error (GstMessage * error_or_warning);

/* Runs a gst-launch description to EOS or error (timeout in seconds) and
 * keeps what the bus said. */
struct BusResult {
  bool eos = false;
  std::vector<std::string> errors;    /* "domain: message | debug" */
  std::vector<std::string> warnings;
  std::vector<GQuark> error_domains;
  bool has_error_containing (const std::string & s) const;
  bool has_warning_containing (const std::string & s) const;
};
BusResult run_pipeline (const std::string & description, int timeout_s = 60);

/* Elements of the test process: cudavision is registered statically. */
void init_gstreamer (int *argc, char ***argv);

/* A GstContext (gst.cuda.context) that run_harness, run_pipeline and
 * pull_all give every element they start, as an application sharing one
 * CUDA context would: GPU tests set it once (creating a context per
 * element costs ~150 ms). nullptr: each element makes its own. */
void set_shared_context (GstContext * context);
GstContext *shared_context ();

}  // namespace cvtest

namespace cvtest {

/* Runs a pipeline ending in "appsink name=out" to EOS and returns every
 * frame it received, mapped on the host. */
std::vector<cv::Mat> pull_all (const std::string & description, int timeout_s = 120);

}  // namespace cvtest
