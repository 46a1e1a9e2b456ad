#include "test_util.h"

#include "plugin.h"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>

namespace cvtest {

std::string
data_path (const std::string & name)
{
  return std::string (CUDAVISION_TEST_DATA) + "/" + name;
}

std::vector<std::string>
test_images ()
{
  std::vector<std::string> out;
  for (const auto & e : std::filesystem::directory_iterator (CUDAVISION_TEST_DATA)) {
    const std::string ext = e.path ().extension ().string ();
    if (ext == ".png" || ext == ".jpg")
      out.push_back (e.path ().string ());
  }
  std::sort (out.begin (), out.end ());
  return out;
}

std::vector<std::string>
sweep_images ()
{
  std::vector<std::string> all = test_images ();
  if (!sanitizer_pass ())
    return all;
  std::vector<std::string> out;
  for (const std::string & path : all) {
    const std::string name = std::filesystem::path (path).filename ().string ();
    if (name == "chessboard_GRAY.png" || name == "coins.png" || name == "left01.jpg" || name == "sudoku.png")
      out.push_back (path);
  }
  return out;
}

cv::Mat
random_rgb (int width, int height, uint64_t seed)
{
  return random_mat (width, height, CV_8UC3, seed);
}

static GstBuffer *
planes_to_buffer (const GstVideoInfo & info, const std::vector<cv::Mat> & planes)
{
  GstBuffer *buf = gst_buffer_new_allocate (nullptr, info.size, nullptr);
  GstMapInfo map;
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  memset (map.data, 0xAB, map.size);
  for (size_t p = 0; p < planes.size (); p++) {
    const cv::Mat & m = planes[p];
    const size_t row = m.cols * m.elemSize ();
    for (int y = 0; y < m.rows; y++)
      memcpy (map.data + info.offset[p] + (size_t) y * info.stride[p], m.ptr (y), row);
  }
  gst_buffer_unmap (buf, &map);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT (&info), info.width,
      info.height, GST_VIDEO_INFO_N_PLANES (&info), (gsize *) info.offset, (gint *) info.stride);
  return buf;
}

/* I420 planes of an RGB image of any size (odd sizes: OpenCV needs even,
 * so convert a padded copy and crop). */
static void
rgb_to_i420_planes (const cv::Mat & rgb, cv::Mat & y, cv::Mat & u, cv::Mat & v)
{
  const int w = rgb.cols, h = rgb.rows;
  const int we = (w + 1) & ~1, he = (h + 1) & ~1;
  cv::Mat padded;
  cv::copyMakeBorder (rgb, padded, 0, he - h, 0, we - w, cv::BORDER_REPLICATE);
  cv::Mat yuv;
  cv::cvtColor (padded, yuv, cv::COLOR_RGB2YUV_I420);
  y = yuv (cv::Rect (0, 0, we, he)) (cv::Rect (0, 0, w, h)).clone ();
  const cv::Mat uv = yuv.rowRange (he, he + he / 2);
  const int cw = we / 2, ch = he / 2;
  u = cv::Mat (uv.reshape (1, ch * 2)).colRange (0, cw).rowRange (0, ch).clone ();
  v = cv::Mat (uv.reshape (1, ch * 2)).colRange (0, cw).rowRange (ch, 2 * ch).clone ();
}

GstBuffer *
rgb_to_buffer (const cv::Mat & rgb, GstVideoFormat format)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, format, rgb.cols, rgb.rows);
  cv::RNG rng (rgb.cols * 7919 + rgb.rows);
  cv::Mat noise (rgb.rows, rgb.cols, CV_8UC1);
  rng.fill (noise, cv::RNG::UNIFORM, 0, 256);

  auto packed4 = [&] (int r, int g, int b, int pad) {
    cv::Mat out (rgb.rows, rgb.cols, CV_8UC4);
    cv::Mat src[] = { rgb, noise };
    const int from_to[] = { 0, r, 1, g, 2, b, 3, pad };
    cv::mixChannels (src, 2, &out, 1, from_to, 4);
    return planes_to_buffer (info, { out });
  };
  switch (format) {
    case GST_VIDEO_FORMAT_RGBA: case GST_VIDEO_FORMAT_RGBx: return packed4 (0, 1, 2, 3);
    case GST_VIDEO_FORMAT_BGRA: case GST_VIDEO_FORMAT_BGRx: return packed4 (2, 1, 0, 3);
    case GST_VIDEO_FORMAT_ARGB: case GST_VIDEO_FORMAT_xRGB: return packed4 (1, 2, 3, 0);
    case GST_VIDEO_FORMAT_ABGR: case GST_VIDEO_FORMAT_xBGR: return packed4 (3, 2, 1, 0);
    case GST_VIDEO_FORMAT_RGB: return planes_to_buffer (info, { rgb });
    case GST_VIDEO_FORMAT_BGR: {
      cv::Mat bgr;
      cv::cvtColor (rgb, bgr, cv::COLOR_RGB2BGR);
      return planes_to_buffer (info, { bgr });
    }
    case GST_VIDEO_FORMAT_I420: {
      cv::Mat y, u, v;
      rgb_to_i420_planes (rgb, y, u, v);
      return planes_to_buffer (info, { y, u, v });
    }
    case GST_VIDEO_FORMAT_NV12: {
      cv::Mat y, u, v, uv;
      rgb_to_i420_planes (rgb, y, u, v);
      cv::merge (std::vector<cv::Mat> { u, v }, uv);
      return planes_to_buffer (info, { y, uv });
    }
    case GST_VIDEO_FORMAT_GRAY8:
      return planes_to_buffer (info, { to_gray (rgb) });
    default:
      throw std::runtime_error ("rgb_to_buffer: unsupported format");
  }
}

