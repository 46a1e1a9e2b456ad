/* cudavision — GstCvBaseFilter: device, context, stream, backend, launch
 * policy, caps features, allocation and frame layout checks for every
 * cudavision element. */
#include "gstcvbasefilter.h"

#include "gstcvbufferpool.h"
#include "gstcvcontext.h"
#include "gstcvnotices.h"

#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudautils.h>

#include "../cuda/policy/auto_tuner.h"
#include "../cuda/common/cuda_raii.h"
#include "../cuda/common/device_info.h"
#include "../cuda/common/event_timer.h"
#include "../cuda/policy/launch_policy.h"
#include "../cuda/policy/tuning_table.h"

#include <atomic>
#include <cstdarg>
#include <memory>
#include <string>

GST_DEBUG_CATEGORY_STATIC (gst_cv_base_filter_debug);
#define GST_CAT_DEFAULT gst_cv_base_filter_debug
/* The launch policy's choices: GST_DEBUG=cudavision*:5 shows them (on the
 * CPU backend, one line per negotiation saying there are none). */
GST_DEBUG_CATEGORY_STATIC (gst_cv_launch_debug);

enum {
  PROP_0,
  PROP_DEVICE_ID,
  PROP_BACKEND,
  PROP_BLOCK_SIZING,
  PROP_BLOCK_SIZE,
  PROP_TUNING_TABLE,
  PROP_SAVE_TUNING,
};

#define DEFAULT_LATENCY_FRAMES 0

#define DEFAULT_DEVICE_ID -1
#define DEFAULT_BACKEND GST_CV_BACKEND_AUTO
#define DEFAULT_BLOCK_SIZING GST_CV_BLOCK_SIZING_STATIC

/* Everything the element owns beyond GObject's zeroed struct. */
struct CvFilterPriv {
  /* properties, under the object lock */
  gint device_id = DEFAULT_DEVICE_ID;
  GstCvBackend backend = DEFAULT_BACKEND;
  GstCvBlockSizing sizing = DEFAULT_BLOCK_SIZING;
  std::string block_size;  /* empty: each kernel's default */
  cudavision::BlockShape user_block;
  std::string tuning_table;  /* empty: $XDG_CACHE_HOME/cudavision/<gpu>.tsv */
  bool save_tuning = false;  /* block-sizing=auto: write what it learned at stop */
  guint latency_frames = DEFAULT_LATENCY_FRAMES;  /* elements with finish_frame */

  /* running state */
  bool started = false;
  bool on_gpu = false;
  GstCudaContext *context = nullptr;
  std::unique_ptr<cudavision::Stream> stream;
  std::unique_ptr<cudavision::LaunchPolicy> policy;
  /* block-sizing=auto: the online tuner (its events live on `stream`) and
   * the table file it reads and may save to */
  std::shared_ptr<cudavision::AutoTuner> auto_tuner;
  std::string table_path;

  GstVideoInfo in_info;
  GstVideoInfo out_info;
  GstCvMemoryKind in_kind = GST_CV_MEMORY_SYSTEM;
  GstCvMemoryKind out_kind = GST_CV_MEMORY_SYSTEM;
  /* device frames for system-memory edges: upload into, download from */
  GstBufferPool *upload_pool = nullptr;
  GstBufferPool *download_pool = nullptr;

  /* latency-frames=1 (see finish_frame): read at start; the output whose
   * results are still being computed, and its input, kept so that its
   * device frame is not reused before the results are read */
  guint hold_frames = 0;
  GstBuffer *held_out = nullptr;
  GstBuffer *held_in = nullptr;
  bool hold_this = false;  /* the frame in transform () is to be held */

  /* the error that device memory needs the GPU backend was posted (once
   * per start: negotiation asks again and again) */
  std::atomic<bool> told_needs_gpu { false };
  /* the errors posted since the element last left READY (post_message) */
  GstCvPostedErrors posted_errors;
};

typedef struct {
  CvFilterPriv *p;
} GstCvBaseFilterPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstCvBaseFilter, gst_cv_base_filter, GST_TYPE_BASE_TRANSFORM);

static CvFilterPriv *
priv (GstCvBaseFilter * self)
{
  return ((GstCvBaseFilterPrivate *) gst_cv_base_filter_get_instance_private (self))->p;
}

static GstFlowReturn drain_held (GstCvBaseFilter * self, bool push);

/* ------------------------------------------------------------------ caps */

/* The formats GstCudaMemory (libgstcuda 1.22) can hold among ours: every
 * one but GRAY8. Our source pads offer memory:CUDAMemory for these. */
#define CUDA_MEMORY_OUT_FORMATS "{ NV12, I420, RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, RGB, BGR }"

static GstCaps *
cuda_memory_output_caps (void)
{
  static GstCaps *caps = nullptr;
  if (g_once_init_enter (&caps)) {
    GstCaps *c = gst_caps_from_string ("video/x-raw(" GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY "), format = (string) "
                                       CUDA_MEMORY_OUT_FORMATS);
    GST_MINI_OBJECT_FLAG_SET (c, GST_MINI_OBJECT_FLAG_MAY_BE_LEAKED);
    g_once_init_leave (&caps, c);
  }
  return caps;
}

GstCaps *
gst_cv_base_filter_make_caps (const gchar * formats, GstPadDirection direction)
{
  const gchar *fields = "width = (int) [ 1, 16384 ], height = (int) [ 1, 16384 ], "
                        "framerate = (fraction) [ 0, max ]";
  gchar *s = g_strdup_printf ("video/x-raw(" GST_CAPS_FEATURE_MEMORY_CUDAVISION "), format = (string) %s, %s; "
                              "video/x-raw(" GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY "), format = (string) %s, %s; "
                              "video/x-raw, format = (string) %s, %s",
      formats, fields, formats, fields, formats, fields);
  GstCaps *all = gst_caps_from_string (s);
  g_free (s);
  if (direction == GST_PAD_SINK)
    return all;
  /* out: memory:CUDAMemory only in the formats it can hold */
  GstCaps *caps = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (all); i++) {
    GstCaps *one = gst_caps_copy_nth (all, i);
    GstCapsFeatures *f = gst_caps_get_features (one, 0);
    if (f && gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY)) {
      GstCaps *held = gst_caps_intersect (one, cuda_memory_output_caps ());
      gst_caps_unref (one);
      one = held;
    }
    gst_caps_append (caps, one);
  }
  gst_caps_unref (all);
  return caps;
}

bool
gst_cv_packed_rgb_layout (GstVideoFormat format, cudavision::PackedRgb * layout)
{
  using cudavision::PackedRgb;
  switch (format) {
    case GST_VIDEO_FORMAT_RGBA: *layout = PackedRgb::RGBA; return true;
    case GST_VIDEO_FORMAT_BGRA: *layout = PackedRgb::BGRA; return true;
    case GST_VIDEO_FORMAT_RGBx: *layout = PackedRgb::RGBx; return true;
    case GST_VIDEO_FORMAT_BGRx: *layout = PackedRgb::BGRx; return true;
    case GST_VIDEO_FORMAT_ARGB: *layout = PackedRgb::ARGB; return true;
    case GST_VIDEO_FORMAT_ABGR: *layout = PackedRgb::ABGR; return true;
    case GST_VIDEO_FORMAT_xRGB: *layout = PackedRgb::xRGB; return true;
    case GST_VIDEO_FORMAT_xBGR: *layout = PackedRgb::xBGR; return true;
    case GST_VIDEO_FORMAT_RGB: *layout = PackedRgb::RGB; return true;
    case GST_VIDEO_FORMAT_BGR: *layout = PackedRgb::BGR; return true;
    default: return false;
  }
}

GstCaps *
gst_cv_caps_map_to_gray (GstPadDirection direction, GstCaps * caps)
{
  GstCaps *res = gst_caps_make_writable (caps);
  for (guint i = 0; i < gst_caps_get_size (res); i++) {
    GstStructure *s = gst_caps_get_structure (res, i);
    gst_structure_remove_fields (s, "format", "colorimetry", "chroma-site", nullptr);
    if (direction == GST_PAD_SINK)
      gst_structure_set (s, "format", G_TYPE_STRING, "GRAY8", nullptr);
  }
  return gst_caps_simplify (res);
}

void
gst_cv_base_filter_class_add_pad_templates (GstElementClass * element_class, const gchar * sink_formats,
    const gchar * src_formats)
{
  GstCaps *sink = gst_cv_base_filter_make_caps (sink_formats, GST_PAD_SINK);
  GstCaps *src = gst_cv_base_filter_make_caps (src_formats, GST_PAD_SRC);
  gst_element_class_add_pad_template (element_class, gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, sink));
  gst_element_class_add_pad_template (element_class, gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, src));
  gst_caps_unref (sink);
  gst_caps_unref (src);
}

static GstCvMemoryKind
caps_memory_kind (GstCaps * caps)
{
  GstCapsFeatures *f = gst_caps_get_features (caps, 0);
  if (f && gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_CUDAVISION))
    return GST_CV_MEMORY_DEVICE;
  if (f && gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY))
    return GST_CV_MEMORY_CUDA_MEMORY;
  return GST_CV_MEMORY_SYSTEM;
}

static const gchar *
memory_kind_name (GstCvMemoryKind kind)
{
  switch (kind) {
    case GST_CV_MEMORY_DEVICE: return GST_CAPS_FEATURE_MEMORY_CUDAVISION;
    case GST_CV_MEMORY_CUDA_MEMORY: return GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY;
    default: return "system memory";
  }
}

static void
append_with_feature (GstCaps * dst, GstCaps * src, const gchar * feature)
{
  GstCaps *c = gst_caps_copy (src);
  for (guint i = 0; i < gst_caps_get_size (c); i++)
    gst_caps_set_features (c, i, feature ? gst_caps_features_new (feature, nullptr)
                                          : gst_caps_features_new_empty ());
  gst_caps_append (dst, c);
}

/* Whether GstCudaMemory lays an odd-height I420 frame out with its U and
 * V planes overlapping (GStreamer 1.22 puts V height / 2 rows after U, a
 * row short of U's (height + 1) / 2): asked once of the allocator itself,
 * with a 2x3 frame in `ctx`. */
