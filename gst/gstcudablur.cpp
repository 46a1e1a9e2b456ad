/**
 * SECTION:element-cudablur
 * @title: cudablur
 *
 * Gaussian smoothing of GRAY8, 4-byte RGB (RGBA, BGRA, RGBx, BGRx, ARGB,
 * ABGR, xRGB, xBGR), NV12 and I420 video on an NVIDIA GPU; every channel
 * (the x / alpha byte included) is smoothed on its own, the format is
 * kept. The result is bit-exact to `cv::GaussianBlur (src, dst, Size
 * (kernel-size, kernel-size), sigma, sigma-y, BORDER_REFLECT_101)`: the
 * GPU runs OpenCV's 8-bit fixed-point arithmetic. NV12 and I420 are
 * blurred plane by plane, each plane as cv::GaussianBlur blurs it with the
 * same kernel (NV12's UV plane as a 2-channel image). Borders are
 * reflect-101 (OpenCV's default); frames smaller than the kernel work.
 *
 * `kernel-size=0` derives the size from sigma as OpenCV does for 8-bit
 * images, round (6 * sigma + 1) | 1, capped at 31 (sigmas above about 5
 * are then truncated at 31 taps; the CPU backend uses the same capped
 * size). `sigma-y=0` uses `sigma` vertically too. An even kernel size, or
 * 1, is refused with a warning and the previous value stays; sizes outside
 * 0..31 are refused by GObject the same way. All three can change while
 * playing; the next frame uses them.
 *
 * Frames stay in GPU memory when the neighbours are cudavision elements;
 * system memory is uploaded and downloaded at the edges. Without a usable
 * GPU the element runs on OpenCV and says so on the bus.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=RGBA ! cudablur sigma=2.5 ! videoconvert ! autovideosink
 * ]|
 * |[
 * gst-launch-1.0 videotestsrc ! cudagray ! cudablur kernel-size=5 sigma=1.1 ! cudaotsu ! videoconvert ! autovideosink
 * ]|
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=NV12 ! cudablur sigma=1.5 ! videoconvert ! autovideosink
 * ]|
 */
#include "gstcudablur.h"

#include "../cpu/blur_cpu.h"
#include "../cuda/blur/blur.h"
#include "../cuda/common/cuda_raii.h"

#include <algorithm>
#include <exception>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_blur_debug);
#define GST_CAT_DEFAULT gst_cuda_blur_debug

#define BLUR_FORMATS "{ GRAY8, NV12, I420, RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, xRGB, xBGR }"

enum {
  PROP_0,
  PROP_SIGMA,
  PROP_SIGMA_Y,
  PROP_KERNEL_SIZE,
};

#define DEFAULT_SIGMA 1.5
#define DEFAULT_SIGMA_Y 0.0
#define DEFAULT_KERNEL_SIZE 0
#define MAX_SIGMA 1000.0

/* What the element owns beyond GObject's zeroed struct. */
struct BlurState {
  /* properties, under the object lock */
  double sigma = DEFAULT_SIGMA;
  double sigma_y = DEFAULT_SIGMA_Y;
  int kernel_size = DEFAULT_KERNEL_SIZE;

  /* streaming thread */
  int channels = 1;                             /* of plane 0 */
  bool planes = false;                          /* NV12, I420: every plane apart */
  cudavision::BlurTaps taps;
  double taps_sigma_x = -1, taps_sigma_y = -1;  /* what `taps` were made for */
  int reported_cap = 0;                         /* derived size last warned about */
  cudavision::DeviceBuffer scratch;             /* two-pass intermediate */
  cudavision::DeviceBuffer split;               /* NV12's U and V as planes */
};

struct _GstCudaBlur {
  GstCvBaseFilter parent;
  BlurState *st;
};

G_DEFINE_TYPE (GstCudaBlur, gst_cuda_blur, GST_TYPE_CV_BASE_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cudablur, "cudablur", GST_RANK_NONE, GST_TYPE_CUDA_BLUR);

/* The kernel size for a property value: explicit, or OpenCV's rule for
 * 8-bit images, capped at the largest size the kernels support. */
static int
effective_ksize (GstCudaBlur * self, int kernel_size, double sigma)
{
  if (kernel_size > 0)
    return kernel_size;
  const int k = cudavision::gaussian_ksize_for_sigma (sigma);
  if (k <= cudavision::kBlurMaxKsize)
    return k;
  if (self->st->reported_cap != k) {
    self->st->reported_cap = k;
    GST_WARNING_OBJECT (self, "sigma %g derives a %d-tap kernel; using %d taps", sigma, k,
        cudavision::kBlurMaxKsize);
  }
  return cudavision::kBlurMaxKsize;
}

