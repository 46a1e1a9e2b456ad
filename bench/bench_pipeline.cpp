/* cudavision-bench-pipeline — frames per second of a chain of our elements
 * with GPU-resident frames: appsrc pushes device frames (uploaded once,
 * before timing) through the chain into fakesink, all in one shared
 * GstCudaContext, and the upload/download counters prove no host copy.
 *
 *   cudavision-bench-pipeline [--chain "cudagray ! cudablur"] [--size 3840x2160]
 *                             [--format RGBA] [--frames 1000] [--picture FILE]
 *                             [--clip FILE]
 * (--size sides 16 to 16384, --frames 1 to 10^7: anything else, or an
 * unknown format, is refused with exit status 2 before CUDA starts)
 *
 * The frames are random bytes (noise), or with --picture a picture
 * (a bundled name such as building.jpg, or a path) decoded by GStreamer,
 * cropped to the frame's aspect, scaled (fit_picture) and converted to the
 * format, or one
 * of the face detector's inputs (frames/face_inputs.h: mosaic,
 * portraits, nonface), grey in every channel. With --clip, the first four
 * frames of a video file (decodebin, then videoconvert to the format, NV12
 * and I420 too, at the clip's size): the chain's rate on device frames of
 * the very pictures a decoder pipeline on that clip feeds it
 * (cudavision-streams-decode). */
#include "bench_util.h"
#include "../frames/face_inputs.h"
#include "../frames/gst_frames.h"

#include "gstcvbufferpool.h"
#include "gstcvcontext.h"
#include "plugin.h"

#include <gst/app/gstappsrc.h>
#include <gst/cuda/gstcudautils.h>
#include <opencv2/imgproc.hpp>

#include <gst/app/gstappsink.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

/* `name` (in tests/data unless it is a path) as `format` at w x h:
 * cropped around its centre to the aspect, scaled, converted. Empty when
 * the format is not one of GRAY8, RGBA, BGRA, RGBx, BGRx. */
static cv::Mat
picture (const std::string & name, const std::string & format, int w, int h)
{
  if (name == "mosaic" || name == "portraits" || name == "nonface") {
    const cv::Mat grey = cvtest::face_input_at (cvtest::face_input_source (name), w, h);
    cv::Mat out;
    if (format == "GRAY8")
      out = grey;
    else if (format == "RGBA" || format == "RGBx" || format == "BGRA" || format == "BGRx")
      cv::cvtColor (grey, out, cv::COLOR_GRAY2RGBA);
    return out;
  }
  const std::string path = name.find ('/') == std::string::npos ? std::string (CUDAVISION_TEST_DATA) + "/" + name : name;
  const cv::Mat rgb = cvtest::load_rgb (path);
  const cv::Mat fitted = cvtest::fit_picture (rgb, cv::Size (w, h));
  cv::Mat out;
  if (format == "GRAY8")
    cv::cvtColor (fitted, out, cv::COLOR_RGB2GRAY);
  else if (format == "RGBA" || format == "RGBx")
    cv::cvtColor (fitted, out, cv::COLOR_RGB2RGBA);
  else if (format == "BGRA" || format == "BGRx")
    cv::cvtColor (fitted, out, cv::COLOR_RGB2BGRA);
  return out;
}

/* The first `n` frames of a clip as `format`, host buffers with their
 * caps' layout; empty when it cannot be decoded. */
static std::vector<GstSample *>
clip_frames (const std::string & path, const std::string & format, int n)
{
  std::vector<GstSample *> out;
  const std::string desc = "filesrc location=\"" + path + "\" ! decodebin ! videoconvert ! video/x-raw,format=" + format +
      " ! appsink name=out sync=false max-buffers=" + std::to_string (n) + " drop=false";
  GstElement *pipe = gst_parse_launch (desc.c_str (), nullptr);
  if (!pipe)
    return out;
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "out");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while ((int) out.size () < n) {
    GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 30 * GST_SECOND);
    if (!sample)
      break;
    out.push_back (sample);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  return out;
}

