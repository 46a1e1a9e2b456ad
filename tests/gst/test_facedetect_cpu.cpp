/* cudafacedetect through GStreamer on the CPU backend (runs in CI): the
 * faces of the bundled photographs against cv::CascadeClassifier, none on
 * iceblock, the LFW known-position mosaic against its ground truth, the
 * metas, messages and boxes, properties, and the errors bad cascades give. */
#include "../common/face_ref.h"
#include "../common/harness.h"
#include "../common/harris_ref.h"
#include "../common/overlay_check.h"
#include "../common/temp_file.h"

#include "../../core/draw/face_draw.h"

#include <gst/check/gstharness.h>
#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

using namespace cvtest;

static const GstVideoFormat kColour[] = { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx,
  GST_VIDEO_FORMAT_BGRx };

/* One frame `in` of `caps` through "cudafacedetect backend=cpu `props`":
 * its faces are OpenCV's on the luma of the input's own bytes (`faces` of
 * them: a frame without any would prove nothing), and every plane of the
 * output is the input's but for exactly the borders of those faces,
 * painted in `argb` (nothing painted when `drawn` is false); OpenCV
 * with `min_neighbors` as the props give it. */
static void
check_faces_and_boxes (const std::string & props, GstBuffer * in, const std::string & caps, guint32 argb,
    size_t faces, bool drawn = true, int min_neighbors = 3)
{
  const GstVideoInfo info = caps_info (caps);
  const std::vector<cv::Mat> in_planes = caps_planes (in, caps);
  const std::vector<cv::Rect> ref = opencv_faces (frame_luma (in_planes, &info), kDefaultCascade, 1.1, min_neighbors);
  if (ref.size () != faces) {
    gst_buffer_unref (in);
    FAIL () << "OpenCV found " << rects_str (ref) << ", the test expects " << faces;
  }
  const FaceRun r = run_face ("cudafacedetect backend=cpu " + props, caps, caps, in);
  ASSERT_TRUE (r.ok);
  EXPECT_TRUE (same_rects (r.metas, ref)) << rects_str (r.metas) << " vs OpenCV " << rects_str (ref);
  const std::vector<cv::Point> painted = drawn ? box_pixels (ref, info.width, info.height) : std::vector<cv::Point> ();
  EXPECT_TRUE (overlay_matches (in_planes, r.planes, &info, argb, painted));
}

/* The portraits, each with one face. */
static const char *kPortraits[] = { "astronaut.png", "grace_hopper.jpg" };

/* A portrait as most tests here run it: whole, or under the sanitizers
 * (sanitizer_pass) the middle half of its columns, which holds the face,
 * with every row (the caps' default colorimetry follows the height): the
 * cascade's search, the boxes and the checks over every byte take half
 * the time or less. */
static cv::Mat
load_portrait (const char *name)
{
  const cv::Mat rgb = load_rgb (data_path (name));
  if (!sanitizer_pass ())
    return rgb;
  return rgb (cv::Rect (rgb.cols / 4, 0, rgb.cols / 2, rgb.rows)).clone ();
}

/* Each portrait in each of `formats`: its face and the box around it in
 * the default colour, and with draw=false its face and every byte kept. */
static void
check_portraits_in (std::initializer_list<GstVideoFormat> formats)
{
  for (const char *name : kPortraits) {
    const cv::Mat rgb = load_portrait (name);
    for (GstVideoFormat f : formats) {
      SCOPED_TRACE (std::string (name) + " " + gst_video_format_to_string (f));
      const std::string caps = caps_string (f, rgb.cols, rgb.rows);
      check_faces_and_boxes ("", rgb_to_buffer (rgb, f), caps, cudavision::kFaceBoxColor, 1);
      check_faces_and_boxes ("draw=false", rgb_to_buffer (rgb, f), caps, cudavision::kFaceBoxColor, 1, false);
    }
  }
}

/* The face of each portrait, on every input format, as OpenCV finds it. */
TEST (FaceDetectCpu, PortraitsMatchOpenCV)
{
  REQUIRE_CASCADES ();
  for (const char *name : kPortraits) {
    const cv::Mat rgb = load_portrait (name);
    const std::vector<cv::Rect> ref = opencv_faces (to_gray (rgb));
    ASSERT_EQ (ref.size (), 1u) << name << ": OpenCV " << rects_str (ref);
    for (GstVideoFormat f : kColour) {
      const FaceRun r = run_face_rgb ("cudafacedetect backend=cpu", rgb, f);
      ASSERT_TRUE (r.ok) << name;
      EXPECT_TRUE (faces_match (r.metas, ref, 0.8)) << name << " " << gst_video_format_to_string (f);
      /* the CPU backend is OpenCV itself */
      EXPECT_TRUE (same_rects (r.metas, ref)) << name << ": " << rects_str (r.metas);
    }
    const FaceRun g = run_face_gray ("cudafacedetect backend=cpu", to_gray (rgb));
    EXPECT_TRUE (same_rects (g.metas, ref)) << name << " GRAY8: " << rects_str (g.metas);
  }
}

