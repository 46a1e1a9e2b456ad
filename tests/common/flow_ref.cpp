#include "flow_ref.h"

#include "harness.h"
#include "harris_ref.h"
#include "overlay_check.h"

#include "../../core/draw/flow_draw.h"
#include "../../cuda/flow/flow_math.h"
#include "../../cuda/flow/flow_pyramid4.h"
#include "../../cuda/flow/lk_window.h"
#include "gstcvflowmeta.h"

#include <gst/check/gstharness.h>
#include <opencv2/imgproc.hpp>
#include <opencv2/video/tracking.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

using cudavision::FlowParams;
using cudavision::FlowVector;

namespace cvtest {

FlowParams
flow_params (int window, int max_level, int iterations, double epsilon, double min_eig)
{
  FlowParams p;
  p.window = window;
  p.max_level = max_level;
  p.iterations = iterations;
  p.epsilon = epsilon;
  p.min_eig = min_eig;
  return p;
}

std::string
diff_vectors (const std::vector<FlowVector> & got, const std::vector<FlowVector> & ref)
{
  if (got.size () != ref.size ())
    return "sizes " + std::to_string (got.size ()) + " vs " + std::to_string (ref.size ());
  size_t differing = 0, first = 0;
  for (size_t i = 0; i < got.size (); i++) {
    const FlowVector & a = got[i], & b = ref[i];
    if (a.prev_x != b.prev_x || a.prev_y != b.prev_y || a.status != b.status || a.x != b.x || a.y != b.y) {
      if (!differing++)
        first = i;
    }
  }
  if (!differing)
    return "";
  const FlowVector & a = got[first], & b = ref[first];
  char buf[320];
  std::snprintf (buf, sizeof buf,
      "%zu of %zu differ; first, point %zu: (%.9g,%.9g)->(%.9g,%.9g) s%d vs (%.9g,%.9g)->(%.9g,%.9g) s%d", differing,
      got.size (), first, a.prev_x, a.prev_y, a.x, a.y, a.status, b.prev_x, b.prev_y, b.x, b.y, b.status);
  return buf;
}

std::vector<FlowVector>
opencv_lk (const cv::Mat & prev, const cv::Mat & next, const std::vector<cv::Point2f> & pts, const FlowParams & p)
{
  std::vector<FlowVector> out;
  if (pts.empty ())
    return out;
  std::vector<cv::Point2f> np;
  std::vector<uchar> status;
  cv::calcOpticalFlowPyrLK (prev, next, pts, np, status, cv::noArray (), cv::Size (p.window, p.window), p.max_level,
      cv::TermCriteria (cv::TermCriteria::COUNT + cv::TermCriteria::EPS, p.iterations, p.epsilon), 0, p.min_eig);
  for (size_t i = 0; i < pts.size (); i++) {
    FlowVector v;
    v.prev_x = pts[i].x;
    v.prev_y = pts[i].y;
    v.x = np[i].x;
    v.y = np[i].y;
    v.status = status[i];
    out.push_back (v);
  }
  return out;
}

std::vector<cv::Point2f>
opencv_features (const cv::Mat & gray, int max_corners, double quality, double min_distance)
{
  std::vector<cv::Point2f> pts;
  cv::goodFeaturesToTrack (gray, pts, max_corners, quality, min_distance, cv::noArray (), 3, 3, false, 0.04);
  return pts;
}

std::vector<cv::Point2f>
grid_points (int width, int height, int step)
{
  std::vector<cv::Point2f> pts;
  const int n = cudavision::flow_grid_cols (width, step) * cudavision::flow_grid_rows (height, step);
  for (int i = 0; i < n; i++) {
    cv::Point2f p;
    cudavision::flow_grid_point (i, width, height, step, &p.x, &p.y);
    pts.push_back (p);
  }
  return pts;
}

CvPyramid
opencv_pyramid (const cv::Mat & gray, int window, int max_level)
{
  std::vector<cv::Mat> pyr;
  const int top = cv::buildOpticalFlowPyramid (gray, pyr, cv::Size (window, window), max_level, true);
  CvPyramid r;
  for (int l = 0; l <= top; l++) {
    r.images.push_back (pyr[2 * l]);
    r.derivs.push_back (pyr[2 * l + 1]);
  }
  return r;
}

CvPyramid
model_pyramid (const cv::Mat & gray, int window, int max_level)
{
  CvPyramid r;
  const int top = cudavision::flow_pyramid_levels (gray.cols, gray.rows, window, max_level);
  r.images.push_back (gray.clone ());
  for (int l = 1; l <= top; l++) {
    const cv::Mat & s = r.images.back ();
    cv::Mat d ((s.rows + 1) / 2, (s.cols + 1) / 2, CV_8UC1);
    auto at = [&] (int x, int y) { return (int) s.at<uint8_t> (y, x); };
    for (int y = 0; y < d.rows; y++)
      for (int x = 0; x < d.cols; x++)
        d.at<uint8_t> (y, x) = (uint8_t) cudavision::pyr_down_at (at, x, y, s.cols, s.rows);
    r.images.push_back (d);
  }
  for (const cv::Mat & s : r.images) {
    cv::Mat d (s.size (), CV_16SC2);
    auto at = [&] (int x, int y) { return (int) s.at<uint8_t> (y, x); };
    for (int y = 0; y < s.rows; y++) {
      for (int x = 0; x < s.cols; x++) {
        int ix, iy;
        cudavision::scharr_at (at, x, y, s.cols, s.rows, &ix, &iy);
        d.at<cv::Vec2s> (y, x) = cv::Vec2s ((short) ix, (short) iy);
      }
    }
    r.derivs.push_back (d);
  }
  return r;
}

namespace {

/* A level in the device's layout: rows of a multiple of 256 bytes, in a
 * buffer of exactly pitch x rows bytes. */
struct PitchedPlane {
  size_t pitch = 0;
  int width = 0, height = 0, bpp = 1;
  std::vector<uint8_t> bytes;

