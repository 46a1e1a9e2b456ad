#include "canny_util.h"
#include "harness.h"
#include "test_util.h"

#include "gstcvotsumeta.h"

#include "../../cpu/canny_cpu.h"
#include "../../cuda/blur/blur.h"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <thread>

namespace cvtest {

std::vector<cv::Mat>
bundled_gray (cv::Size size)
{
  std::vector<cv::Mat> out;
  for (const auto & path : test_images ()) {
    cv::Mat g = to_gray (load_rgb (path));
    if (!size.empty ())
      cv::resize (g, g, size);
    out.push_back (g);
  }
  return out;
}

int
other_threshold (int own)
{
  return own > 100 ? own - 60 : own + 60;
}

GstBuffer *
gray_buffer_with_otsu_meta (const cv::Mat & gray, int threshold)
{
  GstBuffer *buf = mat_to_buffer (gray, GST_VIDEO_FORMAT_GRAY8);
  gst_buffer_add_cv_otsu_meta (buf, (guint8) threshold);
  return buf;
}

std::vector<CannyCase>
canny_cases ()
{
  std::vector<CannyCase> out;
  for (int aperture : { 3, 5, 7 })
    for (bool l2 : { false, true })
      for (const auto & t : { std::pair<double, double> { 50, 150 }, { 30, 90 }, { 120, 300 } })
        out.push_back ({ aperture, l2, t.first, t.second });
  return out;
}

std::vector<std::pair<std::string, cv::Mat>>
yuv_pictures ()
{
  std::vector<std::pair<std::string, cv::Mat>> pictures;
  for (const char *name : { "building.jpg", "astronaut.png" })
    pictures.emplace_back (name, load_rgb (data_path (name)));
  pictures.emplace_back ("building.jpg at 321x239", fit_picture (pictures[0].second, { 321, 239 }));
  return pictures;
}

std::vector<CannyCase>
yuv_canny_cases ()
{
  return { { 3, false, 50, 150 }, { 3, true, 50, 150 }, { 5, true, 30, 90 }, { 7, false, 120, 300 } };
}

std::string
canny_props (const CannyCase & c)
{
  char buf[160];
  std::snprintf (buf, sizeof (buf), "aperture=%d l2-gradient=%s low-threshold=%.17g high-threshold=%.17g",
      c.aperture, c.l2 ? "true" : "false", c.low, c.high);
  return buf;
}

int
canny_blur_ksize (double sigma)
{
  if (!(sigma > 0))
    return 0;
  const int k = std::min (cudavision::gaussian_ksize_for_sigma (sigma), cudavision::kBlurMaxKsize);
  return k >= 3 ? k : 0;
}

cv::Mat
opencv_canny (const cv::Mat & gray, const CannyCase & c, double blur_sigma)
{
  /* a new Mat for the blur: one sharing `gray`'s pixels would be blurred
   * in place, and the caller's frame with it */
  cv::Mat src, out;
  const int k = canny_blur_ksize (blur_sigma);
  if (k)
    cv::GaussianBlur (gray, src, cv::Size (k, k), blur_sigma, blur_sigma, cv::BORDER_REFLECT_101);
  else
    src = gray;
  cv::Canny (src, out, c.low, c.high, c.aperture, c.l2);
  return out;
}

cv::Mat
luma_through (const std::string & element, GstBuffer * in, GstVideoFormat format, int w, int h,
    const char *out_feature)
{
  return run_harness_mat (element, caps_string (format, w, h), caps_string (GST_VIDEO_FORMAT_GRAY8, w, h, out_feature),
      in);
}

cv::Mat
model_canny (const cv::Mat & gray, const CannyCase & c)
{
  cv::Mat out (gray.size (), CV_8UC1);
  cudavision::cpu::canny_model ({ gray.data, gray.step, gray.cols, gray.rows },
      { out.data, out.step, out.cols, out.rows }, c.low, c.high, c.aperture, c.l2);
  return out;
}

std::vector<cv::Mat>
model_canny_each (const std::vector<cv::Mat> & frames, const std::vector<CannyCase> & cases)
{
  const size_t n = frames.size () * cases.size ();
  std::vector<cv::Mat> out (n);
  std::atomic<size_t> next { 0 };
  const unsigned workers = (unsigned) std::min<size_t> (std::max (1u, std::thread::hardware_concurrency ()), n);
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < workers; w++)
    pool.emplace_back ([&] {
      for (size_t k; (k = next++) < n;)
        out[k] = model_canny (frames[k / cases.size ()], cases[k % cases.size ()]);
    });
  for (std::thread & t : pool)
    t.join ();
  return out;
}

double
equal_percent (const cv::Mat & a, const cv::Mat & b)
{
  if (a.size () != b.size () || a.empty ())
    return 0;
  return 100.0 * (double) (a.total () - cv::countNonZero (a != b)) / (double) a.total ();
}