TEST (FaceDetectCpu, IceblockHasNoFace)
{
  REQUIRE_CASCADES ();
  const cv::Mat rgb = load_rgb (data_path ("iceblock.jpg"));
  const FaceRun r = run_face_rgb ("cudafacedetect backend=cpu", rgb, GST_VIDEO_FORMAT_BGRx);
  ASSERT_TRUE (r.ok);
  EXPECT_TRUE (r.metas.empty ()) << rects_str (r.metas);
  /* nothing drawn either: the output is the input */
  EXPECT_EQ (compare (r.out, packed_frame (rgb, GST_VIDEO_FORMAT_BGRx)).differing, 0);
}

/* 100 LFW faces pasted at known places among 100 non-face crops: at least
 * 95% found at IoU >= 0.5, at most one false positive per 100 tiles. */
TEST (FaceDetectCpu, KnownPositionsLfwMosaic)
{
  REQUIRE_CASCADES ();
  const FaceTiles t = load_face_tiles ();
  ASSERT_EQ (t.truth.size (), 100u);
  const FaceRun r = run_face_rgb ("cudafacedetect backend=cpu", t.rgb, GST_VIDEO_FORMAT_RGBA);
  ASSERT_TRUE (r.ok);
  const FaceScore s = score_faces (r.metas, t.truth, 0.5);
  EXPECT_GE (s.hits, 95) << "recall " << s.hits << "/100; detections " << rects_str (r.metas);
  EXPECT_LE (s.false_positives * 100, t.tiles) << s.false_positives << " false positives on " << t.tiles << " tiles";
  /* and the ground truth is not trivially met: without grouping the raw
   * windows are many more than the faces */
  const FaceRun raw = run_face_rgb ("cudafacedetect backend=cpu min-neighbors=0", t.rgb, GST_VIDEO_FORMAT_RGBA);
  EXPECT_GT (raw.metas.size (), 5 * r.metas.size ());
}

TEST (FaceDetectCpu, ParametersReachOpenCV)
{
  REQUIRE_CASCADES ();
  cv::Mat rgb = load_rgb (data_path ("faces/face_tiles.png"));
  /* under the sanitizers its top-left quarter: 50 of its cells, 26 faces */
  if (sanitizer_pass ())
    rgb = rgb (cv::Rect (0, 0, rgb.cols / 2, rgb.rows / 2)).clone ();
  const cv::Mat gray = to_gray (rgb);
  struct Case {
    const char *props;
    const char *cascade;
    double scale;
    int neighbors, min, max;
  };
  const Case cases[] = {
    { "scale-factor=1.2", kDefaultCascade, 1.2, 3, 0, 0 },
    { "min-neighbors=1", kDefaultCascade, 1.1, 1, 0, 0 },
    { "min-neighbors=0", kDefaultCascade, 1.1, 0, 0, 0 },
    { "min-size=50", kDefaultCascade, 1.1, 3, 50, 0 },
    { "max-size=45", kDefaultCascade, 1.1, 3, 0, 45 },
    { "cascade=" "/usr/share/opencv4/haarcascades/haarcascade_frontalface_alt2.xml", "haarcascade_frontalface_alt2.xml",
        1.1, 3, 0, 0 },
  };
  for (const Case & k : cases) {
    const std::vector<cv::Rect> ref = opencv_faces (gray, k.cascade, k.scale, k.neighbors, k.min, k.max);
    const FaceRun r = run_face_gray (std::string ("cudafacedetect backend=cpu ") + k.props, gray);
    ASSERT_TRUE (r.ok) << k.props;
    EXPECT_TRUE (same_rects (r.metas, ref)) << k.props << ": " << rects_str (r.metas) << " vs OpenCV "
                                            << rects_str (ref);
  }
}

/* Green borders on colour frames where the faces are (an alpha byte
 * opaque, a padding byte as it came), nothing else changed; GRAY8 frames
 * and draw=false are left as they came. */