  PitchedPlane (int w, int h, int bytes_per_pixel)
      : pitch (((size_t) w * bytes_per_pixel + 255) / 256 * 256), width (w), height (h), bpp (bytes_per_pixel),
        bytes (pitch * (size_t) h)
  {
  }
  explicit PitchedPlane (const cv::Mat & m) : PitchedPlane (m.cols, m.rows, (int) m.elemSize ())
  {
    for (int y = 0; y < m.rows; y++)
      std::copy (m.ptr (y), m.ptr (y) + (size_t) m.cols * bpp, row (y));
  }
  uint8_t *row (int y) { return bytes.data () + (size_t) y * pitch; }
  const uint8_t *data () const { return bytes.data (); }
  cv::Mat mat (int type) const
  {
    cv::Mat m (height, width, type);
    for (int y = 0; y < height; y++)
      std::copy (data () + (size_t) y * pitch, data () + (size_t) y * pitch + (size_t) width * bpp, m.ptr (y));
    return m;
  }
};

}  // namespace

CvPyramid
model_pyramid4 (const cv::Mat & gray, int window, int max_level)
{
  const int top = cudavision::flow_pyramid_levels (gray.cols, gray.rows, window, max_level);
  std::vector<PitchedPlane> levels;
  levels.emplace_back (gray);
  for (int l = 1; l <= top; l++) {
    const PitchedPlane & s = levels.back ();
    PitchedPlane d ((s.width + 1) / 2, (s.height + 1) / 2, 1);
    for (int y = 0; y < d.height; y++) {
      for (int x0 = 0; x0 < d.width; x0 += 4) {
        const uint32_t out = cudavision::pyr_down4_at (s.data (), s.pitch, s.width, s.height, x0, y);
        for (int k = 0; k < 4 && x0 + k < d.width; k++)
          d.row (y)[x0 + k] = (uint8_t) (out >> (8 * k));
      }
    }
    levels.push_back (std::move (d));
  }
  CvPyramid r;
  for (const PitchedPlane & s : levels) {
    PitchedPlane d (s.width, s.height, 4);
    for (int y = 0; y < s.height; y++) {
      for (int x0 = 0; x0 < s.width; x0 += 4) {
        uint32_t out[4];
        cudavision::scharr4_at (s.data (), s.pitch, s.width, s.height, x0, y, out);
        for (int k = 0; k < 4 && x0 + k < s.width; k++)
          std::memcpy (d.row (y) + 4 * (x0 + k), &out[k], 4);
      }
    }
    r.images.push_back (s.mat (CV_8UC1));
    r.derivs.push_back (d.mat (CV_16SC2));
  }
  return r;
}

namespace {

/* lk_track_point's window on the host: every pixel in turn, exact sums. */
struct HostWindow {
  int win;
  std::vector<int> iv;
  std::vector<uint32_t> d;

