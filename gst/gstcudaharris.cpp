/**
 * SECTION:element-cudaharris
 * @title: cudaharris
 *
 * Finds Harris or Shi-Tomasi corners on an NVIDIA GPU, with the results of
 * OpenCV's cv::goodFeaturesToTrack: the response of cv::cornerHarris or
 * cv::cornerMinEigenVal (relative error below 1e-4), thresholded at
 * `quality-level` times the frame maximum, 3x3 non-maximum suppression,
 * then the strongest corners at least `min-distance` apart, at most
 * `max-corners` of them.
 *
 * Input is GRAY8, NV12 or I420, whose luma plane is used where it lies
 * (no conversion), or packed RGB (RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, xRGB,
 * xBGR, RGB, BGR) whose BT.601 luma (as cv::cvtColor computes it) is used.
 * The output is the input frame (`output=passthrough`, optionally with the
 * corners marked by crosses in `color`, `draw=true`; white on GRAY8) or the
 * response map as GRAY8 scaled by the frame maximum (`output=response`). Each output buffer carries a #GstCvKeypointsMeta with
 * the corners, strongest first; with `post-messages=true` an element
 * message "cudaharris" also gives the count and the 50 strongest.
 *
 * `output` may change while playing: the source pad renegotiates before
 * the next frame, which comes in the new caps (a GRAY8 input keeps its
 * caps: the next frame is the other output). Downstream that cannot take
 * the new format fails the renegotiation with a not-negotiated error.
 *
 * OpenCV's blockSize is `corner-block-size`: `block-size` is the CUDA block
 * shape property every cudavision element has.
 *
 * Without a usable GPU the element runs on OpenCV and says so on the bus.
 *
 * The meta must carry the list when a buffer leaves, so by default the
 * streaming thread waits for the GPU once per frame. With
 * `latency-frames=1` (device memory on both pads) a frame leaves when the
 * next one's work is queued: the thread no longer waits while the GPU
 * works, for one frame of latency (reported in the latency query); EOS,
 * new caps and other serialized events push the held frame first.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=left01.jpg ! jpegdec ! videoconvert ! video/x-raw,format=RGBA ! \
 *     cudaharris draw=true ! videoconvert ! pngenc ! filesink location=corners.png
 * ]|
 * |[
 * gst-launch-1.0 -m videotestsrc pattern=checkers-8 num-buffers=1 ! video/x-raw,format=GRAY8 ! \
 *     cudaharris method=shi-tomasi max-corners=100 post-messages=true ! fakesink
 * ]|
 * Corners of a decoder's NV12 frames, marked in yellow, on the GPU:
 * |[
 * gst-launch-1.0 filesrc location=clip.mp4 ! qtdemux ! h264parse ! nvh264dec ! \
 *     cudaharris draw=true color=0xffffff00 ! cudadownload ! videoconvert ! autovideosink
 * ]|
 */
#include "gstcudaharris.h"

#include "gstcvframemessage.h"
#include "gstcvkeypointsmeta.h"
#include "gstcvlumainput.h"
#include "gstcvoverlay.h"
#include "gstcvpendingresults.h"

#include "../cpu/harris_cpu.h"
#include "../cuda/common/luma.h"
#include "../core/draw/corner_marker.h"
#include "../cuda/harris/harris.h"

#include <exception>
#include <vector>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_harris_debug);
#define GST_CAT_DEFAULT gst_cuda_harris_debug

#define HARRIS_FORMATS "{ GRAY8, NV12, I420, RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, xRGB, xBGR, RGB, BGR }"
/* Corners listed in the element message: the strongest ones. */
#define HARRIS_MESSAGE_MAX_CORNERS 50

enum {
  PROP_0,
  PROP_METHOD,
  PROP_CORNER_BLOCK_SIZE,
  PROP_APERTURE,
  PROP_K,
  PROP_QUALITY_LEVEL,
  PROP_MIN_DISTANCE,
  PROP_MAX_CORNERS,
  PROP_OUTPUT,
  PROP_DRAW,
  PROP_POST_MESSAGES,
  PROP_LATENCY_FRAMES,
  PROP_COLOR,
};

