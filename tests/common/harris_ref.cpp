#include "harris_ref.h"

#include "harness.h"
#include "test_util.h"

#include "../../cuda/harris/corner_cells.h"
#include "../../core/draw/corner_marker.h"
#include "../../cuda/harris/harris_math.h"

#include "gstcvkeypointsmeta.h"


#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <numeric>
#include <random>
#include <stdexcept>
#include <sstream>

namespace cvtest {

using cudavision::Corner;
using cudavision::CornerDetectParams;
using cudavision::CornerMethod;
using cudavision::CornerParams;

namespace {

template <int K>
void
sobel_reflected (const cv::Mat & g, int x, int y, int *dx, int *dy)
{
  const int w = g.cols, h = g.rows;
  cudavision::sobel_at<K> (
      [&] (int i, int j) {
        return (int) g.at<uint8_t> (cudavision::reflect101 (y + j, h), cudavision::reflect101 (x + i, w));
      },
      dx, dy);
}

}  // namespace

cv::Mat
model_response (const cv::Mat & g, const CornerParams & p)
{
  const int w = g.cols, h = g.rows, B = p.block_size, a = B / 2;
  const float scale = (float) cudavision::corner_deriv_scale (p.aperture, B);
  cv::Mat dx (h, w, CV_32F), dy (h, w, CV_32F);
  for (int y = 0; y < h; y++) {
    for (int x = 0; x < w; x++) {
      int ix = 0, iy = 0;
      if (p.aperture == 3)
        sobel_reflected<3> (g, x, y, &ix, &iy);
      else if (p.aperture == 5)
        sobel_reflected<5> (g, x, y, &ix, &iy);
      else
        sobel_reflected<7> (g, x, y, &ix, &iy);
      dx.at<float> (y, x) = (float) ix * scale;
      dy.at<float> (y, x) = (float) iy * scale;
    }
  }
  /* horizontal sums of the products at reflected columns, for every row */
  cv::Mat hs (h, w, CV_32FC3);
  for (int y = 0; y < h; y++) {
    for (int x = 0; x < w; x++) {
      float sxx = 0, sxy = 0, syy = 0;
      for (int t = 0; t < B; t++) {
        const int xx = cudavision::reflect101 (x - a + t, w);
        const float ex = dx.at<float> (y, xx), ey = dy.at<float> (y, xx);
        sxx += ex * ex;
        sxy += ex * ey;
        syy += ey * ey;
      }
      hs.at<cv::Vec3f> (y, x) = { sxx, sxy, syy };
    }
  }
  cv::Mat r (h, w, CV_32F);
  for (int y = 0; y < h; y++) {
    for (int x = 0; x < w; x++) {
      float sa = 0, sb = 0, sc = 0;
      for (int t = 0; t < B; t++) {
        const cv::Vec3f v = hs.at<cv::Vec3f> (cudavision::reflect101 (y - a + t, h), x);
        sa += v[0];
        sb += v[1];
        sc += v[2];
      }
      r.at<float> (y, x) = cudavision::corner_response (sa, sb, sc, p.method, (float) p.k);
    }
  }
  return r;
}

std::vector<Corner>
model_corners (const cv::Mat & r, const CornerDetectParams & p)
{
  double maxv = 0;
  cv::minMaxLoc (r, nullptr, &maxv);
  const float thresh = cudavision::corner_threshold ((float) maxv, p.quality_level);
  std::vector<uint64_t> keys;
  for (int y = 1; y < r.rows - 1; y++) {
    for (int x = 1; x < r.cols - 1; x++) {
      float v;
      auto at = [&] (int i, int j) { return r.at<float> (y + j, x + i); };
      if (cudavision::is_corner_candidate (at, thresh, &v))
        keys.push_back (cudavision::corner_key (v, (uint32_t) (y * r.cols + x)));
    }
  }
  std::sort (keys.begin (), keys.end (), std::greater<uint64_t> ());
  std::vector<Corner> sorted;
  for (uint64_t k : keys) {
    const uint32_t idx = cudavision::corner_key_index (k);
    sorted.push_back ({ (float) (idx % r.cols), (float) (idx / r.cols), cudavision::corner_key_value (k) });
  }
  return cudavision::select_corners (sorted.data (), sorted.size (), r.cols, r.rows, p.min_distance, p.max_corners);
}


namespace {

/* corner_cells.h's accesses on the host: plain memory, one thread. */
struct HostCells {
  const cudavision::CellGrid & g;
  std::vector<uint64_t> keys, frontier, kept, out;
  std::vector<uint32_t> counts;
  std::vector<cudavision::CellState> states;
  int budget = 0;
  bool limited = false;