  explicit HostWindow (int w) : win (w), iv ((size_t) w * w), d ((size_t) w * w) {}

  cudavision::LkSums3 setup (const cudavision::LkLevel & L, int ax, int ay, bool direct,
      const cudavision::LkWeights & w)
  {
    cudavision::LkSums3 s;
    for (int y = 0; y < win; y++) {
      for (int x = 0; x < win; x++) {
        int v, ix, iy;
        cudavision::lk_prev_sample (L, ax + x, ay + y, direct, w, &v, &ix, &iy);
        iv[(size_t) y * win + x] = v;
        d[(size_t) y * win + x] = cudavision::pack_deriv (ix, iy);
        s.a11 += ix * ix;
        s.a12 += ix * iy;
        s.a22 += iy * iy;
      }
    }
    return s;
  }

  cudavision::LkSums2 iterate (const cudavision::LkLevel & L, int ax, int ay, bool direct,
      const cudavision::LkWeights & w)
  {
    cudavision::LkSums2 s;
    for (int y = 0; y < win; y++) {
      for (int x = 0; x < win; x++) {
        const size_t i = (size_t) y * win + x;
        const int diff = cudavision::lk_next_sample (L, ax + x, ay + y, direct, w) - iv[i];
        s.b1 += diff * cudavision::deriv_x (d[i]);
        s.b2 += diff * cudavision::deriv_y (d[i]);
      }
    }
    return s;
  }
};

}  // namespace

std::vector<FlowVector>
model_lk (const cv::Mat & prev, const cv::Mat & next, const std::vector<cv::Point2f> & pts, const FlowParams & p)
{
  const CvPyramid a = opencv_pyramid (prev, p.window, p.max_level);
  const CvPyramid b = opencv_pyramid (next, p.window, p.max_level);
  const int levels = (int) std::min (a.images.size (), b.images.size ());
  std::vector<cudavision::LkLevel> lv ((size_t) levels);
  for (int l = 0; l < levels; l++) {
    cudavision::LkLevel & L = lv[(size_t) l];
    L.prev = a.images[l].data;
    L.prev_pitch = a.images[l].step;
    L.deriv = a.derivs[l].data;
    L.deriv_pitch = a.derivs[l].step;
    L.next = b.images[l].data;
    L.next_pitch = b.images[l].step;
    L.width = a.images[l].cols;
    L.height = a.images[l].rows;
  }
  const cudavision::LkConfig cfg = cudavision::lk_config (p, levels - 1);
  std::vector<FlowVector> out;
  HostWindow ex (p.window);
  for (const cv::Point2f & q : pts) {
    FlowVector v;
    v.prev_x = q.x;
    v.prev_y = q.y;
    v.status = (uint8_t) cudavision::lk_track_point (ex, lv.data (), cfg, q.x, q.y, &v.x, &v.y);
    out.push_back (v);
  }
  return out;
}

namespace {

/* lk_track_point's window as the kernel's warp computes it: 32 lanes, each
 * summing its own segments with its own code; the warp's totals are their
 * sums (the device adds them exactly too, lk_warp_total). */
template <int KS>
struct LaneWindows {
  std::vector<cudavision::LkSegmentWindow<KS>> lanes;
  long long c1 = 0, c2 = 0;

