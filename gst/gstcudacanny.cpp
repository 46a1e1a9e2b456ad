/**
 * SECTION:element-cudacanny
 * @title: cudacanny
 *
 * Canny edge detection of GRAY8 video on an NVIDIA GPU: GRAY8 in (or the
 * luma plane of NV12 and I420, read where it lies: a decoder's output
 * needs no conversion), GRAY8 out, 255 on edges and 0 elsewhere, as
 * `cv::Canny (src, dst,
 * low-threshold, high-threshold, aperture, l2-gradient)` computes it
 * (OpenCV 4.6: Sobel with a replicated border, its fixed-point direction
 * test for the non-maximum suppression, 8-connected hysteresis; aperture 7
 * with its 1/16 scaling). Every stage runs on the device, the hysteresis
 * included (a union-find over tile components, a fixed number of launches:
 * no host round trip, however far an edge runs).
 *
 * `blur-sigma` > 0 smooths first, exactly as `cv::GaussianBlur (src, tmp,
 * Size (k, k), blur-sigma, blur-sigma)` with OpenCV's kernel size for the
 * sigma (at most 31 taps, like cudablur), fused into the detection kernel:
 * `cudacanny blur-sigma=1.5` alone is a useful edge detector.
 *
 * `auto-threshold=otsu` or `median` derives the thresholds from each
 * frame: high = its Otsu threshold (cv::threshold's THRESH_OTSU value) or
 * its median, low = high / 2, from the frame as it arrives (before the
 * pre-blur), on the device; `low-threshold` and `high-threshold` are then
 * ignored. With `otsu`, a #GstCvOtsuMeta on the input buffer (cudaotsu
 * upstream with `attach-meta=true` or `mode=threshold-only`) gives the
 * threshold instead. All properties can change while playing.
 *
 * Frames stay in GPU memory when the neighbours are cudavision elements;
 * system memory is uploaded and downloaded at the edges. Without a usable
 * GPU the element runs on OpenCV (cv::GaussianBlur, cv::Canny) and says so
 * on the bus.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=astronaut.png ! pngdec ! videoconvert ! cudagray ! cudacanny blur-sigma=1.5 ! videoconvert ! pngenc ! filesink location=edges.png
 * ]|
 * |[
 * gst-launch-1.0 videotestsrc ! cudagray ! cudablur sigma=1.4 ! cudacanny auto-threshold=median l2-gradient=true ! videoconvert ! autovideosink
 * ]|
 * Edges of a decoder's NV12 frames on the GPU:
 * |[
 * gst-launch-1.0 filesrc location=clip.mp4 ! qtdemux ! h264parse ! nvh264dec ! cudacanny blur-sigma=1.5 ! \
 *     videoconvert ! autovideosink
 * ]|
 */
#include "gstcudacanny.h"

#include "gstcvotsumeta.h"

#include "../cpu/canny_cpu.h"
#include "../cuda/blur/blur.h"
#include "../cuda/canny/canny.h"
#include "../cuda/compose/canny_prepasses.h"

#include <exception>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_canny_debug);
#define GST_CAT_DEFAULT gst_cuda_canny_debug

enum {
  PROP_0,
  PROP_LOW_THRESHOLD,
  PROP_HIGH_THRESHOLD,
  PROP_APERTURE,
  PROP_L2_GRADIENT,
  PROP_AUTO_THRESHOLD,
  PROP_BLUR_SIGMA,
};

#define DEFAULT_LOW_THRESHOLD 50.0
#define DEFAULT_HIGH_THRESHOLD 150.0
#define DEFAULT_APERTURE 3
#define DEFAULT_L2_GRADIENT FALSE
#define DEFAULT_AUTO_THRESHOLD GST_CUDA_CANNY_AUTO_OFF
#define DEFAULT_BLUR_SIGMA 0.0
/* Thresholds beyond every magnitude (aperture 7 with L1 reaches 2 x 10200
 * after its 1/16 scaling; L2 caps at 32767 anyway), and within int. */
