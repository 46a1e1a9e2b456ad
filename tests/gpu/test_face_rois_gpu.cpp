/* cudafacedetect's region metas on the GPU: FaceDetector's neighbour
 * counts (one per face) the same from the device grouping and the host's,
 * and OpenCV's numDetections on the LFW group mosaic; through the
 * element, the metas (ids, boxes, "detection" parameters) identical to the
 * CPU backend's, in order. Skips (exit 77) without a CUDA device. */
#include "../common/device_fixture.h"
#include "../common/face_ref.h"
#include "../common/face_rois.h"
#include "../common/harness.h"

#include "../../cuda/face/facedetect.h"
#include "../../core/face/haar_cascade.h"

#include <gtest/gtest.h>

using namespace cvtest;
using cudavision::FaceDetector;

namespace {

class FaceRoisGpu : public DeviceTest {
protected:
  void SetUp () override
  {
    DeviceTest::SetUp ();
    cudavision::HaarCascade c;
    std::string err;
    ASSERT_TRUE (cudavision::load_haar_cascade (haar_path (kDefaultCascade), &c, &err)) << err;
    window_ = c.window_width;
    ASSERT_TRUE (detector_.set_cascade (c, stream.get ()).ok ());
  }
  void TearDown () override { detector_.release (); }

  FaceDetector::Result detect (const cv::Mat & gray, const cudavision::FaceDetectParams & p)
  {
    cudavision::DeviceBuffer buf;
    const cudavision::ConstImage8 img = upload (gray, buf);
    FaceDetector::Result r;
    const cudavision::CudaStatus s = detector_.detect (img, p, policy (), stream.get (), &r);
    EXPECT_TRUE (s.ok ()) << s.message ();
    return r;
  }

  FaceDetector detector_;
  int window_ = 0;
};

std::vector<FaceRoi>
as_rois (const FaceDetector::Result & r, int window)
{
  std::vector<FaceRoi> out;
  for (size_t i = 0; i < r.faces.size (); i++) {
    FaceRoi f;
    f.id = (gint) i;
    f.rect = cv::Rect (r.faces[i].x, r.faces[i].y, r.faces[i].width, r.faces[i].height);
    f.has_param = i < r.neighbors.size ();
    f.neighbors = f.has_param ? r.neighbors[i] : -1;
    f.scale = (double) f.rect.width / window;
    out.push_back (f);
  }
  return out;
}

}  // namespace

/* The device grouping's counts are the host grouping's, and OpenCV's. */
TEST_F (FaceRoisGpu, NeighborCountsAreOpenCVs)
{
  REQUIRE_CASCADES ();
  const cv::Mat gray = to_gray (load_face_tiles ().rgb);
  for (int neighbors : { 0, 1, 3, 6 }) {
    cudavision::FaceDetectParams p;
    p.min_neighbors = neighbors;
    detector_.set_device_grouping (true);
    const FaceDetector::Result dev_r = detect (gray, p);
    detector_.set_device_grouping (false);
    const FaceDetector::Result host_r = detect (gray, p);
    detector_.set_device_grouping (true);
    ASSERT_EQ (dev_r.neighbors.size (), dev_r.faces.size ()) << "min-neighbors " << neighbors;
    EXPECT_EQ (dev_r.faces, host_r.faces) << "min-neighbors " << neighbors;
    EXPECT_EQ (dev_r.neighbors, host_r.neighbors) << "min-neighbors " << neighbors;
    int window = 0;
    const std::vector<Detection> want = opencv_detections (gray, 1.1, neighbors, &window);
    ASSERT_EQ (window, window_);
    EXPECT_TRUE (rois_are_detections (as_rois (dev_r, window_), want, window_)) << "min-neighbors " << neighbors;
  }
}

/* Through the element: the same metas as the CPU backend's, in order, in
 * system and in device memory out. */
TEST (FaceRoisGpuElement, MetasAreTheCpuBackends)
{
  REQUIRE_CASCADES ();
  const FaceTiles t = load_face_tiles ();
  const std::string caps = caps_string (GST_VIDEO_FORMAT_RGBA, t.rgb.cols, t.rgb.rows);
  GstBuffer *cpu = run_harness ("cudafacedetect backend=cpu", caps, caps, rgb_to_buffer (t.rgb, GST_VIDEO_FORMAT_RGBA));
  ASSERT_TRUE (cpu);
  const std::vector<FaceRoi> want = face_rois (cpu);
  gst_buffer_unref (cpu);
  ASSERT_GE (want.size (), 90u);
  for (const char *feature : { (const char *) nullptr, "memory:CudaVisionMemory" }) {
    const std::string out_caps = caps_string (GST_VIDEO_FORMAT_RGBA, t.rgb.cols, t.rgb.rows, feature);
    GstBuffer *gpu = run_harness ("cudafacedetect backend=cuda", caps, out_caps,
        rgb_to_buffer (t.rgb, GST_VIDEO_FORMAT_RGBA));
    ASSERT_TRUE (gpu) << (feature ? feature : "system memory");
    const std::vector<FaceRoi> got = face_rois (gpu);
    EXPECT_TRUE (faces_reached_by_id (gpu, got));
    gst_buffer_unref (gpu);
    ASSERT_EQ (got.size (), want.size ());
    for (size_t i = 0; i < got.size (); i++) {
      EXPECT_EQ (got[i].id, want[i].id) << i;
      EXPECT_EQ (got[i].rect, want[i].rect) << i;
      EXPECT_TRUE (got[i].has_param) << i;
      EXPECT_EQ (got[i].neighbors, want[i].neighbors) << i;
      EXPECT_EQ (got[i].scale, want[i].scale) << i;
    }
  }
}