  explicit LaneWindows (int win)
  {
    for (int l = 0; l < 32; l++)
      lanes.emplace_back (l, win);
  }

  cudavision::LkSums3 setup (const cudavision::LkLevel & L, int ax, int ay, bool direct,
      const cudavision::LkWeights & w)
  {
    long long t[5] = {};
    for (auto & lane : lanes) {
      int p[5];
      lane.lane_setup (L, ax, ay, direct, w, p);
      for (int i = 0; i < 5; i++)
        t[i] += p[i];
    }
    c1 = t[3];
    c2 = t[4];
    cudavision::LkSums3 s;
    s.a11 = t[0];
    s.a12 = t[1];
    s.a22 = t[2];
    return s;
  }

  cudavision::LkSums2 iterate (const cudavision::LkLevel & L, int ax, int ay, bool direct,
      const cudavision::LkWeights & w)
  {
    long long t[2] = {};
    for (const auto & lane : lanes) {
      int p[2];
      lane.lane_iterate (L, ax, ay, direct, w, p);
      t[0] += p[0];
      t[1] += p[1];
    }
    cudavision::LkSums2 s;
    s.b1 = t[0] - c1;
    s.b2 = t[1] - c2;
    return s;
  }
};

template <int KS>
std::vector<FlowVector>
lane_track (const std::vector<cudavision::LkLevel> & lv, const FlowParams & p, const std::vector<cv::Point2f> & pts)
{
  const cudavision::LkConfig cfg = cudavision::lk_config (p, (int) lv.size () - 1);
  LaneWindows<KS> ex (p.window);
  std::vector<FlowVector> out;
  for (const cv::Point2f & q : pts) {
    FlowVector v;
    v.prev_x = q.x;
    v.prev_y = q.y;
    v.status = (uint8_t) cudavision::lk_track_point (ex, lv.data (), cfg, q.x, q.y, &v.x, &v.y);
    out.push_back (v);
  }
  return out;
}

}  // namespace

std::vector<FlowVector>
lane_model_lk (const cv::Mat & prev, const cv::Mat & next, const std::vector<cv::Point2f> & pts, const FlowParams & p)
{
  const CvPyramid a = opencv_pyramid (prev, p.window, p.max_level);
  const CvPyramid b = opencv_pyramid (next, p.window, p.max_level);
  const int levels = (int) std::min (a.images.size (), b.images.size ());
  std::vector<PitchedPlane> planes;
  planes.reserve ((size_t) levels * 3);
  std::vector<cudavision::LkLevel> lv ((size_t) levels);
  for (int l = 0; l < levels; l++) {
    planes.emplace_back (a.images[l]);
    planes.emplace_back (a.derivs[l]);
    planes.emplace_back (b.images[l]);
    const PitchedPlane *q = &planes[planes.size () - 3];
    cudavision::LkLevel & L = lv[(size_t) l];
    L.prev = q[0].data ();
    L.prev_pitch = q[0].pitch;
    L.deriv = q[1].data ();
    L.deriv_pitch = q[1].pitch;
    L.next = q[2].data ();
    L.next_pitch = q[2].pitch;
    L.width = a.images[l].cols;
    L.height = a.images[l].rows;
  }
  switch (cudavision::lk_segments_per_lane (p.window)) {
    case 1: return lane_track<1> (lv, p, pts);
    case 2: return lane_track<2> (lv, p, pts);
    case 4: return lane_track<4> (lv, p, pts);
    default: return lane_track<8> (lv, p, pts);
  }
}

cv::Mat
shifted (const cv::Mat & gray, double dx, double dy)
{
  cv::Mat m = (cv::Mat_<double> (2, 3) << 1, 0, dx, 0, 1, dy), out;
  cv::warpAffine (gray, out, m, gray.size (), cv::INTER_LINEAR, cv::BORDER_REFLECT_101);
  return out;
}

cv::Mat
rotated (const cv::Mat & gray, double degrees)
{
  const cv::Mat m = cv::getRotationMatrix2D (cv::Point2f ((gray.cols - 1) * 0.5f, (gray.rows - 1) * 0.5f), degrees, 1.0);
  cv::Mat out;
  cv::warpAffine (gray, out, m, gray.size (), cv::INTER_LINEAR, cv::BORDER_REFLECT_101);
  return out;
}

static void
stats (std::vector<double> & e, double *median, double *p90, double *max)
{
  *median = *p90 = *max = 0;
  if (e.empty ())
    return;
  std::sort (e.begin (), e.end ());
  *median = e[(e.size () - 1) / 2];
  if (p90)
    *p90 = e[(size_t) ((e.size () - 1) * 0.9)];
  *max = e.back ();
}

std::string
FlowCompare::str () const
{
  std::ostringstream s;
  s << n << " points, " << both << " tracked by both, status agreement " << agreement () * 100
    << "%, endpoint error median " << median << " p90 " << p90 << " max " << max << " px";
  return s.str ();
}

FlowCompare
compare_flow (const std::vector<FlowVector> & got, const std::vector<FlowVector> & ref)
{
  FlowCompare c;
  c.n = std::min (got.size (), ref.size ());
  if (got.size () != ref.size ())
    c.status_same = 0; /* agreement 0 below: lists of different sizes are a failure */
  std::vector<double> e;
  for (size_t i = 0; i < c.n; i++) {
    if (got.size () == ref.size ())
      c.status_same += got[i].status == ref[i].status;
    if (got[i].status && ref[i].status) {
      c.both++;
      e.push_back (std::hypot ((double) got[i].x - ref[i].x, (double) got[i].y - ref[i].y));
    }
  }
  if (got.size () != ref.size ())
    c.n = std::max (got.size (), ref.size ());
  stats (e, &c.median, &c.p90, &c.max);
  return c;
}

std::string
TruthError::str () const
{
  std::ostringstream s;
  s << tracked << " of " << n << " tracked, error against the true motion median " << median << " max " << max
    << " px";
  return s.str ();
}

TruthError
truth_error (const std::vector<FlowVector> & got, double dx, double dy)
{
  TruthError t;
  t.n = got.size ();
  std::vector<double> e;
  for (const FlowVector & v : got) {
    if (!v.status)
      continue;
    t.tracked++;
    e.push_back (std::hypot (v.x - (v.prev_x + dx), v.y - (v.prev_y + dy)));
  }
  double p90;
  stats (e, &t.median, &p90, &t.max);
  return t;
}

std::vector<FlowVector>
clipped (std::vector<FlowVector> v, int width, int height)
{
  for (FlowVector & f : v)
    f.status = f.status && cudavision::flow_in_frame (f.x, f.y, width, height);
  return v;
}

FlowRun::~FlowRun ()
{
  for (GstStructure *s : messages)
    gst_structure_free (s);
}

FlowRun::FlowRun (FlowRun && o) noexcept : ok (o.ok), frames (std::move (o.frames)), messages (std::move (o.messages))
{
  o.messages.clear ();
}

FlowFrame
flow_frame (GstBuffer * out, GstCaps * caps)
{
  FlowFrame f;
  f.out = buffer_to_mat (out, caps);
  f.planes = buffer_planes (out, caps);
  if (const GstCvFlowMeta *m = gst_buffer_get_cv_flow_meta (out)) {
    f.has_meta = true;
    f.grid_step = m->grid_step;
    f.grid_cols = m->grid_cols;
    f.grid_rows = m->grid_rows;
    for (guint i = 0; i < m->n; i++) {
      const GstCvFlowVector & v = m->vectors[i];
      FlowVector fv;
      fv.prev_x = v.prev_x;
      fv.prev_y = v.prev_y;
      fv.x = v.x;
      fv.y = v.y;
      fv.status = v.status;
      f.vectors.push_back (fv);
    }
  }
  return f;
}

FrameSequence::FrameSequence (const std::string & name, const std::vector<cv::Mat> & pictures, GstVideoFormat f,
    int row_pad)
    : format (f), pad (row_pad), rgb (pictures)
{
  caps = caps_string (f, rgb[0].cols, rgb[0].rows);
  info = caps_info (caps);
  what = name + " " + gst_video_format_to_string (f) + " " + size_str (rgb[0]) +
      (pad ? " rows padded by " + std::to_string (pad) : "");
  for (const cv::Mat & m : rgb) {
    GstBuffer *b = frame_buffer (m, f, pad);
    planes.push_back (caps_planes (b, caps));
    luma.push_back (frame_luma (planes.back (), &info));
    gst_buffer_unref (b);
  }
}

std::vector<FlowInput>
FrameSequence::inputs () const
{
  std::vector<FlowInput> in;
  for (const cv::Mat & m : rgb)
    in.push_back ({ frame_buffer (m, format, pad) });
  return in;
}

FlowRun
run_flow (const std::string & element, const std::string & in_caps, const std::string & out_caps,
    std::vector<FlowInput> inputs)
{
  FlowRun r;
  GstElement *e = gst_parse_launch (element.c_str (), nullptr);
  if (!e) {
    for (auto & in : inputs)
      gst_buffer_unref (in.buffer);
    return r;
  }
  if (shared_context ())
    gst_element_set_context (e, shared_context ());
  GstHarness *h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  gst_harness_set_caps_str (h, in_caps.c_str (), out_caps.c_str ());
  GstCaps *caps = gst_caps_from_string (out_caps.c_str ());
  r.ok = true;
  for (auto & in : inputs) {
    if (in.flush_before) {
      gst_harness_push_event (h, gst_event_new_flush_start ());
      gst_harness_push_event (h, gst_event_new_flush_stop (TRUE));
    }
    if (in.flush_before || in.segment_before) {
      GstSegment seg;
      gst_segment_init (&seg, GST_FORMAT_TIME);
      gst_harness_push_event (h, gst_event_new_segment (&seg));
    }
    GstBuffer *out = gst_harness_push_and_pull (h, in.buffer);
    if (!out) {
      r.ok = false;
      break;
    }
    r.frames.push_back (flow_frame (out, caps));
    gst_buffer_unref (out);
  }
  gst_caps_unref (caps);
  while (GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT)) {
    const GstStructure *s = gst_message_get_structure (msg);
    if (s && gst_structure_has_name (s, "cudaflow"))
      r.messages.push_back (gst_structure_copy (s));
    gst_message_unref (msg);
  }
  gst_element_set_bus (h->element, nullptr);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  return r;
}

