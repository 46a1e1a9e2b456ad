/* cudafacedetect's region-of-interest metas on the CPU backend (runs in
 * CI): every face reachable by its own id, in the message's order, each
 * with a "detection" parameter whose neighbour count and scale are
 * OpenCV's (detectMultiScale's numDetections), on the LFW group mosaic
 * and a portrait; ids after those of regions from upstream. */
#include "../common/face_ref.h"
#include "../common/face_rois.h"
#include "../common/harness.h"

#include <gst/check/gstharness.h>
#include <gtest/gtest.h>

using namespace cvtest;

namespace {

/* One RGBA frame through `element`: the output buffer (owned by the
 * caller) and the faces of its "facedetect" message. */
struct Out {
  GstBuffer *buf = nullptr;
  std::vector<cv::Rect> msg_faces;
  ~Out () { gst_clear_buffer (&buf); }
};

void
run_rgba (const std::string & element, GstBuffer * in, int w, int h, Out * out)
{
  const std::string caps = caps_string (GST_VIDEO_FORMAT_RGBA, w, h);
  std::vector<OwnedStructure> messages;
  out->buf = run_harness (element, caps, caps, in, &messages);
  for (const OwnedStructure & s : messages) {
    if (!gst_structure_has_name (s.get (), "facedetect"))
      continue;
    const GValue *list = gst_structure_get_value (s.get (), "faces");
    for (guint i = 0; list && i < gst_value_list_get_size (list); i++) {
      const GstStructure *f = gst_value_get_structure (gst_value_list_get_value (list, i));
      guint x = 0, y = 0, fw = 0, fh = 0;
      gst_structure_get (f, "x", G_TYPE_UINT, &x, "y", G_TYPE_UINT, &y, "width", G_TYPE_UINT, &fw, "height",
          G_TYPE_UINT, &fh, nullptr);
      out->msg_faces.push_back (cv::Rect (x, y, fw, fh));
    }
  }
}

/* `props` on the group mosaic (100 LFW faces): each face by its id, in the
 * message's order, with OpenCV's neighbour counts. */
void
check_mosaic (const std::string & props, double scale, int min_neighbors, size_t at_least)
{
  const FaceTiles t = load_face_tiles ();
  int window = 0;
  const std::vector<Detection> want = opencv_detections (to_gray (t.rgb), scale, min_neighbors, &window);
  ASSERT_GE (want.size (), at_least) << "OpenCV finds too few faces for the test to mean much";
  Out out;
  run_rgba ("cudafacedetect backend=cpu " + props, rgb_to_buffer (t.rgb, GST_VIDEO_FORMAT_RGBA), t.rgb.cols,
      t.rgb.rows, &out);
  ASSERT_TRUE (out.buf) << props;
  const std::vector<FaceRoi> rois = face_rois (out.buf);
  EXPECT_TRUE (faces_reached_by_id (out.buf, rois)) << props;
  EXPECT_TRUE (rois_are_detections (rois, want, window)) << props;
  ASSERT_EQ (out.msg_faces.size (), rois.size ()) << props;
  for (size_t i = 0; i < rois.size (); i++)
    EXPECT_EQ (rois[i].rect, out.msg_faces[i]) << props << ": id " << i << " is not the message's face " << i;
}

}  // namespace

TEST (FaceRoisCpu, GroupMosaicFacesByIdWithOpenCVsNeighbors)
{
  REQUIRE_CASCADES ();
  check_mosaic ("", 1.1, 3, 90);
}

TEST (FaceRoisCpu, ParametersReachTheNeighborCounts)
{
  REQUIRE_CASCADES ();
  check_mosaic ("scale-factor=1.2 min-neighbors=6", 1.2, 6, 50);
}

/* min-neighbors=0: every raw window is a face of its own, one neighbour
 * each, as OpenCV counts them; and the scale is its level's. */
TEST (FaceRoisCpu, UngroupedWindowsCountOne)
{
  REQUIRE_CASCADES ();
  const cv::Mat rgb = load_rgb (data_path ("astronaut.png"));
  int window = 0;
  const std::vector<Detection> want = opencv_detections (to_gray (rgb), 1.1, 0, &window);
  ASSERT_GT (want.size (), 5u);
  Out out;
  run_rgba ("cudafacedetect backend=cpu min-neighbors=0", rgb_to_buffer (rgb, GST_VIDEO_FORMAT_RGBA), rgb.cols,
      rgb.rows, &out);
  ASSERT_TRUE (out.buf);
  const std::vector<FaceRoi> rois = face_rois (out.buf);
  EXPECT_TRUE (faces_reached_by_id (out.buf, rois));
  EXPECT_TRUE (rois_are_detections (rois, want, window));
  for (const FaceRoi & f : rois)
    EXPECT_EQ (f.neighbors, 1);
}

/* Regions from upstream keep their ids (a tracker's, another detector's);
 * the faces take the ids after the largest, so each id still reaches one
 * region. */
TEST (FaceRoisCpu, IdsFollowUpstreamRegions)
{
  REQUIRE_CASCADES ();
  const cv::Mat rgb = load_rgb (data_path ("astronaut.png"));
  GstBuffer *in = rgb_to_buffer (rgb, GST_VIDEO_FORMAT_RGBA);
  GstVideoRegionOfInterestMeta *person = gst_buffer_add_video_region_of_interest_meta (in, "person", 5, 6, 7, 8);
  person->id = 4;
  gst_buffer_add_video_region_of_interest_meta (in, "car", 1, 2, 3, 4);  /* id 0 */
  Out out;
  run_rgba ("cudafacedetect backend=cpu", in, rgb.cols, rgb.rows, &out);
  ASSERT_TRUE (out.buf);
  const std::vector<FaceRoi> rois = face_rois (out.buf);
  ASSERT_EQ (rois.size (), 1u);
  EXPECT_TRUE (faces_reached_by_id (out.buf, rois, 5));
  GstVideoRegionOfInterestMeta *m = gst_buffer_get_video_region_of_interest_meta_id (out.buf, 4);
  ASSERT_TRUE (m);
  EXPECT_STREQ (g_quark_to_string (m->roi_type), "person");
  m = gst_buffer_get_video_region_of_interest_meta_id (out.buf, 0);
  ASSERT_TRUE (m);
  EXPECT_STREQ (g_quark_to_string (m->roi_type), "car");
}

/* The ids start again at 0 on every frame of a stream, and a frame
 * without faces carries no face metas. */
TEST (FaceRoisCpu, IdsArePerFrame)
{
  REQUIRE_CASCADES ();
  const cv::Mat face = load_rgb (data_path ("grace_hopper.jpg"));
  const cv::Mat blank (face.size (), face.type (), cv::Scalar (40, 40, 40));
  const std::string caps = caps_string (GST_VIDEO_FORMAT_RGBA, face.cols, face.rows);
  GstHarness *h = gst_harness_new_parse ("cudafacedetect backend=cpu");
  gst_harness_set_caps_str (h, caps.c_str (), caps.c_str ());
  const struct {
    const cv::Mat *rgb;
    size_t faces;
  } frames[] = { { &face, 1 }, { &blank, 0 }, { &face, 1 }, { &face, 1 } };
  for (const auto & f : frames) {
    GstBuffer *out = gst_harness_push_and_pull (h, rgb_to_buffer (*f.rgb, GST_VIDEO_FORMAT_RGBA));
    ASSERT_TRUE (out);
    const std::vector<FaceRoi> rois = face_rois (out);
    EXPECT_EQ (rois.size (), f.faces);
    EXPECT_TRUE (faces_reached_by_id (out, rois));
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}