  bool pause ()
  {
    if (!limited)
      return false;
    if (budget <= 0)
      return true;
    budget--;
    return false;
  }
  cudavision::CellState state (int c) const { return states[c]; }
  void set_state (int c, cudavision::CellState st) { states[c] = st; }
  uint32_t count (int c) const { return counts[c]; }
  uint64_t key (int c, uint32_t i) const { return keys[(size_t) c * g.key_slots () + i]; }
  uint64_t frontier_acquire (int c) const { return frontier[c]; }
  void frontier_release (int c, uint64_t v) { frontier[c] = v; }
  uint64_t kept_acquire (int c, int j) const { return kept[(size_t) c * g.kept_slots + j]; }
  void kept_release (int c, int j, uint64_t v) { kept[(size_t) c * g.kept_slots + j] = v; }
  void kept_relaxed_store (int c, int j, uint64_t v) { kept[(size_t) c * g.kept_slots + j] = v; }
  void emit (uint64_t k) { out.push_back (k); }
};

}  // namespace

namespace {

/* The candidate kernel's work on the host: the cell grid, each cell's
 * candidates (strongest first after the sort), or with no distance test
 * the kept list itself (false: the frame has no interior pixel). */
struct FilledCells {
  cudavision::CellGrid g;
  std::vector<std::vector<uint64_t>> per_cell;
  std::vector<uint64_t> kept;
};

bool
fill_cells (const cv::Mat & r, const CornerDetectParams & p, FilledCells & f)
{
  if (r.cols < 3 || r.rows < 3) /* no interior pixel: no candidate */
    return false;
  const cudavision::CellGrid & g = f.g = cudavision::make_cell_grid (r.cols, r.rows, p.min_distance);
  auto & per_cell = f.per_cell;
  auto & kept = f.kept;
  double maxv = 0;
  cv::minMaxLoc (r, nullptr, &maxv);
  const float thresh = cudavision::corner_threshold ((float) maxv, p.quality_level);
  per_cell.assign ((size_t) g.cells (), {});
  for (int y = 1; y < r.rows - 1; y++) {
    for (int x = 1; x < r.cols - 1; x++) {
      float v;
      auto at = [&] (int i, int j) { return r.at<float> (y + j, x + i); };
      if (!cudavision::is_corner_candidate (at, thresh, &v))
        continue;
      const uint64_t k = cudavision::corner_key_yx (v, x, y);
      if (g.all)
        kept.push_back (k);
      else
        per_cell[(size_t) (y >> g.shift) * g.cols + (x >> g.shift)].push_back (k);
    }
  }
  for (auto & v : per_cell)
    std::sort (v.begin (), v.end (), std::greater<uint64_t> ());
  return true;
}

/* The list kernel's work: strongest first, cut at max_corners. */
std::vector<Corner>
ordered_list (std::vector<uint64_t> kept, const CornerDetectParams & p)
{
  std::sort (kept.begin (), kept.end (), std::greater<uint64_t> ());
  if (p.max_corners > 0 && kept.size () > (size_t) p.max_corners)
    kept.resize ((size_t) p.max_corners);
  std::vector<Corner> out;
  for (uint64_t k : kept)
    out.push_back ({ (float) cudavision::corner_key_x (k), (float) cudavision::corner_key_y (k),
        cudavision::corner_key_value (k) });
  return out;
}

/* decide_candidate's reads on the host. */
struct HostRounds {
  const std::vector<std::vector<uint64_t>> & cells;
  const std::vector<uint32_t> & offsets;
  const std::vector<uint8_t> & decisions;