FlowRun
run_flow_gray (const std::string & element, const std::vector<cv::Mat> & frames)
{
  std::vector<FlowInput> in;
  for (const cv::Mat & f : frames)
    in.push_back ({ mat_to_buffer (f, GST_VIDEO_FORMAT_GRAY8) });
  const std::string caps = frames.empty () ? "" : caps_string (GST_VIDEO_FORMAT_GRAY8, frames[0].cols, frames[0].rows);
  return run_flow (element, caps, caps, std::move (in));
}

std::string
flow_element (const std::string & backend, const FlowParams & p)
{
  std::ostringstream s;
  s << "cudaflow backend=" << backend << " window-size=" << p.window << " max-level=" << p.max_level
    << " iterations=" << p.iterations << " epsilon=" << p.epsilon << " min-eig-threshold=" << p.min_eig;
  return s.str ();
}

std::vector<cv::Mat>
realshort_gray (int max_frames)
{
  const std::string desc = "filesrc location=\"" + data_path ("realshort.mp4") +
      "\" ! qtdemux ! h264parse ! avdec_h264 ! videoconvert ! video/x-raw,format=GRAY8 ! appsink name=out sync=false";
  std::vector<cv::Mat> frames = pull_all (desc, 30);
  if ((int) frames.size () > max_frames)
    frames.resize ((size_t) max_frames);
  return frames;
}

