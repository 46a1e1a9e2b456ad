#include "face_ref.h"

#include "harness.h"
#include "test_util.h"

#include "../../core/draw/face_draw.h"

#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace cvtest {

std::string
haar_path (const std::string & file)
{
  if (!file.empty () && file[0] == '/')
    return file; /* a cascade of the test's own */
  return "/usr/share/opencv4/haarcascades/" + file;
}

bool
have_haar_cascades ()
{
  return std::filesystem::exists (haar_path (kDefaultCascade));
}

std::vector<cv::Rect>
opencv_faces (const cv::Mat & gray, const std::string & cascade_file, double scale, int min_neighbors, int min_size,
    int max_size)
{
  /* each cascade loaded once per thread: the load parses the XML, most of
   * a call's time on a portrait (more under ASan), and detectMultiScale
   * keeps nothing of one image for the next */
  static thread_local std::map<std::string, cv::CascadeClassifier> loaded;
  auto it = loaded.find (cascade_file);
  if (it == loaded.end ()) {
    cv::CascadeClassifier c;
    if (!c.load (haar_path (cascade_file)))
      throw std::runtime_error ("OpenCV cannot load " + cascade_file);
    it = loaded.emplace (cascade_file, c).first;
  }
  cv::CascadeClassifier & c = it->second;
  /* and each answer kept, keyed by the parameters and the frame's bytes:
   * the tests ask again for the same luma (one picture in many formats,
   * with and without drawing), and OpenCV's search is most of their time.
   * At most 64 MiB of frames are kept. */
  static thread_local std::map<std::string, std::vector<cv::Rect>> answers;
  static thread_local size_t kept_bytes = 0;
  std::ostringstream head;
  head << cascade_file << ' ' << std::hexfloat << scale << ' ' << min_neighbors << ' ' << min_size << ' ' << max_size
       << ' ' << gray.cols << 'x' << gray.rows << ' ' << gray.type () << '\n';
  std::string key = head.str ();
  const size_t row_bytes = (size_t) gray.cols * gray.elemSize ();
  key.reserve (key.size () + row_bytes * gray.rows);
  for (int y = 0; y < gray.rows; y++)
    key.append (gray.ptr<char> (y), row_bytes);
  if (const auto a = answers.find (key); a != answers.end ())
    return a->second;
  std::vector<cv::Rect> faces;
  c.detectMultiScale (gray, faces, scale, min_neighbors, 0, cv::Size (min_size, min_size),
      cv::Size (max_size, max_size));
  if (kept_bytes + key.size () > ((size_t) 64 << 20)) {
    answers.clear ();
    kept_bytes = 0;
  }
  kept_bytes += key.size ();
  answers.emplace (std::move (key), faces);
  return faces;
}

double
iou (const cv::Rect & a, const cv::Rect & b)
{
  const double inter = (a & b).area ();
  const double uni = a.area () + b.area () - inter;
  return uni > 0 ? inter / uni : 0;
}

std::string
rects_str (const std::vector<cv::Rect> & r)
{
  std::ostringstream s;
  s << r.size () << " [";
  for (size_t i = 0; i < r.size () && i < 20; i++)
    s << (i ? " " : "") << r[i].x << "," << r[i].y << " " << r[i].width << "x" << r[i].height;
  if (r.size () > 20)
    s << " ...";
  s << "]";
  return s.str ();
}

static bool
rect_less (const cv::Rect & a, const cv::Rect & b)
{
  return std::tie (a.y, a.x, a.width, a.height) < std::tie (b.y, b.x, b.width, b.height);
}

bool
same_rects (std::vector<cv::Rect> a, std::vector<cv::Rect> b)
{
  std::sort (a.begin (), a.end (), rect_less);
  std::sort (b.begin (), b.end (), rect_less);
  return a == b;
}

::testing::AssertionResult
faces_match (const std::vector<cv::Rect> & got, const std::vector<cv::Rect> & ref, double min_iou)
{
  std::ostringstream why;
  bool ok = got.size () == ref.size ();
  for (const cv::Rect & r : ref) {
    double best = 0;
    for (const cv::Rect & g : got)
      best = std::max (best, iou (g, r));
    if (best < min_iou) {
      ok = false;
      why << " OpenCV's " << r.x << "," << r.y << " " << r.width << "x" << r.height << " best IoU " << best << ";";
    }
  }
  if (ok)
    return ::testing::AssertionSuccess ();
  return ::testing::AssertionFailure () << "got " << rects_str (got) << ", OpenCV " << rects_str (ref) << ";"
                                        << why.str ();
}