TEST (FaceDetectCpu, DrawsBoxesOnColourFramesOnly)
{
  REQUIRE_CASCADES ();
  const cv::Mat rgb = load_portrait ("astronaut.png");
  for (GstVideoFormat f : kColour) {
    const cv::Mat orig = packed_frame (rgb, f);
    const FaceRun r = run_face_rgb ("cudafacedetect backend=cpu", rgb, f);
    ASSERT_TRUE (r.ok);
    ASSERT_EQ (r.metas.size (), 1u);
    cv::Mat border (rgb.rows, rgb.cols, CV_8U, cv::Scalar (0));
    const cv::Rect b = r.metas[0];
    const cudavision::BoxBorder bb = cudavision::box_border (b.x, b.y, b.width, b.height, rgb.cols, rgb.rows);
    for (int i = 0; i < bb.count (); i++) {
      int x, y;
      bb.pixel (i, &x, &y);
      border.at<uchar> (y, x) = 1;
    }
    EXPECT_EQ (cv::countNonZero (border), 2 * (b.width + b.height) * cudavision::kFaceBoxThickness - 4 *
        cudavision::kFaceBoxThickness * cudavision::kFaceBoxThickness);
    long wrong = 0, changed = 0;
    for (int y = 0; y < rgb.rows; y++)
      for (int x = 0; x < rgb.cols; x++) {
        const cv::Vec4b o = r.out.at<cv::Vec4b> (y, x), i = orig.at<cv::Vec4b> (y, x);
        const bool alpha = f == GST_VIDEO_FORMAT_RGBA || f == GST_VIDEO_FORMAT_BGRA;
        if (border.at<uchar> (y, x))
          wrong += !(o[0] == 0 && o[1] == 255 && o[2] == 0 && o[3] == (alpha ? 255 : i[3]));
        else
          changed += o != i;
      }
    EXPECT_EQ (wrong, 0) << gst_video_format_to_string (f);
    EXPECT_EQ (changed, 0) << gst_video_format_to_string (f);

    const FaceRun plain = run_face_rgb ("cudafacedetect backend=cpu draw=false", rgb, f);
    EXPECT_EQ (compare (plain.out, orig).differing, 0);
    EXPECT_EQ (plain.metas.size (), 1u);
  }
  const cv::Mat gray = to_gray (rgb);
  const FaceRun g = run_face_gray ("cudafacedetect backend=cpu draw=true", gray);
  EXPECT_EQ (g.metas.size (), 1u);
  EXPECT_EQ (compare (g.out, gray).differing, 0);
}

TEST (FaceDetectCpu, MessagesListTheFaces)
{
  REQUIRE_CASCADES ();
  const cv::Mat rgb = load_portrait ("grace_hopper.jpg");
  GstBuffer *in = rgb_to_buffer (rgb, GST_VIDEO_FORMAT_RGBA);
  GST_BUFFER_PTS (in) = 3 * GST_SECOND;
  GST_BUFFER_DURATION (in) = GST_SECOND / 30;
  const FaceRun r = run_face ("cudafacedetect backend=cpu", caps_string (GST_VIDEO_FORMAT_RGBA, rgb.cols, rgb.rows),
      caps_string (GST_VIDEO_FORMAT_RGBA, rgb.cols, rgb.rows), in);
  ASSERT_EQ (r.messages, 1);
  EXPECT_TRUE (r.msg_timing);
  EXPECT_EQ (r.msg_timestamp, 3 * GST_SECOND);
  EXPECT_TRUE (same_rects (r.msg_faces, r.metas)) << rects_str (r.msg_faces) << " vs " << rects_str (r.metas);
  EXPECT_EQ (r.msg_faces.size (), 1u);

  /* a frame without faces still gets its (empty) message */
  const FaceRun none = run_face_rgb ("cudafacedetect backend=cpu", load_rgb (data_path ("iceblock.jpg")),
      GST_VIDEO_FORMAT_RGBA);
  EXPECT_EQ (none.messages, 1);
  EXPECT_TRUE (none.msg_faces.empty ());

  const FaceRun quiet = run_face_rgb ("cudafacedetect backend=cpu post-messages=false", rgb, GST_VIDEO_FORMAT_RGBA);
  EXPECT_EQ (quiet.messages, 0);
  EXPECT_EQ (quiet.metas.size (), 1u);
}

/* `updates` as gst-plugins-bad's facedetect: frames with, with, without,
 * without, with a face give 5 messages every frame, 3 on change (the
 * first face, its loss, its return), 3 on face, none with none, and none
 * whatever `updates` says with post-messages=false. */
