#include "face_rois.h"

#include "face_ref.h"

#include <opencv2/objdetect.hpp>

#include <algorithm>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace cvtest {

std::vector<FaceRoi>
face_rois (GstBuffer * buf)
{
  std::vector<FaceRoi> out;
  gpointer state = nullptr;
  while (GstMeta *m = gst_buffer_iterate_meta_filtered (buf, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) m;
    if (roi->roi_type != g_quark_from_string ("face"))
      continue;
    FaceRoi f;
    f.id = roi->id;
    f.rect = cv::Rect (roi->x, roi->y, roi->w, roi->h);
    if (GstStructure *s = gst_video_region_of_interest_meta_get_param (roi, "detection"))
      f.has_param = gst_structure_get_int (s, "neighbors", &f.neighbors) &&
          gst_structure_get_double (s, "scale", &f.scale);
    out.push_back (f);
  }
  return out;
}

static std::string
roi_str (const FaceRoi & f)
{
  std::ostringstream s;
  s << "id " << f.id << " " << f.rect.x << "," << f.rect.y << " " << f.rect.width << "x" << f.rect.height;
  if (f.has_param)
    s << " neighbors " << f.neighbors << " scale " << f.scale;
  else
    s << " (no detection param)";
  return s.str ();
}

::testing::AssertionResult
faces_reached_by_id (GstBuffer * buf, const std::vector<FaceRoi> & rois, gint first_id)
{
  std::set<gint> ids;
  for (size_t i = 0; i < rois.size (); i++) {
    const FaceRoi & f = rois[i];
    if (f.id != first_id + (gint) i)
      return ::testing::AssertionFailure () << "face " << i << ": " << roi_str (f) << ", expected id "
                                            << first_id + (gint) i;
    if (!ids.insert (f.id).second)
      return ::testing::AssertionFailure () << "id " << f.id << " twice";
    GstVideoRegionOfInterestMeta *m = gst_buffer_get_video_region_of_interest_meta_id (buf, f.id);
    if (!m)
      return ::testing::AssertionFailure () << "no region meta with id " << f.id;
    if (m->roi_type != g_quark_from_string ("face") || cv::Rect (m->x, m->y, m->w, m->h) != f.rect)
      return ::testing::AssertionFailure () << "id " << f.id << " reaches " << g_quark_to_string (m->roi_type)
                                            << " " << m->x << "," << m->y << " " << m->w << "x" << m->h
                                            << ", not " << roi_str (f);
  }
  return ::testing::AssertionSuccess ();
}

std::vector<Detection>
opencv_detections (const cv::Mat & gray, double scale, int min_neighbors, int *window_width,
    const std::string & cascade_file)
{
  cv::CascadeClassifier c;
  if (!c.load (haar_path (cascade_file)))
    throw std::runtime_error ("OpenCV cannot load " + cascade_file);
  std::vector<cv::Rect> rects;
  std::vector<int> counts;
  c.detectMultiScale (gray, rects, counts, scale, min_neighbors, 0);
  if (counts.size () != rects.size ())
    throw std::runtime_error ("detectMultiScale: numDetections is not one per face");
  if (window_width)
    *window_width = c.getOriginalWindowSize ().width;
  std::vector<Detection> out;
  for (size_t i = 0; i < rects.size (); i++)
    out.push_back ({ rects[i], counts[i] });
  return out;
}

::testing::AssertionResult
rois_are_detections (const std::vector<FaceRoi> & rois, std::vector<Detection> want, int window_width)
{
  using Key = std::tuple<int, int, int, int, int>;
  std::vector<Key> got_keys, want_keys;
  for (const FaceRoi & f : rois) {
    if (!f.has_param)
      return ::testing::AssertionFailure () << roi_str (f);
    if (f.scale != (double) f.rect.width / window_width)
      return ::testing::AssertionFailure () << roi_str (f) << ": the scale is not " << f.rect.width << "/"
                                            << window_width;
    got_keys.emplace_back (f.rect.y, f.rect.x, f.rect.width, f.rect.height, f.neighbors);
  }
  for (const Detection & d : want)
    want_keys.emplace_back (d.rect.y, d.rect.x, d.rect.width, d.rect.height, d.neighbors);
  std::sort (got_keys.begin (), got_keys.end ());
  std::sort (want_keys.begin (), want_keys.end ());
  if (got_keys == want_keys)
    return ::testing::AssertionSuccess ();
  std::ostringstream s;
  s << rois.size () << " faces, OpenCV " << want.size () << "; differing (y, x, w, h, neighbors):";
  std::vector<Key> only_got, only_want;
  std::set_difference (got_keys.begin (), got_keys.end (), want_keys.begin (), want_keys.end (),
      std::back_inserter (only_got));
  std::set_difference (want_keys.begin (), want_keys.end (), got_keys.begin (), got_keys.end (),
      std::back_inserter (only_want));
  for (const Key & k : only_got)
    s << " ours (" << std::get<0> (k) << ", " << std::get<1> (k) << ", " << std::get<2> (k) << ", "
      << std::get<3> (k) << ", " << std::get<4> (k) << ")";
  for (const Key & k : only_want)
    s << " OpenCV's (" << std::get<0> (k) << ", " << std::get<1> (k) << ", " << std::get<2> (k) << ", "
      << std::get<3> (k) << ", " << std::get<4> (k) << ")";
  return ::testing::AssertionFailure () << s.str ();
}

}  // namespace cvtest
