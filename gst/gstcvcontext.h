/* cudavision — the CUDA context shared with other elements.
 *
 * We use libgstcuda's GstCudaContext so that our elements and nvcodec's
 * (nvh264dec, cudaupload, cudadownload) share one context through
 * GStreamer's context mechanism. CUDA runtime calls made while that context
 * is pushed run in it. */
#pragma once

#ifndef GST_USE_UNSTABLE_API
#define GST_USE_UNSTABLE_API
#endif

#include <gst/gst.h>
#include <gst/cuda/gstcudacontext.h>

#include "../cuda/common/host_block_pool.h"

#include <memory>

/* TRUE when libcuda could be loaded: no gstcuda call that touches the
 * driver may be made otherwise (it asserts). Cached after the first call. */
gboolean gst_cv_cuda_available (void);

/* Pushes a context for the lifetime of the scope. */
class GstCvContextGuard {
public:
  explicit GstCvContextGuard (GstCudaContext * ctx)
      : pushed_ (ctx != nullptr && gst_cuda_context_push (ctx)) {}
  ~GstCvContextGuard () {
    if (pushed_)
      gst_cuda_context_pop (nullptr);
  }
  GstCvContextGuard (const GstCvContextGuard &) = delete;
  GstCvContextGuard & operator= (const GstCvContextGuard &) = delete;
  bool ok () const { return pushed_; }

private:
  bool pushed_;
};

/* Page-locked blocks in `ctx` (a HostBlockPool's memory): they are
 * allocated and freed with it pushed, whatever the thread (a meta holding
 * one is freed wherever the buffer dies), and it stays alive, through a
 * reference, as long as the memory does (the pool keeps it until its last
 * block is freed, the element perhaps long gone). */
std::shared_ptr<cudavision::HostBlockMemory> gst_cv_context_pinned_memory (GstCudaContext * ctx);