TEST (FaceDetectCpu, UpdatesSaysWhichFramesGetAMessage)
{
  REQUIRE_CASCADES ();
  const cv::Mat face = load_portrait ("grace_hopper.jpg");
  cv::Mat none;
  cv::resize (load_rgb (data_path ("iceblock.jpg")), none, face.size (), 0, 0, cv::INTER_AREA);
  const bool with[] = { true, true, false, false, true };
  const std::string caps = caps_string (GST_VIDEO_FORMAT_RGBA, face.cols, face.rows);
  struct Mode {
    const char *props;
    int messages;
    std::vector<size_t> sizes; /* faces listed by each message */
  };
  for (const Mode & m : { Mode { "", 5, { 1, 1, 0, 0, 1 } }, Mode { "updates=every_frame", 5, { 1, 1, 0, 0, 1 } },
           Mode { "updates=on_change", 3, { 1, 0, 1 } }, Mode { "updates=on_face", 3, { 1, 1, 1 } },
           Mode { "updates=none", 0, {} }, Mode { "updates=on_face post-messages=false", 0, {} } }) {
    SCOPED_TRACE (m.props);
    GstElement *e = gst_parse_launch (("cudafacedetect backend=cpu " + std::string (m.props)).c_str (), nullptr);
    ASSERT_NE (e, nullptr);
    GstBus *bus = gst_bus_new ();
    gst_element_set_bus (e, bus);
    GstHarness *h = gst_harness_new_with_element (e, "sink", "src");
    gst_object_unref (e);
    gst_harness_set_caps_str (h, caps.c_str (), caps.c_str ());
    int metas = 0;
    for (bool f : with) {
      GstBuffer *out = gst_harness_push_and_pull (h, rgb_to_buffer (f ? face : none, GST_VIDEO_FORMAT_RGBA));
      ASSERT_NE (out, nullptr);
      gpointer state = nullptr;
      while (gst_buffer_iterate_meta_filtered (out, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))
        metas++;
      gst_buffer_unref (out);
    }
    std::vector<size_t> sizes;
    while (GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT)) {
      const GstStructure *st = gst_message_get_structure (msg);
      if (st && gst_structure_has_name (st, "facedetect"))
        sizes.push_back (gst_value_list_get_size (gst_structure_get_value (st, "faces")));
      gst_message_unref (msg);
    }
    EXPECT_EQ ((int) sizes.size (), m.messages);
    EXPECT_EQ (sizes, m.sizes);
    EXPECT_EQ (metas, 3) << "the metas do not depend on the messages";
    gst_element_set_bus (h->element, nullptr);
    gst_object_unref (bus);
    gst_harness_teardown (h);
  }
}

/* Faces from upstream are replaced, other regions are kept. */
TEST (FaceDetectCpu, UpstreamFaceMetasAreReplaced)
{
  REQUIRE_CASCADES ();
  const cv::Mat rgb = load_portrait ("astronaut.png");
  GstBuffer *in = rgb_to_buffer (rgb, GST_VIDEO_FORMAT_RGBA);
  gst_buffer_add_video_region_of_interest_meta (in, "face", 1, 2, 3, 4);
  gst_buffer_add_video_region_of_interest_meta (in, "person", 5, 6, 7, 8);
  const FaceRun r = run_face ("cudafacedetect backend=cpu", caps_string (GST_VIDEO_FORMAT_RGBA, rgb.cols, rgb.rows),
      caps_string (GST_VIDEO_FORMAT_RGBA, rgb.cols, rgb.rows), in);
  ASSERT_TRUE (r.ok);
  ASSERT_EQ (r.metas.size (), 1u) << rects_str (r.metas);
  EXPECT_NE (r.metas[0], cv::Rect (1, 2, 3, 4));
  EXPECT_EQ (r.other_metas, 1);
}

TEST (FaceDetectCpu, FramesSmallerThanTheWindow)
{
  REQUIRE_CASCADES ();
  for (int s : { 1, 2, 23, 24, 25 }) {
    const cv::Mat rgb = random_rgb (s, s + 1, s);
    const FaceRun r = run_face_rgb ("cudafacedetect backend=cpu", rgb, GST_VIDEO_FORMAT_RGBx);
    ASSERT_TRUE (r.ok) << s;
    EXPECT_TRUE (r.metas.empty ());
  }
}

TEST (FaceDetectCpu, Properties)
{
  GstElement *e = gst_element_factory_make ("cudafacedetect", nullptr);
  ASSERT_NE (e, nullptr);
  gchar *cascade = nullptr;
  gdouble scale = 0;
  gint neighbors = -1, min = -1, max = -1;
  gboolean draw = FALSE, post = FALSE;
  g_object_get (e, "cascade", &cascade, "scale-factor", &scale, "min-neighbors", &neighbors, "min-size", &min,
      "max-size", &max, "draw", &draw, "post-messages", &post, nullptr);
  EXPECT_STREQ (cascade, "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml");
  EXPECT_DOUBLE_EQ (scale, 1.1);
  EXPECT_EQ (neighbors, 3);
  EXPECT_EQ (min, 0);
  EXPECT_EQ (max, 0);
  EXPECT_TRUE (draw);
  EXPECT_TRUE (post);
  g_free (cascade);
  gint updates = -1;
  g_object_get (e, "updates", &updates, nullptr);
  EXPECT_EQ (updates, 0) << "every_frame, as facedetect";
  gst_util_set_object_arg (G_OBJECT (e), "updates", "on_change");
  g_object_get (e, "updates", &updates, nullptr);
  EXPECT_EQ (updates, 1);
  g_object_set (e, "min-size", 40, "max-size", 200, "scale-factor", 1.25, nullptr);
  g_object_get (e, "min-size", &min, "max-size", &max, "scale-factor", &scale, nullptr);
  EXPECT_EQ (min, 40);
  EXPECT_EQ (max, 200);
  EXPECT_DOUBLE_EQ (scale, 1.25);
  gst_object_unref (e);
}

