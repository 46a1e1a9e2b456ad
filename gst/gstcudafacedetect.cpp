/**
 * SECTION:element-cudafacedetect
 * @title: cudafacedetect
 *
 * Detects faces (or whatever the cascade was trained on) with an OpenCV
 * Haar cascade on an NVIDIA GPU: cv::CascadeClassifier::detectMultiScale's
 * algorithm, with its raw detections bit for bit and its grouping
 * (`min-neighbors`). Cascades are OpenCV's XML files in the current format
 * with upright HAAR features, e.g. Debian's opencv-data in
 * /usr/share/opencv4/haarcascades/; LBP cascades, tilted features and the
 * old format are refused with an error naming the file and the problem.
 *
 * Input is GRAY8, NV12 or I420, whose luma plane is searched where it
 * lies (no conversion), or packed RGB (RGBA, BGRA, RGBx, BGRx, ARGB, ABGR,
 * xRGB, xBGR, RGB, BGR: gst-plugins-bad facedetect's RGB and BGR too)
 * whose BT.601 luma, as cv::cvtColor computes it, is searched. The output
 * is the input frame, with the faces boxed in `color` (green by default)
 * on colour frames when `draw` is set. Every
 * output buffer carries one #GstVideoRegionOfInterestMeta of type "face"
 * per detection, each with its own id (0, 1, ... in the message's order;
 * after the ids of region metas from upstream, if any), so that
 * gst_buffer_get_video_region_of_interest_meta_id() reaches every face.
 * Each carries a "detection" parameter
 * (gst_video_region_of_interest_meta_get_param()): `neighbors` (int), the
 * raw windows grouped into the face (cv::CascadeClassifier::
 * detectMultiScale's numDetections, 1 with `min-neighbors=0`), the
 * detector's confidence, higher is surer; and `scale` (double), the face's
 * width over the cascade window's, about the pyramid scale its windows
 * were found at. Both backends give the same values. With `post-messages`
 * an element message "facedetect" like
 * gst-plugins-bad's facedetect lists them, on every frame or as `updates`
 * says (its values are facedetect's: a message costs the streaming thread
 * some 8-15 µs, docs/RELIABILITY.md).
 *
 * Without a usable GPU the element runs cv::CascadeClassifier and says so
 * on the bus.
 *
 * The metas must be on a buffer when it leaves, so by default the
 * streaming thread waits for the GPU once per frame. With
 * `latency-frames=1` (device memory on both pads) a frame leaves when the
 * next one's search is queued, its boxes drawn then: the thread no longer
 * waits while the GPU works, for one frame of latency (reported in the
 * latency query); EOS, new caps and other serialized events push the held
 * frame first.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=astronaut.png ! pngdec ! videoconvert ! video/x-raw,format=RGBA ! \
 *     cudafacedetect ! videoconvert ! pngenc ! filesink location=faces.png
 * ]|
 * Decoded on the GPU, searched on the decoder's NV12 luma, boxed in red:
 * |[
 * gst-launch-1.0 filesrc location=clip.mp4 ! qtdemux ! h264parse ! nvh264dec ! \
 *     cudafacedetect color=0xffff0000 ! cudadownload ! videoconvert ! autovideosink
 * ]|
 * |[
 * gst-launch-1.0 -m v4l2src ! videoconvert ! video/x-raw,format=BGRx ! \
 *     cudafacedetect min-size=40 scale-factor=1.2 ! videoconvert ! autovideosink
 * ]|
 */
#include "gstcudafacedetect.h"

#include "gstcvfacemeta.h"
#include "gstcvframemessage.h"
#include "gstcvlumainput.h"
#include "gstcvoverlay.h"
#include "gstcvpendingresults.h"

#include "../cpu/facedetect_cpu.h"
#include "../core/draw/face_draw.h"
#include "../cuda/face/facedetect.h"
#include "../cuda/common/luma.h"

