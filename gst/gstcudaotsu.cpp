/**
 * SECTION:element-cudaotsu
 * @title: cudaotsu
 *
 * Otsu's automatic threshold of GRAY8 video on an NVIDIA GPU (or of the
 * luma plane of NV12 and I420, read where it lies; the output is GRAY8). In
 * `mode=binarize` (the default) the output is 255 where a pixel is above
 * the threshold and 0 elsewhere (swapped with `invert=true`), bit-exact to
 * `cv::threshold (src, dst, 0, 255, THRESH_BINARY | THRESH_OTSU)`
 * (`THRESH_BINARY_INV` with invert); the threshold is OpenCV's too. In
 * `mode=threshold-only` the frame goes through unchanged (copied into the
 * output frame on the device) and only the threshold is reported.
 *
 * On the GPU the histogram, the threshold search and the binarization all
 * run on the device; the binarization reads the threshold from device
 * memory. The threshold is reported to the host only when someone asked:
 *
 * - `attach-meta=true` (default false; always on in threshold-only mode):
 *   each output buffer carries a #GstCvOtsuMeta with the threshold, for
 *   downstream elements.
 * - `post-messages=true` (default false): an element message named
 *   `cudaotsu` per frame, with `threshold` (guint) and the input frame's
 *   `timestamp`, `stream-time`, `running-time` and `duration` (guint64,
 *   nanoseconds, GST_CLOCK_TIME_NONE when unknown).
 *
 * Cost of reporting: the threshold is copied into pinned host memory right
 * after the search, on the element's stream, and the streaming thread waits
 * for that copy (an event) after the binarization has been queued: one
 * host wait per frame for the histogram and the search of that frame (tens
 * of microseconds at 4K), not for the binarization. By default
 * (binarize, attach-meta=false, post-messages=false) nothing reaches the
 * host and no call waits: the hot path never stalls for a threshold nobody
 * reads. On the CPU backend the threshold is
 * known at once and reporting costs nothing.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=text.png ! pngdec ! videoconvert ! cudagray ! cudaotsu ! videoconvert ! pngenc ! filesink location=binary.png
 * ]|
 * |[
 * gst-launch-1.0 -m videotestsrc ! cudagray ! cudaotsu mode=threshold-only post-messages=true attach-meta=false ! fakesink
 * ]|
 */
#include "gstcudaotsu.h"

#include "gstcvframemessage.h"

#include "../cpu/otsu_cpu.h"
#include "../cuda/common/cuda_raii.h"
#include "../cuda/common/luma.h"
#include "../cuda/otsu/otsu.h"

#include <exception>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_otsu_debug);
#define GST_CAT_DEFAULT gst_cuda_otsu_debug

enum {
  PROP_0,
  PROP_MODE,
  PROP_INVERT,
  PROP_POST_MESSAGES,
  PROP_ATTACH_META,
};

#define DEFAULT_MODE GST_CUDA_OTSU_MODE_BINARIZE
#define DEFAULT_INVERT FALSE
#define DEFAULT_POST_MESSAGES FALSE
#define DEFAULT_ATTACH_META FALSE

GType
gst_cuda_otsu_mode_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    { GST_CUDA_OTSU_MODE_BINARIZE, "255 above the threshold, 0 elsewhere (swapped by invert)", "binarize" },
    { GST_CUDA_OTSU_MODE_THRESHOLD_ONLY, "Pass the frame through unchanged; only report the threshold",
      "threshold-only" },
    { 0, nullptr, nullptr },
  };
  if (g_once_init_enter (&type)) {
    const GType t = g_enum_register_static ("GstCudaOtsuMode", values);
    g_once_init_leave (&type, t);
  }
  return (GType) type;
}

struct OtsuState {
  /* properties, under the object lock */
  GstCudaOtsuMode mode = DEFAULT_MODE;
  bool invert = DEFAULT_INVERT;
  bool post_messages = DEFAULT_POST_MESSAGES;
  bool attach_meta = DEFAULT_ATTACH_META;

  /* streaming thread */
  cudavision::DeviceBuffer device;   /* OtsuDeviceState */
  bool device_ready = false;         /* zeroed and consistent */
  cudavision::PinnedBuffer host;     /* OtsuResult */
  cudavision::Event copied;          /* the result reached `host` */
  bool have_threshold = false;       /* this frame's threshold is known */
  guint8 threshold = 0;
  /* what this frame reports, read once per frame */
  bool report_meta = false, report_message = false;
};

struct _GstCudaOtsu {
  GstCvBaseFilter parent;
  OtsuState *st;
};

G_DEFINE_TYPE (GstCudaOtsu, gst_cuda_otsu, GST_TYPE_CV_BASE_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cudaotsu, "cudaotsu", GST_RANK_NONE, GST_TYPE_CUDA_OTSU);

struct FrameSettings {
  bool binarize;
  bool invert;
};