#define MAX_THRESHOLD 1e6
#define MAX_BLUR_SIGMA 1000.0

GType
gst_cuda_canny_auto_threshold_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    { GST_CUDA_CANNY_AUTO_OFF, "The low-threshold and high-threshold properties", "off" },
    { GST_CUDA_CANNY_AUTO_OTSU, "high = the frame's Otsu threshold (or the GstCvOtsuMeta's), low = high / 2",
      "otsu" },
    { GST_CUDA_CANNY_AUTO_MEDIAN, "high = the frame's median, low = high / 2", "median" },
    { 0, nullptr, nullptr },
  };
  if (g_once_init_enter (&type)) {
    const GType t = g_enum_register_static ("GstCudaCannyAutoThreshold", values);
    g_once_init_leave (&type, t);
  }
  return (GType) type;
}

/* Properties as one value, copied under the object lock once per frame. */
struct CannySettings {
  double low = DEFAULT_LOW_THRESHOLD;
  double high = DEFAULT_HIGH_THRESHOLD;
  int aperture = DEFAULT_APERTURE;
  bool l2 = DEFAULT_L2_GRADIENT;
  GstCudaCannyAutoThreshold auto_threshold = DEFAULT_AUTO_THRESHOLD;
  double blur_sigma = DEFAULT_BLUR_SIGMA;
};

struct _GstCudaCanny {
  GstCvBaseFilter parent;
  CannySettings *settings;            /* properties, under the object lock */
  cudavision::CannyScratch *scratch;  /* GPU scratch, freed in release_device */
  int reported_cap;                   /* derived blur size last warned about */
};

G_DEFINE_TYPE (GstCudaCanny, gst_cuda_canny, GST_TYPE_CV_BASE_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cudacanny, "cudacanny", GST_RANK_NONE, GST_TYPE_CUDA_CANNY);

/* This frame's parameters; the automatic value from a GstCvOtsuMeta on
 * `inbuf` when the mode is otsu (else -1: computed from the frame). */
static cudavision::CannyParams
frame_params (GstCudaCanny * self, GstBuffer * inbuf, int *auto_value)
{
  GST_OBJECT_LOCK (self);
  const CannySettings s = *self->settings;
  GST_OBJECT_UNLOCK (self);

  cudavision::CannyParams p;
  p.low_threshold = s.low;
  p.high_threshold = s.high;
  p.aperture = s.aperture;
  p.l2_gradient = s.l2;
  p.auto_threshold = (cudavision::CannyAuto) s.auto_threshold;
  if (s.blur_sigma > 0) {
    int k = cudavision::gaussian_ksize_for_sigma (s.blur_sigma);
    if (k > cudavision::kBlurMaxKsize) {
      if (self->reported_cap != k) {
        self->reported_cap = k;
        GST_WARNING_OBJECT (self, "blur-sigma %g derives a %d-tap kernel; using %d taps", s.blur_sigma, k,
            cudavision::kBlurMaxKsize);
      }
      k = cudavision::kBlurMaxKsize;
    }
    /* a 1-tap kernel (tiny sigma) is the identity */
    if (k >= 3) {
      p.blur_ksize = k;
      p.blur_sigma = s.blur_sigma;
    }
  }
  *auto_value = -1;
  if (p.auto_threshold == cudavision::CannyAuto::Otsu) {
    GstCvOtsuMeta *m = gst_buffer_get_cv_otsu_meta (inbuf);
    if (m)
      *auto_value = m->threshold;
  }
  return p;
}

/* GRAY8 out whatever came in: the luma of NV12 and I420 is their plane 0. */
static GstCaps *
gst_cuda_canny_transform_video_caps (GstCvBaseFilter *, GstPadDirection direction, GstCaps * caps)
{
  return gst_cv_caps_map_to_format (direction, caps, "GRAY8");
}