#include <exception>
#include <string>
#include <vector>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_face_detect_debug);
#define GST_CAT_DEFAULT gst_cuda_face_detect_debug

#define FACE_FORMATS "{ GRAY8, NV12, I420, RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, xRGB, xBGR, RGB, BGR }"
#define DEFAULT_CASCADE "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml"
#define DEFAULT_SCALE_FACTOR 1.1
#define DEFAULT_MIN_NEIGHBORS 3
#define DEFAULT_DRAW TRUE
#define DEFAULT_POST_MESSAGES TRUE
#define DEFAULT_UPDATES GST_CUDA_FACE_DETECT_UPDATES_EVERY_FRAME

enum {
  PROP_0,
  PROP_CASCADE,
  PROP_SCALE_FACTOR,
  PROP_MIN_NEIGHBORS,
  PROP_MIN_SIZE,
  PROP_MAX_SIZE,
  PROP_DRAW,
  PROP_POST_MESSAGES,
  PROP_UPDATES,
  PROP_LATENCY_FRAMES,
  PROP_COLOR,
};

/* The properties a frame reads, as one value copied under the object lock
 * (no string: nothing to allocate per frame). */
struct FaceFrameSettings {
  cudavision::FaceDetectParams params;
  bool draw = DEFAULT_DRAW;
  guint32 color = cudavision::kFaceBoxColor;
  bool post_messages = DEFAULT_POST_MESSAGES;
  GstCudaFaceDetectUpdates updates = DEFAULT_UPDATES;
};

/* Every property. */
struct FaceSettings : FaceFrameSettings {
  std::string cascade = DEFAULT_CASCADE;
};

/* A frame whose faces are not on its buffer yet: the GPU detector that
 * holds its list (still to collect) with the settings the frame was
 * processed with (a held frame's boxes are drawn as its graph would have
 * drawn them, whatever changed since), or the faces themselves. */
struct FacePending {
  cudavision::FaceDetector *gpu = nullptr;
  FaceFrameSettings settings;
  std::vector<cudavision::FaceRect> faces;
  std::vector<int> neighbors;  /* per face: the raw windows it groups */
};

/* Two detectors (each with its frame's luma), so that with
 * latency-frames=1 the held frame's list and luma (searched again if a
 * list overflowed) are not overwritten by the next frame's; the pending
 * frames, oldest first. */
struct FaceFrames {
  cudavision::FaceDetector detectors[2];
  GstCvPendingResults<FacePending> pending;
};

struct _GstCudaFaceDetect {
  GstCvBaseFilter parent;
  FaceSettings *settings;                       /* properties, under the object lock */
  GstCvLumaInput *input;                        /* the negotiated layout */
  cudavision::HaarCascade *cascade;             /* parsed in start() */
  FaceFrames *frames;                           /* GPU state (freed in release_device), frames in flight */
  cudavision::cpu::FaceDetectorCpu *cpu;        /* CPU backend */
  std::vector<uint8_t> *cpu_gray;               /* CPU: the luma of colour frames */
  gboolean had_faces;                           /* the last frame out had faces (updates=on_change) */
};

GType
gst_cuda_face_detect_updates_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    { GST_CUDA_FACE_DETECT_UPDATES_EVERY_FRAME, "A message for every frame", "every_frame" },
    { GST_CUDA_FACE_DETECT_UPDATES_ON_CHANGE, "A message when faces appear or vanish", "on_change" },
    { GST_CUDA_FACE_DETECT_UPDATES_ON_FACE, "A message for every frame with faces", "on_face" },
    { GST_CUDA_FACE_DETECT_UPDATES_NONE, "No messages", "none" },
    { 0, nullptr, nullptr },
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCudaFaceDetectUpdates", values));
  return type;
}

G_DEFINE_TYPE (GstCudaFaceDetect, gst_cuda_face_detect, GST_TYPE_CV_BASE_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cudafacedetect, "cudafacedetect", GST_RANK_NONE, GST_TYPE_CUDA_FACE_DETECT);