static FrameSettings
frame_settings (GstCudaOtsu * self)
{
  OtsuState *st = self->st;
  GST_OBJECT_LOCK (self);
  const FrameSettings f { st->mode == GST_CUDA_OTSU_MODE_BINARIZE, st->invert };
  /* threshold-only exists to report: it always attaches the meta */
  st->report_meta = st->attach_meta || st->mode == GST_CUDA_OTSU_MODE_THRESHOLD_ONLY;
  st->report_message = st->post_messages;
  GST_OBJECT_UNLOCK (self);
  return f;
}

static cudavision::CudaStatus
ensure_device (OtsuState * st, cudaStream_t stream)
{
  if (!st->device.get ())
    CV_CUDA_TRY (st->device.allocate (sizeof (cudavision::OtsuDeviceState)).err);
  if (!st->host.get ())
    CV_CUDA_TRY (st->host.allocate (sizeof (cudavision::OtsuResult)).err);
  if (!st->copied.get ())
    CV_CUDA_TRY (st->copied.create (false).err);
  if (!st->device_ready) {
    CV_CUDA_TRY (cudavision::otsu_state_init (st->device.as<cudavision::OtsuDeviceState> (), stream).err);
    st->device_ready = true;
  }
  return {};
}

/* GRAY8 out whatever came in: the luma of NV12 and I420 is their plane 0. */
static GstCaps *
gst_cuda_otsu_transform_video_caps (GstCvBaseFilter *, GstPadDirection direction, GstCaps * caps)
{
  return gst_cv_caps_map_to_format (direction, caps, "GRAY8");
}

static cudavision::CudaStatus
process_gpu (GstCudaOtsu * self, GstVideoFrame * in, GstVideoFrame * out)
{
  GstCvBaseFilter *base = GST_CV_BASE_FILTER (self);
  OtsuState *st = self->st;
  const FrameSettings f = frame_settings (self);
  const bool report = st->report_meta || st->report_message;
  cudaStream_t stream = gst_cv_base_filter_stream (base);
  const cudavision::LaunchPolicy & policy = gst_cv_base_filter_policy (base);
  const cudavision::ConstImage8 src = gst_cv_frame_const_plane (in, 0);
  const cudavision::Image8 dst = gst_cv_frame_plane (out, 0);

  cudavision::CudaStatus s = ensure_device (st, stream);
  if (!s.ok ())
    return s;
  auto *dev = st->device.as<cudavision::OtsuDeviceState> ();
  auto *host = static_cast<cudavision::OtsuResult *> (st->host.get ());
  /* A failure below may leave the histogram half merged: start clean. */
  st->device_ready = false;
  CV_CUDA_TRY (cudavision::otsu_threshold (src, dev, policy, stream).err);
  if (report) {
    CV_CUDA_TRY (cudavision::otsu_copy_result (dev, host, stream).err);
    CV_CUDA_TRY (cudaEventRecord (st->copied.get (), stream));
  }
  if (f.binarize)
    CV_CUDA_TRY (cudavision::otsu_binarize (src, dst, dev, f.invert, policy, stream).err);
  else
    CV_CUDA_TRY (cudavision::copy_plane (src, dst, src.width, stream).err);
  if (report) {
    /* The binarization is queued: the wait covers the search only. */
    CV_CUDA_TRY (cudaEventSynchronize (st->copied.get ()));
    st->threshold = (guint8) host->threshold;
    st->have_threshold = true;
    GST_LOG_OBJECT (self, "threshold %u (%s search)", host->threshold, host->used_exact ? "exact" : "fast");
  }
  st->device_ready = true;
  return {};
}

static GstFlowReturn
gst_cuda_otsu_process_gpu (GstCvBaseFilter * base, GstBuffer *, GstVideoFrame * in, GstVideoFrame * out)
{
  return gst_cv_base_filter_check (base, process_gpu (GST_CUDA_OTSU (base), in, out), "Otsu threshold");
}

static GstFlowReturn
gst_cuda_otsu_process_cpu (GstCvBaseFilter * base, GstBuffer *, GstVideoFrame * in, GstVideoFrame * out)
{
  GstCudaOtsu *self = GST_CUDA_OTSU (base);
  const FrameSettings f = frame_settings (self);
  const cudavision::ConstImage8 src = gst_cv_frame_const_plane (in, 0);
  /* an exception must not unwind through GStreamer's C frames */
  try {
    self->st->threshold = (guint8) cudavision::cpu::otsu (src, gst_cv_frame_plane (out, 0), f.binarize, f.invert);
  } catch (const std::exception & e) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("OpenCV failed on a %dx%d frame", src.width, src.height),
        ("%s", e.what ()));
    return GST_FLOW_ERROR;
  }
  self->st->have_threshold = true;
  return GST_FLOW_OK;
}