#define DEFAULT_METHOD GST_CUDA_HARRIS_METHOD_HARRIS
#define DEFAULT_CORNER_BLOCK_SIZE 3
#define DEFAULT_APERTURE 3
#define DEFAULT_K 0.04
#define DEFAULT_QUALITY_LEVEL 0.01
#define DEFAULT_MIN_DISTANCE 10.0
#define DEFAULT_MAX_CORNERS 0
#define DEFAULT_OUTPUT GST_CUDA_HARRIS_OUTPUT_PASSTHROUGH

/* Properties as one value, copied under the object lock once per frame. */
struct HarrisSettings {
  cudavision::CornerDetectParams detect;
  GstCudaHarrisOutput output = DEFAULT_OUTPUT;
  bool draw = false;
  guint32 color = cudavision::kCornerMarkerColor;
  bool post_messages = false;
};

/* A frame whose corners are not on its buffer yet: the GPU detector that
 * holds its list, or the CPU backend's list. */
struct HarrisPending {
  cudavision::CornerDetector *gpu = nullptr;
  std::vector<cudavision::Corner> corners;
};

/* Two detectors, so that with latency-frames=1 the held frame's list (and
 * response map) is not overwritten by the next frame's; the pending
 * frames, oldest first. */
struct HarrisFrames {
  cudavision::CornerDetector detectors[2];
  GstCvPendingResults<HarrisPending> pending;
};

struct _GstCudaHarris {
  GstCvBaseFilter parent;
  HarrisSettings *settings;          /* properties, under the object lock */
  GstCudaHarrisOutput negotiated;    /* the output the current caps were made for (set_info) */
  GstCvLumaInput luma;                /* GRAY8 or a packed RGB layout */
  HarrisFrames *frames;                     /* GPU scratch (freed in release_device), lists in flight */
  std::vector<uint8_t> *cpu_gray;          /* CPU backend: the luma of colour frames */
};

G_DEFINE_TYPE (GstCudaHarris, gst_cuda_harris, GST_TYPE_CV_BASE_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cudaharris, "cudaharris", GST_RANK_NONE, GST_TYPE_CUDA_HARRIS);

GType
gst_cuda_harris_method_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    { GST_CUDA_HARRIS_METHOD_HARRIS, "Harris response det - k trace^2 (cv::cornerHarris)", "harris" },
    { GST_CUDA_HARRIS_METHOD_SHI_TOMASI, "Shi-Tomasi minimum eigenvalue (cv::cornerMinEigenVal)", "shi-tomasi" },
    { 0, nullptr, nullptr },
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCudaHarrisMethod", values));
  return type;
}

GType
gst_cuda_harris_output_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    { GST_CUDA_HARRIS_OUTPUT_PASSTHROUGH, "The input frame (corners drawn with draw=true)", "passthrough" },
    { GST_CUDA_HARRIS_OUTPUT_RESPONSE, "The response map as GRAY8, 255 at the frame maximum", "response" },
    { 0, nullptr, nullptr },
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCudaHarrisOutput", values));
  return type;
}

static HarrisSettings
snapshot (GstCudaHarris * self)
{
  GST_OBJECT_LOCK (self);
  HarrisSettings s = *self->settings;
  GST_OBJECT_UNLOCK (self);
  return s;
}

/* ------------------------------------------------------------------ caps */

static GstCaps *
gst_cuda_harris_transform_video_caps (GstCvBaseFilter * base, GstPadDirection direction, GstCaps * caps)
{
  GstCudaHarris *self = GST_CUDA_HARRIS (base);
  if (snapshot (self).output != GST_CUDA_HARRIS_OUTPUT_RESPONSE)
    return caps;
  /* The response map is GRAY8 whatever came in. */
  return gst_cv_caps_map_to_format (direction, caps, "GRAY8");
}

