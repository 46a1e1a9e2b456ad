/* cudavision benchmarks — a test clip of real content for decoder-fed
 * pipelines (bench/streams_decode.cpp): a mosaic of the bundled photos
 * (portraits, the face tiles, corners and edges of buildings and
 * chessboards) under a slow pan and zoom, so that faces, corners and flow
 * change from frame to frame, encoded as H.264 in MP4 by GStreamer
 * (openh264enc: the one H.264 encoder both the development machine and the
 * GPU machine's bundle have; the GPU machine has no NVENC).
 *
 * The motion is periodic over the clip (the last frame leads into the
 * first), so a pipeline that loops the clip sees no jump at the seam. */
#pragma once

#include <string>

namespace cvbench {

struct ClipSpec {
  int width = 1920, height = 1080;
  int frames = 300;           /* at 30 frames/s */
  unsigned bitrate = 0;       /* bits/s; 0: about 4 bits per pixel and second (8 Mbit/s at 1080p) */
};

/* Writes the clip to `path` (MP4). False with `error` set when an element
 * is missing (named) or the pipeline fails. */
bool make_face_clip (const std::string & path, const ClipSpec & spec, std::string & error);

}  // namespace cvbench