static void
post_threshold (GstCudaOtsu * self, GstBuffer * inbuf, guint threshold)
{
  GstStructure *s = gst_cv_frame_message_new (GST_BASE_TRANSFORM (self), "cudaotsu", inbuf);
  gst_structure_set (s, "threshold", G_TYPE_UINT, threshold, nullptr);
  gst_cv_post_frame_message (GST_BASE_TRANSFORM (self), s);
}

/* The base class's transform does the frame; the threshold is reported
 * here, where the output buffer is at hand. */
static GstFlowReturn
gst_cuda_otsu_transform (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstCudaOtsu *self = GST_CUDA_OTSU (trans);
  OtsuState *st = self->st;
  st->have_threshold = false;
  st->report_meta = st->report_message = false;
  const GstFlowReturn ret = GST_BASE_TRANSFORM_CLASS (gst_cuda_otsu_parent_class)->transform (trans, inbuf, outbuf);
  if (ret != GST_FLOW_OK || !st->have_threshold)
    return ret;
  if (st->report_meta)
    gst_buffer_add_cv_otsu_meta (outbuf, st->threshold);
  if (st->report_message)
    post_threshold (self, inbuf, st->threshold);
  return ret;
}

static void
gst_cuda_otsu_release_device (GstCvBaseFilter * base)
{
  OtsuState *st = GST_CUDA_OTSU (base)->st;
  st->device.reset ();
  st->host.reset ();
  st->copied.reset ();
  st->device_ready = false;
}

static void
gst_cuda_otsu_set_property (GObject * object, guint prop_id, const GValue * value, GParamSpec * pspec)
{
  GstCudaOtsu *self = GST_CUDA_OTSU (object);
  OtsuState *st = self->st;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODE:
      st->mode = (GstCudaOtsuMode) g_value_get_enum (value);
      break;
    case PROP_INVERT:
      st->invert = g_value_get_boolean (value);
      break;
    case PROP_POST_MESSAGES:
      st->post_messages = g_value_get_boolean (value);
      break;
    case PROP_ATTACH_META:
      st->attach_meta = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_otsu_get_property (GObject * object, guint prop_id, GValue * value, GParamSpec * pspec)
{
  GstCudaOtsu *self = GST_CUDA_OTSU (object);
  OtsuState *st = self->st;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODE:
      g_value_set_enum (value, st->mode);
      break;
    case PROP_INVERT:
      g_value_set_boolean (value, st->invert);
      break;
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, st->post_messages);
      break;
    case PROP_ATTACH_META:
      g_value_set_boolean (value, st->attach_meta);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_otsu_finalize (GObject * object)
{
  delete GST_CUDA_OTSU (object)->st;
  G_OBJECT_CLASS (gst_cuda_otsu_parent_class)->finalize (object);
}

static void
gst_cuda_otsu_class_init (GstCudaOtsuClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCvBaseFilterClass *cv_class = GST_CV_BASE_FILTER_CLASS (klass);

  gobject_class->set_property = gst_cuda_otsu_set_property;
  gobject_class->get_property = gst_cuda_otsu_get_property;
  gobject_class->finalize = gst_cuda_otsu_finalize;

  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode", "Binarize the frame, or pass it through and only report the threshold",
          GST_TYPE_CUDA_OTSU_MODE, DEFAULT_MODE, GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_INVERT,
      g_param_spec_boolean ("invert", "Invert", "Output 0 above the threshold and 255 elsewhere",
          DEFAULT_INVERT, GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post a 'cudaotsu' element message with the threshold and timestamps of every frame "
          "(the streaming thread then waits for each frame's threshold)",
          DEFAULT_POST_MESSAGES, GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_ATTACH_META,
      g_param_spec_boolean ("attach-meta", "Attach meta",
          "Attach a GstCvOtsuMeta with the threshold to every output buffer "
          "(the streaming thread then waits for each frame's threshold)",
          DEFAULT_ATTACH_META, GST_CV_PARAM_RW_PLAYING));

  gst_element_class_set_static_metadata (element_class, "CUDA Otsu threshold", "Filter/Effect/Video/Hardware",
      "Otsu binarization of GRAY8 video on an NVIDIA GPU, bit-exact to OpenCV's THRESH_OTSU",
      "cudavision developers");
  gst_cv_base_filter_class_add_pad_templates (element_class, "{ GRAY8, NV12, I420 }", "GRAY8");

  trans_class->transform = gst_cuda_otsu_transform;
  cv_class->transform_video_caps = gst_cuda_otsu_transform_video_caps;
  cv_class->process_gpu = gst_cuda_otsu_process_gpu;
  cv_class->process_cpu = gst_cuda_otsu_process_cpu;
  cv_class->release_device = gst_cuda_otsu_release_device;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_otsu_debug, "cudavision-otsu", 0, "cudaotsu element");
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_OTSU_MODE, (GstPluginAPIFlags) 0);
}

static void
gst_cuda_otsu_init (GstCudaOtsu * self)
{
  self->st = new OtsuState ();
}
