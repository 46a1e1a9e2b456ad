#include "gstcvcontext.h"

#include <gst/cuda/gstcudaloader.h>

#include "../cuda/common/device_info.h"

namespace {

class ContextPinnedMemory : public cudavision::PinnedHostMemory {
public:
  explicit ContextPinnedMemory (GstCudaContext * ctx) : ctx_ ((GstCudaContext *) gst_object_ref (ctx)) {}
  ~ContextPinnedMemory () override { gst_object_unref (ctx_); }
  ContextPinnedMemory (const ContextPinnedMemory &) = delete;
  ContextPinnedMemory & operator= (const ContextPinnedMemory &) = delete;

  cudavision::CudaStatus allocate (size_t bytes, void ** p) override
  {
    GstCvContextGuard guard (ctx_);
    if (!guard.ok ())
      return { cudaErrorInvalidResourceHandle, "gst_cuda_context_push" };
    return PinnedHostMemory::allocate (bytes, p);
  }
  void free (void * p) override
  {
    GstCvContextGuard guard (ctx_);
    if (guard.ok ())
      PinnedHostMemory::free (p);
    else
      GST_WARNING ("cannot push the CUDA context: host block %p leaks", p);
  }

private:
  GstCudaContext *ctx_;
};

}  // namespace

std::shared_ptr<cudavision::HostBlockMemory>
gst_cv_context_pinned_memory (GstCudaContext * ctx)
{
  if (!ctx)
    return nullptr;
  return std::make_shared<ContextPinnedMemory> (ctx);
}

gboolean
gst_cv_cuda_available (void)
{
  static gsize once = 0;
  static gboolean available = FALSE;
  if (g_once_init_enter (&once)) {
    /* Both the driver library (for GstCudaContext) and a device (for the
     * runtime) must be there. */
    available = gst_cuda_load_library () && cudavision::cuda_device_count () > 0;
    g_once_init_leave (&once, 1);
  }
  return available;
}