static bool
cuda_memory_odd_i420_overlaps (GstCudaContext * ctx)
{
  static gsize verdict = 0; /* 1: no, 2: yes */
  if (g_once_init_enter (&verdict)) {
    GstVideoInfo info;
    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 2, 3);
    GstMemory *mem = gst_cv_cuda_memory_alloc (ctx, &info);
    bool overlaps = true;
    if (mem) {
      const GstVideoInfo *l = &GST_CUDA_MEMORY_CAST (mem)->info;
      overlaps = l->offset[2] < l->offset[1] + (gsize) l->stride[1] * GST_VIDEO_INFO_COMP_HEIGHT (l, 1);
      gst_memory_unref (mem);
    }
    g_once_init_leave (&verdict, overlaps ? 2 : 1);
  }
  return verdict == 2;
}

static bool
odd_height_i420 (const GstStructure * s)
{
  gint h = 0;
  const gchar *f = gst_structure_get_string (s, "format");
  return f && g_str_equal (f, "I420") && gst_structure_get_int (s, "height", &h) && (h & 1);
}

/* memory:CUDAMemory out without the I420 frames of odd height it would
 * garble (cuda_memory_odd_i420_overlaps): negotiation takes another
 * memory or format for them. Heights still open are left to set_caps. */
static GstCaps *
without_garbled_cuda_i420 (GstCaps * cuda, GstCudaContext * ctx)
{
  if (!ctx || !cuda_memory_odd_i420_overlaps (ctx))
    return cuda;
  GstCaps *odd = gst_caps_from_string ("video/x-raw(" GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY "), format = (string) I420");
  GstCaps *out = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (cuda); i++) {
    GstCaps *one = gst_caps_copy_nth (cuda, i);
    gint h = 0;
    if (gst_structure_get_int (gst_caps_get_structure (one, 0), "height", &h) && (h & 1)) {
      GstCaps *rest = gst_caps_subtract (one, odd);
      gst_caps_unref (one);
      one = rest;
    }
    gst_caps_append (out, one);
  }
  gst_caps_unref (odd);
  gst_caps_unref (cuda);
  return out;
}

/* `caps`' structures without their caps features (system memory). */
static GstCaps *
without_features (GstCaps * caps)
{
  GstCaps *plain = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++)
    plain = gst_caps_merge_structure (plain, gst_structure_copy (gst_caps_get_structure (caps, i)));
  return plain;
}

static GstCaps *
gst_cv_base_filter_transform_caps (GstBaseTransform * trans, GstPadDirection direction, GstCaps * caps,
    GstCaps * filter)
{
  GstCvBaseFilter *self = GST_CV_BASE_FILTER (trans);
  GstCvBaseFilterClass *klass = GST_CV_BASE_FILTER_GET_CLASS (self);
  CvFilterPriv *p = priv (self);

  /* Formats map the same way whatever memory holds them. */
  GstCaps *plain = without_features (caps);
  GstCaps *mapped = klass->transform_video_caps ? klass->transform_video_caps (self, direction, plain) : plain;

  GST_OBJECT_LOCK (self);
  const bool gpu_possible = p->backend != GST_CV_BACKEND_CPU && !(p->started && !p->on_gpu);
  GST_OBJECT_UNLOCK (self);

  /* Device frames first: between our elements they are preferred. */
  GstCaps *result = gst_caps_new_empty ();
  if (gpu_possible) {
    append_with_feature (result, mapped, GST_CAPS_FEATURE_MEMORY_CUDAVISION);
    /* nvcodec's memory: any format in (its producers hold only what it
     * can), out in the formats it can hold */
    GstCaps *cuda = gst_caps_new_empty ();
    append_with_feature (cuda, mapped, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
    if (direction == GST_PAD_SINK) {
      GstCaps *held = gst_caps_intersect (cuda, cuda_memory_output_caps ());
      gst_caps_unref (cuda);
      cuda = without_garbled_cuda_i420 (held, p->context);
    }
    gst_caps_append (result, cuda);
  }
  append_with_feature (result, mapped, nullptr);
  gst_caps_unref (mapped);

  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, result, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (result);
    result = tmp;
  }
  GST_DEBUG_OBJECT (self, "%s caps %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, result);
  return result;
}

/* ------------------------------------- device memory on the CPU backend */

/* Why the element runs on the CPU, for the errors and warnings that say
 * what it cannot do there. */
static const gchar *
cpu_backend_reason (GstCvBaseFilter * self)
{
  GST_OBJECT_LOCK (self);
  const bool chosen = priv (self)->backend == GST_CV_BACKEND_CPU;
  GST_OBJECT_UNLOCK (self);
  return chosen ? "backend=cpu" : "no usable CUDA device";
}

/* Device memory on a pad needs the GPU backend: on the CPU the element
 * says so, once per start, where negotiation alone would end in a bare
 * not-negotiated from the source. `input`: upstream sends it; else
 * downstream takes nothing else. */
static void
post_device_memory_needs_gpu (GstCvBaseFilter * self, GstCvMemoryKind kind, bool input)
{
  CvFilterPriv *p = priv (self);
  if (p->told_needs_gpu.exchange (true))
    return;
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
      ("%s in %s needs the GPU backend, and %s runs on the CPU (%s)", input ? "Input" : "Output",
          memory_kind_name (kind), GST_ELEMENT_NAME (self), cpu_backend_reason (self)),
      ("device frames are made and read on a CUDA device only: use backend=auto or backend=cuda on a machine "
       "with a usable NVIDIA GPU, or %s system memory (video/x-raw)",
          input ? "give the element" : "let downstream take"));
}

/* Started on the CPU backend, and the error not posted yet: only then is
 * a failed negotiation worth a look. */
static bool
should_explain_negotiation (GstCvBaseFilter * self)
{
  CvFilterPriv *p = priv (self);
  GST_OBJECT_LOCK (self);
  const bool cpu = p->started && !p->on_gpu;
  GST_OBJECT_UNLOCK (self);
  return cpu && !p->told_needs_gpu;
}

/* The structures of `caps` in system memory. */
static GstCaps *
system_memory_part (GstCaps * caps)
{
  GstCaps *out = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *f = gst_caps_get_features (caps, i);
    if (!f || gst_caps_features_is_equal (f, GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY))
      gst_caps_append_structure (out, gst_structure_copy (gst_caps_get_structure (caps, i)));
  }
  return out;
}

/* The device memory that downstream would take the output of `offered`
 * (upstream's caps) in, where it takes no system memory the element could
 * output at all: then that, and nothing else, is why the CPU backend
 * cannot negotiate. GST_CV_MEMORY_SYSTEM when something else is why. */
static GstCvMemoryKind
device_memory_downstream_wants (GstCvBaseFilter * self, GstCaps * offered)
{
  GstCvBaseFilterClass *klass = GST_CV_BASE_FILTER_GET_CLASS (self);
  GstPad *srcpad = GST_BASE_TRANSFORM_SRC_PAD (self);
  GstCaps *peer = gst_pad_peer_query_caps (srcpad, nullptr);
  GstCaps *templ = gst_pad_get_pad_template_caps (srcpad);
  GstCaps *system = system_memory_part (templ);
  GstCvMemoryKind wanted = GST_CV_MEMORY_SYSTEM;
  if (!gst_caps_is_empty (peer) && !gst_caps_can_intersect (peer, system)) {
    /* what upstream offers among the formats the element takes, mapped */
    GstCaps *sink_templ = gst_pad_get_pad_template_caps (GST_BASE_TRANSFORM_SINK_PAD (self));
    GstCaps *all = without_features (sink_templ);
    GstCaps *given = without_features (offered);
    GstCaps *plain = gst_caps_intersect (given, all);
    GstCaps *mapped = klass->transform_video_caps ? klass->transform_video_caps (self, GST_PAD_SINK, plain) : plain;
    for (const GstCvMemoryKind kind : { GST_CV_MEMORY_DEVICE, GST_CV_MEMORY_CUDA_MEMORY }) {
      GstCaps *ours = gst_caps_new_empty ();
      append_with_feature (ours, mapped, memory_kind_name (kind));
      GstCaps *possible = gst_caps_intersect (ours, templ);
      const bool taken = gst_caps_can_intersect (possible, peer);
      gst_caps_unref (possible);
      gst_caps_unref (ours);
      if (taken) {
        wanted = kind;
        break;
      }
    }
    gst_caps_unref (mapped);
    gst_caps_unref (given);
    gst_caps_unref (all);
    gst_caps_unref (sink_templ);
  }
  gst_caps_unref (system);
  gst_caps_unref (templ);
  gst_caps_unref (peer);
  return wanted;
}

/* A caps query from upstream came back empty: the source will stop with
 * not-negotiated and never send caps (the pipeline: a source
 * before an element on the CPU that only device memory follows). */
static void
explain_empty_caps_answer (GstCvBaseFilter * self, GstCaps * filter)
{
  GstCaps *offered =
      filter ? gst_caps_ref (filter) : gst_pad_get_pad_template_caps (GST_BASE_TRANSFORM_SINK_PAD (self));
  const GstCvMemoryKind kind = device_memory_downstream_wants (self, offered);
  if (kind != GST_CV_MEMORY_SYSTEM)
    post_device_memory_needs_gpu (self, kind, false);
  gst_caps_unref (offered);
}

/* A caps event was refused: device memory upstream (set_caps says so
 * when it gets that far) or downstream may be why. */
static void
explain_refused_caps (GstCvBaseFilter * self, GstCaps * incaps)
{
  GstCvMemoryKind kind = caps_memory_kind (incaps);
  if (kind != GST_CV_MEMORY_SYSTEM) {
    post_device_memory_needs_gpu (self, kind, true);
    return;
  }
  kind = device_memory_downstream_wants (self, incaps);
  if (kind != GST_CV_MEMORY_SYSTEM)
    post_device_memory_needs_gpu (self, kind, false);
}