FaceTiles
load_face_tiles ()
{
  FaceTiles t;
  t.rgb = load_rgb (data_path ("faces/face_tiles.png"));
  std::ifstream f (data_path ("faces/face_tiles.csv"));
  std::string line;
  while (std::getline (f, line)) {
    if (line.empty () || line[0] == '#') {
      /* "# ... 200 tiles, ..." */
      const size_t p = line.find (" tiles");
      if (p != std::string::npos) {
        const size_t b = line.rfind (' ', p - 1);
        t.tiles = std::stoi (line.substr (b + 1, p - b - 1));
      }
      continue;
    }
    if (line[0] == 'x')
      continue;
    cv::Rect r;
    if (std::sscanf (line.c_str (), "%d,%d,%d,%d", &r.x, &r.y, &r.width, &r.height) == 4)
      t.truth.push_back (r);
  }
  if (t.rgb.empty () || t.truth.empty () || t.tiles == 0)
    throw std::runtime_error ("cannot read tests/data/faces/face_tiles.{png,csv}");
  return t;
}

FaceScore
score_faces (const std::vector<cv::Rect> & got, const std::vector<cv::Rect> & truth, double min_iou)
{
  FaceScore s;
  std::vector<bool> used (got.size (), false);
  for (const cv::Rect & t : truth) {
    double best = 0;
    int bi = -1;
    for (size_t i = 0; i < got.size (); i++) {
      const double v = iou (got[i], t);
      if (!used[i] && v > best) {
        best = v;
        bi = (int) i;
      }
    }
    if (bi >= 0 && best >= min_iou) {
      used[bi] = true;
      s.hits++;
      s.worst_iou = std::min (s.worst_iou, best);
    }
  }
  s.false_positives = (int) std::count (used.begin (), used.end (), false);
  return s;
}

std::vector<cv::Rect>
face_metas (GstBuffer * buf, int *others)
{
  std::vector<cv::Rect> faces;
  if (others)
    *others = 0;
  gpointer state = nullptr;
  while (GstMeta *m = gst_buffer_iterate_meta_filtered (buf, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
    const GstVideoRegionOfInterestMeta *roi = (const GstVideoRegionOfInterestMeta *) m;
    if (roi->roi_type == g_quark_from_string ("face"))
      faces.push_back (cv::Rect (roi->x, roi->y, roi->w, roi->h));
    else if (others)
      (*others)++;
  }
  return faces;
}

FaceRun
run_face (const std::string & element, const std::string & in_caps, const std::string & out_caps, GstBuffer * in)
{
  FaceRun r;
  std::vector<OwnedStructure> messages;
  GstBuffer *out = run_harness (element, in_caps, out_caps, in, &messages);
  if (out) {
    r.ok = true;
    r.out = output_mat (out, out_caps);
    GstCaps *caps = gst_caps_from_string (out_caps.c_str ());
    r.planes = buffer_planes (out, caps);
    gst_caps_unref (caps);
    r.metas = face_metas (out, &r.other_metas);
    gst_buffer_unref (out);
  }
  for (const OwnedStructure & owned : messages) {
    const GstStructure *s = owned.get ();
    if (!gst_structure_has_name (s, "facedetect"))
      continue;
    r.messages++;
    r.msg_faces.clear ();
    r.msg_timing = gst_structure_has_field_typed (s, "stream-time", G_TYPE_UINT64) &&
        gst_structure_has_field_typed (s, "running-time", G_TYPE_UINT64) &&
        gst_structure_has_field_typed (s, "duration", G_TYPE_UINT64) &&
        gst_structure_get_uint64 (s, "timestamp", &r.msg_timestamp);
    const GValue *list = gst_structure_get_value (s, "faces");
    for (guint i = 0; list && GST_VALUE_HOLDS_LIST (list) && i < gst_value_list_get_size (list); i++) {
      const GstStructure *f = gst_value_get_structure (gst_value_list_get_value (list, i));
      guint x = 0, y = 0, w = 0, hh = 0;
      gst_structure_get (f, "x", G_TYPE_UINT, &x, "y", G_TYPE_UINT, &y, "width", G_TYPE_UINT, &w, "height",
          G_TYPE_UINT, &hh, nullptr);
      r.msg_faces.push_back (cv::Rect (x, y, w, hh));
    }
  }
  return r;
}

FaceRun
run_face_rgb (const std::string & element, const cv::Mat & rgb, GstVideoFormat f, const char *out_feature)
{
  return run_face (element, caps_string (f, rgb.cols, rgb.rows), caps_string (f, rgb.cols, rgb.rows, out_feature),
      rgb_to_buffer (rgb, f));
}

FaceRun
run_face_gray (const std::string & element, const cv::Mat & gray, const char *out_feature)
{
  return run_face (element, caps_string (GST_VIDEO_FORMAT_GRAY8, gray.cols, gray.rows),
      caps_string (GST_VIDEO_FORMAT_GRAY8, gray.cols, gray.rows, out_feature),
      mat_to_buffer (gray, GST_VIDEO_FORMAT_GRAY8));
}

std::vector<cv::Point>
box_pixels (const std::vector<cv::Rect> & faces, int width, int height)
{
  std::vector<cv::Point> out;
  for (const cv::Rect & f : faces) {
    const cudavision::BoxBorder b = cudavision::box_border (f.x, f.y, f.width, f.height, width, height);
    for (int i = 0; i < b.count (); i++) {
      int x, y;
      b.pixel (i, &x, &y);
      out.emplace_back (x, y);
    }
  }
  return out;
}

}  // namespace cvtest
