/* cudavision tests — faults and edges, for every element, on either
 * backend: mid-stream caps changes, EOS without buffers, read-only and
 * padded input, flushing seeks, start/stop cycles without leaks. The CPU
 * suite (tests/gst/test_edges_cpu.cpp, test_lifecycle_cpu.cpp) runs them
 * with backend=cpu, the GPU suite (tests/gpu/test_edges_gpu.cpp) with
 * backend=cuda and device frames.
 *
 * What "right" means here: an element's output after a renegotiation, on
 * read-only or padded input, or after a flushing seek, is byte for byte
 * (pixels and metas) what a freshly started element gives on the same
 * frames. The elements' own suites compare fresh output with OpenCV. */
#pragma once

#include "test_util.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace cvtest {

/* An element under test and the input formats it is given: fmt_a and
 * fmt_b (the same one twice where the element has one single-plane input),
 * renegotiated between each other; and NV12 (a decoder's output),
 * renegotiated to and from `yuv_peer` (RGBA, or GRAY8 for the elements
 * that output GRAY8 whatever comes in). `props` makes its output depend on
 * what it found (draw=true, messages). */
struct EdgeElement {
  std::string name;
  std::string props;
  GstVideoFormat fmt_a;
  GstVideoFormat fmt_b;
  GstVideoFormat fmt_yuv;
  GstVideoFormat yuv_peer;
  std::string description (const std::string & backend) const { return name + " " + backend + " " + props; }
  /* fmt_a, fmt_b (when another) and fmt_yuv: what the read-only, padded
   * and cropped input checks go through */
  std::vector<GstVideoFormat> formats () const;
};
const std::vector<EdgeElement> & edge_elements ();

/* What an output frame says: its caps (format and size), the visible bytes
 * of every plane, the cudavision metas (points, vectors, faces, threshold)
 * printed exactly. */
struct Output {
  std::string caps;
  std::vector<uint8_t> bytes;
  std::string metas;
  bool operator== (const Output & o) const { return caps == o.caps && bytes == o.bytes && metas == o.metas; }
  bool operator!= (const Output & o) const { return !(*this == o); }
};
Output describe_output (GstBuffer * buf, GstCaps * caps);
/* Why two outputs differ, for a failure message. */
std::string difference (const Output & a, const Output & b);

/* A frame to push: grace_hopper.jpg (a face, edges, corners) scaled to
 * w x h and moved `shift` pixels right and down (motion for cudaflow), in
 * `format`, default strides. */
struct InFrame {
  GstVideoFormat format;
  int width, height, shift;
};
GstBuffer *make_frame (const InFrame & f);
std::string frame_caps (const InFrame & f);

/* Pushes the frames through `element` (a gst-launch description of one
 * element) in a GstHarness, new caps wherever a frame's caps differ from
 * the previous one's, and returns an Output per frame. The harness takes
 * `out_feature` output (nullptr: system memory). A frame the element
 * refuses ends the list early. `make` builds each input buffer (default:
 * make_frame). */
using FrameMaker = GstBuffer *(*) (const InFrame &);
std::vector<Output> run_frames (const std::string & element, const std::vector<InFrame> & frames,
    const char *out_feature = nullptr, FrameMaker make = nullptr);

/* The checks. `backend` is "backend=cpu" or "backend=cuda"; `out_feature`
 * the output memory the GPU checks also ask for. Each uses gtest's EXPECT
 * macros, naming the element in every failure. */
/* Renegotiation between fmt_a and fmt_b, and between NV12 and yuv_peer. */
void check_mid_stream_caps_changes (const std::string & backend, const char *out_feature = nullptr);
void check_eos_without_buffers (const std::string & backend);
/* These three go through every format of EdgeElement::formats (). */
void check_read_only_input (const std::string & backend);
void check_padded_input (const std::string & backend);
/* Upstream elements that hand over padded frames: videocrop (odd widths:
 * rows padded to 4 bytes) and videobox (not NV12), when installed. */
void check_padding_elements_upstream (const std::string & backend);
void check_flow_flushing_seeks (const std::string & backend);
void check_face_flushing_seeks (const std::string & backend);

/* `cycles` NULL -> PLAYING -> EOS -> NULL cycles of one pipeline holding
 * every element (w x h RGBA from videotestsrc, 2 frames a cycle), after one
 * warm-up cycle. With the leaks tracer active (GST_TRACERS=leaks), no
 * GStreamer object created during the cycles may outlive them; the
 * device memory in use (when `device_memory`) and the process's resident
 * memory may not grow beyond the given slack. */
struct CycleLimits {
  double device_mib = 0;  /* < 0: not checked */
  double rss_mib = 0;
};
void check_start_stop_cycles (const std::string & backend, int cycles, int w, int h, const CycleLimits & limits);

/* The leaks tracer, if GST_TRACERS named it; nullptr otherwise. */
GstTracer *leaks_tracer ();

/* Runs `cycle` (i = 1..cycles; false stops) under the leaks tracer's
 * tracking and fails when a GStreamer object made during the cycles is
 * still alive after them (warm the pipeline up first: what its first run
 * creates once, plugin features, pools, is not a leak). Fails too when
 * GST_TRACERS asks for the leaks tracer and it is not loaded (a GStreamer
 * without coretracers): a leak check that cannot run must not pass. Only
 * without GST_TRACERS=leaks it runs the cycles unchecked, saying so. */
void check_cycles_leave_nothing (const std::function<bool (int)> & cycle, int cycles);
/* Resident set size of this process, MiB. */
double resident_mib ();

}  // namespace cvtest
