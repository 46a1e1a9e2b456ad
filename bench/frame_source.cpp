#include "frame_source.h"

#include "gstcvbufferpool.h"
#include "gstcvcontext.h"

#include "../frames/gst_frames.h"

#include <gst/app/gstappsrc.h>
#include <gst/cuda/gstcudautils.h>

#include <cuda_runtime_api.h>
#include <opencv2/imgproc.hpp>

#include <unistd.h>

#include <algorithm>
#include <sstream>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>

namespace cvbench {

/* ------------------------------------------------------------- frames */

static cv::Mat
picture (const std::string & image)
{
  const std::string path = image.empty () ? std::string (CUDAVISION_TEST_DATA) + "/grace_hopper.jpg" : image;
  try {
    return cvtest::load_rgb (path);
  } catch (const std::exception & e) {
    std::fprintf (stderr, "%s; using generated texture\n", e.what ());
    cv::Mat m (512, 512, CV_8UC3);
    cv::randu (m, 0, 256);
    cv::GaussianBlur (m, m, cv::Size (0, 0), 3);
    return m;
  }
}

/* The picture scaled to cover w x h (aspect kept, centre crop), moved by
 * (dx, dy) with mirrored borders. */
static cv::Mat
frame_content (const cv::Mat & pic, int w, int h, int dx, int dy)
{
  const double s = std::max ((double) w / pic.cols, (double) h / pic.rows);
  cv::Mat scaled;
  cv::resize (pic, scaled, cv::Size (std::max (w, (int) (pic.cols * s + 0.5)), std::max (h, (int) (pic.rows * s + 0.5))),
      0, 0, cv::INTER_LINEAR);
  const cv::Rect roi ((scaled.cols - w) / 2, (scaled.rows - h) / 2, w, h);
  cv::Mat crop = scaled (roi).clone (), moved;
  const cv::Mat shift = (cv::Mat_<double> (2, 3) << 1, 0, dx, 0, 1, dy);
  cv::warpAffine (crop, moved, shift, crop.size (), cv::INTER_NEAREST, cv::BORDER_REFLECT_101);
  return moved;
}

/* RGB into the bytes of `format` (RGBA family, GRAY8) through `f`. */
static void
fill (GstVideoFrame * f, const cv::Mat & rgb)
{
  const GstVideoFormat fmt = GST_VIDEO_FRAME_FORMAT (f);
  cv::Mat conv;
  switch (fmt) {
    case GST_VIDEO_FORMAT_GRAY8: cv::cvtColor (rgb, conv, cv::COLOR_RGB2GRAY); break;
    case GST_VIDEO_FORMAT_RGBA: case GST_VIDEO_FORMAT_RGBx: cv::cvtColor (rgb, conv, cv::COLOR_RGB2RGBA); break;
    case GST_VIDEO_FORMAT_BGRA: case GST_VIDEO_FORMAT_BGRx: cv::cvtColor (rgb, conv, cv::COLOR_RGB2BGRA); break;
    case GST_VIDEO_FORMAT_RGB: conv = rgb; break;
    case GST_VIDEO_FORMAT_BGR: cv::cvtColor (rgb, conv, cv::COLOR_RGB2BGR); break;
    default:
      throw std::runtime_error (std::string ("frame_source: unsupported format ") + gst_video_format_to_string (fmt));
  }
  const size_t row = (size_t) conv.cols * conv.elemSize ();
  for (int y = 0; y < conv.rows; y++)
    std::memcpy ((uint8_t *) GST_VIDEO_FRAME_PLANE_DATA (f, 0) + (size_t) y * GST_VIDEO_FRAME_PLANE_STRIDE (f, 0),
        conv.ptr (y), row);
}

std::string
frames_caps (GstVideoFormat format, int w, int h, bool device)
{
  return std::string ("video/x-raw") + (device ? "(memory:CudaVisionMemory)" : "") + ",format=" +
      gst_video_format_to_string (format) + ",width=" + std::to_string (w) + ",height=" + std::to_string (h) +
      ",framerate=30/1";
}

std::vector<GstBuffer *>
make_frames (GstCudaContext * ctx, GstVideoFormat format, int w, int h, int count, const std::string & image)
{
  const cv::Mat pic = picture (image);
  GstVideoInfo info;
  gst_video_info_set_format (&info, format, w, h);
  GstBufferPool *pool = nullptr;
  if (ctx) {
    pool = gst_cv_buffer_pool_new (ctx);
    GstCaps *caps = gst_caps_from_string (frames_caps (format, w, h, true).c_str ());
    GstStructure *cfg = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (cfg, caps, info.size, count, count);
    gst_buffer_pool_config_add_option (cfg, GST_BUFFER_POOL_OPTION_VIDEO_META);
    gst_buffer_pool_set_config (pool, cfg);
    gst_caps_unref (caps);
    gst_buffer_pool_set_active (pool, TRUE);
  }
  std::vector<GstBuffer *> out;
  for (int i = 0; i < count; i++) {
    GstBuffer *b = nullptr;
    if (pool) {
      if (gst_buffer_pool_acquire_buffer (pool, &b, nullptr) != GST_FLOW_OK)
        throw std::runtime_error ("frame_source: no device frame");
    } else {
      b = gst_buffer_new_allocate (nullptr, info.size, nullptr);
      gst_buffer_add_video_meta_full (b, GST_VIDEO_FRAME_FLAG_NONE, format, w, h, GST_VIDEO_INFO_N_PLANES (&info),
          info.offset, info.stride);
    }
    GstVideoMeta *vm = gst_buffer_get_video_meta (b);
    GstVideoInfo layout = info;
    for (guint p = 0; vm && p < vm->n_planes; p++) {
      layout.stride[p] = vm->stride[p];
      layout.offset[p] = vm->offset[p];
    }
    GstVideoFrame f;
    if (!gst_video_frame_map (&f, &layout, b, GST_MAP_WRITE))
      throw std::runtime_error ("frame_source: cannot map a frame");
    fill (&f, frame_content (pic, w, h, 2 * i, i));
    gst_video_frame_unmap (&f);
    if (pool) {
      /* a device map uploads the host write now, not during the run */
      GstMapInfo map;
      gst_buffer_map (b, &map, (GstMapFlags) (GST_MAP_READ | GST_MAP_CUDA));
      gst_buffer_unmap (b, &map);
    }
    out.push_back (b);
  }
  if (pool) {
    /* the buffers keep the pool (and its memory) alive until released */
    gst_object_unref (pool);
  }
  return out;
}

/* ------------------------------------------------------------- memory */

double
resident_mib ()
{
  std::ifstream f ("/proc/self/statm");
  long pages = 0, rss = 0;
  f >> pages >> rss;
  return rss * (double) sysconf (_SC_PAGESIZE) / (1024.0 * 1024.0);
}

double
device_used_mib ()
{
  size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo (&free_b, &total_b) != cudaSuccess) {
    cudaGetLastError ();
    return -1;
  }
  return (double) (total_b - free_b) / (1024.0 * 1024.0);
}