int
main (int argc, char **argv)
{
  std::string chain = "cudagray", format = "RGBA", picture_name, clip;
  int w = 3840, h = 2160, frames = 1000;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp (argv[i], "--chain"))
      chain = cvbench::arg_value (argc, argv, i);
    else if (!std::strcmp (argv[i], "--size")) {
      const cvbench::Dims d = cvbench::arg_dims ("--size", cvbench::arg_value (argc, argv, i));
      w = d.w;
      h = d.h;
    } else if (!std::strcmp (argv[i], "--format"))
      format = cvbench::arg_value (argc, argv, i);
    else if (!std::strcmp (argv[i], "--frames"))
      frames = cvbench::arg_int ("--frames", cvbench::arg_value (argc, argv, i), 1, 10000000);
    else if (!std::strcmp (argv[i], "--picture"))
      picture_name = cvbench::arg_value (argc, argv, i);
    else if (!std::strcmp (argv[i], "--clip"))
      clip = cvbench::arg_value (argc, argv, i);
    else {
      std::fprintf (stderr,
          "usage: %s [--chain DESC] [--size WxH] [--format F] [--frames N] [--picture FILE] [--clip FILE]\n", argv[0]);
      return 2;
    }
  }
  gst_init (&argc, &argv);
  if (gst_video_format_from_string (format.c_str ()) == GST_VIDEO_FORMAT_UNKNOWN)
    cvbench::bad_usage ("--format: no video format '" + format + "'");
  std::vector<GstSample *> decoded;
  if (!clip.empty ()) {
    decoded = clip_frames (clip, format, 4);
    GstVideoInfo ci;
    if (decoded.empty () || !gst_video_info_from_caps (&ci, gst_sample_get_caps (decoded[0]))) {
      std::fprintf (stderr, "--clip: cannot decode %s to %s\n", clip.c_str (), format.c_str ());
      return 2;
    }
    w = ci.width;
    h = ci.height;
  }
  cudavision_register_static ();
  if (!gst_cv_cuda_available ()) {
    std::fprintf (stderr, "no CUDA device\n");
    return 77;
  }
  GstCudaContext *ctx = gst_cuda_context_new (0);
  const std::string caps = "video/x-raw(memory:CudaVisionMemory),format=" + format + ",width=" + std::to_string (w) +
      ",height=" + std::to_string (h) + ",framerate=0/1";
  const std::string desc = "appsrc name=src format=time caps=\"" + caps + "\" ! " + chain +
      " ! fakesink name=sink sync=false";
  GstElement *pipe = gst_parse_launch (desc.c_str (), nullptr);
  if (!pipe) {
    std::fprintf (stderr, "cannot build %s\n", desc.c_str ());
    return 1;
  }
  /* One context for the source frames and every element. */
  GstContext *gctx = gst_context_new_cuda_context (ctx);
  gst_element_set_context (pipe, gctx);
  gst_context_unref (gctx);

  cv::Mat pic;
  if (!picture_name.empty ()) {
    pic = picture (picture_name, format, w, h);
    if (pic.empty ()) {
      std::fprintf (stderr, "--picture: format %s is not GRAY8, RGBA, BGRA, RGBx or BGRx\n", format.c_str ());
      return 2;
    }
  }
  /* A few distinct device frames with real content: noise, or the picture. */
  GstVideoInfo info;
  if (!gst_video_info_set_format (&info, gst_video_format_from_string (format.c_str ()), w, h)) {
    std::fprintf (stderr, "unknown format %s\n", format.c_str ());
    return 2;
  }
  GstBufferPool *pool = gst_cv_buffer_pool_new (ctx);
  GstCaps *pcaps = gst_caps_from_string (caps.c_str ());
  GstStructure *cfg = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (cfg, pcaps, info.size, 0, 0);
  gst_buffer_pool_set_config (pool, cfg);
  gst_buffer_pool_set_active (pool, TRUE);
  std::vector<GstBuffer *> src;
  std::mt19937 rng (7);
  for (int i = 0; i < 4; i++) {
    GstBuffer *b = nullptr;
    gst_buffer_pool_acquire_buffer (pool, &b, nullptr);
    GstMapInfo map;
    if (!decoded.empty ()) {
      /* a decoded frame, every plane, into the device frame's layout */
      GstSample *sample = decoded[i % decoded.size ()];
      GstVideoInfo from;
      gst_video_info_from_caps (&from, gst_sample_get_caps (sample));
      GstVideoFrame in, vf;
      gst_video_frame_map (&in, &from, gst_sample_get_buffer (sample), GST_MAP_READ);
      gst_video_frame_map (&vf, &info, b, GST_MAP_WRITE);
      gst_video_frame_copy (&vf, &in);
      gst_video_frame_unmap (&vf);
      gst_video_frame_unmap (&in);
    } else if (pic.empty ()) {
      gst_buffer_map (b, &map, GST_MAP_WRITE);  /* host write: uploaded at first device use */
      for (gsize k = 0; k + 4 <= map.size; k += 4)
        *(uint32_t *) (map.data + k) = rng ();
      gst_buffer_unmap (b, &map);
    } else {
      GstVideoFrame vf;
      gst_video_frame_map (&vf, &info, b, GST_MAP_WRITE);
      for (int y = 0; y < h; y++)
        std::memcpy ((uint8_t *) GST_VIDEO_FRAME_PLANE_DATA (&vf, 0) + (size_t) y * GST_VIDEO_FRAME_PLANE_STRIDE (&vf, 0),
            pic.ptr (y), (size_t) w * pic.elemSize ());
      gst_video_frame_unmap (&vf);
    }
    /* A device map uploads now, so the timed run counts only the chain's
     * own transfers. */
    gst_buffer_map (b, &map, (GstMapFlags) (GST_MAP_READ | GST_MAP_CUDA));
    gst_buffer_unmap (b, &map);
    src.push_back (b);
  }

  GstElement *appsrc = gst_bin_get_by_name (GST_BIN (pipe), "src");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  const int warmup = 50;
  auto push = [&] (int i) {
    GstBuffer *b = gst_buffer_copy (src[i % src.size ()]);  /* shares the device memory */
    GST_BUFFER_PTS (b) = (GstClockTime) i * GST_MSECOND;
    gst_app_src_push_buffer (GST_APP_SRC (appsrc), b);
  };
  for (int i = 0; i < warmup; i++)
    push (i);
  guint64 up0 = 0, down0 = 0;
  gst_cv_transfer_counts (&up0, &down0);
  auto t0 = std::chrono::steady_clock::now ();
  for (int i = warmup; i < warmup + frames; i++)
    push (i);
  gst_app_src_end_of_stream (GST_APP_SRC (appsrc));
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 300 * GST_SECOND,
      (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  {
    /* EOS only means every frame was enqueued: the benchmark (not the
     * elements) waits for the GPU to finish before reading the clock. */
    GstCvContextGuard guard (ctx);
    cvbench::check (cudaDeviceSynchronize (), "sync");
  }
  auto t1 = std::chrono::steady_clock::now ();
  guint64 up1 = 0, down1 = 0;
  gst_cv_transfer_counts (&up1, &down1);
  int rc = 0;
  if (!msg || GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    std::fprintf (stderr, "pipeline failed\n");
    rc = 1;
  } else {
    const double s = std::chrono::duration<double> (t1 - t0).count ();
    std::printf ("pipeline: %s\nsource: %s\nframes: %d %dx%d %s in %.3f s = %.1f frames/s; host copies during the run: "
                 "%" G_GUINT64_FORMAT " uploads, %" G_GUINT64_FORMAT " downloads\n",
        chain.c_str (),
        !clip.empty () ? clip.c_str () : picture_name.empty () ? "noise (random bytes)" : picture_name.c_str (), frames,
        w, h,
        format.c_str (), s, frames / s, up1 - up0, down1 - down0);
  }
  if (msg)
    gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  for (GstBuffer *b : src)
    gst_buffer_unref (b);
  for (GstSample *sm : decoded)
    gst_sample_unref (sm);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_caps_unref (pcaps);
  gst_object_unref (bus);
  gst_object_unref (appsrc);
  gst_object_unref (pipe);
  gst_object_unref (ctx);
  return rc;
}