/* Whether `output` gives frames of the negotiated formats: the response
 * map is GRAY8, the passthrough frame the input's format (GRAY8 in: both
 * do). */
static bool
output_fits (GstCudaHarrisOutput output, const GstVideoInfo * in, const GstVideoInfo * out)
{
  if (output == GST_CUDA_HARRIS_OUTPUT_RESPONSE)
    return GST_VIDEO_INFO_FORMAT (out) == GST_VIDEO_FORMAT_GRAY8;
  return GST_VIDEO_INFO_FORMAT (out) == GST_VIDEO_INFO_FORMAT (in);
}

static gboolean
gst_cuda_harris_set_info (GstCvBaseFilter * base, const GstVideoInfo * in, const GstVideoInfo * out)
{
  GstCudaHarris *self = GST_CUDA_HARRIS (base);
  if (!gst_cv_luma_input_set (&self->luma, in)) {
    GST_ERROR_OBJECT (self, "unsupported input %s", GST_VIDEO_INFO_NAME (in));
    return FALSE;
  }
  /* The output these caps were made for: the property's, or the other one
   * when the property changed while they were being negotiated (its own
   * renegotiation then follows). */
  const GstCudaHarrisOutput wanted = snapshot (self).output;
  GstCudaHarrisOutput output = wanted;
  if (!output_fits (output, in, out))
    output = output == GST_CUDA_HARRIS_OUTPUT_RESPONSE ? GST_CUDA_HARRIS_OUTPUT_PASSTHROUGH
                                                       : GST_CUDA_HARRIS_OUTPUT_RESPONSE;
  if (!output_fits (output, in, out)) {
    GST_ERROR_OBJECT (self, "%s -> %s is no output of ours", GST_VIDEO_INFO_NAME (in), GST_VIDEO_INFO_NAME (out));
    return FALSE;
  }
  if (output != wanted)
    gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
  self->negotiated = output;
  return TRUE;
}

/* The frame's output: the property's where it fits the negotiated caps,
 * else the one they were made for, until the renegotiation that the
 * change asked for (buffers never disagree with their caps). */
static bool
frame_is_response (GstCudaHarris * self, const HarrisSettings & s)
{
  GstCvBaseFilter *base = GST_CV_BASE_FILTER (self);
  const bool fits = output_fits (s.output, gst_cv_base_filter_in_info (base), gst_cv_base_filter_out_info (base));
  return (fits ? s.output : self->negotiated) == GST_CUDA_HARRIS_OUTPUT_RESPONSE;
}

/* ------------------------------------------------------------ processing */

