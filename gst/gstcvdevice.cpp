/* cudavision — the CUDA device an element runs on (see gstcvdevice.h). */
#include "gstcvdevice.h"

#include <gst/cuda/gstcudautils.h>

#include "../cuda/common/device_info.h"

/* The base class's category: the device is its. */
GST_DEBUG_CATEGORY_EXTERN (gst_cv_base_filter_debug);
#define GST_CAT_DEFAULT gst_cv_base_filter_debug

bool
gst_cv_device_start (GstElement * element, gint device_id, const GstCvLaunchSettings & launch,
    GstCudaContext ** context, std::unique_ptr<cudavision::Stream> * stream_out, GstCvTuning & tuning)
{
  if (!gst_cuda_ensure_element_context (element, device_id, context)) {
    GST_INFO_OBJECT (element, "no CUDA context for device %d", device_id);
    return false;
  }
  GstCvContextGuard guard (*context);
  cudavision::DeviceDescription dev;
  auto stream = std::make_unique<cudavision::Stream> ();
  cudavision::CudaStatus s =
      guard.ok () ? stream->create () : cudavision::CudaStatus { cudaErrorInvalidResourceHandle, "push" };
  if (s.ok ())
    s = cudavision::query_current_device (&dev);
  if (!s.ok ()) {
    GST_WARNING_OBJECT (element, "CUDA device unusable: %s", s.message ().c_str ());
    cudaGetLastError ();
    return false;
  }

  tuning.start (element, dev, launch, stream->get ());
  *stream_out = std::move (stream);
  GST_INFO_OBJECT (element, "running on %s (CC %d.%d, %d SMs), block-sizing=%s", dev.name.c_str (), dev.cc_major,
      dev.cc_minor, dev.sm_count, cudavision::block_sizing_name ((cudavision::BlockSizing) launch.sizing));
  return true;
}

void
gst_cv_device_set_context (GstElement * element, GstContext * context, gint device_id, GstCudaContext ** cuda)
{
  if (gst_cv_cuda_available ())
    gst_cuda_handle_set_context (element, context, device_id, cuda);
}

/* The GstContext this element was given (by the application, a bin or a
 * neighbour) when it carries our GstCudaContext, else a new one
 * (gst_cuda_handle_context_query). The asker keeps what it gets in its
 * element contexts until it is disposed: a new GstContext for every start
 * would pile up one per element and start/stop cycle until then (the
 * leaks tracer counts them). */
gboolean
gst_cv_device_answer_context_query (GstElement * element, GstQuery * query, GstCudaContext * cuda_ctx)
{
  const gchar *type = nullptr;
  if (!cuda_ctx || !gst_query_parse_context_type (query, &type) || g_strcmp0 (type, GST_CUDA_CONTEXT_TYPE) != 0)
    return FALSE;
  GstContext *held = gst_element_get_context (element, GST_CUDA_CONTEXT_TYPE);
  if (held) {
    GstCudaContext *cuda = nullptr;
    gst_structure_get (gst_context_get_structure (held), GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT, &cuda, nullptr);
    const bool ours = cuda == cuda_ctx;
    gst_clear_object (&cuda);
    if (ours) {
      gst_query_set_context (query, held);
      gst_context_unref (held);
      return TRUE;
    }
    gst_context_unref (held);
  }
  return gst_cuda_handle_context_query (element, query, cuda_ctx);
}
