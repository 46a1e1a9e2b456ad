/* Faults and edges on the CPU backend, every element (tests/common/
 * edge_cases.h): caps changing mid-stream (size and format), EOS with no
 * buffer, read-only input, padded rows (odd pads, videocrop and videobox
 * upstream), flushing seeks on files with cudaflow (tracks restart) and
 * cudafacedetect. Output after each is what a fresh element gives. */
#include "../common/edge_cases.h"

#include <gtest/gtest.h>

using namespace cvtest;

static const std::string kCpu = "backend=cpu";

TEST (EdgesCpu, MidStreamSizeAndFormatChanges) { check_mid_stream_caps_changes (kCpu); }
TEST (EdgesCpu, EosWithoutBuffers) { check_eos_without_buffers (kCpu); }
TEST (EdgesCpu, ReadOnlyInput) { check_read_only_input (kCpu); }
TEST (EdgesCpu, PaddedRows) { check_padded_input (kCpu); }
TEST (EdgesCpu, VideocropAndVideoboxUpstream) { check_padding_elements_upstream (kCpu); }
TEST (EdgesCpu, FlowFlushingSeeksRestartTracks) { check_flow_flushing_seeks (kCpu); }
TEST (EdgesCpu, FaceFlushingSeeks) { check_face_flushing_seeks (kCpu); }