  uint32_t count (int c) const { return (uint32_t) cells[c].size (); }
  uint64_t key (int c, uint32_t i) const { return cells[c][i]; }
  uint32_t index (int c, uint32_t i) const { return offsets[c] + i; }
  cudavision::CornerDecision decision (int c, uint32_t i) const
  {
    return (cudavision::CornerDecision) decisions[offsets[c] + i];
  }
};

}  // namespace

std::vector<Corner>
cells_corners (const cv::Mat & r, const CornerDetectParams & p, unsigned seed, int steps)
{
  FilledCells f;
  if (!fill_cells (r, p, f))
    return {};
  auto & [g, per_cell, kept] = f;
  if (!g.all) {
    HostCells m { g };
    /* stale slots hold keys above every real one: reading one shows */
    m.keys.assign ((size_t) g.cells () * g.key_slots (), ~0ull);
    m.kept.assign ((size_t) g.cells () * g.kept_slots, ~0ull);
    m.frontier.assign ((size_t) g.cells (), ~0ull);
    m.counts.assign ((size_t) g.cells (), 0);
    m.states.assign ((size_t) g.cells (), { 0, 0 });
    for (int c = 0; c < g.cells (); c++) {
      const std::vector<uint64_t> & v = per_cell[c];
      std::copy (v.begin (), v.end (), m.keys.begin () + (size_t) c * g.key_slots ());
      m.counts[c] = (uint32_t) v.size ();
      m.frontier[c] = v.empty () ? 0 : v[0];
      m.kept[(size_t) c * g.kept_slots] = 0;
    }
    std::vector<int> order ((size_t) g.cells ());
    std::iota (order.begin (), order.end (), 0);
    std::mt19937 rng (seed);
    for (;;) {
      std::shuffle (order.begin (), order.end (), rng);
      bool waiting = false, moved = false;
      for (int c : order) {
        m.limited = steps > 0;
        m.budget = steps;
        if (cudavision::advance_cell (g, m, c, &moved) == cudavision::CellWalk::Waiting)
          waiting = true;
      }
      if (!waiting)
        break;
      if (!moved)
        throw std::runtime_error ("cells_corners: no cell can advance");
    }
    kept = m.out;
  }
  return ordered_list (kept, p);
}

std::vector<Corner>
rounds_corners (const cv::Mat & r, const CornerDetectParams & p, int *rounds)
{
  *rounds = 0;
  FilledCells f;
  if (!fill_cells (r, p, f))
    return {};
  auto & [g, per_cell, kept] = f;
  if (!g.all) {
    std::vector<uint32_t> offsets ((size_t) g.cells ()), owner;
    for (int c = 0; c < g.cells (); c++) {
      offsets[c] = (uint32_t) owner.size ();
      owner.insert (owner.end (), per_cell[c].size (), (uint32_t) c);
    }
    std::vector<uint8_t> dec (owner.size (), 0);
    std::vector<std::pair<size_t, uint8_t>> decided;
    std::vector<size_t> open ((size_t) owner.size ()), still;
    std::iota (open.begin (), open.end (), 0);
    const HostRounds m { per_cell, offsets, dec };
    std::vector<std::array<uint32_t, cudavision::kCornerNeighbourSlots>> lists (owner.size ());
    std::vector<uint32_t> listed (owner.size ());
    for (size_t j = 0; j < owner.size (); j++)
      listed[j] = cudavision::stronger_close_list (g, m, (int) owner[j], (uint32_t) (j - offsets[owner[j]]),
          lists[j].data (), cudavision::kCornerNeighbourSlots);
    while (!open.empty ()) {
      ++*rounds;
      decided.clear ();
      still.clear ();
      for (size_t j : open) {
        /* the device's list, as it reads it (decide_listed); an
         * incomplete one whose listed candidates are all rejected looks
         * at the cells */
        const uint32_t k = std::min (listed[j], cudavision::kCornerNeighbourSlots);
        cudavision::DecisionFold f;
        for (uint32_t q = 0; q < k && f.add ((cudavision::CornerDecision) dec[lists[j][q]]); q++) {
        }
        cudavision::CornerDecision d = f.result ();
        if (listed[j] > cudavision::kCornerNeighbourSlots && d == cudavision::CornerDecision::Kept)
          d = cudavision::decide_candidate (g, m, (int) owner[j], (uint32_t) (j - offsets[owner[j]]));
        if (d == cudavision::CornerDecision::Undecided)
          still.push_back (j);
        else
          decided.push_back ({ j, (uint8_t) d });
      }
      if (decided.empty ())
        throw std::runtime_error ("rounds_corners: a round decided nothing");
      for (const auto & [j, d] : decided) /* after the round, as the block's barrier */
        dec[j] = d;
      open.swap (still);
    }
    for (size_t j = 0; j < owner.size (); j++)
      if (dec[j] == (uint8_t) cudavision::CornerDecision::Kept)
        kept.push_back (per_cell[owner[j]][j - offsets[owner[j]]]);
  }
  return ordered_list (kept, p);
}

cv::Mat
tie_pattern_image (int width, int height)
{
  cv::Mat g (height, width, CV_8UC1, cv::Scalar (20));
  std::mt19937 rng (3);
  for (int y = 6; y + 12 < height; y += 11 + (int) (rng () % 9))
    for (int x = 6; x + 12 < width; x += 11 + (int) (rng () % 9))
      g (cv::Rect (x, y, 6, 6)) = 230;
  return g;
}

std::vector<StressMap>
selection_stress_maps (double d)
{
  std::vector<StressMap> maps;
  const int w = 320, h = 240;
  const int step = std::max (2, (int) std::lround (0.8 * d)); /* peaks that each suppress the next */
  {
    /* chains: horizontal, vertical and diagonal, weakening along their
     * length, so each decision waits for the one before */
    cv::Mat m (h, w, CV_32F, cv::Scalar (0));
    float v = 100000;
    for (int y = 3; y < h - 3; y += 37)
      for (int x = 2 + y % 5; x < w - 2; x += step)
        m.at<float> (y, x) = v--;
    for (int x = 7; x < w - 3; x += 53)
      for (int y = h - 3; y >= 2; y -= step)
        m.at<float> (y, x) = v--;
    for (int i = 2; i < std::min (w, h) - 2; i += step)
      m.at<float> (i, i + 40) = v--;
    maps.push_back ({ "chains", m });
  }
  {
    /* ties: isolated peaks of two values on a jittered lattice */
    cv::Mat m (h, w, CV_32F, cv::Scalar (0));
    std::mt19937 rng (5);
    for (int y = 2; y < h - 2; y += 3)
      for (int x = 2; x < w - 2; x += 3)
        if (rng () % 3)
          m.at<float> (y, x) = (rng () % 2) ? 2.f : 1.f;
    maps.push_back ({ "ties", m });
  }
  {
    /* plateaus: blocks of equal values, every pixel a candidate */
    cv::Mat m (h, w, CV_32F, cv::Scalar (0));
    m (cv::Rect (10, 10, 70, 50)) = 7.f;
    m (cv::Rect (150, 30, 40, 90)) = 7.f;
    m (cv::Rect (60, 120, 120, 100)) = 9.f;
    m (cv::Rect (250, 150, 1, 60)) = 9.f;
    maps.push_back ({ "plateaus", m });
  }
  {
    /* pairs at squared distances just below, at and above d², strongest
     * second in raster order, around cell corners of 16, 32 and 64 */
    cv::Mat m (h, w, CV_32F, cv::Scalar (0));
    const int d2 = (int) std::ceil (d * d);
    std::vector<std::pair<int, int>> offsets;
    for (int target : { d2 - 1, d2, d2 + 1 })
      for (int dx = 0; dx * dx <= target; dx++) {
        const int dy = (int) std::lround (std::sqrt ((double) (target - dx * dx)));
        if (dx * dx + dy * dy == target) {
          offsets.push_back ({ dx, dy });
          break;
        }
      }
    float v = 1000;
    int i = 0;
    for (int cy = 16; cy < h - 16; cy += 32)
      for (int cx = 16; cx < w - 16; cx += 32) {
        const auto o = offsets.empty () ? std::pair<int, int> { 1, 1 } : offsets[i++ % offsets.size ()];
        const int x0 = cx - o.first / 2, y0 = cy - o.second / 2;
        const int x1 = x0 + o.first, y1 = y0 + o.second;
        if (x0 < 2 || y0 < 2 || x1 >= w - 2 || y1 >= h - 2)
          continue;
        m.at<float> (y0, x0) = v - 1;
        m.at<float> (y1, x1) = v;
        v -= 3;
      }
    maps.push_back ({ "distance-edges", m });
  }
  {
    /* dense random peaks, as on noise */
    cv::Mat m (h, w, CV_32F);
    cv::randu (m, 0.f, 1.f);
    maps.push_back ({ "dense", m });
    /* the same quantized: ties and small plateaus everywhere */
    cv::Mat q (h, w, CV_32F);
    std::mt19937 rng (9);
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        q.at<float> (y, x) = (float) (1 + rng () % 4);
    maps.push_back ({ "dense-quantized", q });
  }
  return maps;
}

CornerParams
corner_params (CornerMethod m, int block, int aperture, double k)
{
  CornerParams p;
  p.method = m;
  p.block_size = block;
  p.aperture = aperture;
  p.k = k;
  return p;
}

std::string
describe (const CornerParams & p)
{
  return std::string (p.method == CornerMethod::Harris ? "harris" : "shi-tomasi") + " block " +
      std::to_string (p.block_size) + " aperture " + std::to_string (p.aperture) + " k " + std::to_string (p.k);
}

std::string
harris_element (const std::string & backend, const CornerDetectParams & p)
{
  std::ostringstream s;
  s << "cudaharris backend=" << backend << " method="
    << (p.corner.method == CornerMethod::Harris ? "harris" : "shi-tomasi")
    << " corner-block-size=" << p.corner.block_size << " aperture=" << p.corner.aperture << " k=" << p.corner.k
    << " quality-level=" << p.quality_level << " min-distance=" << p.min_distance
    << " max-corners=" << p.max_corners;
  return s.str ();
}

cv::Mat
opencv_normalized_response (const cv::Mat & gray, const CornerParams & p)
{
  const cv::Mat r = opencv_response (gray, p);
  double maxv = 0;
  cv::minMaxLoc (r, nullptr, &maxv);
  cv::Mat out (gray.size (), CV_8UC1, cv::Scalar (0));
  if (maxv > 0)
    r.convertTo (out, CV_8U, 255.0 / maxv);
  return out;
}

cv::Mat
opencv_response (const cv::Mat & gray, const cudavision::CornerParams & p)
{
  cv::Mat r;
  if (p.method == CornerMethod::Harris)
    cv::cornerHarris (gray, r, p.block_size, p.aperture, p.k, cv::BORDER_REFLECT_101);
  else
    cv::cornerMinEigenVal (gray, r, p.block_size, p.aperture, cv::BORDER_REFLECT_101);
  return r;
}

std::vector<Corner>
opencv_corners (const cv::Mat & gray, const cudavision::CornerDetectParams & p)
{
  std::vector<cv::Point2f> pts;
  std::vector<float> q;
  cv::goodFeaturesToTrack (gray, pts, p.max_corners, p.quality_level, p.min_distance, cv::noArray (), q,
      p.corner.block_size, p.corner.aperture, p.corner.method == CornerMethod::Harris, p.corner.k);
  std::vector<Corner> out;
  for (size_t i = 0; i < pts.size (); i++)
    out.push_back ({ pts[i].x, pts[i].y, q[i] });
  return out;
}

double
response_rel_error (const cv::Mat & got, const cv::Mat & ref, cv::Point * where)
{
  if (got.size () != ref.size () || got.type () != ref.type ())
    return 1e30;
  cv::Mat d;
  cv::absdiff (got, ref, d);
  double dmax = 0, rmin = 0, rmax = 0;
  cv::minMaxLoc (d, nullptr, &dmax, nullptr, where);
  cv::minMaxLoc (ref, &rmin, &rmax);
  const double scale = std::max (std::fabs (rmin), std::fabs (rmax));
  if (scale == 0)
    return dmax == 0 ? 0 : 1e30;
  return dmax / scale;
}

double
recall (const std::vector<Corner> & got, const std::vector<Corner> & ref, double radius)
{
  if (ref.empty ())
    return 1.0;
  int hit = 0;
  for (const Corner & r : ref) {
    for (const Corner & g : got) {
      if (std::hypot (g.x - r.x, g.y - r.y) <= radius) {
        hit++;
        break;
      }
    }
  }
  return (double) hit / ref.size ();
}

std::string
diff_corner_lists (const std::vector<Corner> & got, const std::vector<Corner> & ref)
{
  std::ostringstream s;
  if (got.size () != ref.size ())
    s << "sizes " << got.size () << " vs " << ref.size () << "; ";
  for (size_t i = 0; i < std::min (got.size (), ref.size ()); i++) {
    if (got[i].x != ref[i].x || got[i].y != ref[i].y || got[i].score != ref[i].score) {
      s << "first difference at " << i << ": (" << got[i].x << "," << got[i].y << " " << got[i].score << ") vs ("
        << ref[i].x << "," << ref[i].y << " " << ref[i].score << ")";
      break;
    }
  }
  return s.str ();
}

std::vector<cv::Point2f>
left01_chessboard (const cv::Mat & gray)
{
  std::vector<cv::Point2f> pts;
  if (!cv::findChessboardCorners (gray, cv::Size (9, 6), pts))
    return {};
  cv::cornerSubPix (gray, pts, cv::Size (11, 11), cv::Size (-1, -1),
      cv::TermCriteria (cv::TermCriteria::EPS + cv::TermCriteria::COUNT, 30, 0.01));
  return pts;
}

int
matched (const std::vector<cv::Point2f> & truth, const std::vector<Corner> & got, double radius)
{
  int n = 0;
  for (const cv::Point2f & t : truth) {
    for (const Corner & g : got) {
      if (std::hypot (g.x - t.x, g.y - t.y) <= radius) {
        n++;
        break;
      }
    }
  }
  return n;
}

cv::Mat
load_gray (const std::string & path)
{
  cv::Mat g;
  cv::cvtColor (load_rgb (path), g, cv::COLOR_RGB2GRAY);
  return g;
}

HarrisRun
run_harris (const std::string & element, const std::string & in_caps, const std::string & out_caps, GstBuffer * in)
{
  HarrisRun r;
  std::vector<OwnedStructure> messages;
  GstBuffer *out = run_harness (element, in_caps, out_caps, in, &messages);
  if (out) {
    r.ok = true;
    r.out = output_mat (out, out_caps);
    r.planes = caps_planes (out, out_caps);
    r.corners = buffer_corners (out, &r.has_meta);
    gst_buffer_unref (out);
  }
  for (const OwnedStructure & owned : messages) {
    const GstStructure *s = owned.get ();
    if (!gst_structure_has_name (s, "cudaharris"))
      continue;
    r.messages++;
    gst_structure_get_uint (s, "count", &r.msg_count);
    r.msg_corners.clear ();
    const GValue *list = gst_structure_get_value (s, "corners");
    for (guint i = 0; list && i < gst_value_list_get_size (list); i++) {
      const GstStructure *c = gst_value_get_structure (gst_value_list_get_value (list, i));
      Corner k;
      gst_structure_get (c, "x", G_TYPE_FLOAT, &k.x, "y", G_TYPE_FLOAT, &k.y, "score", G_TYPE_FLOAT, &k.score,
          nullptr);
      r.msg_corners.push_back (k);
    }
  }
  return r;
}

HarrisRun
run_harris_gray (const std::string & element, const cv::Mat & gray, GstVideoFormat out, const char *out_feature)
{
  return run_harris (element, caps_string (GST_VIDEO_FORMAT_GRAY8, gray.cols, gray.rows),
      caps_string (out, gray.cols, gray.rows, out_feature), mat_to_buffer (gray, GST_VIDEO_FORMAT_GRAY8));
}

HarrisRun
run_harris_rgb (const std::string & element, const cv::Mat & rgb, GstVideoFormat f, GstVideoFormat out)
{
  return run_harris (element, caps_string (f, rgb.cols, rgb.rows), caps_string (out, rgb.cols, rgb.rows),
      rgb_to_buffer (rgb, f));
}

MarkCheck
check_marks (const cv::Mat & out, const cv::Mat & orig, const std::vector<Corner> & corners, int r_offset,
    int g_offset, int b_offset)
{
  MarkCheck c;
  if (out.size () != orig.size () || out.type () != CV_8UC4 || orig.type () != CV_8UC4) {
    c.not_red = c.changed_outside = -1;
    return c;
  }
  /* the marker: a 9x9 cross, 1 px wide, clipped */
  cv::Mat marked (out.size (), CV_8UC1, cv::Scalar (0));
  for (const Corner & k : corners)
    cv::drawMarker (marked, cv::Point ((int) k.x, (int) k.y), 255, cv::MARKER_CROSS, 9, 1, cv::LINE_4);
  const int a_offset = 6 - r_offset - g_offset - b_offset;
  for (int y = 0; y < out.rows; y++) {
    for (int x = 0; x < out.cols; x++) {
      const cv::Vec4b o = out.at<cv::Vec4b> (y, x), i = orig.at<cv::Vec4b> (y, x);
      if (marked.at<uint8_t> (y, x)) {
        c.marker_pixels++;
        c.not_red += !(o[r_offset] == 255 && o[g_offset] == 0 && o[b_offset] == 0 && o[a_offset] == i[a_offset]);
      } else {
        c.changed_outside += o != i;
      }
    }
  }
  return c;
}

cv::Mat
packed_frame (const cv::Mat & rgb, GstVideoFormat f)
{
  GstBuffer *b = rgb_to_buffer (rgb, f);
  GstCaps *caps = gst_caps_from_string (caps_string (f, rgb.cols, rgb.rows).c_str ());
  cv::Mat m = buffer_to_mat (b, caps);
  gst_caps_unref (caps);
  gst_buffer_unref (b);
  return m;
}

std::vector<Corner>
buffer_corners (GstBuffer * buf, bool *has)
{
  std::vector<Corner> corners;
  GstCvKeypointsMeta *m = gst_buffer_get_cv_keypoints_meta (buf);
  if (has)
    *has = m != nullptr;
  for (guint i = 0; m && i < m->n; i++)
    corners.push_back ({ m->points[i].x, m->points[i].y, m->points[i].score });
  return corners;
}

std::vector<cv::Point>
corner_mark_pixels (const std::vector<Corner> & corners, int width, int height)
{
  std::vector<cv::Point> px;
  for (const Corner & c : corners) {
    for (int k = 0; k < cudavision::kCornerMarkerPixels; k++) {
      int dx, dy;
      cudavision::corner_marker_offset (k, &dx, &dy);
      const cv::Point p ((int) c.x + dx, (int) c.y + dy);
      if (p.x >= 0 && p.y >= 0 && p.x < width && p.y < height)
        px.push_back (p);
    }
  }
  return px;
}

GstHarness *
harness_for_bin (const std::string & description)
{
  GstElement *bin = gst_parse_bin_from_description (description.c_str (), TRUE, nullptr);
  if (!bin)
    return nullptr;
  if (shared_context ())
    gst_element_set_context (bin, shared_context ());
  GstHarness *h = gst_harness_new_with_element (bin, "sink", "src");
  gst_object_unref (bin);
  return h;
}

}  // namespace cvtest