int
sorted_median (const cv::Mat & gray)
{
  std::vector<uint8_t> v;
  for (int y = 0; y < gray.rows; y++)
    v.insert (v.end (), gray.ptr<uint8_t> (y), gray.ptr<uint8_t> (y) + gray.cols);
  const size_t k = (v.size () - 1) / 2;
  std::nth_element (v.begin (), v.begin () + k, v.end ());
  return v[k];
}

SnakeFrame
snake_frame (int w, int h, uint64_t seed)
{
  SnakeFrame f;
  f.image = cv::Mat (h, w, CV_8UC1, cv::Scalar (100));
  cv::RNG rng (seed);
  /* Passes `pitch` apart, left to right and back, joined by half circles.
   * Along a pass the slope is a damped random walk, so the curve wanders up
   * to `band` off its row without corners: Canny's non-maximum test breaks
   * edges at sharp corners and notches, and OpenCV would not follow them
   * either. */
  const int margin = 8, pitch = 32, band = 6;
  const double radius = pitch / 2.0;
  const double x_lo = margin + radius, x_hi = w - 1 - margin - radius;
  std::vector<cv::Point2d> pts;
  double x = x_lo, y = margin + band;
  for (int pass = 0;; pass++) {
    const double centre = margin + band + pass * pitch;
    const int dir = pass % 2 ? -1 : 1;
    double slope = 0;
    y = centre;
    for (; dir > 0 ? x < x_hi : x > x_lo; x += dir) {
      slope = 0.97 * slope + rng.gaussian (0.03);
      y += slope;
      if (std::abs (y - centre) > band) {
        y = centre + (y > centre ? band : -band);
        slope = -slope;
      }
      pts.emplace_back (x, y);
    }
    /* ease back to the centre over the last pixels of the pass */
    if (centre + pitch + band + margin >= h)
      break;
    const cv::Point2d c (x, (y + centre + pitch) / 2);
    const double r = (centre + pitch - y) / 2;
    for (int k = 1; k < 64; k++) {
      const double a = CV_PI * k / 64;
      pts.emplace_back (c.x + dir * r * std::sin (a), c.y - r * std::cos (a));
    }
    y = centre + pitch;
  }
  /* a band 5 pixels wide along the curve: its two sides are the edges (a
   * 1-pixel line's sides break where the line steps) */
  constexpr int kShift = 4;
  std::vector<cv::Point> fixed;
  for (const auto & p : pts)
    fixed.emplace_back (cvRound (p.x * (1 << kShift)), cvRound (p.y * (1 << kShift)));
  const size_t strong = std::min<size_t> (64, fixed.size ());
  const std::vector<cv::Point> head (fixed.begin (), fixed.begin () + strong);
  const std::vector<cv::Point> tail (fixed.begin () + strong - 1, fixed.end ());
  cv::polylines (f.image, tail, false, cv::Scalar (120), 5, cv::LINE_8, kShift);
  cv::polylines (f.image, head, false, cv::Scalar (140), 5, cv::LINE_8, kShift);
  for (const auto & p : pts)
    f.path.emplace_back (cvRound (p.x), cvRound (p.y));
  return f;
}

cv::Mat
checkerboard (int w, int h, int cell)
{
  cv::Mat m (h, w, CV_8UC1);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      m.at<uint8_t> (y, x) = ((x / cell + y / cell) % 2) ? 255 : 0;
  return m;
}

BusResult
run_with_sink_caps (const std::string & description, const std::string & sink_caps, int timeout_s)
{
  BusResult r;
  GError *err = nullptr;
  GstElement *pipe = gst_parse_launch (description.c_str (), &err);
  if (err) {
    r.errors.push_back (std::string ("parse: ") + err->message);
    g_clear_error (&err);
  }
  if (!pipe || !r.errors.empty ()) {
    if (pipe)
      gst_object_unref (pipe);
    return r;
  }
  if (shared_context ())
    gst_element_set_context (pipe, shared_context ());
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "out");
  if (!sink) {
    r.errors.push_back ("no element named out in " + description);
    gst_object_unref (pipe);
    return r;
  }
  GstCaps *caps = gst_caps_from_string (sink_caps.c_str ());
  /* nobody pulls: the sink must not hold EOS back until its queue is read */
  g_object_set (sink, "caps", caps, "wait-on-eos", FALSE, nullptr);
  gst_caps_unref (caps);
  gst_object_unref (sink);
  GstBus *bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, (GstClockTime) timeout_s * GST_SECOND,
      (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  if (!m) {
    r.errors.push_back ("timeout");
  } else if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS) {
    r.eos = true;
  } else {
    const BusError e = parse_bus_error (m);
    r.errors.push_back (e.source + ": " + e.text);
    r.error_domains.push_back (e.domain);
  }
  if (m)
    gst_message_unref (m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  return r;
}

}  // namespace cvtest
