/* cudavision — GstCvBaseFilter: the device, context, stream, backend and
 * properties of every cudavision element, and the GstBaseTransform
 * virtual methods that tie the base class's units together (see
 * gstcvbasefilter.h). */
#include "gstcvbasefilter.h"

#include "gstcvdevice.h"
#include "gstcvfallback.h"
#include "gstcvholdqueue.h"
#include "gstcvnotices.h"
#include "gstcvstaging.h"
#include "gstcvtuning.h"

#include "../cuda/common/device_info.h"

#include <memory>

/* Not static: the base class's units log their part of its work here. */
GST_DEBUG_CATEGORY (gst_cv_base_filter_debug);
#define GST_CAT_DEFAULT gst_cv_base_filter_debug

enum {
  PROP_0,
  PROP_DEVICE_ID,
  PROP_BACKEND,
  /* the launch properties (gstcvtuning.h), in GstCvLaunchProp's order */
  PROP_BLOCK_SIZING,
  PROP_BLOCK_SIZE,
  PROP_TUNING_TABLE,
  PROP_SAVE_TUNING,
};

#define DEFAULT_DEVICE_ID -1
#define DEFAULT_BACKEND GST_CV_BACKEND_AUTO

static GstFlowReturn finish_frame (GstCvBaseFilter * self, GstBuffer * inbuf, GstBuffer * outbuf);

/* Everything the element owns beyond GObject's zeroed struct. */
struct CvFilterPriv {
  /* properties, under the object lock */
  gint device_id = DEFAULT_DEVICE_ID;
  GstCvBackend backend = DEFAULT_BACKEND;
  GstCvLaunchSettings launch;  /* block-sizing, block-size, tuning-table, save-tuning */
  guint latency_frames = GST_CV_DEFAULT_LATENCY_FRAMES;  /* elements with finish_frame */

  /* running state */
  bool started = false;
  bool on_gpu = false;
  GstCudaContext *context = nullptr;
  std::unique_ptr<cudavision::Stream> stream;
  GstCvTuning tuning;  /* the launch policy, on the GPU */

  GstVideoInfo in_info;
  GstVideoInfo out_info;
  GstCvMemoryKind in_kind = GST_CV_MEMORY_SYSTEM;
  GstCvMemoryKind out_kind = GST_CV_MEMORY_SYSTEM;
  /* device frames for system-memory edges: upload into, download from */
  GstCvStaging staging;

  /* latency-frames=1 (see finish_frame): read at start; the frame held */
  guint hold_frames = 0;
  GstCvHoldQueue held { finish_frame };