/* The properties (FaceSettings) or the part a frame reads
 * (FaceFrameSettings), copied under the object lock. */
template <typename Part>
static Part
settings_copy (GstCudaFaceDetect * self)
{
  GST_OBJECT_LOCK (self);
  Part s = *self->settings;
  GST_OBJECT_UNLOCK (self);
  return s;
}

static FaceSettings
snapshot (GstCudaFaceDetect * self)
{
  return settings_copy<FaceSettings> (self);
}

static FaceFrameSettings
frame_settings (GstCudaFaceDetect * self)
{
  return settings_copy<FaceFrameSettings> (self);
}

/* -------------------------------------------------------- start / stop */

/* The cascade is read before the device is set up, with our parser on both
 * backends, so a bad file gives the same clear error everywhere. */
static gboolean
gst_cuda_face_detect_start (GstBaseTransform * trans)
{
  GstCudaFaceDetect *self = GST_CUDA_FACE_DETECT (trans);
  const std::string path = snapshot (self).cascade;
  std::string error;
  cudavision::HaarLoadError kind = cudavision::HaarLoadError::None;
  cudavision::HaarCascade cascade;
  if (!cudavision::load_haar_cascade (path, &cascade, &error, &kind)) {
    if (kind == cudavision::HaarLoadError::Unsupported)
      GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("Unsupported face cascade: %s", error.c_str ()),
          ("cudafacedetect takes OpenCV Haar cascades in the current XML format with upright HAAR features"));
    else
      GST_ELEMENT_ERROR (self, RESOURCE, READ, ("Could not load the face cascade: %s", error.c_str ()),
          ("property cascade=%s", path.c_str ()));
    return FALSE;
  }
  GST_INFO_OBJECT (self, "cascade %s: %dx%d window, %zu stages, %zu weak classifiers (%s)", path.c_str (),
      cascade.window_width, cascade.window_height, cascade.stages.size (), cascade.trees.size (),
      cascade.is_stump_based () ? "stumps" : "trees");
  *self->cascade = std::move (cascade);
  self->had_faces = FALSE;

  if (!GST_BASE_TRANSFORM_CLASS (gst_cuda_face_detect_parent_class)->start (trans))
    return FALSE;
  if (!gst_cv_base_filter_on_gpu (GST_CV_BASE_FILTER (self)) && !self->cpu->load (path, &error)) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("Could not load the face cascade: %s", error.c_str ()), (nullptr));
    GST_BASE_TRANSFORM_CLASS (gst_cuda_face_detect_parent_class)->stop (trans);
    return FALSE;
  }
  return TRUE;
}

static void
gst_cuda_face_detect_release_device (GstCvBaseFilter * base)
{
  FaceFrames & fr = *GST_CUDA_FACE_DETECT (base)->frames;
  fr.pending.clear ();
  for (int i = 0; i < 2; i++)
    fr.detectors[i].release ();
}

/* ------------------------------------------------------------------ caps */

static gboolean
gst_cuda_face_detect_set_info (GstCvBaseFilter * base, const GstVideoInfo * in, const GstVideoInfo *)
{
  GstCudaFaceDetect *self = GST_CUDA_FACE_DETECT (base);
  if (gst_cv_luma_input_set (self->input, in))
    return TRUE;
  GST_ERROR_OBJECT (self, "unsupported input %s", GST_VIDEO_INFO_NAME (in));
  return FALSE;
}

/* ------------------------------------------------------------ processing */

/* GRAY8 frames carry no boxes. */
static bool
draws_on (GstCudaFaceDetect * self, const FaceFrameSettings & s)
{
  return s.draw && !(self->input->gray && !self->input->yuv);
}