double
percentile (std::vector<double> v, double p)
{
  if (v.empty ())
    return 0;
  std::sort (v.begin (), v.end ());
  const size_t k = std::min (v.size () - 1, (size_t) (p * (v.size () - 1) + 0.5));
  return v[k];
}

std::vector<std::string>
split_list (const std::string & s, char sep)
{
  std::vector<std::string> out;
  std::stringstream in (s);
  std::string part;
  while (std::getline (in, part, sep)) {
    const size_t a = part.find_first_not_of (' '), b = part.find_last_not_of (' ');
    if (a != std::string::npos)
      out.push_back (part.substr (a, b - a + 1));
  }
  return out;
}

/* ---------------------------------------------------------- the chain */

struct ChainRun::Probe {
  std::string name;
  std::chrono::steady_clock::time_point in;
  std::mutex lock;
  std::vector<double> us;
};

GstPadProbeReturn
ChainRun::sink_probe (GstPad *, GstPadProbeInfo *, gpointer data)
{
  ((Probe *) data)->in = std::chrono::steady_clock::now ();
  return GST_PAD_PROBE_OK;
}

GstPadProbeReturn
ChainRun::src_probe (GstPad *, GstPadProbeInfo *, gpointer data)
{
  auto *p = (Probe *) data;
  const double us = std::chrono::duration<double, std::micro> (std::chrono::steady_clock::now () - p->in).count ();
  std::lock_guard<std::mutex> g (p->lock);
  p->us.push_back (us);
  return GST_PAD_PROBE_OK;
}

