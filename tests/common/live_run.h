/* cudavision tests — a running "appsrc ! element ! appsink" pipeline fed
 * one frame at a time, with a property of the element changed between two
 * frames while it plays: what came out and what the bus said. The CPU and
 * GPU live-change suites (tests/gst/test_live_changes_cpu.cpp,
 * tests/gpu/test_live_changes_gpu.cpp) drive their elements with it. */
#pragma once

#include "flow_ref.h"

#include "../../core/flow/flow_params.h"

#include <gst/gst.h>
#include <gst/video/video.h>
#include <opencv2/core.hpp>

#include <functional>
#include <string>
#include <vector>

namespace cvtest {

/* What an appsink received, and what the bus said. */
struct LiveRun {
  std::vector<GstSample *> samples;
  std::vector<std::string> errors, warnings;
  /* samples out once each frame was pushed */
  std::vector<size_t> out_when_pushed;

  LiveRun () = default;
  LiveRun (const LiveRun &) = delete;
  LiveRun & operator= (const LiveRun &) = delete;
  ~LiveRun ();
  GstBuffer *buffer (size_t k) const { return gst_sample_get_buffer (samples[k]); }
  GstCaps *caps (size_t k) const { return gst_sample_get_caps (samples[k]); }
  /* The video info of sample k's caps (a failure when they are not video). */
  GstVideoInfo info (size_t k) const;
  bool has_warning_containing (const std::string & s) const;
  std::string first_error () const { return errors.empty () ? "no error" : errors[0]; }
};

/* A property change before frame k is pushed. */
using Change = std::function<void (size_t k, GstElement * element)>;

/* `seq`'s frames through "appsrc ! `element` ! `tail` appsink" (the last
 * element of `element` is the one changed), one at a time: frame k is
 * pushed, after `change (k, element)`, once frame k - 1 - `held` is out
 * (`held` = 1: latency-frames=1 keeps one frame back), so that a change
 * made there applies from frame k on, while the pipeline plays (held:
 * the frame held back when a renegotiation comes leaves before the new
 * frame is processed, so changes lie two frames apart at least). Stops
 * at an error. */
void run_live (LiveRun * r, const std::string & element, const FrameSequence & seq, const Change & change,
    const std::string & tail = "", size_t held = 0);

/* `property` set before frame k when k is one of `at`, alternating
 * between `first` and `second`: first at at[0], second at at[1], ... */
Change switch_at (const char *property, std::vector<size_t> at, const char *first, const char *second);

/* The changes of the suites' FlowRefusesColoursWithoutTheGrid on
 * cudaflow (sparse mode, passthrough): output=flow-color before frame 2
 * (refused: colours need the grid), mode=dense then output=flow-color
 * before frame 4 (taken), mode=sparse before frame 6 (refused); after
 * each, the value of the property set last goes to `seen`. */
Change flow_colour_changes (std::vector<std::string> * seen);

/* What flow_colour_changes must give: `seen` says the refused changes
 * kept the values (passthrough, dense) and the one taken holds
 * (flow-color), and a warning names each refused property. */
void expect_flow_colour_refusals (const LiveRun & r, const std::vector<std::string> & seen);

/* All `frames` came out, and the bus had no error. A missing frame leaves
 * nothing to check: call it through ASSERT_NO_FATAL_FAILURE. */
void expect_all_out (const LiveRun & r, size_t frames);

/* The format of sample k's caps. */
GstVideoFormat format_of (const LiveRun & r, size_t k);

/* A property's value as gst_value_serialize writes it ("" when it cannot). */
std::string property_string (GstElement * e, const char *name);

/* The scene the suites play: kLiveFrames crops of kLiveWidth x
 * kLiveHeight of a colour picture (astronaut.png) moving 2 px left and
 * 1 px up a frame, and cudaflow's dense grid step and max-flow on it. */
constexpr int kLiveWidth = 160, kLiveHeight = 120;
constexpr size_t kLiveFrames = 9;
constexpr int kLiveStep = 6;
constexpr float kLiveMaxFlow = 4.f;
std::vector<cv::Mat> moving_pictures ();

/* The grid's vectors on frame k of the scene (from frame k - 1):
 * OpenCV's, clipped to the frame as cudaflow clips them. */
std::vector<cudavision::FlowVector> dense_reference (const FrameSequence & s, size_t k);

/* output=flow-color as cudaflow's CPU backend paints it from the grid's
 * vectors `v` on a frame of the scene. */
cv::Mat flow_colours (const std::vector<cudavision::FlowVector> & v);

}  // namespace cvtest