static GstFlowReturn
gst_cuda_face_detect_process_gpu (GstCvBaseFilter * base, GstBuffer *, GstVideoFrame * in, GstVideoFrame * out)
{
  GstCudaFaceDetect *self = GST_CUDA_FACE_DETECT (base);
  FaceFrames & fr = *self->frames;
  const FaceFrameSettings s = frame_settings (self);
  cudaStream_t stream = gst_cv_base_filter_stream (base);
  const cudavision::LaunchPolicy & policy = gst_cv_base_filter_policy (base);
  const cudavision::ConstImage8 src = gst_cv_frame_const_plane (in, 0);
  cudavision::Image8 dst = gst_cv_frame_plane (out, 0);
  const bool hold = gst_cv_base_filter_holds_results (base);
  const int slot = fr.pending.begin_gpu_frame (hold);
  cudavision::FaceDetector & detector = fr.detectors[slot];

  /* The frame's luma and its copy to the output, the search, and the
   * boxes on the copy: one graph launch (FaceDetector::enqueue_frame). */
  const GstCvLumaInput & input = *self->input;
  const bool draw = draws_on (self, s);
  const cudavision::Canvas canvas = gst_cv_frame_canvas (out, s.color);
  /* NV12, I420: the chroma passes through, the luma is copied with the
   * search's first launch */
  GstFlowReturn ret =
      gst_cv_base_filter_check (base, gst_cv_luma_input_copy_chroma_gpu (input, in, out, stream), "chroma copy");
  if (ret == GST_FLOW_OK && !detector.has_cascade ()) {
    /* the element reports faces, never the raw windows */
    detector.set_raw_windows (false);
    ret = gst_cv_base_filter_check (base, detector.set_cascade (*self->cascade, stream), "cascade upload");
  }
  cudavision::FaceDetector::FrameInput frame;
  frame.frame = src;
  frame.gray = input.gray;
  frame.layout = input.layout;
  frame.copy = dst;
  frame.draw = draw;
  frame.canvas = canvas;
  if (ret == GST_FLOW_OK)
    ret = gst_cv_base_filter_check (base, detector.enqueue_frame (frame, s.params, policy, stream), "face detection");
  if (ret != GST_FLOW_OK)
    return ret;
  if (hold) {
    /* finish_frame collects the list, and draws the boxes on the held
     * output, once the next frame is queued */
    fr.pending.push ({ &detector, s, {} });
    return GST_FLOW_OK;
  }

  /* Now: the boxes are drawn on `out`, which may be a staging frame that
   * is downloaded right after. */
  cudavision::FaceDetector::Result result;
  ret = gst_cv_base_filter_check (base, detector.collect (&result), "face detection");
  if (ret != GST_FLOW_OK)
    return ret;
  GST_LOG_OBJECT (self, "%zu levels, %zu raw windows, %zu faces", result.levels.size (), result.raw_count,
      result.faces.size ());
  if (draw && !result.drawn)
    ret = gst_cv_base_filter_check (base, detector.draw (canvas, result.faces, policy, stream), "box drawing");
  if (ret == GST_FLOW_OK)
    fr.pending.push ({ nullptr, s, std::move (result.faces), std::move (result.neighbors) });
  return ret;
}

static GstFlowReturn
gst_cuda_face_detect_process_cpu (GstCvBaseFilter * base, GstBuffer *, GstVideoFrame * in, GstVideoFrame * out)
{
  GstCudaFaceDetect *self = GST_CUDA_FACE_DETECT (base);
  const FaceFrameSettings s = frame_settings (self);
  const cudavision::ConstImage8 src = gst_cv_frame_const_plane (in, 0);
  cudavision::Image8 dst = gst_cv_frame_plane (out, 0);
  FacePending frame;
  self->frames->pending.clear ();
  try {
    gst_cv_luma_input_copy_cpu (*self->input, src, dst);
    gst_cv_luma_input_copy_chroma_cpu (*self->input, in, out);
    frame.faces =
        self->cpu->detect (gst_cv_luma_cpu (*self->input, src, self->cpu_gray), s.params, &frame.neighbors);
    if (draws_on (self, s))
      cudavision::cpu::draw_face_boxes (gst_cv_frame_canvas (out, s.color), frame.faces);
  } catch (const std::exception & e) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("OpenCV failed on a %dx%d frame", src.width, src.height),
        ("%s", e.what ()));
    return GST_FLOW_ERROR;
  }
  self->frames->pending.push (std::move (frame));
  return GST_FLOW_OK;
}