GstBuffer *
with_row_padding (GstBuffer * packed, GstVideoFormat format, int width, int height, int pad)
{
  GstVideoInfo info, padded;
  gst_video_info_set_format (&info, format, width, height);
  padded = info;
  gsize offset = 0;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
    padded.stride[p] = info.stride[p] + pad;
    padded.offset[p] = offset;
    offset += (gsize) padded.stride[p] * GST_VIDEO_INFO_COMP_HEIGHT (&info, p);
  }
  padded.size = offset;
  GstBuffer *out = gst_buffer_new_allocate (nullptr, padded.size, nullptr);
  GstVideoFrame from, to;
  gst_buffer_add_video_meta_full (out, GST_VIDEO_FRAME_FLAG_NONE, format, width, height,
      GST_VIDEO_INFO_N_PLANES (&info), padded.offset, padded.stride);
  gst_video_frame_map (&from, &info, packed, GST_MAP_READ);
  gst_video_frame_map (&to, &padded, out, GST_MAP_WRITE);
  gst_video_frame_copy (&to, &from);
  gst_video_frame_unmap (&to);
  gst_video_frame_unmap (&from);
  gst_buffer_unref (packed);
  return out;
}

cv::Mat
expected_gray (const cv::Mat & rgb, GstVideoFormat format)
{
  if (format == GST_VIDEO_FORMAT_I420 || format == GST_VIDEO_FORMAT_NV12) {
    cv::Mat y, u, v;
    rgb_to_i420_planes (rgb, y, u, v);
    return y;
  }
  return to_gray (rgb);
}

GstBuffer *
mat_to_buffer (const cv::Mat & m, GstVideoFormat format)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, format, m.cols, m.rows);
  return planes_to_buffer (info, { m });
}

std::string
caps_string (GstVideoFormat format, int width, int height, const char *feature)
{
  std::string s = "video/x-raw";
  if (feature)
    s += std::string ("(") + feature + ")";
  return s + ",format=" + gst_video_format_to_string (format) + ",width=" + std::to_string (width) +
      ",height=" + std::to_string (height) + ",framerate=30/1";
}

const char *const kBlockSizingModes[7] = {
  "block-sizing=static",
  "block-sizing=static block-size=64x2",
  "block-sizing=static block-size=1024",
  "block-sizing=static block-size=32x32",
  "block-sizing=empirical-table tuning-table=/nonexistent/table.tsv",
  "block-sizing=model",
  "block-sizing=auto",
};

cv::Mat
to_rgba (const cv::Mat & rgb, uint64_t seed)
{
  cv::Mat noise = random_mat (rgb.cols, rgb.rows, CV_8UC1, seed), out (rgb.rows, rgb.cols, CV_8UC4);
  cv::Mat src[] = { rgb, noise };
  const int from_to[] = { 0, 0, 1, 1, 2, 2, 3, 3 };
  cv::mixChannels (src, 2, &out, 1, from_to, 4);
  return out;
}

cv::Mat
random_mat (int w, int h, int type, uint64_t seed)
{
  cv::Mat m (h, w, type);
  cv::RNG rng (seed);
  rng.fill (m, cv::RNG::UNIFORM, 0, 256);
  return m;
}

std::string
size_str (const cv::Mat & m)
{
  return std::to_string (m.cols) + "x" + std::to_string (m.rows) + "x" + std::to_string (m.channels ());
}