static GstFlowReturn
gst_cuda_canny_process_gpu (GstCvBaseFilter * base, GstBuffer * inbuf, GstVideoFrame * in, GstVideoFrame * out)
{
  GstCudaCanny *self = GST_CUDA_CANNY (base);
  int auto_value;
  const cudavision::CannyParams p = frame_params (self, inbuf, &auto_value);
  GST_LOG_OBJECT (self, "aperture %d, %s, auto %d (%d), blur %d taps", p.aperture, p.l2_gradient ? "L2" : "L1",
      (int) p.auto_threshold, auto_value, p.blur_ksize);
  return gst_cv_base_filter_check (base,
      cudavision::canny (gst_cv_frame_const_plane (in, 0), gst_cv_frame_plane (out, 0), p, self->scratch,
          cudavision::canny_prepasses (),
          gst_cv_base_filter_policy (base), gst_cv_base_filter_stream (base), auto_value),
      "Canny edge detection");
}

static GstFlowReturn
gst_cuda_canny_process_cpu (GstCvBaseFilter * base, GstBuffer * inbuf, GstVideoFrame * in, GstVideoFrame * out)
{
  GstCudaCanny *self = GST_CUDA_CANNY (base);
  int auto_value;
  const cudavision::CannyParams p = frame_params (self, inbuf, &auto_value);
  const cudavision::ConstImage8 src = gst_cv_frame_const_plane (in, 0);
  try {
    cudavision::cpu::canny (src, gst_cv_frame_plane (out, 0), p, auto_value);
  } catch (const std::exception & e) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("OpenCV failed on a %dx%d frame", src.width, src.height),
        ("%s", e.what ()));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

static void
gst_cuda_canny_release_device (GstCvBaseFilter * base)
{
  GST_CUDA_CANNY (base)->scratch->release ();
}