static GstFlowReturn
gst_cuda_harris_process_gpu (GstCvBaseFilter * base, GstBuffer *, GstVideoFrame * in, GstVideoFrame * out)
{
  GstCudaHarris *self = GST_CUDA_HARRIS (base);
  HarrisFrames & fr = *self->frames;
  const HarrisSettings s = snapshot (self);
  cudaStream_t stream = gst_cv_base_filter_stream (base);
  const cudavision::LaunchPolicy & policy = gst_cv_base_filter_policy (base);
  const cudavision::ConstImage8 src = gst_cv_frame_const_plane (in, 0);
  cudavision::Image8 dst = gst_cv_frame_plane (out, 0);
  const bool response = frame_is_response (self, s);
  const bool hold = gst_cv_base_filter_holds_results (base);
  cudavision::CornerDetector & detector = fr.detectors[fr.pending.begin_gpu_frame (hold)];

  /* Everything the frame needs from the GPU is queued, in stream order:
   * the frame copy, the detection and the marks on the copy, one graph
   * (CornerDetector::enqueue; the list's kernel writes it into pinned host
   * memory); or the response map and its marks. finish_frame then waits
   * for the list alone (the meta must carry it when the buffer leaves): at
   * once, or with latency-frames=1 after the next frame is queued. */
  const cudavision::LumaInput input { src, self->luma.gray, self->luma.layout };
  /* the response map's canvas is GRAY8's: white marks */
  const cudavision::Canvas canvas = gst_cv_frame_canvas (out, s.color);
  /* NV12, I420 passed through: the chroma here, the luma with the graph */
  GstFlowReturn ret = response ? GST_FLOW_OK
                               : gst_cv_base_filter_check (base,
                                     gst_cv_luma_input_copy_chroma_gpu (self->luma, in, out, stream), "chroma copy");
  if (ret == GST_FLOW_OK)
    ret = gst_cv_base_filter_check (base,
        detector.enqueue (input, s.detect, policy, stream, response ? nullptr : &dst,
            s.draw && !response ? &canvas : nullptr),
        "corner detection");
  if (ret == GST_FLOW_OK && response)
    ret = gst_cv_base_filter_check (base, detector.normalized_response (dst, policy, stream),
        "response normalization");
  if (ret == GST_FLOW_OK && s.draw)
    ret = gst_cv_base_filter_check (base, detector.draw_detected (canvas, policy, stream), "corner drawing");
  if (ret == GST_FLOW_OK)
    fr.pending.push ({ &detector, {} });
  return ret;
}

static GstFlowReturn
gst_cuda_harris_process_cpu (GstCvBaseFilter * base, GstBuffer *, GstVideoFrame * in, GstVideoFrame * out)
{
  GstCudaHarris *self = GST_CUDA_HARRIS (base);
  const HarrisSettings s = snapshot (self);
  const cudavision::ConstImage8 src = gst_cv_frame_const_plane (in, 0);
  cudavision::Image8 dst = gst_cv_frame_plane (out, 0);
  const bool response = frame_is_response (self, s);
  HarrisPending frame;
  std::vector<cudavision::Corner> & corners = frame.corners;
  self->frames->pending.clear ();
  try {
    const cudavision::ConstImage8 gray = gst_cv_luma_cpu (self->luma, src, self->cpu_gray);
    corners = cudavision::cpu::good_features (gray, s.detect);
    if (response) {
      cudavision::cpu::normalized_response (gray, s.detect.corner, dst);
    } else {
      gst_cv_luma_input_copy_cpu (self->luma, src, dst);
      gst_cv_luma_input_copy_chroma_cpu (self->luma, in, out);
    }
    if (s.draw)
      cudavision::cpu::draw_corners (gst_cv_frame_canvas (out, s.color), corners);
  } catch (const std::exception & e) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("OpenCV failed on a %dx%d frame", src.width, src.height),
        ("%s", e.what ()));
    return GST_FLOW_ERROR;
  }
  self->frames->pending.push (std::move (frame));
  return GST_FLOW_OK;
}

static void
post_corners_message (GstCudaHarris * self, GstBuffer * inbuf, const std::vector<cudavision::Corner> & corners)
{
  GValue list = G_VALUE_INIT;
  g_value_init (&list, GST_TYPE_LIST);
  const size_t n = MIN (corners.size (), (size_t) HARRIS_MESSAGE_MAX_CORNERS);
  for (size_t i = 0; i < n; i++) {
    GValue v = G_VALUE_INIT;
    g_value_init (&v, GST_TYPE_STRUCTURE);
    GstStructure *c = gst_structure_new ("corner", "x", G_TYPE_FLOAT, corners[i].x, "y", G_TYPE_FLOAT,
        corners[i].y, "score", G_TYPE_FLOAT, corners[i].score, nullptr);
    gst_value_set_structure (&v, c);
    gst_structure_free (c);
    gst_value_list_append_and_take_value (&list, &v);
  }
  GstStructure *st = gst_cv_frame_message_new (GST_BASE_TRANSFORM (self), "cudaharris", inbuf);
  gst_structure_set (st, "count", G_TYPE_UINT, (guint) corners.size (), nullptr);
  gst_structure_take_value (st, "corners", &list);
  gst_cv_post_frame_message (GST_BASE_TRANSFORM (self), st);
}