/* The metas' type, "face", looked up once: each lookup by string takes
 * GLib's quark lock, per face and per meta otherwise. */
static GQuark
face_quark ()
{
  static const GQuark q = g_quark_from_static_string ("face");
  return q;
}

/* A held frame's list, collected, with its boxes drawn on its output
 * buffer (device memory: only such frames are held) where its graph did
 * not draw them. */
static GstFlowReturn
collect_held (GstCudaFaceDetect * self, cudavision::FaceDetector & detector, const FaceFrameSettings & s,
    GstBuffer * outbuf, std::vector<cudavision::FaceRect> * faces, std::vector<int> * neighbors)
{
  GstCvBaseFilter *base = GST_CV_BASE_FILTER (self);
  cudavision::FaceDetector::Result result;
  GstFlowReturn ret = gst_cv_base_filter_check (base, detector.collect (&result), "face detection");
  if (ret != GST_FLOW_OK)
    return ret;
  GST_LOG_OBJECT (self, "%zu levels, %zu raw windows, %zu faces", result.levels.size (), result.raw_count,
      result.faces.size ());
  *faces = std::move (result.faces);
  *neighbors = std::move (result.neighbors);
  if (!draws_on (self, s) || faces->empty () || result.drawn)
    return GST_FLOW_OK;
  GstVideoFrame frame;
  if (!gst_cv_base_filter_map_device_output (base, outbuf, &frame)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map the output frame on the device"), (nullptr));
    return GST_FLOW_ERROR;
  }
  ret = gst_cv_base_filter_check (base,
      detector.draw (gst_cv_frame_canvas (&frame, s.color), *faces, gst_cv_base_filter_policy (base),
          gst_cv_base_filter_stream (base)),
      "box drawing");
  gst_cv_base_filter_unmap_device_output (base, outbuf, &frame);
  return ret;
}

/* The oldest pending frame's faces onto its output buffer (which
 * process_gpu does not see: it gets a staging frame at system-memory
 * edges). */
static GstFlowReturn
gst_cuda_face_detect_finish_frame (GstCvBaseFilter * base, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstCudaFaceDetect *self = GST_CUDA_FACE_DETECT (base);
  FaceFrames & fr = *self->frames;
  const FaceFrameSettings s = frame_settings (self);
  FacePending frame;
  if (!fr.pending.take (base, &frame))
    return GST_FLOW_ERROR;
  if (frame.gpu) {
    GstFlowReturn ret = collect_held (self, *frame.gpu, frame.settings, outbuf, &frame.faces, &frame.neighbors);
    if (ret != GST_FLOW_OK)
      return ret;
  }
  gst_cv_add_face_metas (outbuf, face_quark (), frame.faces, frame.neighbors, self->cascade->window_width);
  /* gst-plugins-bad's facedetect's rules */
  const bool faces = !frame.faces.empty ();
  bool post = s.post_messages;
  switch (s.updates) {
    case GST_CUDA_FACE_DETECT_UPDATES_ON_CHANGE: post = post && faces != (bool) self->had_faces; break;
    case GST_CUDA_FACE_DETECT_UPDATES_ON_FACE: post = post && faces; break;
    case GST_CUDA_FACE_DETECT_UPDATES_NONE: post = false; break;
    default: break;
  }
  self->had_faces = faces;
  if (post)
    gst_cv_post_frame_message (GST_BASE_TRANSFORM (self),
        gst_cv_faces_message_new (GST_BASE_TRANSFORM (self), inbuf, frame.faces.data (), frame.faces.size ()));
  return GST_FLOW_OK;
}

/* Faces found upstream are replaced by this frame's; other metas as the
 * base class decides. */