static gboolean
gst_cv_base_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps, GstCaps * outcaps)
{
  GstCvBaseFilter *self = GST_CV_BASE_FILTER (trans);
  GstCvBaseFilterClass *klass = GST_CV_BASE_FILTER_GET_CLASS (self);
  CvFilterPriv *p = priv (self);

  /* A held frame leaves with the caps it was made for (this also runs on
   * a downstream reconfigure, where no caps event passed sink_event). */
  drain_held (self, true);
  if (!gst_video_info_from_caps (&p->in_info, incaps) || !gst_video_info_from_caps (&p->out_info, outcaps)) {
    GST_ERROR_OBJECT (self, "invalid caps %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, incaps, outcaps);
    return FALSE;
  }
  p->in_kind = caps_memory_kind (incaps);
  p->out_kind = caps_memory_kind (outcaps);
  if (!p->on_gpu && (p->in_kind != GST_CV_MEMORY_SYSTEM || p->out_kind != GST_CV_MEMORY_SYSTEM)) {
    const bool input = p->in_kind != GST_CV_MEMORY_SYSTEM;
    post_device_memory_needs_gpu (self, input ? p->in_kind : p->out_kind, input);
    return FALSE;
  }
  if (p->out_kind == GST_CV_MEMORY_CUDA_MEMORY && odd_height_i420 (gst_caps_get_structure (outcaps, 0)) &&
      cuda_memory_odd_i420_overlaps (p->context)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("memory:CUDAMemory cannot hold I420 frames of odd height (%d)", p->out_info.height),
        ("this GStreamer's GstCudaMemory overlaps the U and V planes of such frames; "
         "use NV12, an even height, or system memory downstream"));
    return FALSE;
  }
  /* New sizes: the staging frames are rebuilt on first use. */
  for (GstBufferPool ** pool : { &p->upload_pool, &p->download_pool }) {
    if (*pool) {
      gst_buffer_pool_set_active (*pool, FALSE);
      gst_clear_object (pool);
    }
  }
  GST_INFO_OBJECT (self, "%s %s -> %s %s on the %s", GST_VIDEO_INFO_NAME (&p->in_info),
      memory_kind_name (p->in_kind), GST_VIDEO_INFO_NAME (&p->out_info), memory_kind_name (p->out_kind),
      p->on_gpu ? "GPU" : "CPU");
  /* The launch log's readers get an answer on the CPU too: no shapes. */
  if (!p->on_gpu)
    GST_CAT_DEBUG_OBJECT (gst_cv_launch_debug, self,
        "%s %dx%d: the CPU backend (%s) launches no CUDA kernels, so there are no block shapes to choose; "
        "OpenCV runs the frames",
        GST_VIDEO_INFO_NAME (&p->in_info), p->in_info.width, p->in_info.height, cpu_backend_reason (self));
  return klass->set_info ? klass->set_info (self, &p->in_info, &p->out_info) : TRUE;
}

static GstCaps *device_caps_first (GstCaps * caps);

/* Output caps: device memory first among what downstream takes. Elements
 * that take both device and system memory (nvcodec's cudadownload, a
 * tee of ours and others) list system memory first for their own
 * passthrough; fixating their first choice would make us download a frame
 * they would have downloaded themselves, or not at all. */
static GstCaps *
gst_cv_base_filter_fixate_caps (GstBaseTransform * trans, GstPadDirection direction, GstCaps * caps,
    GstCaps * othercaps)
{
  if (direction == GST_PAD_SINK && gst_caps_get_size (othercaps) > 1) {
    GstCaps *ordered = device_caps_first (othercaps);
    gst_caps_unref (othercaps);
    othercaps = ordered;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cv_base_filter_parent_class)->fixate_caps (trans, direction, caps, othercaps);
}

/* ------------------------------------------------------------ allocation */

static GstBufferPool *
make_device_pool (CvFilterPriv * p, const GstVideoInfo * info, guint * size_out)
{
  GstBufferPool *pool = gst_cv_buffer_pool_new (p->context);
  GstCaps *caps = gst_video_info_to_caps (info);
  GstVideoInfo layout = *info;
  gst_cv_video_info_set_pitched (&layout);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, layout.size, 0, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_caps_unref (caps);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return nullptr;
  }
  if (size_out)
    *size_out = layout.size;
  return pool;
}

static gboolean
gst_cv_base_filter_propose_allocation (GstBaseTransform * trans, GstQuery * decide_query, GstQuery * query)
{
  GstCvBaseFilter *self = GST_CV_BASE_FILTER (trans);
  CvFilterPriv *p = priv (self);
  GstCaps *caps = nullptr;
  gboolean need_pool = FALSE;

  gst_query_parse_allocation (query, &caps, &need_pool);
  if (!caps)
    return FALSE;
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, nullptr);

  /* Upstream of ours writes device frames straight into our pool. */
  if (need_pool && p->on_gpu && caps_memory_kind (caps) == GST_CV_MEMORY_DEVICE) {
    GstVideoInfo info;
    guint size = 0;
    if (!gst_video_info_from_caps (&info, caps))
      return FALSE;
    GstBufferPool *pool = make_device_pool (p, &info, &size);
    if (!pool)
      return FALSE;
    gst_query_add_allocation_pool (query, pool, size, 0, 0);
    gst_object_unref (pool);
  }
  return TRUE;
}

static gboolean
gst_cv_base_filter_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstCvBaseFilter *self = GST_CV_BASE_FILTER (trans);
  CvFilterPriv *p = priv (self);
  GstCaps *outcaps = nullptr;
  GstBufferPool *pool = nullptr;
  guint size = 0, min = 0, max = 0;
  GstVideoInfo info;

  gst_query_parse_allocation (query, &outcaps, nullptr);
  if (!outcaps || !gst_video_info_from_caps (&info, outcaps))
    return FALSE;

  const gboolean update = gst_query_get_n_allocation_pools (query) > 0;
  if (update)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);

  const GstCvMemoryKind out_kind = caps_memory_kind (outcaps);
  if (out_kind == GST_CV_MEMORY_CUDA_MEMORY) {
    /* nvcodec's memory, in the pipeline's context: a downstream pool of
     * that kind and context, or one of ours; it sizes the buffers itself */
    if (pool && !(GST_IS_CUDA_BUFFER_POOL (pool) && GST_CUDA_BUFFER_POOL (pool)->context == p->context))
      gst_clear_object (&pool);
    if (!pool) {
      /* GstCudaMemory's allocator exists once someone has set it up:
       * nvcodec's plugin does when it loads, a pipeline without nvcodec
       * (an application's appsink asking for memory:CUDAMemory) would find
       * none */
      gst_cuda_memory_init_once ();
      pool = gst_cuda_buffer_pool_new (p->context);
    }
    size = MAX (size, (guint) info.size);
  } else if (out_kind == GST_CV_MEMORY_DEVICE) {
    /* A downstream pool of ours in the same context is as good as our own. */
    if (pool && !(GST_IS_CV_BUFFER_POOL (pool) &&
                    gst_cv_buffer_pool_get_context (GST_CV_BUFFER_POOL (pool)) == p->context))
      gst_clear_object (&pool);
    if (!pool)
      pool = gst_cv_buffer_pool_new (p->context);
    GstVideoInfo layout = info;
    gst_cv_video_info_set_pitched (&layout);
    size = layout.size;
  } else {
    if (!pool)
      pool = gst_video_buffer_pool_new ();
    size = MAX (size, (guint) info.size);
  }

  GstStructure *config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, outcaps, size, min, max);
  if (gst_buffer_pool_has_option (pool, GST_BUFFER_POOL_OPTION_VIDEO_META))
    gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    /* A downstream pool may adjust the config: accept what it validates. */
    config = gst_buffer_pool_get_config (pool);
    if (!gst_buffer_pool_config_validate_params (config, outcaps, size, min, max) ||
        !gst_buffer_pool_set_config (pool, config)) {
      GST_ERROR_OBJECT (self, "cannot configure the output pool");
      gst_object_unref (pool);
      return FALSE;
    }
  }

  if (update)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);
  return TRUE;
}

static GstFlowReturn
gst_cv_base_filter_prepare_output_buffer (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer ** outbuf)
{
  GstFlowReturn ret =
      GST_BASE_TRANSFORM_CLASS (gst_cv_base_filter_parent_class)->prepare_output_buffer (trans, inbuf, outbuf);
  if (ret == GST_FLOW_ERROR) {
    CvFilterPriv *p = priv (GST_CV_BASE_FILTER (trans));
    GST_ELEMENT_ERROR (trans, RESOURCE, NO_SPACE_LEFT,
        ("Could not allocate a %dx%d %s output frame", p->out_info.width, p->out_info.height,
            GST_VIDEO_INFO_NAME (&p->out_info)),
        ("the %s memory is exhausted or the frame is too large",
            p->out_kind == GST_CV_MEMORY_SYSTEM ? "system" : "GPU"));
  }
  return ret;
}

/* Metas tagged only with video, size or orientation (regions of interest,
 * keypoints, face boxes) stay valid through our elements, which never move
 * pixels: keep them, as GstVideoFilter does. Metas with other tags (memory,
 * colorspace) describe the input buffer and are dropped. */
static gboolean
gst_cv_base_filter_transform_meta (GstBaseTransform * trans, GstBuffer * outbuf, GstMeta * meta, GstBuffer * inbuf)
{
  const gchar *const *tags = gst_meta_api_type_get_tags (meta->info->api);
  if (!tags)
    return TRUE;
  for (; *tags; tags++) {
    if (g_strcmp0 (*tags, GST_META_TAG_VIDEO_STR) != 0 && g_strcmp0 (*tags, GST_META_TAG_VIDEO_SIZE_STR) != 0 &&
        g_strcmp0 (*tags, GST_META_TAG_VIDEO_ORIENTATION_STR) != 0)
      return GST_BASE_TRANSFORM_CLASS (gst_cv_base_filter_parent_class)->transform_meta (trans, outbuf, meta, inbuf);
  }
  return TRUE;
}

/* ------------------------------------------------------------- transform */

GstFlowReturn
gst_cv_base_filter_check (GstCvBaseFilter * self, const cudavision::CudaStatus & s, const gchar * what)
{
  if (s.ok ())
    return GST_FLOW_OK;
  if (s.out_of_memory ())
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, ("Out of GPU memory during %s", what),
        ("%s", s.message ().c_str ()));
  else
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("CUDA error during %s", what), ("%s", s.message ().c_str ()));
  cudaGetLastError ();
  return GST_FLOW_ERROR;
}

