/* cudavision — what an element tells the user about the backend it could
 * not have (see gstcvfallback.h). */
#include "gstcvfallback.h"

#include "gstcvnotices.h"

/* The base class's category: these are its messages. */
GST_DEBUG_CATEGORY_EXTERN (gst_cv_base_filter_debug);
#define GST_CAT_DEFAULT gst_cv_base_filter_debug

#define GPU_ONLY_SETTINGS_DETAIL \
  "block-sizing, block-size, tuning-table and save-tuning choose and tune CUDA launches; OpenCV runs on the CPU"

const gchar *
gst_cv_cpu_backend_reason (GstElement * element)
{
  GstCvBackend backend = GST_CV_BACKEND_AUTO;
  g_object_get (element, "backend", &backend, nullptr);
  return backend == GST_CV_BACKEND_CPU ? "backend=cpu" : "no usable CUDA device";
}

static void
post_no_device (GstElement * element, bool no_such_device, gint device_id, int n_devices)
{
  if (no_such_device)
    GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND, ("CUDA device %d does not exist", device_id),
        ("device-id=%d, but this machine has %d CUDA device%s (0 to %d); "
         "device-id=-1 takes any (or the shared context's)",
            device_id, n_devices, n_devices == 1 ? "" : "s", n_devices - 1));
  else
    GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND, ("No usable CUDA device, and backend=cuda was requested"),
        ("device-id=%d: no NVIDIA driver, no device, or the context could not be created; "
         "use backend=auto or backend=cpu to run on the CPU",
            device_id));
}

/* backend=auto without a usable GPU. */
static void
warn_cpu_fallback (GstElement * element, const GstCvLaunchSettings & launch, bool no_such_device,
    gint device_id, int n_devices)
{
  const gchar *why = no_such_device ? "CUDA device %d does not exist" : "No usable CUDA device";
  gchar *reason = g_strdup_printf (why, device_id);
  guint n = 0;
  const std::string set = launch.describe_set (&n);
  const std::string unused = n ? "; " + set + (n == 1 ? " does" : " do") + " nothing there" : "";
  GST_ELEMENT_WARNING (element, RESOURCE, NOT_FOUND,
      ("%s: %s runs on the CPU backend (OpenCV)%s", reason, GST_ELEMENT_NAME (element), unused.c_str ()),
      ("device-id=%d, %d CUDA device%s; set backend=cpu to choose the CPU explicitly%s", device_id, n_devices,
          n_devices == 1 ? "" : "s", n ? "; " GPU_ONLY_SETTINGS_DETAIL : ""));
  gst_cv_announce_cpu_fallback (element, reason);
  g_free (reason);
}

/* backend=cpu with launch properties set. */
static void
warn_gpu_only_settings (GstElement * element, const GstCvLaunchSettings & launch)
{
  guint n = 0;
  const std::string set = launch.describe_set (&n);
  if (n == 0)
    return;
  GST_ELEMENT_WARNING (element, LIBRARY, SETTINGS,
      ("%s %s nothing on the CPU backend, where %s runs (%s)", set.c_str (), n == 1 ? "does" : "do",
          GST_ELEMENT_NAME (element), gst_cv_cpu_backend_reason (element)),
      (GPU_ONLY_SETTINGS_DETAIL));
}

bool
gst_cv_fallback_start_on_cpu (GstElement * element, GstCvBackend backend, const GstCvLaunchSettings & launch,
    bool no_such_device, gint device_id, int n_devices)
{
  if (backend == GST_CV_BACKEND_CUDA) {
    post_no_device (element, no_such_device, device_id, n_devices);
    return false;
  }
  if (backend == GST_CV_BACKEND_AUTO)
    warn_cpu_fallback (element, launch, no_such_device, device_id, n_devices);
  else
    warn_gpu_only_settings (element, launch);
  return true;
}

void
GstCvDeviceMemoryNotice::post (GstCvBaseFilter * self, GstCvMemoryKind kind, bool input)
{
  if (told_.exchange (true))
    return;
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
      ("%s in %s needs the GPU backend, and %s runs on the CPU (%s)", input ? "Input" : "Output",
          gst_cv_memory_kind_name (kind), GST_ELEMENT_NAME (self), gst_cv_cpu_backend_reason (GST_ELEMENT (self))),
      ("device frames are made and read on a CUDA device only: use backend=auto or backend=cuda on a machine "
       "with a usable NVIDIA GPU, or %s system memory (video/x-raw)",
          input ? "give the element" : "let downstream take"));
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
    GstCaps *all = gst_cv_caps_without_features (sink_templ);
    GstCaps *given = gst_cv_caps_without_features (offered);
    GstCaps *plain = gst_caps_intersect (given, all);
    GstCaps *mapped = klass->transform_video_caps ? klass->transform_video_caps (self, GST_PAD_SINK, plain) : plain;
    for (const GstCvMemoryKind kind : { GST_CV_MEMORY_DEVICE, GST_CV_MEMORY_CUDA_MEMORY }) {
      GstCaps *ours = gst_caps_new_empty ();
      gst_cv_caps_append_with_feature (ours, mapped, gst_cv_memory_kind_name (kind));
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

/* Nothing upstream could send (`filter`: what the query offered): device
 * memory downstream may be why. */
void
GstCvDeviceMemoryNotice::explain_empty_caps_answer (GstCvBaseFilter * self, GstCaps * filter)
{
  GstCaps *offered =
      filter ? gst_caps_ref (filter) : gst_pad_get_pad_template_caps (GST_BASE_TRANSFORM_SINK_PAD (self));
  const GstCvMemoryKind kind = device_memory_downstream_wants (self, offered);
  if (kind != GST_CV_MEMORY_SYSTEM)
    post (self, kind, false);
  gst_caps_unref (offered);
}

void
GstCvDeviceMemoryNotice::explain_caps_query (GstCvBaseFilter * self, GstQuery * query)
{
  GstCaps *caps = nullptr, *filter = nullptr;
  gst_query_parse_caps_result (query, &caps);
  if (caps && gst_caps_is_empty (caps) && worth_explaining ()) {
    gst_query_parse_caps (query, &filter);
    explain_empty_caps_answer (self, filter);
  }
}

GstCaps *
GstCvDeviceMemoryNotice::keep_caps (GstEvent * event) const
{
  GstCaps *caps = nullptr;
  if (GST_EVENT_TYPE (event) != GST_EVENT_CAPS || !worth_explaining ())
    return nullptr;
  gst_event_parse_caps (event, &caps);
  return gst_caps_ref (caps);
}

void
GstCvDeviceMemoryNotice::explain_caps_event (GstCvBaseFilter * self, GstCaps * incaps, gboolean accepted)
{
  if (!incaps)
    return;
  if (!accepted) {
    GstCvMemoryKind kind = gst_cv_caps_memory_kind (incaps);
    if (kind != GST_CV_MEMORY_SYSTEM)
      post (self, kind, true);
    else if ((kind = device_memory_downstream_wants (self, incaps)) != GST_CV_MEMORY_SYSTEM)
      post (self, kind, false);
  }
  gst_caps_unref (incaps);
}