void
ChainRun::handoff (GstElement *, GstBuffer *, GstPad *, gpointer data)
{
  auto *self = (ChainRun *) data;
  const double t = std::chrono::duration<double> (std::chrono::steady_clock::now () - self->t0_).count ();
  guint64 n;
  {
    std::lock_guard<std::mutex> g (self->lock_);
    self->arrivals_.push_back (t);
    n = self->out_.fetch_add (1);
  }
  if (self->on_frame_)
    self->on_frame_ (n);
}

ChainRun::ChainRun (const std::string & chain, const std::string & caps, GstCudaContext * ctx, bool system_out)
{
  desc_ = "appsrc name=src format=time is-live=false block=true max-bytes=1 caps=\"" + caps + "\" ! " + chain +
      (system_out ? " ! video/x-raw" : "") + " ! fakesink name=sink sync=false signal-handoffs=true";
  GError *err = nullptr;
  pipe_ = gst_parse_launch (desc_.c_str (), &err);
  if (err) {
    std::fprintf (stderr, "%s: %s\n", desc_.c_str (), err->message);
    g_clear_error (&err);
    if (pipe_)
      gst_object_unref (pipe_);
    pipe_ = nullptr;
    return;
  }
  if (ctx) {
    GstContext *c = gst_context_new_cuda_context (ctx);
    gst_element_set_context (pipe_, c);
    gst_context_unref (c);
  }
  src_ = gst_bin_get_by_name (GST_BIN (pipe_), "src");
  sink_ = gst_bin_get_by_name (GST_BIN (pipe_), "sink");
  bus_ = gst_element_get_bus (pipe_);
  g_signal_connect (sink_, "handoff", G_CALLBACK (handoff), this);
  /* the chain's elements, upstream to downstream: follow the links */
  GstPad *pad = gst_element_get_static_pad (src_, "src");
  while (pad) {
    GstPad *peer = gst_pad_get_peer (pad);
    gst_object_unref (pad);
    pad = nullptr;
    if (!peer)
      break;
    GstElement *e = gst_pad_get_parent_element (peer);
    gst_object_unref (peer);
    if (!e || e == sink_) {
      if (e)
        gst_object_unref (e);
      break;
    }
    GstElementFactory *f = gst_element_get_factory (e);
    const std::string factory = f ? GST_OBJECT_NAME (f) : "";
    if (factory != "capsfilter") {
      elements_.push_back (e);
      auto p = std::make_unique<Probe> ();
      p->name = GST_OBJECT_NAME (e);
      GstPad *sp = gst_element_get_static_pad (e, "sink"), *op = gst_element_get_static_pad (e, "src");
      gst_pad_add_probe (sp, GST_PAD_PROBE_TYPE_BUFFER, sink_probe, p.get (), nullptr);
      gst_pad_add_probe (op, GST_PAD_PROBE_TYPE_BUFFER, src_probe, p.get (), nullptr);
      gst_object_unref (sp);
      gst_object_unref (op);
      probes_.push_back (std::move (p));
    }
    pad = gst_element_get_static_pad (e, "src");
    if (factory == "capsfilter")
      gst_object_unref (e);
  }
}

ChainRun::~ChainRun ()
{
  stop ();
  for (GstElement *e : elements_)
    gst_object_unref (e);
  if (bus_)
    gst_object_unref (bus_);
  if (sink_)
    gst_object_unref (sink_);
  if (src_)
    gst_object_unref (src_);
  if (pipe_)
    gst_object_unref (pipe_);
}