  /* the error that device memory needs the GPU backend (once per start:
   * negotiation asks again and again) */
  GstCvDeviceMemoryNotice needs_gpu;
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

/* ------------------------------------------------------------------ caps */

static GstCaps *
gst_cv_base_filter_transform_caps (GstBaseTransform * trans, GstPadDirection direction, GstCaps * caps,
    GstCaps * filter)
{
  GstCvBaseFilter *self = GST_CV_BASE_FILTER (trans);
  GstCvBaseFilterClass *klass = GST_CV_BASE_FILTER_GET_CLASS (self);
  CvFilterPriv *p = priv (self);

  /* Formats map the same way whatever memory holds them. */
  GstCaps *plain = gst_cv_caps_without_features (caps);
  GstCaps *mapped = klass->transform_video_caps ? klass->transform_video_caps (self, direction, plain) : plain;

  GST_OBJECT_LOCK (self);
  const bool gpu_possible = p->backend != GST_CV_BACKEND_CPU && !(p->started && !p->on_gpu);
  GST_OBJECT_UNLOCK (self);

  GstCaps *result = gst_cv_caps_in_memories (mapped, direction, gpu_possible, p->context);
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

static gboolean
gst_cv_base_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps, GstCaps * outcaps)
{
  GstCvBaseFilter *self = GST_CV_BASE_FILTER (trans);
  GstCvBaseFilterClass *klass = GST_CV_BASE_FILTER_GET_CLASS (self);
  CvFilterPriv *p = priv (self);

  /* A held frame leaves with the caps it was made for (this also runs on
   * a downstream reconfigure, where no caps event passed sink_event). */
  p->held.drain (self, true);
  if (!gst_video_info_from_caps (&p->in_info, incaps) || !gst_video_info_from_caps (&p->out_info, outcaps)) {
    GST_ERROR_OBJECT (self, "invalid caps %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, incaps, outcaps);
    return FALSE;
  }
  p->in_kind = gst_cv_caps_memory_kind (incaps);
  p->out_kind = gst_cv_caps_memory_kind (outcaps);
  if (!p->on_gpu && (p->in_kind != GST_CV_MEMORY_SYSTEM || p->out_kind != GST_CV_MEMORY_SYSTEM)) {
    const bool input = p->in_kind != GST_CV_MEMORY_SYSTEM;
    p->needs_gpu.post (self, input ? p->in_kind : p->out_kind, input);
    return FALSE;
  }
  if (p->out_kind == GST_CV_MEMORY_CUDA_MEMORY &&
      !gst_cv_caps_check_cuda_memory_output (GST_ELEMENT (self), outcaps, p->context))
    return FALSE;
  /* New sizes: the staging frames are rebuilt on first use. */
  p->staging.reset ();
  GST_INFO_OBJECT (self, "%s %s -> %s %s on the %s", GST_VIDEO_INFO_NAME (&p->in_info),
      gst_cv_memory_kind_name (p->in_kind), GST_VIDEO_INFO_NAME (&p->out_info), gst_cv_memory_kind_name (p->out_kind),
      p->on_gpu ? "GPU" : "CPU");
  if (!p->on_gpu)
    gst_cv_launch_log_cpu_backend (GST_ELEMENT (self), &p->in_info);
  return klass->set_info ? klass->set_info (self, &p->in_info, &p->out_info) : TRUE;
}

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
    GstCaps *ordered = gst_cv_caps_device_first (othercaps);
    gst_caps_unref (othercaps);
    othercaps = ordered;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cv_base_filter_parent_class)->fixate_caps (trans, direction, caps, othercaps);
}

/* ------------------------------------------------------------ allocation */

static gboolean
gst_cv_base_filter_propose_allocation (GstBaseTransform * trans, GstQuery * decide_query, GstQuery * query)
{
  CvFilterPriv *p = priv (GST_CV_BASE_FILTER (trans));
  return gst_cv_propose_allocation (query, p->context, p->on_gpu);
}

static gboolean
gst_cv_base_filter_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  return gst_cv_decide_allocation (GST_ELEMENT (trans), query, priv (GST_CV_BASE_FILTER (trans))->context);
}

static GstFlowReturn
gst_cv_base_filter_prepare_output_buffer (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer ** outbuf)
{
  GstFlowReturn ret =
      GST_BASE_TRANSFORM_CLASS (gst_cv_base_filter_parent_class)->prepare_output_buffer (trans, inbuf, outbuf);
  if (ret == GST_FLOW_ERROR) {
    CvFilterPriv *p = priv (GST_CV_BASE_FILTER (trans));
    gst_cv_post_output_alloc_error (GST_ELEMENT (trans), &p->out_info, p->out_kind);
  }
  return ret;
}

/* Metas that only describe what the pixels show are kept; the parent
 * decides on the others (gst_cv_frame_meta_survives). */