static void
gst_cuda_canny_set_property (GObject * object, guint prop_id, const GValue * value, GParamSpec * pspec)
{
  GstCudaCanny *self = GST_CUDA_CANNY (object);
  GST_OBJECT_LOCK (self);
  CannySettings & s = *self->settings;
  switch (prop_id) {
    case PROP_LOW_THRESHOLD:
      s.low = g_value_get_double (value);
      break;
    case PROP_HIGH_THRESHOLD:
      s.high = g_value_get_double (value);
      break;
    case PROP_APERTURE: {
      const gint a = g_value_get_int (value);
      if (a == 3 || a == 5 || a == 7)
        s.aperture = a;
      else
        g_warning ("%s: invalid aperture %d: the Sobel aperture is 3, 5 or 7; keeping %d", GST_OBJECT_NAME (self), a,
            s.aperture);
      break;
    }
    case PROP_L2_GRADIENT:
      s.l2 = g_value_get_boolean (value);
      break;
    case PROP_AUTO_THRESHOLD:
      s.auto_threshold = (GstCudaCannyAutoThreshold) g_value_get_enum (value);
      break;
    case PROP_BLUR_SIGMA:
      s.blur_sigma = g_value_get_double (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_canny_get_property (GObject * object, guint prop_id, GValue * value, GParamSpec * pspec)
{
  GstCudaCanny *self = GST_CUDA_CANNY (object);
  GST_OBJECT_LOCK (self);
  const CannySettings s = *self->settings;
  GST_OBJECT_UNLOCK (self);
  switch (prop_id) {
    case PROP_LOW_THRESHOLD: g_value_set_double (value, s.low); break;
    case PROP_HIGH_THRESHOLD: g_value_set_double (value, s.high); break;
    case PROP_APERTURE: g_value_set_int (value, s.aperture); break;
    case PROP_L2_GRADIENT: g_value_set_boolean (value, s.l2); break;
    case PROP_AUTO_THRESHOLD: g_value_set_enum (value, s.auto_threshold); break;
    case PROP_BLUR_SIGMA: g_value_set_double (value, s.blur_sigma); break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cuda_canny_finalize (GObject * object)
{
  GstCudaCanny *self = GST_CUDA_CANNY (object);
  delete self->settings;
  delete self->scratch;
  G_OBJECT_CLASS (gst_cuda_canny_parent_class)->finalize (object);
}

static void
gst_cuda_canny_class_init (GstCudaCannyClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCvBaseFilterClass *cv_class = GST_CV_BASE_FILTER_CLASS (klass);

  gobject_class->set_property = gst_cuda_canny_set_property;
  gobject_class->get_property = gst_cuda_canny_get_property;
  gobject_class->finalize = gst_cuda_canny_finalize;

  g_object_class_install_property (gobject_class, PROP_LOW_THRESHOLD,
      g_param_spec_double ("low-threshold", "Low threshold",
          "Gradient magnitude above which a local maximum may extend an edge (cv::Canny's threshold1; "
          "swapped with high-threshold when larger)",
          0.0, MAX_THRESHOLD, DEFAULT_LOW_THRESHOLD, GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_HIGH_THRESHOLD,
      g_param_spec_double ("high-threshold", "High threshold",
          "Gradient magnitude above which a local maximum starts an edge (cv::Canny's threshold2)", 0.0,
          MAX_THRESHOLD, DEFAULT_HIGH_THRESHOLD, GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_APERTURE,
      g_param_spec_int ("aperture", "Aperture", "Sobel aperture (cv::Canny's apertureSize): 3, 5 or 7", 3, 7,
          DEFAULT_APERTURE, GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_L2_GRADIENT,
      g_param_spec_boolean ("l2-gradient", "L2 gradient",
          "Magnitude sqrt (dx^2 + dy^2) instead of |dx| + |dy| (cv::Canny's L2gradient)", DEFAULT_L2_GRADIENT,
          GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_AUTO_THRESHOLD,
      g_param_spec_enum ("auto-threshold", "Automatic thresholds",
          "Derive the thresholds from each frame (high = Otsu threshold or median, low = high / 2)",
          GST_TYPE_CUDA_CANNY_AUTO_THRESHOLD, DEFAULT_AUTO_THRESHOLD, GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_BLUR_SIGMA,
      g_param_spec_double ("blur-sigma", "Blur sigma",
          "Gaussian pre-blur as cv::GaussianBlur with this sigma and OpenCV's kernel size for it (at most 31 taps); "
          "0 = none, like cv::Canny",
          0.0, MAX_BLUR_SIGMA, DEFAULT_BLUR_SIGMA, GST_CV_PARAM_RW_PLAYING));

  gst_element_class_set_static_metadata (element_class, "CUDA Canny edge detector", "Filter/Effect/Video/Hardware",
      "Canny edges of GRAY8 video on an NVIDIA GPU, as OpenCV's Canny finds them", "cudavision developers");
  gst_cv_base_filter_class_add_pad_templates (element_class, "{ GRAY8, NV12, I420 }", "GRAY8");

  cv_class->transform_video_caps = gst_cuda_canny_transform_video_caps;
  cv_class->process_gpu = gst_cuda_canny_process_gpu;
  cv_class->process_cpu = gst_cuda_canny_process_cpu;
  cv_class->release_device = gst_cuda_canny_release_device;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_canny_debug, "cudavision-canny", 0, "cudacanny element");
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_CANNY_AUTO_THRESHOLD, (GstPluginAPIFlags) 0);
}

static void
gst_cuda_canny_init (GstCudaCanny * self)
{
  self->settings = new CannySettings ();
  self->scratch = new cudavision::CannyScratch ();
  /* one graph launch a frame instead of five launches: the host time per
   * frame (docs/RELIABILITY.md) */
  self->scratch->graphs = true;
  self->reported_cap = 0;
}