cudavision::CudaStatus
gst_cv_frame_copy_planes (GstVideoFrame * dst, GstVideoFrame * src, guint first_plane, cudaMemcpyKind kind,
    cudaStream_t stream)
{
  const GstVideoFormatInfo *finfo = src->info.finfo;
  for (guint plane = first_plane; plane < GST_VIDEO_FRAME_N_PLANES (src); plane++) {
    gint comps[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component (finfo, plane, comps);
    const gint c = comps[0];
    const size_t row_bytes =
        (size_t) GST_VIDEO_FRAME_COMP_WIDTH (src, c) * GST_VIDEO_FRAME_COMP_PSTRIDE (src, c);
    const size_t rows = GST_VIDEO_FRAME_COMP_HEIGHT (src, c);
    CV_CUDA_TRY (cudaMemcpy2DAsync (GST_VIDEO_FRAME_PLANE_DATA (dst, plane), GST_VIDEO_FRAME_PLANE_STRIDE (dst, plane),
        GST_VIDEO_FRAME_PLANE_DATA (src, plane), GST_VIDEO_FRAME_PLANE_STRIDE (src, plane), row_bytes, rows,
        kind, stream));
  }
  return {};
}

/* ---- frame layouts, checked before anything maps them ---- */

static std::string format_string (const gchar * fmt, ...) G_GNUC_PRINTF (1, 2);

static std::string
format_string (const gchar * fmt, ...)
{
  va_list args;
  va_start (args, fmt);
  gchar *s = g_strdup_vprintf (fmt, args);
  va_end (args);
  std::string out = s;
  g_free (s);
  return out;
}

/* Bytes of a visible row of `plane`, and its rows: its first component's. */
static guint64
plane_row_bytes (const GstVideoInfo * info, guint plane)
{
  gint comps[GST_VIDEO_MAX_COMPONENTS];
  gst_video_format_info_component (info->finfo, plane, comps);
  return (guint64) GST_VIDEO_INFO_COMP_WIDTH (info, comps[0]) * GST_VIDEO_INFO_COMP_PSTRIDE (info, comps[0]);
}

static guint64
plane_rows (const GstVideoInfo * info, guint plane)
{
  gint comps[GST_VIDEO_MAX_COMPONENTS];
  gst_video_format_info_component (info->finfo, plane, comps);
  return (guint64) GST_VIDEO_INFO_COMP_HEIGHT (info, comps[0]);
}

/* What is wrong with `buf` as a frame of `info` (its caps), as the error's
 * sentence, with the numbers in *detail; empty when nothing is. Without a
 * GstVideoMeta the caps' default layout must fit the buffer (that is what
 * gst_video_frame_map assumes). With one, its format and size must be the
 * caps' (the map takes the meta's size for the frame's), and every plane,
 * from its first byte in memory to its last visible one, must lie in one
 * memory of the buffer: the meta's map maps only the memory that holds
 * the plane's offset, and the backends read every row from there. The
 * arithmetic is 64-bit: strides of G_MAXINT or G_MININT do not wrap.
 * Strings are built only for a frame that fails. */
static std::string
layout_problem (GstBuffer * buf, const GstVideoInfo * info, const gchar * what, bool bottom_up_ok,
    std::string * detail)
{
  const gsize size = gst_buffer_get_size (buf);
  const gchar *fmt = GST_VIDEO_INFO_NAME (info);
  GstVideoMeta *meta = gst_buffer_get_video_meta (buf);
  if (!meta) {
    if (size >= info->size)
      return {};
    *detail = "no GstVideoMeta: the caps' default layout is assumed";
    return format_string ("The %s buffer is too small: %" G_GSIZE_FORMAT " bytes for a %dx%d %s frame of %"
        G_GSIZE_FORMAT, what, size, info->width, info->height, fmt, info->size);
  }
  if (meta->format != GST_VIDEO_INFO_FORMAT (info) || meta->width != (guint) info->width ||
      meta->height != (guint) info->height || meta->n_planes != GST_VIDEO_INFO_N_PLANES (info)) {
    *detail = format_string ("GstVideoMeta: %u plane%s; caps: %u; a frame is mapped at its meta's size, "
        "not the caps'", meta->n_planes, meta->n_planes == 1 ? "" : "s", GST_VIDEO_INFO_N_PLANES (info));
    return format_string ("The %s frame's GstVideoMeta describes a %ux%u %s frame, its caps a %dx%d %s one", what,
        meta->width, meta->height, gst_video_format_to_string (meta->format), info->width, info->height, fmt);
  }

  const guint n_mem = gst_buffer_n_memory (buf);
  for (guint p = 0; p < meta->n_planes; p++) {
    const gint64 stride = meta->stride[p];
    const guint64 pitch = stride < 0 ? (guint64) -stride : (guint64) stride;
    const guint64 row = plane_row_bytes (info, p), rows = plane_rows (info, p);
    const guint64 offset = meta->offset[p];
    auto describe = [&] () {
      *detail = format_string ("%dx%d %s, plane %u: offset %" G_GUINT64_FORMAT ", stride %" G_GINT64_FORMAT ", %"
          G_GUINT64_FORMAT " rows of %" G_GUINT64_FORMAT " bytes; a buffer of %" G_GSIZE_FORMAT " bytes in %u memor%s",
          info->width, info->height, fmt, p, offset, stride, rows, row, size, n_mem, n_mem == 1 ? "y" : "ies");
    };
    if (stride < 0 && !bottom_up_ok) {
      describe ();
      return format_string ("The %s frame's plane %u has a negative stride (%" G_GINT64_FORMAT
          "): bottom-up frames are supported in system memory only", what, p, stride);
    }
    if (pitch < row) {
      describe ();
      return format_string ("The %s frame's plane %u has a stride of %" G_GINT64_FORMAT
          " bytes, smaller than a row (%" G_GUINT64_FORMAT " bytes)", what, p, stride, row);
    }
    /* at most 2^31 * 16384: no overflow */
    const guint64 before_last = pitch * (rows - 1), span = before_last + row;
    /* bottom-up: the offset is the top row's, the last in memory */
    if (stride < 0 && before_last > offset) {
      describe ();
      return format_string ("The %s frame's plane %u has bottom-up rows starting %" G_GUINT64_FORMAT
          " bytes before the start of its buffer", what, p, before_last - offset);
    }
    const guint64 first = stride < 0 ? offset - before_last : offset;
    if (first > size || span > size - first) {
      describe ();
      return format_string ("The %s frame's plane %u reaches past the end of its %" G_GSIZE_FORMAT "-byte buffer",
          what, p, size);
    }
    /* the memories that [first, first + span) touches */
    guint64 start = 0;
    guint touched = 0;
    for (guint m = 0; m < n_mem && start < first + span; m++) {
      const guint64 end = start + gst_buffer_peek_memory (buf, m)->size;
      if (end > first && end > start)
        touched++;
      start = end;
    }
    if (touched > 1) {
      describe ();
      return format_string ("The %s frame's plane %u spans %u memories of its buffer", what, p, touched);
    }
  }
  return {};
}

/* layout_problem as an element error (STREAM/FORMAT); false then. */
static bool
check_layout (GstCvBaseFilter * self, GstBuffer * buf, const GstVideoInfo * info, const gchar * what,
    bool bottom_up_ok)
{
  std::string detail;
  const std::string problem = layout_problem (buf, info, what, bottom_up_ok, &detail);
  if (problem.empty ())
    return true;
  GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s", problem.c_str ()), ("%s", detail.c_str ()));
  return false;
}

/* The input mapped on the host, top-down. A bottom-up frame (negative
 * strides: check_layout lets them through in system memory only) is
 * copied once into a buffer of the caps' default layout: OpenCV's
 * cv::Mat step and cudaMemcpy2D's pitch are unsigned. */
struct HostInput {
  GstVideoFrame mapped, flat;
  GstBuffer *flat_buf = nullptr;
  bool is_mapped = false, flat_mapped = false;

  GstVideoFrame *frame () { return flat_mapped ? &flat : &mapped; }
  ~HostInput () {
    if (flat_mapped)
      gst_video_frame_unmap (&flat);
    if (flat_buf)
      gst_buffer_unref (flat_buf);
    if (is_mapped)
      gst_video_frame_unmap (&mapped);
  }
};

static bool
map_host_input (GstCvBaseFilter * self, GstBuffer * inbuf, HostInput & in)
{
  CvFilterPriv *p = priv (self);
  if (!gst_video_frame_map (&in.mapped, &p->in_info, inbuf, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map the input frame"), (nullptr));
    return false;
  }
  in.is_mapped = true;
  bool bottom_up = false;
  for (guint i = 0; i < GST_VIDEO_FRAME_N_PLANES (&in.mapped); i++)
    bottom_up = bottom_up || GST_VIDEO_FRAME_PLANE_STRIDE (&in.mapped, i) < 0;
  if (!bottom_up)
    return true;
  GST_LOG_OBJECT (self, "bottom-up input: copied top-down");
  in.flat_buf = gst_buffer_new_allocate (nullptr, p->in_info.size, nullptr);
  if (!in.flat_buf || !gst_video_frame_map (&in.flat, &p->in_info, in.flat_buf, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, ("Could not allocate a top-down copy of the input frame"),
        ("%dx%d %s, bottom-up", p->in_info.width, p->in_info.height, GST_VIDEO_INFO_NAME (&p->in_info)));
    return false;
  }
  in.flat_mapped = true;
  if (!gst_video_frame_copy (&in.flat, &in.mapped)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not copy the bottom-up input frame"), (nullptr));
    return false;
  }
  return true;
}

static GstBuffer *
acquire_staging (GstCvBaseFilter * self, GstBufferPool ** pool, const GstVideoInfo * info)
{
  CvFilterPriv *p = priv (self);
  if (!*pool) {
    *pool = make_device_pool (p, info, nullptr);
    if (!*pool || !gst_buffer_pool_set_active (*pool, TRUE)) {
      gst_clear_object (pool);
      return nullptr;
    }
  }
  GstBuffer *buf = nullptr;
  if (gst_buffer_pool_acquire_buffer (*pool, &buf, nullptr) != GST_FLOW_OK)
    return nullptr;
  return buf;
}

static GstFlowReturn
transform_cpu (GstCvBaseFilter * self, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstCvBaseFilterClass *klass = GST_CV_BASE_FILTER_GET_CLASS (self);
  CvFilterPriv *p = priv (self);
  HostInput in;
  if (!map_host_input (self, inbuf, in))
    return GST_FLOW_ERROR;
  GstVideoFrame out;
  if (!gst_video_frame_map (&out, &p->out_info, outbuf, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map the output frame"), (nullptr));
    return GST_FLOW_ERROR;
  }
  GstFlowReturn ret = klass->process_cpu (self, inbuf, in.frame (), &out);
  gst_video_frame_unmap (&out);
  return ret;
}

/* Owns the mapped frames and staging buffers of one GPU transform. */
struct GpuFrames {
  GstBuffer *dev_in = nullptr;   /* the input on the device (inbuf or staging) */
  GstBuffer *dev_out = nullptr;  /* the output on the device (outbuf or staging) */
  bool in_staged = false, out_staged = false;
  bool in_mapped = false, out_mapped = false;
  GstVideoFrame in, out;

  ~GpuFrames () {
    if (out_mapped)
      gst_video_frame_unmap (&out);
    if (in_mapped)
      gst_video_frame_unmap (&in);
    if (in_staged)
      gst_buffer_unref (dev_in);
    if (out_staged)
      gst_buffer_unref (dev_out);
  }
};

static const GstMapFlags MAP_DEVICE_READ = (GstMapFlags) (GST_MAP_READ | GST_MAP_CV_DEVICE);
static const GstMapFlags MAP_DEVICE_WRITE = (GstMapFlags) (GST_MAP_WRITE | GST_MAP_CV_DEVICE);

static GstFlowReturn
upload_input (GstCvBaseFilter * self, GstBuffer * inbuf, GpuFrames & f)
{
  CvFilterPriv *p = priv (self);
  cudaStream_t s = p->stream->get ();
  f.dev_in = acquire_staging (self, &p->upload_pool, &p->in_info);
  if (!f.dev_in) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, ("Could not allocate a GPU frame for the input"),
        ("%dx%d %s", p->in_info.width, p->in_info.height, GST_VIDEO_INFO_NAME (&p->in_info)));
    return GST_FLOW_ERROR;
  }
  f.in_staged = true;
  HostInput host;
  if (!map_host_input (self, inbuf, host))
    return GST_FLOW_ERROR;
  if (!gst_video_frame_map (&f.in, &p->in_info, f.dev_in, MAP_DEVICE_WRITE)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map a device frame"), (nullptr));
    return GST_FLOW_ERROR;
  }
  f.in_mapped = true;
  gst_cv_buffer_wait (f.dev_in, s);
  /* From pageable memory the copy returns once the data is staged, so the
   * host frame can be unmapped right after (`host` goes at return). */
  cudavision::CudaStatus st = gst_cv_frame_copy_planes (&f.in, host.frame (), 0, cudaMemcpyHostToDevice, s);
  gst_cv_count_upload ();
  return gst_cv_base_filter_check (self, st, "upload");
}

static GstFlowReturn
map_device_input (GstCvBaseFilter * self, GstBuffer * inbuf, GpuFrames & f)
{
  CvFilterPriv *p = priv (self);
  f.dev_in = inbuf;
  if (p->in_kind == GST_CV_MEMORY_CUDA_MEMORY) {
    GstMemory *mem = gst_buffer_peek_memory (inbuf, 0);
    if (!gst_is_cuda_memory (mem)) {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("memory:CUDAMemory caps without CUDA memory"), (nullptr));
      return GST_FLOW_ERROR;
    }
    GstCudaContext *mctx = GST_CUDA_MEMORY_CAST (mem)->context;
    if (mctx != p->context && !gst_cuda_context_can_access_peer (p->context, mctx)) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Input CUDA memory belongs to another CUDA context"),
          ("the upstream element did not share its GstCudaContext and peer access is not possible"));
      return GST_FLOW_ERROR;
    }