/* Sizes and sigmas of this frame, from the properties. */
struct BlurParams {
  int kx, ky;
  double sx, sy;
};

static BlurParams
current_params (GstCudaBlur * self)
{
  GST_OBJECT_LOCK (self);
  const double sx = self->st->sigma;
  const double sy = self->st->sigma_y > 0 ? self->st->sigma_y : self->st->sigma;
  const int ks = self->st->kernel_size;
  GST_OBJECT_UNLOCK (self);
  return { effective_ksize (self, ks, sx), effective_ksize (self, ks, sy), sx, sy };
}

static gboolean
gst_cuda_blur_set_info (GstCvBaseFilter * base, const GstVideoInfo * in, const GstVideoInfo *)
{
  GstCudaBlur *self = GST_CUDA_BLUR (base);
  self->st->planes = false;
  switch (GST_VIDEO_INFO_FORMAT (in)) {
    case GST_VIDEO_FORMAT_NV12:
    case GST_VIDEO_FORMAT_I420:
      self->st->planes = true;
      /* plane 0 is the luma */
      [[fallthrough]];
    case GST_VIDEO_FORMAT_GRAY8:
      self->st->channels = 1;
      return TRUE;
    case GST_VIDEO_FORMAT_RGBA:
    case GST_VIDEO_FORMAT_BGRA:
    case GST_VIDEO_FORMAT_RGBx:
    case GST_VIDEO_FORMAT_BGRx:
    case GST_VIDEO_FORMAT_ARGB:
    case GST_VIDEO_FORMAT_ABGR:
    case GST_VIDEO_FORMAT_xRGB:
    case GST_VIDEO_FORMAT_xBGR:
      self->st->channels = 4;
      return TRUE;
    default:
      GST_ERROR_OBJECT (self, "unsupported format %s", GST_VIDEO_INFO_NAME (in));
      return FALSE;
  }
}

/* Interleaved channels of a plane: plane 0's for single-plane formats,
 * 1 for I420's and NV12's luma, 2 for NV12's UV. */
static int
plane_channels (GstVideoFrame * frame, guint plane, const BlurState * st)
{
  if (!st->planes)
    return st->channels;
  gint comps[GST_VIDEO_MAX_COMPONENTS];
  gst_video_format_info_component (frame->info.finfo, plane, comps);
  return GST_VIDEO_FRAME_COMP_PSTRIDE (frame, comps[0]);
}

static GstFlowReturn
gst_cuda_blur_process_gpu (GstCvBaseFilter * base, GstBuffer *, GstVideoFrame * in, GstVideoFrame * out)
{
  GstCudaBlur *self = GST_CUDA_BLUR (base);
  BlurState *st = self->st;
  const BlurParams p = current_params (self);
  if (p.kx != st->taps.ksize_x || p.ky != st->taps.ksize_y || p.sx != st->taps_sigma_x ||
      p.sy != st->taps_sigma_y) {
    st->taps = cudavision::make_blur_taps (p.kx, p.ky, p.sx, p.sy);
    st->taps_sigma_x = p.sx;
    st->taps_sigma_y = p.sy;
    GST_DEBUG_OBJECT (self, "kernel %dx%d, sigma %g / %g", p.kx, p.ky, p.sx, p.sy);
  }
  const cudavision::LaunchPolicy & policy = gst_cv_base_filter_policy (base);
  cudaStream_t stream = gst_cv_base_filter_stream (base);
  const guint n = st->planes ? GST_VIDEO_FRAME_N_PLANES (in) : 1;
  cudavision::CudaStatus s;
  for (guint plane = 0; plane < n && s.ok (); plane++) {
    const cudavision::ConstImage8 src = gst_cv_frame_const_plane (in, plane);
    const cudavision::Image8 dst = gst_cv_frame_plane (out, plane);
    if (plane_channels (in, plane, st) == 2)
      s = cudavision::gaussian_blur_interleaved2 (src, dst, st->taps, policy, stream, &st->split, &st->scratch);
    else
      s = cudavision::gaussian_blur (src, dst, st->channels, st->taps, policy, stream, &st->scratch);
  }
  return gst_cv_base_filter_check (base, s, "Gaussian blur");
}