std::vector<cv::Point2f>
prev_points (const std::vector<FlowVector> & v)
{
  std::vector<cv::Point2f> p;
  for (const FlowVector & f : v)
    p.emplace_back (f.prev_x, f.prev_y);
  return p;
}

std::vector<cv::Point>
flow_line_pixels (const std::vector<FlowVector> & v, int width, int height)
{
  std::vector<cv::Point> px;
  for (const FlowVector & f : v) {
    if (!f.status)
      continue;
    const int x0 = cudavision::flow_round_px (f.prev_x), y0 = cudavision::flow_round_px (f.prev_y);
    const int x1 = cudavision::flow_round_px (f.x), y1 = cudavision::flow_round_px (f.y);
    const int steps = std::max (std::abs (x1 - x0), std::abs (y1 - y0));
    for (int k = 0; k <= std::min (steps, cudavision::kFlowLineMax); k++) {
      /* (x1 - x0) k / steps is a small rational: in doubles its halves are
       * exact, so floor (q + 0.5) rounds them up as it should */
      const int x = steps ? x0 + (int) std::floor ((double) (x1 - x0) * k / steps + 0.5) : x0;
      const int y = steps ? y0 + (int) std::floor ((double) (y1 - y0) * k / steps + 0.5) : y0;
      if (x >= 0 && y >= 0 && x < width && y < height)
        px.emplace_back (x, y);
    }
  }
  return px;
}

