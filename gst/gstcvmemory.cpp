/* cudavision — GstCvMemory: pitched device frames with a lazy host copy. */
#include "gstcvmemory.h"

#include "gstcvcontext.h"
#include "../cuda/common/cuda_raii.h"

#include <atomic>
#include <mutex>

GST_DEBUG_CATEGORY_STATIC (gst_cv_memory_debug);
#define GST_CAT_DEFAULT gst_cv_memory_debug

static std::atomic<guint64> cv_uploads { 0 };
static std::atomic<guint64> cv_downloads { 0 };

void
gst_cv_transfer_counts (guint64 * uploads, guint64 * downloads)
{
  if (uploads)
    *uploads = cv_uploads.load ();
  if (downloads)
    *downloads = cv_downloads.load ();
}

void
gst_cv_transfer_counts_reset (void)
{
  cv_uploads = 0;
  cv_downloads = 0;
}

void
gst_cv_count_upload (void)
{
  cv_uploads++;
}

void
gst_cv_count_download (void)
{
  cv_downloads++;
}

/* C++ state behind the C struct: GstMemory is allocated by us, so the
 * struct holds a pointer to this. */
struct CvMemoryState {
  std::mutex lock;
  cudavision::DeviceBuffer device;
  cudavision::PinnedBuffer host;
  cudavision::Event event;
  bool event_recorded = false;
  bool need_download = false;  /* device copy is newer than the host copy */
  bool need_upload = false;    /* host copy is newer than the device copy */
};

struct _GstCvMemory {
  GstMemory mem;
  GstCudaContext *context;
  GstVideoInfo layout;
  CvMemoryState *st;
};

struct _GstCvAllocator {
  GstAllocator parent;
  GstCudaContext *context;
};

G_DEFINE_TYPE (GstCvAllocator, gst_cv_allocator, GST_TYPE_ALLOCATOR);

gboolean
gst_cv_video_info_set_pitched (GstVideoInfo * info)
{
  GstVideoAlignment align;
  gst_video_alignment_reset (&align);
  for (guint i = 0; i < GST_VIDEO_MAX_PLANES; i++)
    align.stride_align[i] = cudavision::kPitchAlignment - 1;
  return gst_video_info_align (info, &align);
}

static bool
ensure_host (GstCvMemory * m)
{
  if (m->st->host.get ())
    return true;
  cudavision::CudaStatus s = m->st->host.allocate (m->layout.size);
  if (!s.ok ())
    GST_ERROR ("host staging for %" G_GSIZE_FORMAT " bytes: %s", m->layout.size, s.message ().c_str ());
  return s.ok ();
}

/* Both copies share the layout, so one linear copy moves every plane. */
static bool
copy_locked (GstCvMemory * m, bool to_device)
{
  void *dst = to_device ? m->st->device.get () : m->st->host.get ();
  const void *src = to_device ? m->st->host.get () : m->st->device.get ();
  cudaError_t e = cudaMemcpy (dst, src, m->layout.size, to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    GST_ERROR ("%s failed: %s", to_device ? "upload" : "download", cudaGetErrorString (e));
    return false;
  }
  if (to_device) {
    gst_cv_count_upload ();
    m->st->need_upload = false;
  } else {
    gst_cv_count_download ();
    m->st->need_download = false;
  }
  return true;
}

static bool
upload_locked (GstCvMemory * m)
{
  return copy_locked (m, true);
}

static bool
download_locked (GstCvMemory * m)
{
  if (m->st->event_recorded && cudaEventSynchronize (m->st->event.get ()) != cudaSuccess) {
    GST_ERROR ("waiting for device work failed: %s", cudaGetErrorString (cudaGetLastError ()));
    return false;
  }
  return copy_locked (m, false);
}

static gpointer
cv_mem_map_full (GstMemory * mem, GstMapInfo * info, gsize maxsize)
{
  GstCvMemory *m = (GstCvMemory *) mem;
  GstCvContextGuard guard (m->context);
  if (!guard.ok ()) {
    GST_ERROR ("cannot push CUDA context");
    return nullptr;
  }
  std::lock_guard<std::mutex> lk (m->st->lock);

  if (info->flags & GST_MAP_CV_DEVICE) {
    if (m->st->need_upload && !upload_locked (m))
      return nullptr;
    if (info->flags & GST_MAP_WRITE)
      m->st->need_download = true;
    return m->st->device.get ();
  }

  if (!ensure_host (m))
    return nullptr;
  if (m->st->need_download && !download_locked (m))
    return nullptr;
  if (info->flags & GST_MAP_WRITE)
    m->st->need_upload = true;
  return m->st->host.get ();
}