/* The oldest pending frame's corners onto its output buffer (which
 * process_gpu does not see: it gets a staging frame at system-memory
 * edges). */
static GstFlowReturn
gst_cuda_harris_finish_frame (GstCvBaseFilter * base, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstCudaHarris *self = GST_CUDA_HARRIS (base);
  HarrisFrames & fr = *self->frames;
  HarrisPending frame;
  if (!fr.pending.take (base, &frame))
    return GST_FLOW_ERROR;
  std::vector<cudavision::Corner> & corners = frame.corners;
  if (frame.gpu) {
    GstFlowReturn ret = gst_cv_base_filter_check (base, frame.gpu->collect (&corners), "corner list");
    if (ret != GST_FLOW_OK)
      return ret;
    GST_LOG_OBJECT (self, "%zu candidates, %zu corners", frame.gpu->candidate_count (), corners.size ());
  }
  std::vector<GstCvKeypoint> points (corners.size ());
  for (size_t i = 0; i < corners.size (); i++)
    points[i] = { corners[i].x, corners[i].y, corners[i].score };
  gst_buffer_add_cv_keypoints_meta (outbuf, points.data (), (guint) points.size ());
  if (snapshot (self).post_messages)
    post_corners_message (self, inbuf, corners);
  return GST_FLOW_OK;
}

/* Our keypoints are replaced by this frame's; metas bound to the frame
 * geometry stay valid (the size does not change), as GstVideoFilter keeps
 * them; the rest as the base class decides. */
static gboolean
gst_cuda_harris_transform_meta (GstBaseTransform * trans, GstBuffer * outbuf, GstMeta * meta, GstBuffer * inbuf)
{
  const GType api = meta->info->api;
  if (api == GST_CV_KEYPOINTS_META_API_TYPE)
    return FALSE;
  const gchar *const *tags = gst_meta_api_type_get_tags (api);
  bool geometry_only = tags && tags[0];
  for (guint i = 0; geometry_only && tags[i]; i++) {
    const GQuark q = g_quark_from_string (tags[i]);
    geometry_only = q == g_quark_from_static_string (GST_META_TAG_VIDEO_STR) || q == g_quark_from_static_string (GST_META_TAG_VIDEO_SIZE_STR) ||
        q == g_quark_from_static_string (GST_META_TAG_VIDEO_ORIENTATION_STR);
  }
  if (geometry_only)
    return TRUE;
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_harris_parent_class)->transform_meta (trans, outbuf, meta, inbuf);
}

static void
gst_cuda_harris_release_device (GstCvBaseFilter * base)
{
  HarrisFrames & fr = *GST_CUDA_HARRIS (base)->frames;
  fr.pending.clear ();
  for (cudavision::CornerDetector & d : fr.detectors)
    d.release ();
}

/* ----------------------------------------------------------- properties */