namespace {

BusResult
run_with_cascade (const std::string & path, const char *backend = "cpu")
{
  return run_pipeline ("videotestsrc num-buffers=2 ! video/x-raw,format=RGBA,width=64,height=48 ! "
                       "cudafacedetect backend=" + std::string (backend) + " cascade=\"" + path + "\" ! fakesink");
}

}  // namespace

/* Every bad cascade: a clear RESOURCE error naming the file and the
 * problem, never a crash. */
TEST (FaceDetectCpu, BadCascadesAreClearErrors)
{
  REQUIRE_CASCADES ();
  const std::string good = read_text (haar_path (kDefaultCascade));
  TempFile empty ("empty.xml", "");
  TempFile truncated ("truncated.xml", good.substr (0, good.size () / 2));
  TempFile garbage ("garbage.xml", std::string ("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16) + std::string (500, '\x7f'));
  TempFile wrong_node ("wrongnode.xml", [&] {
    std::string s = good;
    const std::string from = "0 -1 0 -3.1511999666690826e-02";
    s.replace (s.find (from), from.size (), "0 -1 99999 -3.1511999666690826e-02");
    return s;
  }());
  /* what OpenCV's CPU backend refuses, the GPU backend refuses too */
  TempFile bom ("bom.xml", "\xEF\xBB\xBF" + good);
  TempFile comment_in_number ("splitnumber.xml", [&] {
    std::string s = good;
    s.replace (s.find ("<width>24</width>"), 17, "<width>2<!-- x -->4</width>");
    return s;
  }());
  /* paths that are not regular files: refused at once (issue 36) */
  const std::string tmp = std::filesystem::temp_directory_path ().string () + "/cudavision-" +
      std::to_string (getpid ());
  const std::string fifo = tmp + "-faces.fifo", loop = tmp + "-loop.xml";
  std::filesystem::remove (fifo);
  std::filesystem::remove (loop);
  ASSERT_EQ (mkfifo (fifo.c_str (), 0600), 0);
  std::filesystem::create_symlink (loop, loop);
  struct Case {
    std::string path;
    const char *problem;
  };
  const Case cases[] = {
    { "/nonexistent/faces.xml", "no such file" },
    { empty.path, "empty" },
    { truncated.path, "end of file" },
    { garbage.path, "malformed XML" },
    { wrong_node.path, "feature index 99999 is out of range" },
    { std::filesystem::temp_directory_path ().string (), "is a directory, not a regular file" },
    { "/usr/share/opencv4/lbpcascades/lbpcascade_frontalface.xml", "LBP" },
    { haar_path ("haarcascade_smile.xml"), "tilted" },
    { haar_path ("haarcascade_licence_plate_rus_16stages.xml"), "old Haar format" },
    { "/dev/zero", "is a character device, not a regular file" },
    { fifo, "is a FIFO (named pipe), not a regular file" },
    { loop, "too many levels of symbolic links" },
    { empty.path + "/faces.xml", "a component of the path is not a directory" },
    { bom.path, "byte order mark" },
    { comment_in_number.path, "<width> must hold one integer, not a sequence" },
  };
  for (const Case & k : cases) {
    if (k.path.rfind ("/usr/", 0) == 0 && !std::filesystem::exists (k.path))
      continue;
    const BusResult r = run_with_cascade (k.path);
    EXPECT_FALSE (r.eos) << k.path;
    ASSERT_FALSE (r.errors.empty ()) << k.path;
    EXPECT_TRUE (r.has_error_containing (k.path)) << r.errors[0];
    EXPECT_TRUE (r.has_error_containing (k.problem)) << "expected '" << k.problem << "' in " << r.errors[0];
    EXPECT_EQ (r.error_domains[0], GST_RESOURCE_ERROR) << r.errors[0];
  }
  std::filesystem::remove (fifo);
  std::filesystem::remove (loop);
  /* and with backend=auto (the GPU path's start) the same */
  const BusResult r = run_with_cascade (empty.path, "auto");
  ASSERT_FALSE (r.errors.empty ());
  EXPECT_TRUE (r.has_error_containing ("empty")) << r.errors[0];
}

TEST (FaceDetectCpu, RunsInAPipeline)
{
  REQUIRE_CASCADES ();
  const BusResult r = run_pipeline ("filesrc location=" + data_path ("astronaut.png") +
      " ! pngdec ! videoconvert ! video/x-raw,format=BGRx ! cudafacedetect backend=cpu ! videoconvert ! fakesink");
  EXPECT_TRUE (r.eos) << (r.errors.empty () ? "" : r.errors[0]);
  const BusResult n = run_pipeline ("videotestsrc num-buffers=3 ! video/x-raw,format=YUY2 ! cudafacedetect backend=cpu ! "
                                    "fakesink");
  EXPECT_FALSE (n.eos);
}

/* NV12 and I420 are searched on their Y plane where it lies: the faces
 * are OpenCV's on that plane (not on a conversion of the picture), the
 * boxes are painted on the luma and on the chroma samples over it, the
 * rest of all three (two) planes passes through; draw=false changes no
 * byte. */
TEST (FaceDetectCpu, Yuv420InputsSearchTheirYPlane)
{
  REQUIRE_CASCADES ();
  check_portraits_in ({ GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420 });
}

/* Odd sizes (the last chroma column and row cover one luma column and
 * row) and rows padded by an odd number of bytes in every plane (the
 * video meta's strides, not the caps' defaults). */
TEST (FaceDetectCpu, Yuv420OddSizesAndPaddedRows)
{
  REQUIRE_CASCADES ();
  const cv::Mat astro = load_rgb (data_path ("astronaut.png"));
  const cv::Mat odd = astro (cv::Rect (0, 0, 511, 509)).clone ();
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420 }) {
    SCOPED_TRACE (gst_video_format_to_string (f));
    const std::string caps = caps_string (f, odd.cols, odd.rows);
    check_faces_and_boxes ("", rgb_to_buffer (odd, f), caps, cudavision::kFaceBoxColor, 1);
    check_faces_and_boxes ("", frame_buffer (odd, f, 7), caps, cudavision::kFaceBoxColor, 1);
    check_faces_and_boxes ("draw=false", frame_buffer (odd, f, 7), caps, cudavision::kFaceBoxColor, 1, false);
    /* Boxes on the last column and row: with min-neighbors=0 every raw
     * window is a face, and in this crop around the face some end at the
     * frame's right and bottom edges, which the last chroma column and
     * row (half samples) cover alone. */
    const cv::Mat corner = astro (cv::Rect (150, 58, 117, 107)).clone ();
    GstBuffer *in = rgb_to_buffer (corner, f);
    const std::string corner_caps = caps_string (f, corner.cols, corner.rows);
    const std::vector<cv::Rect> raw = opencv_faces (caps_planes (in, corner_caps)[0], kDefaultCascade, 1.1, 0);
    const bool reaches = std::any_of (raw.begin (), raw.end (), [&] (const cv::Rect & r) {
      return r.x + r.width == corner.cols && r.y + r.height == corner.rows;
    });
    if (!reaches) {
      gst_buffer_unref (in);
      FAIL () << "no raw window reaches the corner: " << rects_str (raw);
    }
    check_faces_and_boxes ("min-neighbors=0", in, corner_caps, cudavision::kFaceBoxColor, raw.size (), true, 0);
  }
}