static gboolean
gst_cuda_face_detect_transform_meta (GstBaseTransform * trans, GstBuffer * outbuf, GstMeta * meta, GstBuffer * inbuf)
{
  if (meta->info->api == GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE &&
      ((GstVideoRegionOfInterestMeta *) meta)->roi_type == face_quark ())
    return FALSE;
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_face_detect_parent_class)->transform_meta (trans, outbuf, meta, inbuf);
}

/* ----------------------------------------------------------- properties */

static void
gst_cuda_face_detect_set_property (GObject * object, guint prop_id, const GValue * value, GParamSpec * pspec)
{
  GstCudaFaceDetect *self = GST_CUDA_FACE_DETECT (object);
  if (prop_id == PROP_LATENCY_FRAMES) {
    gst_cv_base_filter_set_latency_frames (GST_CV_BASE_FILTER (self), value);
    return;
  }
  GST_OBJECT_LOCK (self);
  FaceSettings & s = *self->settings;
  switch (prop_id) {
    case PROP_CASCADE: {
      const gchar *p = g_value_get_string (value);
      s.cascade = p ? p : "";
      break;
    }
    case PROP_SCALE_FACTOR:
      s.params.scale_factor = g_value_get_double (value);
      break;
    case PROP_MIN_NEIGHBORS:
      s.params.min_neighbors = g_value_get_int (value);
      break;
    case PROP_MIN_SIZE:
      s.params.min_width = s.params.min_height = g_value_get_int (value);
      break;
    case PROP_MAX_SIZE:
      s.params.max_width = s.params.max_height = g_value_get_int (value);
      break;
    case PROP_DRAW:
      s.draw = g_value_get_boolean (value);
      break;
    case PROP_COLOR:
      s.color = g_value_get_uint (value);
      break;
    case PROP_POST_MESSAGES:
      s.post_messages = g_value_get_boolean (value);
      break;
    case PROP_UPDATES:
      s.updates = (GstCudaFaceDetectUpdates) g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_face_detect_get_property (GObject * object, guint prop_id, GValue * value, GParamSpec * pspec)
{
  GstCudaFaceDetect *self = GST_CUDA_FACE_DETECT (object);
  const FaceSettings s = snapshot (self);
  switch (prop_id) {
    case PROP_CASCADE: g_value_set_string (value, s.cascade.c_str ()); break;
    case PROP_SCALE_FACTOR: g_value_set_double (value, s.params.scale_factor); break;
    case PROP_MIN_NEIGHBORS: g_value_set_int (value, s.params.min_neighbors); break;
    case PROP_MIN_SIZE: g_value_set_int (value, s.params.min_width); break;
    case PROP_MAX_SIZE: g_value_set_int (value, s.params.max_width); break;
    case PROP_DRAW: g_value_set_boolean (value, s.draw); break;
    case PROP_COLOR: g_value_set_uint (value, s.color); break;
    case PROP_POST_MESSAGES: g_value_set_boolean (value, s.post_messages); break;
    case PROP_UPDATES: g_value_set_enum (value, s.updates); break;
    case PROP_LATENCY_FRAMES: gst_cv_base_filter_get_latency_frames (GST_CV_BASE_FILTER (self), value); break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cuda_face_detect_finalize (GObject * object)
{
  GstCudaFaceDetect *self = GST_CUDA_FACE_DETECT (object);
  delete self->settings;
  delete self->input;
  delete self->cascade;
  delete self->frames;
  delete self->cpu;
  delete self->cpu_gray;
  G_OBJECT_CLASS (gst_cuda_face_detect_parent_class)->finalize (object);
}

static void
gst_cuda_face_detect_class_init (GstCudaFaceDetectClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCvBaseFilterClass *cv_class = GST_CV_BASE_FILTER_CLASS (klass);

  gobject_class->set_property = gst_cuda_face_detect_set_property;
  gobject_class->get_property = gst_cuda_face_detect_get_property;
  gobject_class->finalize = gst_cuda_face_detect_finalize;

  g_object_class_install_property (gobject_class, PROP_CASCADE,
      g_param_spec_string ("cascade", "Cascade",
          "OpenCV Haar cascade XML file (current format, upright HAAR features), loaded when the element starts",
          DEFAULT_CASCADE, GST_CV_PARAM_RW_READY));
  g_object_class_install_property (gobject_class, PROP_SCALE_FACTOR,
      g_param_spec_double ("scale-factor", "Scale factor",
          "Factor between successive pyramid levels (OpenCV's scaleFactor)", 1.001, 100.0, DEFAULT_SCALE_FACTOR,
          GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_MIN_NEIGHBORS,
      g_param_spec_int ("min-neighbors", "Minimum neighbors",
          "A face needs more than this many raw detections around it (OpenCV's minNeighbors; 0 = every raw "
          "window, ungrouped)",
          0, G_MAXINT, DEFAULT_MIN_NEIGHBORS, GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_MIN_SIZE,
      g_param_spec_int ("min-size", "Minimum size", "Smallest face searched, in pixels (0 = the cascade's window)", 0,
          G_MAXINT, 0, GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_MAX_SIZE,
      g_param_spec_int ("max-size", "Maximum size", "Largest face searched, in pixels (0 = the frame)", 0, G_MAXINT,
          0, GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_DRAW,
      g_param_spec_boolean ("draw", "Draw", "Box the faces in `color` on colour frames (GRAY8 frames are left as is)",
          DEFAULT_DRAW, GST_CV_PARAM_RW_PLAYING));
  gst_cv_overlay_install_color (gobject_class, PROP_COLOR, cudavision::kFaceBoxColor,
      "Colour of the boxes, 0xAARRGGBB (opaque: alpha only fills an alpha channel of the frame)");
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post a \"facedetect\" element message per frame listing the faces", DEFAULT_POST_MESSAGES,
          GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_UPDATES,
      g_param_spec_enum ("updates", "Updates",
          "When to post the \"facedetect\" message (with post-messages): gst-plugins-bad facedetect's values",
          GST_TYPE_CUDA_FACE_DETECT_UPDATES, DEFAULT_UPDATES, GST_CV_PARAM_RW_PLAYING));
  gst_cv_base_filter_class_install_latency_frames (gobject_class, PROP_LATENCY_FRAMES);

  gst_element_class_set_static_metadata (element_class, "CUDA face detection", "Filter/Analyzer/Video/Hardware",
      "Viola-Jones face detection with OpenCV Haar cascades on an NVIDIA GPU, as cv::CascadeClassifier finds them",
      "cudavision developers");
  gst_cv_base_filter_class_add_pad_templates (element_class, FACE_FORMATS, FACE_FORMATS);

  trans_class->start = gst_cuda_face_detect_start;
  trans_class->transform_meta = gst_cuda_face_detect_transform_meta;
  cv_class->set_info = gst_cuda_face_detect_set_info;
  cv_class->process_gpu = gst_cuda_face_detect_process_gpu;
  cv_class->process_cpu = gst_cuda_face_detect_process_cpu;
  cv_class->release_device = gst_cuda_face_detect_release_device;
  cv_class->finish_frame = gst_cuda_face_detect_finish_frame;

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_FACE_DETECT_UPDATES, (GstPluginAPIFlags) 0);
  GST_DEBUG_CATEGORY_INIT (gst_cuda_face_detect_debug, "cudavision-facedetect", 0, "cudafacedetect element");
}

static void
gst_cuda_face_detect_init (GstCudaFaceDetect * self)
{
  self->settings = new FaceSettings ();
  self->cascade = new cudavision::HaarCascade ();
  self->frames = new FaceFrames ();
  self->cpu = new cudavision::cpu::FaceDetectorCpu ();
  self->cpu_gray = new std::vector<uint8_t> ();
  self->input = new GstCvLumaInput ();
}