#if GST_CHECK_VERSION(1, 24, 0)
    gst_cuda_memory_sync (GST_CUDA_MEMORY_CAST (mem));
#endif
  } else {
    gst_cv_buffer_wait (inbuf, p->stream->get ());
  }
  if (!gst_video_frame_map (&f.in, &p->in_info, inbuf, MAP_DEVICE_READ)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map the input frame on the device"), (nullptr));
    return GST_FLOW_ERROR;
  }
  f.in_mapped = true;
  return GST_FLOW_OK;
}

static GstFlowReturn
transform_gpu (GstCvBaseFilter * self, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstCvBaseFilterClass *klass = GST_CV_BASE_FILTER_GET_CLASS (self);
  CvFilterPriv *p = priv (self);
  GstCvContextGuard guard (p->context);
  if (!guard.ok ()) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("Could not push the CUDA context"), (nullptr));
    return GST_FLOW_ERROR;
  }
  cudaStream_t s = p->stream->get ();
  GpuFrames f;

  GstFlowReturn ret = p->in_kind == GST_CV_MEMORY_SYSTEM ? upload_input (self, inbuf, f)
                                                         : map_device_input (self, inbuf, f);
  if (ret != GST_FLOW_OK)
    return ret;

  if (p->out_kind == GST_CV_MEMORY_SYSTEM) {
    f.dev_out = acquire_staging (self, &p->download_pool, &p->out_info);
    if (!f.dev_out) {
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, ("Could not allocate a GPU frame for the output"),
          ("%dx%d %s", p->out_info.width, p->out_info.height, GST_VIDEO_INFO_NAME (&p->out_info)));
      return GST_FLOW_ERROR;
    }
    f.out_staged = true;
  } else {
    f.dev_out = outbuf;
  }
  /* The output frame may still be read by a consumer on its stream. */
  gst_cv_buffer_wait (f.dev_out, s);
  if (!gst_video_frame_map (&f.out, &p->out_info, f.dev_out, MAP_DEVICE_WRITE)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map the output frame on the device"), (nullptr));
    return GST_FLOW_ERROR;
  }
  f.out_mapped = true;

  ret = klass->process_gpu (self, inbuf, &f.in, &f.out);
  /* block-sizing=auto: the frame's last launch is timed up to here. */
  if (p->auto_tuner)
    p->auto_tuner->end_frame ();
  gst_cv_buffer_record (f.dev_in, s);
  gst_cv_buffer_record (f.dev_out, s);
  if (ret != GST_FLOW_OK || p->out_kind != GST_CV_MEMORY_SYSTEM)
    return ret;

  /* System-memory edge: one download, and the one host wait of the chain. */
  GstVideoFrame host;
  if (!gst_video_frame_map (&host, &p->out_info, outbuf, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map the output frame"), (nullptr));
    return GST_FLOW_ERROR;
  }
  cudavision::CudaStatus st = gst_cv_frame_copy_planes (&host, &f.out, 0, cudaMemcpyDeviceToHost, s);
  if (st.ok ())
    st = p->stream->synchronize ();
  gst_video_frame_unmap (&host);
  gst_cv_count_download ();
  return gst_cv_base_filter_check (self, st, "download");
}

static GstFlowReturn
finish_frame (GstCvBaseFilter * self, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstCvBaseFilterClass *klass = GST_CV_BASE_FILTER_GET_CLASS (self);
  CvFilterPriv *p = priv (self);
  GstCvContextGuard guard (p->context);
  if (p->context && !guard.ok ()) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("Could not push the CUDA context"), (nullptr));
    return GST_FLOW_ERROR;
  }
  return klass->finish_frame (self, inbuf, outbuf);
}

/* memory:CUDAMemory out: GstCudaMemory (GStreamer 1.22) carries no stream
 * or event to order its readers, and nvcodec's elements read it at once
 * (cudadownload's host map copies on the context's default stream), so a
 * frame leaves with its work done: one host wait per frame, as at a
 * system-memory edge. */
static GstFlowReturn
complete_cuda_memory_output (GstCvBaseFilter * self)
{
  CvFilterPriv *p = priv (self);
  if (!p->on_gpu || p->out_kind != GST_CV_MEMORY_CUDA_MEMORY)
    return GST_FLOW_OK;
  GstCvContextGuard guard (p->context);
  if (!guard.ok ()) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("Could not push the CUDA context"), (nullptr));
    return GST_FLOW_ERROR;
  }
  return gst_cv_base_filter_check (self, p->stream->synchronize (), "the output frame");
}

static GstFlowReturn
gst_cv_base_filter_transform (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstCvBaseFilter *self = GST_CV_BASE_FILTER (trans);
  CvFilterPriv *p = priv (self);
  /* Both frames, before either backend maps them: bottom-up input only in
   * system memory (no CUDA producer lays frames out so, and outputs are
   * ours or downstream's pool's). */
  if (!check_layout (self, inbuf, &p->in_info, "input", p->in_kind == GST_CV_MEMORY_SYSTEM) ||
      !check_layout (self, outbuf, &p->out_info, "output", false))
    return GST_FLOW_ERROR;
  GstFlowReturn ret = p->on_gpu ? transform_gpu (self, inbuf, outbuf) : transform_cpu (self, inbuf, outbuf);
  if (ret != GST_FLOW_OK || p->hold_this)
    return ret;
  if (GST_CV_BASE_FILTER_GET_CLASS (self)->finish_frame)
    ret = finish_frame (self, inbuf, outbuf);
  return ret != GST_FLOW_OK ? ret : complete_cuda_memory_output (self);
}

/* ---------------------------------------------------- results held back */

/* latency-frames=1 holds a frame only where that saves a wait: on the GPU
 * with device memory on both pads, ours out (a system-memory edge waits
 * for its upload or download anyway, and an uploaded input's staging
 * frame is reused by the next frame; memory:CUDAMemory out waits for each
 * frame's work, complete_cuda_memory_output). */
gboolean
gst_cv_base_filter_holds_results (GstCvBaseFilter * self)
{
  CvFilterPriv *p = priv (self);
  return p->hold_frames > 0 && GST_CV_BASE_FILTER_GET_CLASS (self)->finish_frame && p->on_gpu &&
      p->in_kind != GST_CV_MEMORY_SYSTEM && p->out_kind == GST_CV_MEMORY_DEVICE;
}

/* The held frame, finished; pushed downstream or (flush, stop) dropped. */
static GstFlowReturn
drain_held (GstCvBaseFilter * self, bool push)
{
  CvFilterPriv *p = priv (self);
  GstBuffer *out = p->held_out, *in = p->held_in;
  p->held_out = p->held_in = nullptr;
  if (!out)
    return GST_FLOW_OK;
  GstFlowReturn ret = finish_frame (self, in, out);
  gst_clear_buffer (&in);
  if (ret != GST_FLOW_OK || !push) {
    gst_buffer_unref (out);
    return ret;
  }
  GST_LOG_OBJECT (self, "pushing the held frame %" GST_TIME_FORMAT, GST_TIME_ARGS (GST_BUFFER_PTS (out)));
  ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), out);
  if (ret != GST_FLOW_OK)
    GST_DEBUG_OBJECT (self, "held frame pushed: %s", gst_flow_get_name (ret));
  return ret;
}