std::vector<cv::Point>
flow_marker_pixels (const std::vector<FlowVector> & v, int width, int height)
{
  std::vector<cudavision::Corner> at;
  for (const FlowVector & f : v)
    if (f.status)
      at.push_back ({ (float) cudavision::flow_round_px (f.x), (float) cudavision::flow_round_px (f.y), 0.f });
  return corner_mark_pixels (at, width, height);
}

void
paint_pixels (std::vector<cv::Mat> & planes, const GstVideoInfo * info, uint32_t argb,
    const std::vector<cv::Point> & pixels)
{
  const GstVideoFormat format = GST_VIDEO_INFO_FORMAT (info);
  const std::vector<uint8_t> yuv = overlay_color_bytes (info, argb);
  const uint8_t a = argb >> 24, r = argb >> 16, g = argb >> 8, b = argb;
  for (const cv::Point & p : pixels) {
    switch (format) {
      case GST_VIDEO_FORMAT_GRAY8:
        planes[0].at<uint8_t> (p.y, p.x) = 255;
        break;
      case GST_VIDEO_FORMAT_NV12:
        planes[0].at<uint8_t> (p.y, p.x) = yuv[0];
        planes[1].at<cv::Vec2b> (p.y / 2, p.x / 2) = cv::Vec2b (yuv[1], yuv[2]);
        break;
      case GST_VIDEO_FORMAT_I420:
        planes[0].at<uint8_t> (p.y, p.x) = yuv[0];
        planes[1].at<uint8_t> (p.y / 2, p.x / 2) = yuv[1];
        planes[2].at<uint8_t> (p.y / 2, p.x / 2) = yuv[2];
        break;
      default: {
        uint8_t *px = planes[0].ptr<uint8_t> (p.y) + (size_t) p.x * GST_VIDEO_INFO_COMP_PSTRIDE (info, 0);
        px[GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_R)] = r;
        px[GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_G)] = g;
        px[GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_B)] = b;
        if (GST_VIDEO_INFO_HAS_ALPHA (info))
          px[GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_A)] = a;
        break;
      }
    }
  }
}

std::vector<cv::Mat>
expected_flow_drawing (const std::vector<cv::Mat> & in, const GstVideoInfo * info, const std::vector<FlowVector> & v,
    uint32_t line_argb, uint32_t marker_argb, bool markers)
{
  std::vector<cv::Mat> out;
  for (const cv::Mat & m : in)
    out.push_back (m.clone ());
  paint_pixels (out, info, line_argb, flow_line_pixels (v, info->width, info->height));
  if (markers)
    paint_pixels (out, info, marker_argb, flow_marker_pixels (v, info->width, info->height));
  return out;
}


}  // namespace cvtest
