/* cudavision benchmarks — the bundled photographs the Canny rows detect
 * on: decoded by GStreamer with the tests' code (the GPU machine has no
 * OpenCV imgcodecs), cropped to the frame's aspect ratio and scaled as
 * cudavision-bench-cpu's pictures are, then GRAY8 (cv::cvtColor). */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cvbench {

/* tests/data/`file` as a w x h GRAY8 frame, rows `pitch` bytes apart;
 * empty when it cannot be decoded. The frame is also written, unpadded,
 * for the NPP baseline: into $CUDAVISION_CANNY_FRAMES, else into a fresh
 * directory of this run, removed at exit (canny_frame.h). */
std::vector<uint8_t> canny_photo (const std::string & file, int w, int h, size_t pitch);

}  // namespace cvbench