/* With a frame held: the new frame's work is queued (transform), it takes
 * the held place, and the previous one is finished (its results are ready
 * by now, or the GPU is busy with the frames before) and goes out. */
static GstFlowReturn
gst_cv_base_filter_generate_output (GstBaseTransform * trans, GstBuffer ** outbuf)
{
  GstCvBaseFilter *self = GST_CV_BASE_FILTER (trans);
  CvFilterPriv *p = priv (self);
  GstBaseTransformClass *parent = GST_BASE_TRANSFORM_CLASS (gst_cv_base_filter_parent_class);
  if (!gst_cv_base_filter_holds_results (self)) {
    GstFlowReturn ret = drain_held (self, true);
    return ret != GST_FLOW_OK ? ret : parent->generate_output (trans, outbuf);
  }
  GstBuffer *in = trans->queued_buf ? gst_buffer_ref (trans->queued_buf) : nullptr;
  GstBuffer *out = nullptr;
  p->hold_this = true;
  GstFlowReturn ret = parent->generate_output (trans, &out);
  p->hold_this = false;
  if (ret != GST_FLOW_OK || !out || !in) {
    /* an error (the caller drops `out`), a QoS drop, or no input */
    gst_clear_buffer (&in);
    *outbuf = out;
    return ret;
  }
  GstBuffer *prev_out = p->held_out, *prev_in = p->held_in;
  p->held_out = out;
  p->held_in = in;
  *outbuf = nullptr;
  if (!prev_out)
    return GST_FLOW_OK;
  ret = finish_frame (self, prev_in, prev_out);
  gst_buffer_unref (prev_in);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (prev_out);
    return ret;
  }
  *outbuf = prev_out;
  return GST_FLOW_OK;
}

/* A serialized event follows the frames before it: the held one leaves
 * first. A flush drops it. */
static gboolean
gst_cv_base_filter_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCvBaseFilter *self = GST_CV_BASE_FILTER (trans);
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    drain_held (self, false);
  else if (GST_EVENT_IS_SERIALIZED (event))
    drain_held (self, true);
  /* caps the CPU backend may refuse for their memory: kept to say why */
  GstCaps *caps = nullptr;
  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS && should_explain_negotiation (self)) {
    gst_event_parse_caps (event, &caps);
    gst_caps_ref (caps);
  }
  const gboolean ret = GST_BASE_TRANSFORM_CLASS (gst_cv_base_filter_parent_class)->sink_event (trans, event);
  if (caps) {
    if (!ret)
      explain_refused_caps (self, caps);
    gst_caps_unref (caps);
  }
  return ret;
}

void
gst_cv_base_filter_class_install_latency_frames (GObjectClass * klass, guint prop_id)
{
  g_object_class_install_property (klass, prop_id,
      g_param_spec_uint ("latency-frames", "Latency in frames",
          "Frames an output waits for its results: 0 = each frame leaves with its results (the streaming thread "
          "waits for the GPU), 1 = a frame leaves when the next one has been queued (no wait on the GPU, one "
          "frame of latency; GPU with device memory on both pads only)",
          0, 1, DEFAULT_LATENCY_FRAMES, GST_CV_PARAM_RW_READY));
}

void
gst_cv_base_filter_set_latency_frames (GstCvBaseFilter * self, const GValue * value)
{
  GST_OBJECT_LOCK (self);
  priv (self)->latency_frames = g_value_get_uint (value);
  GST_OBJECT_UNLOCK (self);
}

void
gst_cv_base_filter_get_latency_frames (GstCvBaseFilter * self, GValue * value)
{
  GST_OBJECT_LOCK (self);
  g_value_set_uint (value, priv (self)->latency_frames);
  GST_OBJECT_UNLOCK (self);
}

gboolean
gst_cv_base_filter_map_device_output (GstCvBaseFilter * self, GstBuffer * buf, GstVideoFrame * frame)
{
  CvFilterPriv *p = priv (self);
  gst_cv_buffer_wait (buf, p->stream->get ());
  return gst_video_frame_map (frame, &p->out_info, buf, MAP_DEVICE_WRITE);
}

void
gst_cv_base_filter_unmap_device_output (GstCvBaseFilter * self, GstBuffer * buf, GstVideoFrame * frame)
{
  gst_cv_buffer_record (buf, priv (self)->stream->get ());
  gst_video_frame_unmap (frame);
}

/* --------------------------------------------------------- start / stop */

static void
log_launch (GstCvBaseFilter * self, int level, const std::string & msg)
{
  GST_CAT_LEVEL_LOG (gst_cv_launch_debug, (GstDebugLevel) level, self, "%s", msg.c_str ());
}

/* The tuning-table property, or the GPU's default file. */
static std::string
tuning_table_path (const cudavision::DeviceDescription & dev, std::string path)
{
  if (path.empty ()) {
    gchar *p = g_build_filename (g_get_user_cache_dir (), "cudavision",
        cudavision::tuning_file_name (dev).c_str (), nullptr);
    path = p;
    g_free (p);
  }
  return path;
}

static std::shared_ptr<const cudavision::TuningTable>
load_tuning_table (GstCvBaseFilter * self, const cudavision::DeviceDescription & dev, std::string path)
{
  path = tuning_table_path (dev, path);
  auto table = std::make_shared<cudavision::TuningTable> ();
  std::string error;
  bool missing = false;
  /* missing is told apart from unreadable by the reader itself (a symlink
   * loop is not "no table") */
  const bool loaded = table->load (path, &error, &missing);
  if (!loaded && missing) {
    GST_INFO_OBJECT (self, "no tuning table at %s: every launch uses the model", path.c_str ());
  } else if (!loaded) {
    GST_ELEMENT_WARNING (self, RESOURCE, READ, ("Could not read the tuning table %s", path.c_str ()),
        ("%s; falling back to the model", error.c_str ()));
    table = std::make_shared<cudavision::TuningTable> ();
  } else {
    GST_INFO_OBJECT (self, "tuning table %s: %zu entries", path.c_str (), table->size ());
  }
  return table;
}

/* ---- block-sizing=auto (cuda/auto_tuner.h) ---- */

static void
start_auto_tuning (GstCvBaseFilter * self, cudavision::BlockSizing mode, const cudavision::DeviceDescription & dev,
    const std::string & table_property, cudaStream_t stream)
{
  CvFilterPriv *p = priv (self);
  p->auto_tuner.reset ();
  p->table_path = tuning_table_path (dev, table_property);
  if (mode != cudavision::BlockSizing::Auto)
    return;
  p->auto_tuner = std::make_shared<cudavision::AutoTuner> (std::make_unique<cudavision::CudaEventTimer> (stream));
  if (gst_debug_category_get_threshold (gst_cv_launch_debug) >= GST_LEVEL_DEBUG)
    p->auto_tuner->set_logger ([self] (int level, const std::string & msg) { log_launch (self, level, msg); });
  p->policy->set_auto_tuner (p->auto_tuner);
}

/* save-tuning=true: what auto mode settled on is merged into the table file
 * (entries it re-measured replaced), written atomically. */
static void
save_learned_tuning (GstCvBaseFilter * self)
{
  CvFilterPriv *p = priv (self);
  GST_OBJECT_LOCK (self);
  const bool save = p->save_tuning;
  GST_OBJECT_UNLOCK (self);
  if (!save || !p->auto_tuner || !p->policy)
    return;
  const cudavision::DeviceDescription & dev = p->policy->device ();
  cudavision::TuningTable table;
  std::string error;
  bool missing = false;
  /* a missing table is made; one that cannot be read (not a regular
   * file, a symlink loop, too large) is not replaced */
  if (!table.load (p->table_path, &error, &missing) && !missing) {
    GST_ELEMENT_WARNING (self, RESOURCE, WRITE, ("Not saving the learned block sizes"),
        ("%s; the file is left as it is", error.c_str ()));
    return;
  }
  size_t n = 0;
  for (const cudavision::AutoResult & r : p->auto_tuner->results ()) {
    if (r.samples == 0)  /* one candidate only: nothing was measured */
      continue;
    table.put ({ dev.name, dev.cc_major, dev.cc_minor, dev.sm_count, r.kernel, r.width, r.height },
        { r.block, r.median_us, dev.driver_version });
    n++;
  }
  if (n == 0) {
    GST_INFO_OBJECT (self, "auto mode settled nothing: %s left as it is", p->table_path.c_str ());
  } else if (!table.save (p->table_path, &error)) {
    GST_ELEMENT_WARNING (self, RESOURCE, WRITE, ("Could not save the learned block sizes"), ("%s", error.c_str ()));
  } else {
    GST_INFO_OBJECT (self, "saved %zu learned block sizes to %s", n, p->table_path.c_str ());
  }
}

static void
stop_auto_tuning (GstCvBaseFilter * self)
{
  CvFilterPriv *p = priv (self);
  save_learned_tuning (self);
  /* The tuner's events are destroyed here, with the context current. */
  if (p->policy)
    p->policy->set_auto_tuner (nullptr);
  p->auto_tuner.reset ();
}

static bool
start_gpu (GstCvBaseFilter * self, gint device_id)
{
  CvFilterPriv *p = priv (self);
  if (!gst_cuda_ensure_element_context (GST_ELEMENT (self), device_id, &p->context)) {
    GST_INFO_OBJECT (self, "no CUDA context for device %d", device_id);
    return false;
  }
  GstCvContextGuard guard (p->context);
  cudavision::DeviceDescription dev;
  auto stream = std::make_unique<cudavision::Stream> ();
  cudavision::CudaStatus s = guard.ok () ? stream->create () : cudavision::CudaStatus { cudaErrorInvalidResourceHandle, "push" };
  if (s.ok ())
    s = cudavision::query_current_device (&dev);
  if (!s.ok ()) {
    GST_WARNING_OBJECT (self, "CUDA device unusable: %s", s.message ().c_str ());
    cudaGetLastError ();
    return false;
  }

  GST_OBJECT_LOCK (self);
  const auto mode = (cudavision::BlockSizing) p->sizing;
  const auto user = p->user_block;
  const std::string table_path = p->tuning_table;
  GST_OBJECT_UNLOCK (self);

  const bool uses_table = mode == cudavision::BlockSizing::EmpiricalTable || mode == cudavision::BlockSizing::Auto;
  auto table = uses_table ? load_tuning_table (self, dev, table_path) : nullptr;
  p->policy = std::make_unique<cudavision::LaunchPolicy> (dev, mode, user, table);
  /* Only format log lines when someone will read them. */
  if (gst_debug_category_get_threshold (gst_cv_launch_debug) >= GST_LEVEL_DEBUG)
    p->policy->set_logger ([self] (int level, const std::string & msg) { log_launch (self, level, msg); });
  start_auto_tuning (self, mode, dev, table_path, stream->get ());
  p->stream = std::move (stream);
  GST_INFO_OBJECT (self, "running on %s (CC %d.%d, %d SMs), block-sizing=%s", dev.name.c_str (), dev.cc_major,
      dev.cc_minor, dev.sm_count, cudavision::block_sizing_name (mode));
  return true;
}