static void
cv_mem_unmap_full (GstMemory *, GstMapInfo *)
{
}

static GstMemory *
cv_mem_copy (GstMemory * mem, gssize offset, gssize size)
{
  GstCvMemory *src = (GstCvMemory *) mem;
  if (offset != 0 || (size != -1 && (gsize) size != mem->size)) {
    GST_WARNING ("partial copies of device frames are not supported");
    return nullptr;
  }
  GstMemory *copy = gst_cv_allocator_alloc (GST_CV_ALLOCATOR (mem->allocator), &src->layout);
  if (!copy)
    return nullptr;
  GstCvMemory *dst = (GstCvMemory *) copy;

  GstCvContextGuard guard (src->context);
  std::lock_guard<std::mutex> lk (src->st->lock);
  if (src->st->need_upload && !upload_locked (src)) {
    gst_memory_unref (copy);
    return nullptr;
  }
  if (src->st->event_recorded)
    cudaEventSynchronize (src->st->event.get ());
  /* A device-to-device cudaMemcpy returns before the copy is done, and the
   * elements' non-blocking streams do not wait for the legacy stream it
   * runs on: wait for it here (copies of device frames are rare). */
  if (cudaMemcpy (dst->st->device.get (), src->st->device.get (), src->layout.size,
          cudaMemcpyDeviceToDevice) != cudaSuccess || cudaStreamSynchronize (0) != cudaSuccess) {
    GST_ERROR ("device copy failed: %s", cudaGetErrorString (cudaGetLastError ()));
    gst_memory_unref (copy);
    return nullptr;
  }
  dst->st->need_download = true;
  return copy;
}

static GstMemory *
cv_mem_share (GstMemory *, gssize, gssize)
{
  return nullptr;
}

static GstMemory *
cv_allocator_dummy_alloc (GstAllocator *, gsize, GstAllocationParams *)
{
  g_critical ("GstCvAllocator needs a video info: use gst_cv_allocator_alloc()");
  return nullptr;
}

static void
cv_allocator_free (GstAllocator *, GstMemory * mem)
{
  GstCvMemory *m = (GstCvMemory *) mem;
  {
    GstCvContextGuard guard (m->context);
    if (m->st->event_recorded)
      cudaEventSynchronize (m->st->event.get ());
    delete m->st;  /* frees device, host and event inside the context */
  }
  gst_object_unref (m->context);
  g_free (m);
}

static void
gst_cv_allocator_finalize (GObject * object)
{
  GstCvAllocator *self = GST_CV_ALLOCATOR (object);
  gst_clear_object (&self->context);
  G_OBJECT_CLASS (gst_cv_allocator_parent_class)->finalize (object);
}

static void
gst_cv_allocator_class_init (GstCvAllocatorClass * klass)
{
  GST_ALLOCATOR_CLASS (klass)->alloc = cv_allocator_dummy_alloc;
  GST_ALLOCATOR_CLASS (klass)->free = cv_allocator_free;
  G_OBJECT_CLASS (klass)->finalize = gst_cv_allocator_finalize;
  GST_DEBUG_CATEGORY_INIT (gst_cv_memory_debug, "cudavision-memory", 0, "cudavision device memory");
}

static void
gst_cv_allocator_init (GstCvAllocator * self)
{
  GstAllocator *alloc = GST_ALLOCATOR (self);
  alloc->mem_type = GST_CV_MEMORY_TYPE_NAME;
  alloc->mem_map_full = cv_mem_map_full;
  alloc->mem_unmap_full = cv_mem_unmap_full;
  alloc->mem_copy = cv_mem_copy;
  alloc->mem_share = cv_mem_share;
  GST_OBJECT_FLAG_SET (self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

GstCvAllocator *
gst_cv_allocator_new (GstCudaContext * context)
{
  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), nullptr);
  GstCvAllocator *self = (GstCvAllocator *) g_object_new (GST_TYPE_CV_ALLOCATOR, nullptr);
  gst_object_ref_sink (self);
  self->context = (GstCudaContext *) gst_object_ref (context);
  return self;
}

GstCudaContext *
gst_cv_allocator_get_context (GstCvAllocator * allocator)
{
  return allocator->context;
}