Diff
compare (const cv::Mat & a, const cv::Mat & b)
{
  Diff d;
  if (a.size () != b.size () || a.type () != b.type ()) {
    d.max_abs = 1e9;
    d.differing = -1;
    return d;
  }
  cv::Mat ad;
  cv::absdiff (a, b, ad);
  cv::minMaxLoc (ad.reshape (1), nullptr, &d.max_abs);
  d.differing = cv::countNonZero (ad.reshape (1));
  return d;
}

bool
BusResult::has_error_containing (const std::string & s) const
{
  for (const auto & e : errors)
    if (e.find (s) != std::string::npos)
      return true;
  return false;
}

bool
BusResult::has_warning_containing (const std::string & s) const
{
  for (const auto & w : warnings)
    if (w.find (s) != std::string::npos)
      return true;
  return false;
}

std::string
with_backend (const std::string & description, const char *backend)
{
  std::string s = description;
  for (size_t pos; (pos = s.find ("%s")) != std::string::npos;)
    s.replace (pos, 2, backend);
  return s;
}

bool
have_element (const char *name)
{
  GstElementFactory *f = gst_element_factory_find (name);
  if (f)
    gst_object_unref (f);
  return f != nullptr;
}

BusError
parse_bus_error (GstMessage * m)
{
  BusError r;
  GError *e = nullptr;
  gchar *dbg = nullptr;
  r.is_error = GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR;
  if (r.is_error)
    gst_message_parse_error (m, &e, &dbg);
  else
    gst_message_parse_warning (m, &e, &dbg);
  r.source = GST_OBJECT_NAME (GST_MESSAGE_SRC (m));
  r.text = std::string (e->message) + " | " + (dbg ? dbg : "");
  r.domain = e->domain;
  g_clear_error (&e);
  g_free (dbg);
  return r;
}

BusResult
run_pipeline (const std::string & description, int timeout_s)
{
  BusResult r;
  GError *err = nullptr;
  GstElement *pipe = gst_parse_launch (description.c_str (), &err);
  if (!pipe) {
    r.errors.push_back (std::string ("parse: ") + (err ? err->message : "?"));
    g_clear_error (&err);
    return r;
  }
  g_clear_error (&err);
  if (shared_context ())
    gst_element_set_context (pipe, shared_context ());
  GstBus *bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  const gint64 deadline = g_get_monotonic_time () + (gint64) timeout_s * G_USEC_PER_SEC;
  while (true) {
    const gint64 left = deadline - g_get_monotonic_time ();
    if (left <= 0) {
      r.errors.push_back ("timeout");
      break;
    }
    GstMessage *m = gst_bus_timed_pop_filtered (bus, left * GST_USECOND,
        (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING));
    if (!m)
      continue;
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS) {
      r.eos = true;
      gst_message_unref (m);
      break;
    }
    const BusError e = parse_bus_error (m);
    gst_message_unref (m);
    const std::string text = e.source + ": " + e.text;
    if (e.is_error) {
      r.errors.push_back (text);
      r.error_domains.push_back (e.domain);
      break;
    }
    r.warnings.push_back (text);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  return r;
}

static GstContext *the_shared_context = nullptr;

void
set_shared_context (GstContext * context)
{
  if (the_shared_context)
    gst_context_unref (the_shared_context);
  the_shared_context = context ? gst_context_ref (context) : nullptr;
}

GstContext *
shared_context ()
{
  return the_shared_context;
}

void
init_gstreamer (int *argc, char ***argv)
{
  gst_init (argc, argv);
  if (!cudavision_register_static ())
    throw std::runtime_error ("cannot register the cudavision elements");
}

std::vector<cv::Mat>
pull_all (const std::string & description, int timeout_s)
{
  return pull_frames (description, timeout_s, shared_context ());
}

GstBuffer *
scaled_meta_buffer (GstBuffer * b, GstMeta * meta, cv::Size from, cv::Size to)
{
  GstVideoInfo in, out;
  gst_video_info_set_format (&in, GST_VIDEO_FORMAT_GRAY8, from.width, from.height);
  gst_video_info_set_format (&out, GST_VIDEO_FORMAT_GRAY8, to.width, to.height);
  GstVideoMetaTransform t = { &in, &out };
  GstBuffer *d = gst_buffer_new ();
  if (!meta->info->transform_func (d, meta, b, gst_video_meta_transform_scale_get_quark (), &t))
    gst_clear_buffer (&d);
  return d;
}

}  // namespace cvtest