/* The launch properties choose and tune CUDA launches: on the CPU backend
 * they do nothing. Those that were set, e.g. "block-sizing=auto
 * save-tuning=true", and how many. */
static std::string
gpu_only_settings (GstCvBaseFilter * self, guint * n)
{
  CvFilterPriv *p = priv (self);
  GST_OBJECT_LOCK (self);
  const GstCvBlockSizing sizing = p->sizing;
  const std::string block_size = p->block_size, table = p->tuning_table;
  const bool save = p->save_tuning;
  GST_OBJECT_UNLOCK (self);

  std::string set;
  *n = 0;
  auto add = [&set, n] (const std::string & s) {
    set += ((*n)++ ? " " : "") + s;
  };
  if (sizing != DEFAULT_BLOCK_SIZING) {
    GEnumClass *e = (GEnumClass *) g_type_class_ref (GST_TYPE_CV_BLOCK_SIZING);
    GEnumValue *v = g_enum_get_value (e, sizing);
    add (std::string ("block-sizing=") + (v ? v->value_nick : "?"));
    g_type_class_unref (e);
  }
  if (!block_size.empty ())
    add ("block-size=" + block_size);
  if (!table.empty ())
    add ("tuning-table=" + table);
  if (save)
    add ("save-tuning=true");
  return set;
}

#define GPU_ONLY_SETTINGS_DETAIL \
  "block-sizing, block-size, tuning-table and save-tuning choose and tune CUDA launches; OpenCV runs on the CPU"

/* backend=auto without a usable GPU: one bus warning per element, which
 * also names the launch properties that were set (they do nothing now),
 * and the pipeline's one line on stderr. */
static void
warn_cpu_fallback (GstCvBaseFilter * self, bool no_such_device, gint device_id, int n_devices)
{
  const gchar *why = no_such_device ? "CUDA device %d does not exist" : "No usable CUDA device";
  gchar *reason = g_strdup_printf (why, device_id);
  guint n = 0;
  const std::string set = gpu_only_settings (self, &n);
  const std::string unused = n ? "; " + set + (n == 1 ? " does" : " do") + " nothing there" : "";
  GST_ELEMENT_WARNING (self, RESOURCE, NOT_FOUND,
      ("%s: %s runs on the CPU backend (OpenCV)%s", reason, GST_ELEMENT_NAME (self), unused.c_str ()),
      ("device-id=%d, %d CUDA device%s; set backend=cpu to choose the CPU explicitly%s", device_id, n_devices,
          n_devices == 1 ? "" : "s", n ? "; " GPU_ONLY_SETTINGS_DETAIL : ""));
  gst_cv_announce_cpu_fallback (GST_ELEMENT (self), reason);
  g_free (reason);
}

/* backend=cpu with launch properties set: one warning that lists them. */
static void
warn_gpu_only_settings (GstCvBaseFilter * self)
{
  guint n = 0;
  const std::string set = gpu_only_settings (self, &n);
  if (n == 0)
    return;
  GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
      ("%s %s nothing on the CPU backend, where %s runs (%s)", set.c_str (), n == 1 ? "does" : "do",
          GST_ELEMENT_NAME (self), cpu_backend_reason (self)),
      (GPU_ONLY_SETTINGS_DETAIL));
}

static gboolean
gst_cv_base_filter_start (GstBaseTransform * trans)
{
  GstCvBaseFilter *self = GST_CV_BASE_FILTER (trans);
  CvFilterPriv *p = priv (self);

  GST_OBJECT_LOCK (self);
  const GstCvBackend backend = p->backend;
  const gint device_id = p->device_id;
  p->hold_frames = p->latency_frames;
  GST_OBJECT_UNLOCK (self);

  bool gpu = false;
  const int n_devices = gst_cv_cuda_available () ? cudavision::cuda_device_count () : 0;
  /* A device that does not exist is a configuration mistake, not a missing
   * GPU: say which devices there are. */
  const bool no_such_device = n_devices > 0 && device_id >= n_devices;
  if (backend != GST_CV_BACKEND_CPU && n_devices > 0 && !no_such_device)
    gpu = start_gpu (self, device_id);

  if (!gpu && backend == GST_CV_BACKEND_CUDA) {
    if (no_such_device)
      GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("CUDA device %d does not exist", device_id),
          ("device-id=%d, but this machine has %d CUDA device%s (0 to %d); "
           "device-id=-1 takes any (or the shared context's)",
              device_id, n_devices, n_devices == 1 ? "" : "s", n_devices - 1));
    else
      GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("No usable CUDA device, and backend=cuda was requested"),
          ("device-id=%d: no NVIDIA driver, no device, or the context could not be created; "
           "use backend=auto or backend=cpu to run on the CPU",
              device_id));
    gst_clear_object (&p->context);
    return FALSE;
  }
  if (!gpu) {
    gst_clear_object (&p->context);
    if (backend == GST_CV_BACKEND_AUTO)
      warn_cpu_fallback (self, no_such_device, device_id, n_devices);
    else
      warn_gpu_only_settings (self);
  }

  p->told_needs_gpu = false;
  GST_OBJECT_LOCK (self);
  p->on_gpu = gpu;
  p->started = true;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static gboolean
gst_cv_base_filter_stop (GstBaseTransform * trans)
{
  GstCvBaseFilter *self = GST_CV_BASE_FILTER (trans);
  GstCvBaseFilterClass *klass = GST_CV_BASE_FILTER_GET_CLASS (self);
  CvFilterPriv *p = priv (self);

  /* a frame still held (no EOS came): its results are read and dropped */
  drain_held (self, false);
  for (GstBufferPool ** pool : { &p->upload_pool, &p->download_pool }) {
    if (*pool) {
      gst_buffer_pool_set_active (*pool, FALSE);
      gst_clear_object (pool);
    }
  }
  if (p->context) {
    GstCvContextGuard guard (p->context);
    if (klass->release_device)
      klass->release_device (self);
    stop_auto_tuning (self);
    p->stream.reset ();
  }
  p->policy.reset ();
  gst_clear_object (&p->context);
  GST_OBJECT_LOCK (self);
  p->on_gpu = false;
  p->started = false;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

/* ---------------------------------------------------- context sharing */

static void
gst_cv_base_filter_set_context (GstElement * element, GstContext * context)
{
  GstCvBaseFilter *self = GST_CV_BASE_FILTER (element);
  CvFilterPriv *p = priv (self);
  if (gst_cv_cuda_available ())
    gst_cuda_handle_set_context (element, context, p->device_id, &p->context);
  GST_ELEMENT_CLASS (gst_cv_base_filter_parent_class)->set_context (element, context);
}

/* Device memory first, then libgstcuda's, then the rest; stable. */
static GstCaps *
device_caps_first (GstCaps * caps)
{
  GstCaps *ordered = gst_caps_new_empty ();
  for (const GstCvMemoryKind kind : { GST_CV_MEMORY_DEVICE, GST_CV_MEMORY_CUDA_MEMORY, GST_CV_MEMORY_SYSTEM }) {
    for (guint i = 0; i < gst_caps_get_size (caps); i++) {
      GstCapsFeatures *f = gst_caps_get_features (caps, i);
      const GstCvMemoryKind k = f && gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_CUDAVISION)
          ? GST_CV_MEMORY_DEVICE
          : f && gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY) ? GST_CV_MEMORY_CUDA_MEMORY
                                                                                    : GST_CV_MEMORY_SYSTEM;
      if (k == kind)
        gst_caps_append_structure_full (ordered, gst_structure_copy (gst_caps_get_structure (caps, i)),
            f ? gst_caps_features_copy (f) : nullptr);
    }
  }
  return ordered;
}

/* A neighbour asks for the CUDA context: the GstContext this element was
 * given (by the application, a bin or a neighbour) when it carries our
 * GstCudaContext, else a new one (gst_cuda_handle_context_query). The
 * asker keeps what it gets in its element contexts until it is disposed:
 * a new GstContext for every start would pile up one per element and
 * start/stop cycle until then (the leaks tracer counts them). */
static gboolean
answer_context_query (GstCvBaseFilter * self, GstQuery * query)
{
  CvFilterPriv *p = priv (self);
  const gchar *type = nullptr;
  if (!p->context || !gst_query_parse_context_type (query, &type) || g_strcmp0 (type, GST_CUDA_CONTEXT_TYPE) != 0)
    return FALSE;
  GstContext *held = gst_element_get_context (GST_ELEMENT (self), GST_CUDA_CONTEXT_TYPE);
  if (held) {
    GstCudaContext *cuda = nullptr;
    gst_structure_get (gst_context_get_structure (held), GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT, &cuda, nullptr);
    const bool ours = cuda == p->context;
    gst_clear_object (&cuda);
    if (ours) {
      gst_query_set_context (query, held);
      gst_context_unref (held);
      return TRUE;
    }
    gst_context_unref (held);
  }
  return gst_cuda_handle_context_query (GST_ELEMENT (self), query, p->context);
}