static gboolean
gst_cv_base_filter_transform_meta (GstBaseTransform * trans, GstBuffer * outbuf, GstMeta * meta, GstBuffer * inbuf)
{
  return gst_cv_frame_meta_survives (meta) ||
      GST_BASE_TRANSFORM_CLASS (gst_cv_base_filter_parent_class)->transform_meta (trans, outbuf, meta, inbuf);
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

static GstFlowReturn
transform_cpu (GstCvBaseFilter * self, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstCvBaseFilterClass *klass = GST_CV_BASE_FILTER_GET_CLASS (self);
  CvFilterPriv *p = priv (self);
  GstCvHostInput in;
  if (!in.map (GST_ELEMENT (self), &p->in_info, inbuf))
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
  GstCvDeviceFrames f;
  GstFlowReturn ret = p->staging.map (self, inbuf, outbuf, p->in_kind, p->out_kind, f);
  if (ret != GST_FLOW_OK)
    return ret;

  ret = klass->process_gpu (self, inbuf, &f.in, &f.out);
  /* block-sizing=auto: the frame's last launch is timed up to here. */
  p->tuning.end_frame ();
  gst_cv_buffer_record (f.dev_in, s);
  gst_cv_buffer_record (f.dev_out, s);
  if (ret != GST_FLOW_OK || p->out_kind != GST_CV_MEMORY_SYSTEM)
    return ret;
  /* System-memory edge: one download, and the one host wait of the chain. */
  return p->staging.download (self, f, outbuf, *p->stream);
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

static GstFlowReturn
gst_cv_base_filter_transform (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstCvBaseFilter *self = GST_CV_BASE_FILTER (trans);
  CvFilterPriv *p = priv (self);
  /* Both frames, before either backend maps them: bottom-up input only in
   * system memory (no CUDA producer lays frames out so, and outputs are
   * ours or downstream's pool's). */
  const bool bottom_up_ok = p->in_kind == GST_CV_MEMORY_SYSTEM;
  if (!gst_cv_frame_check_layout (GST_ELEMENT (self), inbuf, &p->in_info, "input", bottom_up_ok) ||
      !gst_cv_frame_check_layout (GST_ELEMENT (self), outbuf, &p->out_info, "output", false))
    return GST_FLOW_ERROR;
  GstFlowReturn ret = p->on_gpu ? transform_gpu (self, inbuf, outbuf) : transform_cpu (self, inbuf, outbuf);
  if (ret != GST_FLOW_OK || p->held.holding_this ())
    return ret;
  if (GST_CV_BASE_FILTER_GET_CLASS (self)->finish_frame)
    ret = finish_frame (self, inbuf, outbuf);
  if (ret != GST_FLOW_OK || !p->on_gpu || p->out_kind != GST_CV_MEMORY_CUDA_MEMORY)
    return ret;
  return gst_cv_complete_cuda_memory_output (self, *p->stream);
}

/* ---------------------------------------------------- results held back */

/* latency-frames=1 holds a frame only where that saves a wait: on the GPU
 * with device memory on both pads, ours out (a system-memory edge waits
 * for its upload or download anyway, and an uploaded input's staging
 * frame is reused by the next frame; memory:CUDAMemory out waits for each
 * frame's work, gst_cv_complete_cuda_memory_output). */
gboolean
gst_cv_base_filter_holds_results (GstCvBaseFilter * self)
{
  CvFilterPriv *p = priv (self);
  return p->hold_frames > 0 && GST_CV_BASE_FILTER_GET_CLASS (self)->finish_frame && p->on_gpu &&
      p->in_kind != GST_CV_MEMORY_SYSTEM && p->out_kind == GST_CV_MEMORY_DEVICE;
}

/* A held frame goes out when the next one is queued (gstcvholdqueue.h). */
static GstFlowReturn
gst_cv_base_filter_generate_output (GstBaseTransform * trans, GstBuffer ** outbuf)
{
  GstCvBaseFilter *self = GST_CV_BASE_FILTER (trans);
  return priv (self)->held.generate_output (self, GST_BASE_TRANSFORM_CLASS (gst_cv_base_filter_parent_class),
      gst_cv_base_filter_holds_results (self), outbuf);
}

/* A serialized event follows the frames before it: the held one leaves
 * first. A flush drops it. */
static gboolean
gst_cv_base_filter_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCvBaseFilter *self = GST_CV_BASE_FILTER (trans);
  CvFilterPriv *p = priv (self);
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    p->held.drain (self, false);
  else if (GST_EVENT_IS_SERIALIZED (event))
    p->held.drain (self, true);
  /* caps the CPU backend may refuse for their memory: kept to say why */
  GstCaps *caps = p->needs_gpu.keep_caps (event);
  const gboolean ret = GST_BASE_TRANSFORM_CLASS (gst_cv_base_filter_parent_class)->sink_event (trans, event);
  p->needs_gpu.explain_caps_event (self, caps, ret);
  return ret;
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

/* --------------------------------------------------------- start / stop */

static gboolean
gst_cv_base_filter_start (GstBaseTransform * trans)
{
  GstCvBaseFilter *self = GST_CV_BASE_FILTER (trans);
  CvFilterPriv *p = priv (self);

  GST_OBJECT_LOCK (self);
  const GstCvBackend backend = p->backend;
  const gint device_id = p->device_id;
  const GstCvLaunchSettings launch = p->launch;
  p->hold_frames = p->latency_frames;
  GST_OBJECT_UNLOCK (self);

  bool gpu = false;
  const int n_devices = gst_cv_cuda_available () ? cudavision::cuda_device_count () : 0;
  /* A device that does not exist is a configuration mistake, not a missing
   * GPU: say which devices there are. */
  const bool no_such_device = n_devices > 0 && device_id >= n_devices;
  if (backend != GST_CV_BACKEND_CPU && n_devices > 0 && !no_such_device)
    gpu = gst_cv_device_start (GST_ELEMENT (self), device_id, launch, &p->context, &p->stream, p->tuning);

  if (!gpu) {
    gst_clear_object (&p->context);
    if (!gst_cv_fallback_start_on_cpu (GST_ELEMENT (self), backend, launch, no_such_device, device_id, n_devices))
      return FALSE;
  }

  p->needs_gpu.start (!gpu);
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
  p->held.drain (self, false);
  p->staging.reset ();
  if (p->context) {
    GstCvContextGuard guard (p->context);
    if (klass->release_device)
      klass->release_device (self);
    GST_OBJECT_LOCK (self);
    const bool save = p->launch.save_tuning;
    GST_OBJECT_UNLOCK (self);
    p->tuning.stop (GST_ELEMENT (self), save);
    p->stream.reset ();
  }
  gst_clear_object (&p->context);
  p->needs_gpu.stop ();
  GST_OBJECT_LOCK (self);
  p->on_gpu = false;
  p->started = false;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

/* ----------------------------------------------- context and queries */

static void
gst_cv_base_filter_set_context (GstElement * element, GstContext * context)
{
  CvFilterPriv *p = priv (GST_CV_BASE_FILTER (element));
  gst_cv_device_set_context (element, context, p->device_id, &p->context);
  GST_ELEMENT_CLASS (gst_cv_base_filter_parent_class)->set_context (element, context);
}

static gboolean
gst_cv_base_filter_query (GstBaseTransform * trans, GstPadDirection direction, GstQuery * query)
{
  CvFilterPriv *p = priv (GST_CV_BASE_FILTER (trans));
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT &&
      gst_cv_device_answer_context_query (GST_ELEMENT (trans), query, p->context))
    return TRUE;
  if (direction == GST_PAD_SINK && GST_QUERY_TYPE (query) == GST_QUERY_DRAIN)
    p->held.drain (GST_CV_BASE_FILTER (trans), true);
  gboolean ret = GST_BASE_TRANSFORM_CLASS (gst_cv_base_filter_parent_class)->query (trans, direction, query);
  /* latency-frames=1: a frame leaves one frame duration later. */
  if (ret && direction == GST_PAD_SRC && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY &&
      gst_cv_base_filter_holds_results (GST_CV_BASE_FILTER (trans)))
    GstCvHoldQueue::add_frame_latency (query, &p->in_info);
  /* Nothing upstream could send: on the CPU backend, device memory
   * downstream may be why, and the source will say only not-negotiated. */
  if (ret && direction == GST_PAD_SINK && GST_QUERY_TYPE (query) == GST_QUERY_CAPS)
    p->needs_gpu.explain_caps_query (GST_CV_BASE_FILTER (trans), query);
  /* Device memory first keeps frames on the GPU between our elements. */
  if (ret && GST_QUERY_TYPE (query) == GST_QUERY_CAPS)
    gst_cv_caps_query_device_first (query);
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
    case PROP_BLOCK_SIZE:
    case PROP_TUNING_TABLE:
    case PROP_SAVE_TUNING:
      p->launch.set (GST_OBJECT (self), (GstCvLaunchProp) (prop_id - PROP_BLOCK_SIZING), value);
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
    case PROP_BLOCK_SIZE:
    case PROP_TUNING_TABLE:
    case PROP_SAVE_TUNING:
      p->launch.get ((GstCvLaunchProp) (prop_id - PROP_BLOCK_SIZING), value);
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
  gst_cv_launch_install_properties (gobject_class, PROP_BLOCK_SIZING);

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
  return priv (self)->tuning.policy ();
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