/* gst-plugins-bad facedetect's formats, 3 bytes a pixel: the faces are
 * OpenCV's on cv::cvtColor's luma, the boxes painted on R, G and B. */
TEST (FaceDetectCpu, RgbAndBgrInputs)
{
  REQUIRE_CASCADES ();
  check_portraits_in ({ GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR });
  /* an odd width with rows padded by an odd number of bytes: no row
   * starts on a word */
  const cv::Mat odd = load_rgb (data_path ("astronaut.png")) (cv::Rect (0, 0, 511, 509)).clone ();
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR }) {
    SCOPED_TRACE (std::string ("511x509 padded ") + gst_video_format_to_string (f));
    check_faces_and_boxes ("", frame_buffer (odd, f, 7), caps_string (f, odd.cols, odd.rows), cudavision::kFaceBoxColor,
        1);
  }
}

/* `color`: the default is textoverlay's notation of opaque green; red on
 * packed RGB and on 4:2:0 YUV; on every packed layout a half-transparent
 * colour writes its alpha into an alpha byte and leaves a padding byte
 * (noise from rgb_to_buffer) as it came. */
TEST (FaceDetectCpu, ColorProperty)
{
  REQUIRE_CASCADES ();
  GstElement *e = gst_element_factory_make ("cudafacedetect", nullptr);
  ASSERT_NE (e, nullptr);
  guint color = 0;
  g_object_get (e, "color", &color, nullptr);
  EXPECT_EQ (color, 0xff00ff00u);
  g_object_set (e, "color", 0x80123456u, nullptr);
  g_object_get (e, "color", &color, nullptr);
  EXPECT_EQ (color, 0x80123456u);
  gst_object_unref (e);

  const cv::Mat rgb = load_portrait ("astronaut.png");
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_RGB }) {
    SCOPED_TRACE (std::string ("red on ") + gst_video_format_to_string (f));
    check_faces_and_boxes ("color=0xffff0000", rgb_to_buffer (rgb, f), caps_string (f, rgb.cols, rgb.rows),
        0xffff0000u, 1);
  }
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_ARGB,
           GST_VIDEO_FORMAT_ABGR, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_xRGB,
           GST_VIDEO_FORMAT_xBGR, GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR }) {
    SCOPED_TRACE (std::string ("0x80ff4020 on ") + gst_video_format_to_string (f));
    check_faces_and_boxes ("color=0x80ff4020", rgb_to_buffer (rgb, f), caps_string (f, rgb.cols, rgb.rows),
        0x80ff4020u, 1);
  }
  /* the alpha byte is the colour's, not opaque: read back literally */
  const FaceRun r = run_face_rgb ("cudafacedetect backend=cpu color=0x80ff4020", rgb, GST_VIDEO_FORMAT_RGBA);
  ASSERT_EQ (r.metas.size (), 1u);
  EXPECT_EQ (r.out.at<cv::Vec4b> (r.metas[0].y, r.metas[0].x), cv::Vec4b (0xff, 0x40, 0x20, 0x80));
}