static gboolean
gst_cv_base_filter_query (GstBaseTransform * trans, GstPadDirection direction, GstQuery * query)
{
  CvFilterPriv *p = priv (GST_CV_BASE_FILTER (trans));
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT && answer_context_query (GST_CV_BASE_FILTER (trans), query))
    return TRUE;
  if (direction == GST_PAD_SINK && GST_QUERY_TYPE (query) == GST_QUERY_DRAIN)
    drain_held (GST_CV_BASE_FILTER (trans), true);
  gboolean ret = GST_BASE_TRANSFORM_CLASS (gst_cv_base_filter_parent_class)->query (trans, direction, query);
  /* latency-frames=1: a frame leaves one frame duration later (unknown
   * for variable frame rates, where nothing can be added). */
  if (ret && direction == GST_PAD_SRC && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY &&
      gst_cv_base_filter_holds_results (GST_CV_BASE_FILTER (trans)) && p->in_info.fps_n > 0) {
    gboolean live = FALSE;
    GstClockTime min = 0, max = GST_CLOCK_TIME_NONE;
    gst_query_parse_latency (query, &live, &min, &max);
    const GstClockTime frame = gst_util_uint64_scale_int (GST_SECOND, p->in_info.fps_d, p->in_info.fps_n);
    gst_query_set_latency (query, live, min + frame, GST_CLOCK_TIME_IS_VALID (max) ? max + frame : max);
  }
  /* Nothing upstream could send: on the CPU backend, device memory
   * downstream may be why, and the source will say only not-negotiated. */
  if (ret && direction == GST_PAD_SINK && GST_QUERY_TYPE (query) == GST_QUERY_CAPS) {
    GstCaps *caps = nullptr, *filter = nullptr;
    gst_query_parse_caps_result (query, &caps);
    if (caps && gst_caps_is_empty (caps) && should_explain_negotiation (GST_CV_BASE_FILTER (trans))) {
      gst_query_parse_caps (query, &filter);
      explain_empty_caps_answer (GST_CV_BASE_FILTER (trans), filter);
    }
  }
  /* GstBaseTransform puts the downstream peer's untransformed caps first (it
   * favours passthrough). With a system-memory element at the end of a
   * chain, that would put system memory first at every link upstream, and
   * each of our elements would download and upload. Device memory first
   * keeps frames on the GPU between our elements; the edge still gets
   * system memory. */
  if (ret && GST_QUERY_TYPE (query) == GST_QUERY_CAPS) {
    GstCaps *caps = nullptr;
    gst_query_parse_caps_result (query, &caps);
    if (caps && !gst_caps_is_any (caps) && gst_caps_get_size (caps) > 1) {
      GstCaps *ordered = device_caps_first (caps);
      gst_query_set_caps_result (query, ordered);
      gst_caps_unref (ordered);
    }
  }
  return ret;
}

/* ----------------------------------------------------------- properties */

static void
gst_cv_base_filter_set_property (GObject * object, guint prop_id, const GValue * value, GParamSpec * pspec)
{
  GstCvBaseFilter *self = GST_CV_BASE_FILTER (object);
  CvFilterPriv *p = priv (self);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_DEVICE_ID:
      p->device_id = g_value_get_int (value);
      break;
    case PROP_BACKEND:
      p->backend = (GstCvBackend) g_value_get_enum (value);
      break;
    case PROP_BLOCK_SIZING:
      p->sizing = (GstCvBlockSizing) g_value_get_enum (value);
      break;
    case PROP_BLOCK_SIZE: {
      const gchar *s = g_value_get_string (value);
      cudavision::BlockShape shape;
      if (!s || !*s) {
        p->block_size.clear ();
        p->user_block = {};
      } else if (cudavision::BlockShape::parse (s, &shape)) {
        p->block_size = s;
        p->user_block = shape;
      } else {
        g_warning ("%s: invalid block-size '%s': expected WIDTHxHEIGHT (e.g. 32x8) or a thread count, "
                   "at most 1024 threads; keeping '%s'",
            GST_OBJECT_NAME (self), s, p->block_size.c_str ());
      }
      break;
    }
    case PROP_TUNING_TABLE: {
      const gchar *s = g_value_get_string (value);
      p->tuning_table = s ? s : "";
      break;
    }
    case PROP_SAVE_TUNING:
      p->save_tuning = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cv_base_filter_get_property (GObject * object, guint prop_id, GValue * value, GParamSpec * pspec)
{
  GstCvBaseFilter *self = GST_CV_BASE_FILTER (object);
  CvFilterPriv *p = priv (self);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_DEVICE_ID:
      g_value_set_int (value, p->device_id);
      break;
    case PROP_BACKEND:
      g_value_set_enum (value, p->backend);
      break;
    case PROP_BLOCK_SIZING:
      g_value_set_enum (value, p->sizing);
      break;
    case PROP_BLOCK_SIZE:
      g_value_set_string (value, p->block_size.empty () ? nullptr : p->block_size.c_str ());
      break;
    case PROP_TUNING_TABLE:
      g_value_set_string (value, p->tuning_table.empty () ? nullptr : p->tuning_table.c_str ());
      break;
    case PROP_SAVE_TUNING:
      g_value_set_boolean (value, p->save_tuning);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cv_base_filter_finalize (GObject * object)
{
  GstCvBaseFilter *self = GST_CV_BASE_FILTER (object);
  CvFilterPriv *p = priv (self);
  gst_clear_object (&p->context);
  delete p;
  G_OBJECT_CLASS (gst_cv_base_filter_parent_class)->finalize (object);
}

/* Each run starts with no error said. */
static GstStateChangeReturn
gst_cv_base_filter_change_state (GstElement * element, GstStateChange transition)
{
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
    priv (GST_CV_BASE_FILTER (element))->posted_errors.clear ();
  return GST_ELEMENT_CLASS (gst_cv_base_filter_parent_class)->change_state (element, transition);
}

/* An error this element already posted in this run is not posted again:
 * negotiation asks again after a refusal (a reconfigure, the next
 * buffer), and each check that refused posts its error each time. */
static gboolean
gst_cv_base_filter_post_message (GstElement * element, GstMessage * message)
{
  if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR && GST_MESSAGE_SRC (message) == GST_OBJECT (element) &&
      !priv (GST_CV_BASE_FILTER (element))->posted_errors.first (message)) {
    GST_DEBUG_OBJECT (element, "not posting the same error again");
    gst_message_unref (message);
    return FALSE;
  }
  return GST_ELEMENT_CLASS (gst_cv_base_filter_parent_class)->post_message (element, message);
}

static void
gst_cv_base_filter_class_init (GstCvBaseFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_cv_base_filter_set_property;
  gobject_class->get_property = gst_cv_base_filter_get_property;
  gobject_class->finalize = gst_cv_base_filter_finalize;

  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("device-id", "Device ID", "CUDA device to use (-1 = any, or the shared context's)", -1,
          G_MAXINT16, DEFAULT_DEVICE_ID, GST_CV_PARAM_RW_READY));
  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend", "Where frames are processed", GST_TYPE_CV_BACKEND,
          DEFAULT_BACKEND, GST_CV_PARAM_RW_READY));
  g_object_class_install_property (gobject_class, PROP_BLOCK_SIZING,
      g_param_spec_enum ("block-sizing", "Block sizing", "How CUDA block sizes are chosen",
          GST_TYPE_CV_BLOCK_SIZING, DEFAULT_BLOCK_SIZING, GST_CV_PARAM_RW_READY));
  g_object_class_install_property (gobject_class, PROP_BLOCK_SIZE,
      g_param_spec_string ("block-size", "Block size",
          "Block shape for block-sizing=static, e.g. 32x8 or 256 (NULL = each kernel's default)", nullptr,
          GST_CV_PARAM_RW_READY));
  g_object_class_install_property (gobject_class, PROP_TUNING_TABLE,
      g_param_spec_string ("tuning-table", "Tuning table",
          "Table file for block-sizing=empirical-table and auto (NULL = $XDG_CACHE_HOME/cudavision/<gpu>.tsv)", nullptr,
          GST_CV_PARAM_RW_READY));
  g_object_class_install_property (gobject_class, PROP_SAVE_TUNING,
      g_param_spec_boolean ("save-tuning", "Save tuning",
          "block-sizing=auto: at stop, write the shapes it settled on into tuning-table (merged with its entries)",
          FALSE, GST_CV_PARAM_RW_READY));

  element_class->set_context = gst_cv_base_filter_set_context;
  element_class->change_state = gst_cv_base_filter_change_state;
  element_class->post_message = gst_cv_base_filter_post_message;

  trans_class->start = gst_cv_base_filter_start;
  trans_class->stop = gst_cv_base_filter_stop;
  trans_class->transform_caps = gst_cv_base_filter_transform_caps;
  trans_class->set_caps = gst_cv_base_filter_set_caps;
  trans_class->fixate_caps = gst_cv_base_filter_fixate_caps;
  trans_class->propose_allocation = gst_cv_base_filter_propose_allocation;
  trans_class->decide_allocation = gst_cv_base_filter_decide_allocation;
  trans_class->prepare_output_buffer = gst_cv_base_filter_prepare_output_buffer;
  trans_class->transform = gst_cv_base_filter_transform;
  trans_class->query = gst_cv_base_filter_query;
  trans_class->generate_output = gst_cv_base_filter_generate_output;
  trans_class->sink_event = gst_cv_base_filter_sink_event;
  trans_class->transform_meta = gst_cv_base_filter_transform_meta;
  trans_class->passthrough_on_same_caps = FALSE;

  GST_DEBUG_CATEGORY_INIT (gst_cv_base_filter_debug, "cudavision-base", 0, "cudavision base filter");
  GST_DEBUG_CATEGORY_INIT (gst_cv_launch_debug, "cudavision-launch", 0, "cudavision launch policy choices");

  gst_type_mark_as_plugin_api (GST_TYPE_CV_BASE_FILTER, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CV_BACKEND, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CV_BLOCK_SIZING, (GstPluginAPIFlags) 0);
}

static void
gst_cv_base_filter_init (GstCvBaseFilter * self)
{
  ((GstCvBaseFilterPrivate *) gst_cv_base_filter_get_instance_private (self))->p = new CvFilterPriv ();
}

/* ------------------------------------------------------------ accessors */

gboolean
gst_cv_base_filter_on_gpu (GstCvBaseFilter * self)
{
  return priv (self)->on_gpu;
}

cudaStream_t
gst_cv_base_filter_stream (GstCvBaseFilter * self)
{
  CvFilterPriv *p = priv (self);
  return p->stream ? p->stream->get () : nullptr;
}

GstCudaContext *
gst_cv_base_filter_context (GstCvBaseFilter * self)
{
  return priv (self)->context;
}

const cudavision::LaunchPolicy &
gst_cv_base_filter_policy (GstCvBaseFilter * self)
{
  return *priv (self)->policy;
}

const GstVideoInfo *
gst_cv_base_filter_in_info (GstCvBaseFilter * self)
{
  return &priv (self)->in_info;
}

const GstVideoInfo *
gst_cv_base_filter_out_info (GstCvBaseFilter * self)
{
  return &priv (self)->out_info;
}