GstMemory *
gst_cv_allocator_alloc (GstCvAllocator * allocator, const GstVideoInfo * info)
{
  GstVideoInfo layout = *info;
  if (!gst_cv_video_info_set_pitched (&layout)) {
    GST_ERROR_OBJECT (allocator, "cannot lay out %s %dx%d", gst_video_format_to_string (info->finfo->format),
        info->width, info->height);
    return nullptr;
  }

  auto *st = new CvMemoryState ();
  {
    GstCvContextGuard guard (allocator->context);
    cudavision::CudaStatus s = guard.ok () ? st->device.allocate (layout.size)
        : cudavision::CudaStatus { cudaErrorInvalidResourceHandle, "gst_cuda_context_push" };
    /* Every byte defined once, at allocation (pools allocate rarely):
     * kernels write the pixels of a row but not the pitch padding after
     * them, which full-plane downloads copy and vector loads of a row's
     * last word read. Zeroed, those bytes are deterministic and
     * compute-sanitizer's initcheck stays clean. Synchronous: the elements'
     * streams do not wait for the default stream. */
    if (s.ok () && cudaMemset (st->device.get (), 0, layout.size) != cudaSuccess)
      s = cudavision::CudaStatus { cudaGetLastError (), "cudaMemset" };
    if (s.ok () && cudaStreamSynchronize (nullptr) != cudaSuccess)
      s = cudavision::CudaStatus { cudaGetLastError (), "cudaStreamSynchronize" };
    if (s.ok ())
      s = st->event.create ();
    if (!s.ok ()) {
      GST_ERROR_OBJECT (allocator, "device frame of %" G_GSIZE_FORMAT " bytes: %s", layout.size,
          s.message ().c_str ());
      delete st;
      cudaGetLastError ();
      return nullptr;
    }
  }

  GstCvMemory *m = g_new0 (GstCvMemory, 1);
  gst_memory_init (GST_MEMORY_CAST (m), (GstMemoryFlags) 0, GST_ALLOCATOR_CAST (allocator), nullptr,
      layout.size, 0, 0, layout.size);
  m->context = (GstCudaContext *) gst_object_ref (allocator->context);
  m->layout = layout;
  m->st = st;
  return GST_MEMORY_CAST (m);
}

gboolean
gst_is_cv_memory (GstMemory * mem)
{
  return mem != nullptr && mem->allocator != nullptr && GST_IS_CV_ALLOCATOR (mem->allocator);
}

const GstVideoInfo *
gst_cv_memory_get_layout (GstMemory * mem)
{
  return &((GstCvMemory *) mem)->layout;
}

GstCudaContext *
gst_cv_memory_get_context (GstMemory * mem)
{
  return ((GstCvMemory *) mem)->context;
}

gboolean
gst_cv_buffer_wait (GstBuffer * buffer, cudaStream_t stream)
{
  for (guint i = 0; i < gst_buffer_n_memory (buffer); i++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, i);
    if (!gst_is_cv_memory (mem))
      continue;
    CvMemoryState *st = ((GstCvMemory *) mem)->st;
    std::lock_guard<std::mutex> lk (st->lock);
    if (st->event_recorded && cudaStreamWaitEvent (stream, st->event.get (), 0) != cudaSuccess)
      return FALSE;
  }
  return TRUE;
}

gboolean
gst_cv_buffer_record (GstBuffer * buffer, cudaStream_t stream)
{
  for (guint i = 0; i < gst_buffer_n_memory (buffer); i++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, i);
    if (!gst_is_cv_memory (mem))
      continue;
    CvMemoryState *st = ((GstCvMemory *) mem)->st;
    std::lock_guard<std::mutex> lk (st->lock);
    if (cudaEventRecord (st->event.get (), stream) != cudaSuccess)
      return FALSE;
    st->event_recorded = true;
  }
  return TRUE;
}

GstMemory *
gst_cv_cuda_memory_alloc (GstCudaContext * context, const GstVideoInfo * info)
{
  gst_cuda_memory_init_once ();
  /* found by name: GStreamer 1.22's gst_cuda_allocator_alloc () takes no
   * NULL for the default allocator */
  GstAllocator *alloc = gst_allocator_find (GST_CUDA_MEMORY_TYPE_NAME);
  if (!alloc)
    return nullptr;
#if GST_CHECK_VERSION(1, 24, 0)
  GstMemory *mem = gst_cuda_allocator_alloc (GST_CUDA_ALLOCATOR (alloc), context, nullptr, info);
#else
  GstMemory *mem = gst_cuda_allocator_alloc (GST_CUDA_ALLOCATOR (alloc), context, info);
#endif
  gst_object_unref (alloc);
  return mem;
}