static void
gst_cuda_harris_set_property (GObject * object, guint prop_id, const GValue * value, GParamSpec * pspec)
{
  GstCudaHarris *self = GST_CUDA_HARRIS (object);
  if (prop_id == PROP_LATENCY_FRAMES) {
    gst_cv_base_filter_set_latency_frames (GST_CV_BASE_FILTER (self), value);
    return;
  }
  bool reconfigure = false;
  GST_OBJECT_LOCK (self);
  HarrisSettings & s = *self->settings;
  switch (prop_id) {
    case PROP_METHOD:
      s.detect.corner.method = g_value_get_enum (value) == GST_CUDA_HARRIS_METHOD_SHI_TOMASI
          ? cudavision::CornerMethod::ShiTomasi
          : cudavision::CornerMethod::Harris;
      break;
    case PROP_CORNER_BLOCK_SIZE:
      s.detect.corner.block_size = g_value_get_int (value);
      break;
    case PROP_APERTURE: {
      const gint a = g_value_get_int (value);
      if (a == 3 || a == 5 || a == 7)
        s.detect.corner.aperture = a;
      else
        g_warning ("%s: invalid aperture %d: the Sobel aperture is 3, 5 or 7; keeping %d", GST_OBJECT_NAME (self), a,
            s.detect.corner.aperture);
      break;
    }
    case PROP_K:
      s.detect.corner.k = g_value_get_double (value);
      break;
    case PROP_QUALITY_LEVEL:
      s.detect.quality_level = g_value_get_double (value);
      break;
    case PROP_MIN_DISTANCE:
      s.detect.min_distance = g_value_get_double (value);
      break;
    case PROP_MAX_CORNERS:
      s.detect.max_corners = g_value_get_int (value);
      break;
    case PROP_OUTPUT: {
      const GstCudaHarrisOutput output = (GstCudaHarrisOutput) g_value_get_enum (value);
      reconfigure = output != s.output;
      s.output = output;
      break;
    }
    case PROP_DRAW:
      s.draw = g_value_get_boolean (value);
      break;
    case PROP_COLOR:
      s.color = g_value_get_uint (value);
      break;
    case PROP_POST_MESSAGES:
      s.post_messages = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
  /* new caps (transform_video_caps) before the next frame */
  if (reconfigure)
    gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
}

static void
gst_cuda_harris_get_property (GObject * object, guint prop_id, GValue * value, GParamSpec * pspec)
{
  GstCudaHarris *self = GST_CUDA_HARRIS (object);
  const HarrisSettings s = snapshot (self);
  switch (prop_id) {
    case PROP_METHOD:
      g_value_set_enum (value, s.detect.corner.method == cudavision::CornerMethod::ShiTomasi
              ? GST_CUDA_HARRIS_METHOD_SHI_TOMASI
              : GST_CUDA_HARRIS_METHOD_HARRIS);
      break;
    case PROP_CORNER_BLOCK_SIZE: g_value_set_int (value, s.detect.corner.block_size); break;
    case PROP_APERTURE: g_value_set_int (value, s.detect.corner.aperture); break;
    case PROP_K: g_value_set_double (value, s.detect.corner.k); break;
    case PROP_QUALITY_LEVEL: g_value_set_double (value, s.detect.quality_level); break;
    case PROP_MIN_DISTANCE: g_value_set_double (value, s.detect.min_distance); break;
    case PROP_MAX_CORNERS: g_value_set_int (value, s.detect.max_corners); break;
    case PROP_OUTPUT: g_value_set_enum (value, s.output); break;
    case PROP_DRAW: g_value_set_boolean (value, s.draw); break;
    case PROP_COLOR: g_value_set_uint (value, s.color); break;
    case PROP_POST_MESSAGES: g_value_set_boolean (value, s.post_messages); break;
    case PROP_LATENCY_FRAMES: gst_cv_base_filter_get_latency_frames (GST_CV_BASE_FILTER (self), value); break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cuda_harris_finalize (GObject * object)
{
  GstCudaHarris *self = GST_CUDA_HARRIS (object);
  delete self->settings;
  delete self->frames;
  delete self->cpu_gray;
  G_OBJECT_CLASS (gst_cuda_harris_parent_class)->finalize (object);
}

static void
gst_cuda_harris_class_init (GstCudaHarrisClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCvBaseFilterClass *cv_class = GST_CV_BASE_FILTER_CLASS (klass);

  gobject_class->set_property = gst_cuda_harris_set_property;
  gobject_class->get_property = gst_cuda_harris_get_property;
  gobject_class->finalize = gst_cuda_harris_finalize;

  g_object_class_install_property (gobject_class, PROP_METHOD,
      g_param_spec_enum ("method", "Method", "Corner response", GST_TYPE_CUDA_HARRIS_METHOD, DEFAULT_METHOD,
          GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_CORNER_BLOCK_SIZE,
      g_param_spec_int ("corner-block-size", "Corner block size",
          "Neighbourhood summed into the structure tensor, in pixels (OpenCV's blockSize; named so because "
          "block-size is the CUDA block shape)",
          cudavision::kCornerMinBlock, cudavision::kCornerMaxBlock, DEFAULT_CORNER_BLOCK_SIZE,
          GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_APERTURE,
      g_param_spec_int ("aperture", "Aperture", "Sobel aperture (OpenCV's ksize / gradientSize): 3, 5 or 7", 3, 7,
          DEFAULT_APERTURE, GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_K,
      g_param_spec_double ("k", "k", "Harris free parameter in det - k trace^2", 0.0, 1.0, DEFAULT_K,
          GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_QUALITY_LEVEL,
      g_param_spec_double ("quality-level", "Quality level",
          "Corners keep responses above quality-level x the frame maximum", 1e-6, 1.0, DEFAULT_QUALITY_LEVEL,
          GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_MIN_DISTANCE,
      g_param_spec_double ("min-distance", "Minimum distance",
          "Minimum Euclidean distance between corners in pixels (below 1: no suppression beyond 3x3)", 0.0,
          16384.0, DEFAULT_MIN_DISTANCE, GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_MAX_CORNERS,
      g_param_spec_int ("max-corners", "Maximum corners", "Keep at most the N strongest corners (0 = no limit)", 0,
          G_MAXINT, DEFAULT_MAX_CORNERS, GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_OUTPUT,
      g_param_spec_enum ("output", "Output",
          "What the source pad carries (a change while playing renegotiates the caps before the next frame)",
          GST_TYPE_CUDA_HARRIS_OUTPUT, DEFAULT_OUTPUT, GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_DRAW,
      g_param_spec_boolean ("draw", "Draw", "Mark the corners on the output (crosses in `color`; white on GRAY8)",
          FALSE, GST_CV_PARAM_RW_PLAYING));
  gst_cv_overlay_install_color (gobject_class, PROP_COLOR, cudavision::kCornerMarkerColor,
      "Colour of the corner marks, 0xAARRGGBB (opaque: alpha only fills an alpha channel of the frame)");
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post a \"cudaharris\" element message per frame with the count and the 50 strongest corners", FALSE,
          GST_CV_PARAM_RW_PLAYING));
  gst_cv_base_filter_class_install_latency_frames (gobject_class, PROP_LATENCY_FRAMES);

  gst_element_class_set_static_metadata (element_class, "CUDA Harris corners", "Filter/Analyzer/Video/Hardware",
      "Harris and Shi-Tomasi corners on an NVIDIA GPU, as OpenCV's goodFeaturesToTrack finds them",
      "cudavision developers");
  gst_cv_base_filter_class_add_pad_templates (element_class, HARRIS_FORMATS, HARRIS_FORMATS);

  trans_class->transform_meta = gst_cuda_harris_transform_meta;
  cv_class->transform_video_caps = gst_cuda_harris_transform_video_caps;
  cv_class->set_info = gst_cuda_harris_set_info;
  cv_class->process_gpu = gst_cuda_harris_process_gpu;
  cv_class->process_cpu = gst_cuda_harris_process_cpu;
  cv_class->release_device = gst_cuda_harris_release_device;
  cv_class->finish_frame = gst_cuda_harris_finish_frame;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_harris_debug, "cudavision-harris", 0, "cudaharris element");
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_HARRIS_METHOD, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_HARRIS_OUTPUT, (GstPluginAPIFlags) 0);
}

static void
gst_cuda_harris_init (GstCudaHarris * self)
{
  self->settings = new HarrisSettings ();
  self->negotiated = DEFAULT_OUTPUT;
  self->frames = new HarrisFrames ();
  self->cpu_gray = new std::vector<uint8_t> ();
  self->luma = GstCvLumaInput ();
}