static GstFlowReturn
gst_cuda_blur_process_cpu (GstCvBaseFilter * base, GstBuffer *, GstVideoFrame * in, GstVideoFrame * out)
{
  GstCudaBlur *self = GST_CUDA_BLUR (base);
  const BlurParams p = current_params (self);
  const guint n = self->st->planes ? GST_VIDEO_FRAME_N_PLANES (in) : 1;
  /* an exception must not unwind through GStreamer's C frames */
  try {
    for (guint plane = 0; plane < n; plane++)
      cudavision::cpu::gaussian_blur (gst_cv_frame_const_plane (in, plane), gst_cv_frame_plane (out, plane),
          plane_channels (in, plane, self->st), p.kx, p.ky, p.sx, p.sy);
  } catch (const std::exception & e) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED,
        ("OpenCV failed on a %dx%d frame", GST_VIDEO_FRAME_WIDTH (in), GST_VIDEO_FRAME_HEIGHT (in)),
        ("%s", e.what ()));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

static void
gst_cuda_blur_release_device (GstCvBaseFilter * base)
{
  GST_CUDA_BLUR (base)->st->scratch.reset ();
  GST_CUDA_BLUR (base)->st->split.reset ();
}

static void
gst_cuda_blur_set_property (GObject * object, guint prop_id, const GValue * value, GParamSpec * pspec)
{
  GstCudaBlur *self = GST_CUDA_BLUR (object);
  BlurState *st = self->st;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_SIGMA:
      st->sigma = g_value_get_double (value);
      break;
    case PROP_SIGMA_Y:
      st->sigma_y = g_value_get_double (value);
      break;
    case PROP_KERNEL_SIZE: {
      const gint k = g_value_get_int (value);
      if (k != 0 && (k < 3 || k > cudavision::kBlurMaxKsize || k % 2 == 0))
        g_warning ("%s: invalid kernel-size %d: expected 0 (derived from sigma) or an odd size from 3 to %d; "
                   "keeping %d",
            GST_OBJECT_NAME (self), k, cudavision::kBlurMaxKsize, st->kernel_size);
      else
        st->kernel_size = k;
      break;
    }
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_blur_get_property (GObject * object, guint prop_id, GValue * value, GParamSpec * pspec)
{
  GstCudaBlur *self = GST_CUDA_BLUR (object);
  BlurState *st = self->st;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_SIGMA:
      g_value_set_double (value, st->sigma);
      break;
    case PROP_SIGMA_Y:
      g_value_set_double (value, st->sigma_y);
      break;
    case PROP_KERNEL_SIZE:
      g_value_set_int (value, st->kernel_size);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_blur_finalize (GObject * object)
{
  delete GST_CUDA_BLUR (object)->st;
  G_OBJECT_CLASS (gst_cuda_blur_parent_class)->finalize (object);
}

static void
gst_cuda_blur_class_init (GstCudaBlurClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCvBaseFilterClass *cv_class = GST_CV_BASE_FILTER_CLASS (klass);

  gobject_class->set_property = gst_cuda_blur_set_property;
  gobject_class->get_property = gst_cuda_blur_get_property;
  gobject_class->finalize = gst_cuda_blur_finalize;

  g_object_class_install_property (gobject_class, PROP_SIGMA,
      g_param_spec_double ("sigma", "Sigma",
          "Standard deviation of the Gaussian, in pixels (horizontal; vertical too when sigma-y is 0)",
          G_MINDOUBLE, MAX_SIGMA, DEFAULT_SIGMA, GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_SIGMA_Y,
      g_param_spec_double ("sigma-y", "Sigma Y", "Vertical standard deviation (0 = same as sigma)", 0.0,
          MAX_SIGMA, DEFAULT_SIGMA_Y, GST_CV_PARAM_RW_PLAYING));
  g_object_class_install_property (gobject_class, PROP_KERNEL_SIZE,
      g_param_spec_int ("kernel-size", "Kernel size",
          "Kernel width and height: odd, 3 to 31 (0 = derived from sigma as OpenCV does, at most 31)", 0,
          cudavision::kBlurMaxKsize, DEFAULT_KERNEL_SIZE, GST_CV_PARAM_RW_PLAYING));

  gst_element_class_set_static_metadata (element_class, "CUDA Gaussian blur", "Filter/Effect/Video/Hardware",
      "Gaussian smoothing on an NVIDIA GPU, bit-exact to OpenCV's GaussianBlur", "cudavision developers");
  gst_cv_base_filter_class_add_pad_templates (element_class, BLUR_FORMATS, BLUR_FORMATS);

  cv_class->set_info = gst_cuda_blur_set_info;
  cv_class->process_gpu = gst_cuda_blur_process_gpu;
  cv_class->process_cpu = gst_cuda_blur_process_cpu;
  cv_class->release_device = gst_cuda_blur_release_device;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_blur_debug, "cudavision-blur", 0, "cudablur element");
}

static void
gst_cuda_blur_init (GstCudaBlur * self)
{
  self->st = new BlurState ();
}