/* Red on NV12 in the bytes of the caps' colorimetry (the standards'
 * values, 8 bits, rounded): no colorimetry in the caps means GStreamer's
 * default for the size (BT.601 at 512 lines, BT.709 above 576), and the
 * caps' own colorimetry wins over it. */
TEST (FaceDetectCpu, YuvColourFollowsTheColorimetry)
{
  REQUIRE_CASCADES ();
  struct Case {
    const char *image;       /* the astronaut, or "tall": with 128 rows more */
    const char *colorimetry; /* appended to the caps, or none */
    std::vector<uint8_t> yuv;
  };
  const Case cases[] = {
    { "astronaut.png", nullptr, { 81, 90, 240 } },         /* 512 lines: BT.601, 16-235 */
    { "tall", nullptr, { 63, 102, 240 } },                 /* 640 lines: BT.709 */
    { "astronaut.png", "bt709", { 63, 102, 240 } },
    { "astronaut.png", "1:4:0:0", { 76, 85, 255 } },       /* BT.601, 0-255 */
  };
  const cv::Mat astro = load_portrait ("astronaut.png");
  cv::Mat tall;
  cv::copyMakeBorder (astro, tall, 0, 128, 0, 0, cv::BORDER_CONSTANT, cv::Scalar (128, 128, 128));
  for (const Case & k : cases) {
    const cv::Mat & rgb = std::string (k.image) == "tall" ? tall : astro;
    for (GstVideoFormat f : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420 }) {
      std::string caps = caps_string (f, rgb.cols, rgb.rows);
      if (k.colorimetry)
        caps += std::string (",colorimetry=(string)") + k.colorimetry;
      SCOPED_TRACE (caps);
      const GstVideoInfo info = caps_info (caps);
      EXPECT_EQ (overlay_color_bytes (&info, 0xffff0000u), k.yuv);
      check_faces_and_boxes ("color=0xffff0000", rgb_to_buffer (rgb, f), caps, 0xffff0000u, 1);
    }
  }
}

/* The drop-in for gst-plugins-bad's facedetect, whose only formats are
 * RGB and BGR: the same launch line reaches EOS, and the frame comes out
 * with the face boxed in green. */
TEST (FaceDetectCpu, DropInForFacedetectOnRgbAndBgr)
{
  REQUIRE_CASCADES ();
  const std::string src = "filesrc location=" + data_path ("astronaut.png") + " ! pngdec ! videoconvert ! ";
  for (const char *format : { "RGB", "BGR" }) {
    SCOPED_TRACE (format);
    const BusResult r = run_pipeline (src + "video/x-raw,format=" + format +
        " ! cudafacedetect backend=cpu ! videoconvert ! fakesink");
    EXPECT_TRUE (r.eos) << (r.errors.empty () ? "" : r.errors[0]);
    EXPECT_TRUE (r.errors.empty ());
  }
  /* load_rgb decodes the same way: the input's bytes */
  const cv::Mat rgb = load_rgb (data_path ("astronaut.png"));
  const std::vector<cv::Mat> out = pull_all (src + "video/x-raw,format=RGB ! cudafacedetect backend=cpu ! "
                                                   "video/x-raw,format=RGB ! appsink name=out sync=false");
  ASSERT_EQ (out.size (), 1u);
  const std::vector<cv::Rect> ref = opencv_faces (to_gray (rgb));
  ASSERT_EQ (ref.size (), 1u);
  const GstVideoInfo info = caps_info (caps_string (GST_VIDEO_FORMAT_RGB, rgb.cols, rgb.rows));
  EXPECT_TRUE (overlay_matches ({ rgb }, out, &info, cudavision::kFaceBoxColor, box_pixels (ref, rgb.cols, rgb.rows)));
}