guint64
ChainRun::held_frames () const
{
  guint64 held = 0;
  for (GstElement *e : elements_) {
    if (!g_object_class_find_property (G_OBJECT_GET_CLASS (e), "latency-frames"))
      continue;
    guint n = 0;
    g_object_get (e, "latency-frames", &n, nullptr);
    held += n;
  }
  return held;
}

bool
ChainRun::start ()
{
  t0_ = std::chrono::steady_clock::now ();
  if (!bus_thread_.joinable ()) {
    bus_quit_ = false;
    bus_thread_ = std::thread (&ChainRun::read_bus, this);
  }
  if (gst_element_set_state (pipe_, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE)
    return true;
  /* the failing element's error is on the bus: let the bus thread read
   * it, for error () */
  std::unique_lock<std::mutex> g (bus_lock_);
  bus_cond_.wait_for (g, std::chrono::seconds (2), [this] () { return !error_.empty (); });
  return false;
}

void
ChainRun::read_bus ()
{
  while (!bus_quit_.load ()) {
    GstMessage *m = gst_bus_timed_pop_filtered (bus_, 50 * GST_MSECOND,
        (GstMessageType) (GST_MESSAGE_ANY));
    if (!m)
      continue;
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR || GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS) {
      std::string error;
      if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
        GError *e = nullptr;
        gchar *dbg = nullptr;
        gst_message_parse_error (m, &e, &dbg);
        error = std::string (GST_OBJECT_NAME (GST_MESSAGE_SRC (m))) + ": " + e->message + " | " + (dbg ? dbg : "");
        g_clear_error (&e);
        g_free (dbg);
      }
      {
        std::lock_guard<std::mutex> g (bus_lock_);
        if (!error.empty () && error_.empty ())
          error_ = error;
        eos_ = eos_ || GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS;
      }
      bus_cond_.notify_all ();
    }
    gst_message_unref (m);
  }
}

bool
ChainRun::push (const std::vector<GstBuffer *> & frames, guint64 i)
{
  GstBuffer *b = gst_buffer_copy (frames[i % frames.size ()]);  /* shares the memory */
  GST_BUFFER_PTS (b) = gst_util_uint64_scale (i, GST_SECOND, 30);
  GST_BUFFER_DURATION (b) = GST_SECOND / 30;
  return gst_app_src_push_buffer (GST_APP_SRC (src_), b) == GST_FLOW_OK;
}

bool
ChainRun::finish (int timeout_s)
{
  /* an error already read from the bus (error ()): no EOS will come, and
   * waiting for it hung a run for the whole timeout */
  if (!error ().empty ())
    return false;
  gst_app_src_end_of_stream (GST_APP_SRC (src_));
  std::unique_lock<std::mutex> g (bus_lock_);
  const bool ended = bus_cond_.wait_for (g, std::chrono::seconds (timeout_s),
      [this] () { return eos_ || !error_.empty (); });
  if (!ended)
    error_ = "no EOS within " + std::to_string (timeout_s) + " s";
  return eos_ && error_.empty ();
}

void
ChainRun::stop ()
{
  if (pipe_)
    gst_element_set_state (pipe_, GST_STATE_NULL);
  bus_quit_ = true;
  if (bus_thread_.joinable ())
    bus_thread_.join ();
}

std::string
ChainRun::error ()
{
  std::lock_guard<std::mutex> g (bus_lock_);
  return error_;
}

guint64
ChainRun::frames_out () const
{
  return out_.load ();
}

std::vector<double>
ChainRun::arrivals ()
{
  std::lock_guard<std::mutex> g (lock_);
  return arrivals_;
}

std::vector<std::pair<std::string, std::vector<double>>>
ChainRun::element_times ()
{
  std::vector<std::pair<std::string, std::vector<double>>> out;
  for (const auto & p : probes_) {
    std::lock_guard<std::mutex> g (p->lock);
    out.emplace_back (p->name, p->us);
  }
  return out;
}

}  // namespace cvbench
