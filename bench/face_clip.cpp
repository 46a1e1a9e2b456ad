#include "face_clip.h"

#include "../frames/gst_frames.h"

#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <opencv2/imgproc.hpp>

#include <cmath>
#include <cstring>
#include <vector>

namespace cvbench {

namespace {

struct Cell {
  int col, row, span;
  const char *file;
  double cy;  /* where the crop sits down the picture (faces are in the upper half) */
};

/* A 4 x 3 grid over a canvas twice the frame's size each way: portraits
 * (one frontal face each, ~200-300 px at 1080p), the face tiles over two
 * cells (dozens of 48 px faces, ~40-55 px on screen), and pictures with
 * corners and edges (a building, a chessboard, a sudoku) for cudaharris,
 * cudaflow and cudacanny. */
const Cell kCells[] = {
  { 0, 0, 1, "astronaut.png", 0.4 },
  { 1, 0, 2, "faces/face_tiles.png", 0.5 },
  { 3, 0, 1, "building.jpg", 0.5 },
  { 0, 1, 1, "grace_hopper.jpg", 0.4 },
  { 1, 1, 1, "left01.jpg", 0.5 },
  { 2, 1, 1, "astronaut.png", 0.4 },
  { 3, 1, 1, "basketball1.png", 0.5 },
  { 0, 2, 1, "sudoku.png", 0.5 },
  { 1, 2, 1, "grace_hopper.jpg", 0.4 },
  { 2, 2, 2, "faces/face_tiles.png", 0.5 },
};

cv::Mat
mosaic (int w, int h)
{
  const int cols = 4, rows = 3, cw = 2 * w / cols, ch = 2 * h / rows;
  cv::Mat canvas (rows * ch, cols * cw, CV_8UC3, cv::Scalar (40, 40, 40));
  for (const Cell & c : kCells) {
    const cv::Mat pic = cvtest::load_rgb (std::string (CUDAVISION_TEST_DATA) + "/" + c.file);
    const cv::Rect r (c.col * cw, c.row * ch, c.span * cw, ch);
    cvtest::fit_picture (pic, r.size (), c.cy).copyTo (canvas (r));
    /* a dark frame round each picture: straight edges and corners where
     * the pictures meet, as between the panes of a video wall */
    cv::rectangle (canvas, r, cv::Scalar (20, 20, 20), std::max (2, w / 480));
  }
  return canvas;
}

/* Frame i of n: the canvas seen through a window that pans round an
 * ellipse and zooms in and out once over the clip (periodic: frame n
 * would be frame 0 again). Canvas pixels per frame pixel: 1 / s with s in
 * [0.62, 0.90]; the window stays inside the canvas. */
cv::Mat
view (const cv::Mat & canvas, int w, int h, int i, int n)
{
  const double t = 2 * M_PI * i / n;
  const double s = 0.76 + 0.14 * std::sin (t);
  const double cx = canvas.cols / 2.0 + 0.18 * w * std::cos (t);
  const double cy = canvas.rows / 2.0 + 0.18 * h * std::sin (2 * t);
  /* frame (x, y) <- canvas (cx + (x - w/2) / s, cy + (y - h/2) / s) */
  const cv::Mat m = (cv::Mat_<double> (2, 3) << 1 / s, 0, cx - w / (2 * s), 0, 1 / s, cy - h / (2 * s));
  cv::Mat out;
  cv::warpAffine (canvas, out, m, cv::Size (w, h), cv::INTER_LINEAR | cv::WARP_INVERSE_MAP, cv::BORDER_REFLECT_101);
  return out;
}

}  // namespace

bool
make_face_clip (const std::string & path, const ClipSpec & spec, std::string & error)
{
  for (const char *f : { "appsrc", "videoconvert", "openh264enc", "h264parse", "mp4mux", "filesink", "pngdec",
           "jpegdec" }) {
    GstElementFactory *fac = gst_element_factory_find (f);
    if (!fac) {
      error = std::string ("GStreamer element '") + f + "' not found: the clip generator needs appsrc, videoconvert, "
          "openh264enc, h264parse, mp4mux, filesink, pngdec and jpegdec (or give an H.264 MP4 with --clip)";
      return false;
    }
    gst_object_unref (fac);
  }
  if (spec.width < 64 || spec.height < 64 || spec.width % 2 || spec.height % 2 || spec.frames < 1) {
    error = "clip size must be even and at least 64x64, with at least one frame";
    return false;
  }
  cv::Mat canvas;
  try {
    canvas = mosaic (spec.width, spec.height);
  } catch (const std::exception & e) {
    error = std::string ("clip: ") + e.what ();
    return false;
  }
  const unsigned bitrate = spec.bitrate ? spec.bitrate : (unsigned) std::min<double> (4.0 * spec.width * spec.height,
      4e9);
  const std::string caps = "video/x-raw,format=RGB,width=" + std::to_string (spec.width) + ",height=" +
      std::to_string (spec.height) + ",framerate=30/1";
  /* gop-size 30: an IDR every second, as network cameras send; the first
   * frame is one, so a loop restarts cleanly. (libopenh264 prints
   * "cmInitParaError" when the element drains it at EOS: the file is
   * complete, every frame decodes.) */
  const std::string desc = "appsrc name=src format=time block=true max-buffers=4 caps=\"" + caps +
      "\" ! videoconvert ! video/x-raw,format=I420 ! openh264enc rate-control=bitrate bitrate=" +
      std::to_string (bitrate) + " gop-size=30 ! h264parse ! mp4mux ! filesink name=out";
  GError *err = nullptr;
  GstElement *pipe = gst_parse_launch (desc.c_str (), &err);
  if (err) {
    error = std::string ("clip pipeline: ") + err->message;
    g_clear_error (&err);
    if (pipe)
      gst_object_unref (pipe);
    return false;
  }
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src"), *out = gst_bin_get_by_name (GST_BIN (pipe), "out");
  g_object_set (out, "location", path.c_str (), nullptr);
  gst_object_unref (out);
  GstBus *bus = gst_element_get_bus (pipe);
  bool ok = gst_element_set_state (pipe, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE;
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGB, spec.width, spec.height);
  for (int i = 0; ok && i < spec.frames; i++) {
    const cv::Mat f = view (canvas, spec.width, spec.height, i, spec.frames);
    GstBuffer *b = gst_buffer_new_allocate (nullptr, info.size, nullptr);
    GstMapInfo map;
    gst_buffer_map (b, &map, GST_MAP_WRITE);
    for (int y = 0; y < spec.height; y++)
      std::memcpy (map.data + info.offset[0] + (size_t) y * info.stride[0], f.ptr (y), (size_t) spec.width * 3);
    gst_buffer_unmap (b, &map);
    GST_BUFFER_PTS (b) = gst_util_uint64_scale (i, GST_SECOND, 30);
    GST_BUFFER_DURATION (b) = gst_util_uint64_scale (i + 1, GST_SECOND, 30) - GST_BUFFER_PTS (b);
    ok = gst_app_src_push_buffer (GST_APP_SRC (src), b) == GST_FLOW_OK;
  }
  if (ok)
    gst_app_src_end_of_stream (GST_APP_SRC (src));
  /* EOS (the file is complete: mp4mux writes its index at EOS) or the
   * first error */
  GstMessage *m = gst_bus_timed_pop_filtered (bus, 600 * GST_SECOND,
      (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  if (!m) {
    error = "clip: no EOS within 600 s";
    ok = false;
  } else if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    GError *e = nullptr;
    gst_message_parse_error (m, &e, nullptr);
    error = std::string ("clip: ") + GST_OBJECT_NAME (GST_MESSAGE_SRC (m)) + ": " + e->message;
    g_clear_error (&e);
    ok = false;
  } else if (!ok) {
    error = "clip: the encoder refused a frame";
  }
  if (m)
    gst_message_unref (m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (pipe);
  return ok;
}

}  // namespace cvbench