/* Formats outside the templates are refused at negotiation: the sink
 * pad does not accept their caps, and a frame pushed after them gets
 * not-negotiated, rather than being read as bytes
 * of another format. (In a launch line the link itself fails first, as
 * RunsInAPipeline's YUY2 shows.) */
TEST (FaceDetectCpu, RefusedFormatsAreNotNegotiated)
{
  for (const char *format : { "YUY2", "NV21", "Y444", "GRAY16_LE", "RGB16" }) {
    SCOPED_TRACE (format);
    GstElement *e = gst_parse_launch ("cudafacedetect backend=cpu", nullptr);
    ASSERT_NE (e, nullptr);
    GstHarness *h = gst_harness_new_with_element (e, "sink", "src");
    GstPad *sink = gst_element_get_static_pad (e, "sink");
    gst_object_unref (e);
    GstCaps *caps = gst_caps_from_string ((std::string ("video/x-raw,format=") + format +
        ",width=64,height=48,framerate=30/1").c_str ());
    GstVideoInfo info;
    ASSERT_TRUE (gst_video_info_from_caps (&info, caps));
    EXPECT_FALSE (gst_pad_query_accept_caps (sink, caps));
    /* sticky: stored on the harness's pad whatever the element says; the
     * refusal shows at the frame */
    gst_pad_push_event (h->srcpad, gst_event_new_caps (caps));
    GstSegment segment;
    gst_segment_init (&segment, GST_FORMAT_TIME);
    gst_pad_push_event (h->srcpad, gst_event_new_segment (&segment));
    EXPECT_EQ (gst_harness_push (h, gst_buffer_new_allocate (nullptr, info.size, nullptr)), GST_FLOW_NOT_NEGOTIATED);
    EXPECT_EQ (gst_harness_buffers_received (h), 0u);
    gst_caps_unref (caps);
    gst_object_unref (sink);
    gst_harness_teardown (h);
  }
}

/* New caps mid-stream through one element instance: RGBA, NV12 (another
 * size), RGBA again, I420, BGR. Each frame's faces are OpenCV's on its own
 * luma and its boxes are painted in its own format, the colour converted
 * for each. */
TEST (FaceDetectCpu, RenegotiatesMidStream)
{
  REQUIRE_CASCADES ();
  const cv::Mat astro = load_portrait ("astronaut.png");
  const cv::Mat grace = load_portrait ("grace_hopper.jpg");
  struct Step {
    const cv::Mat *rgb;
    GstVideoFormat format;
  };
  const Step steps[] = { { &astro, GST_VIDEO_FORMAT_RGBA }, { &grace, GST_VIDEO_FORMAT_NV12 },
    { &astro, GST_VIDEO_FORMAT_RGBA }, { &astro, GST_VIDEO_FORMAT_I420 }, { &grace, GST_VIDEO_FORMAT_BGR } };
  const guint32 argb = 0xff2040ffu;
  GstElement *e = gst_parse_launch ("cudafacedetect backend=cpu color=0xff2040ff", nullptr);
  ASSERT_NE (e, nullptr);
  GstHarness *h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_set_sink_caps_str (h, "video/x-raw, format=(string){ RGBA, NV12, I420, BGR }");
  for (size_t i = 0; i < G_N_ELEMENTS (steps); i++) {
    const Step & s = steps[i];
    const std::string caps = caps_string (s.format, s.rgb->cols, s.rgb->rows);
    SCOPED_TRACE ("frame " + std::to_string (i) + ": " + caps);
    gst_harness_set_src_caps_str (h, caps.c_str ());
    GstBuffer *in = rgb_to_buffer (*s.rgb, s.format);
    const GstVideoInfo info = caps_info (caps);
    GstCaps *c = gst_caps_from_string (caps.c_str ());
    const std::vector<cv::Mat> in_planes = buffer_planes (in, c);
    const std::vector<cv::Rect> ref = opencv_faces (frame_luma (in_planes, &info));
    EXPECT_EQ (ref.size (), 1u) << rects_str (ref);
    GstBuffer *out = gst_harness_push_and_pull (h, in);
    if (!out) {
      gst_caps_unref (c);
      ADD_FAILURE () << "no output";
      break;
    }
    GstCaps *now = gst_pad_get_current_caps (h->sinkpad);
    ASSERT_NE (now, nullptr);
    EXPECT_TRUE (gst_caps_is_equal (now, c)) << "output caps " << gst_caps_to_string (now);
    gst_caps_unref (now);
    EXPECT_TRUE (same_rects (face_metas (out), ref)) << rects_str (face_metas (out)) << " vs OpenCV "
                                                     << rects_str (ref);
    EXPECT_TRUE (overlay_matches (in_planes, buffer_planes (out, c), &info, argb,
        box_pixels (ref, info.width, info.height)));
    gst_caps_unref (c);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}
