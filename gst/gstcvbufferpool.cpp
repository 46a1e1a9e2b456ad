/* cudavision — GstCvBufferPool. */
#include "gstcvbufferpool.h"

GST_DEBUG_CATEGORY_STATIC (gst_cv_buffer_pool_debug);
#define GST_CAT_DEFAULT gst_cv_buffer_pool_debug

struct _GstCvBufferPool {
  GstBufferPool parent;
  GstCudaContext *context;
  GstCvAllocator *allocator;
  GstVideoInfo info;  /* as negotiated; the allocator pitches it */
};

G_DEFINE_TYPE (GstCvBufferPool, gst_cv_buffer_pool, GST_TYPE_BUFFER_POOL);

static const gchar **
gst_cv_buffer_pool_get_options (GstBufferPool *)
{
  static const gchar *options[] = { GST_BUFFER_POOL_OPTION_VIDEO_META, nullptr };
  return options;
}

static gboolean
gst_cv_buffer_pool_set_config (GstBufferPool * pool, GstStructure * config)
{
  GstCvBufferPool *self = GST_CV_BUFFER_POOL (pool);
  GstCaps *caps = nullptr;
  guint size, min, max;

  if (!gst_buffer_pool_config_get_params (config, &caps, &size, &min, &max) || !caps) {
    GST_WARNING_OBJECT (pool, "no caps in config");
    return FALSE;
  }
  if (!gst_video_info_from_caps (&self->info, caps)) {
    GST_WARNING_OBJECT (pool, "caps %" GST_PTR_FORMAT " are not video", caps);
    return FALSE;
  }
  GstVideoInfo layout = self->info;
  if (!gst_cv_video_info_set_pitched (&layout))
    return FALSE;
  /* Buffers are as large as the pitched layout, whatever was asked. */
  gst_buffer_pool_config_set_params (config, caps, layout.size, min, max);
  return GST_BUFFER_POOL_CLASS (gst_cv_buffer_pool_parent_class)->set_config (pool, config);
}

static GstFlowReturn
gst_cv_buffer_pool_alloc_buffer (GstBufferPool * pool, GstBuffer ** buffer, GstBufferPoolAcquireParams *)
{
  GstCvBufferPool *self = GST_CV_BUFFER_POOL (pool);
  GstMemory *mem = gst_cv_allocator_alloc (self->allocator, &self->info);
  if (!mem) {
    GST_ERROR_OBJECT (pool, "cannot allocate a %dx%d %s device frame", self->info.width,
        self->info.height, GST_VIDEO_INFO_NAME (&self->info));
    return GST_FLOW_ERROR;
  }
  GstVideoInfo l_copy = *gst_cv_memory_get_layout (mem);
  GstVideoInfo *l = &l_copy;
  GstBuffer *buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, mem);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT (l),
      GST_VIDEO_INFO_WIDTH (l), GST_VIDEO_INFO_HEIGHT (l), GST_VIDEO_INFO_N_PLANES (l), l->offset,
      l->stride);
  *buffer = buf;
  return GST_FLOW_OK;
}

static void
gst_cv_buffer_pool_finalize (GObject * object)
{
  GstCvBufferPool *self = GST_CV_BUFFER_POOL (object);
  gst_clear_object (&self->allocator);
  gst_clear_object (&self->context);
  G_OBJECT_CLASS (gst_cv_buffer_pool_parent_class)->finalize (object);
}

static void
gst_cv_buffer_pool_class_init (GstCvBufferPoolClass * klass)
{
  GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS (klass);
  G_OBJECT_CLASS (klass)->finalize = gst_cv_buffer_pool_finalize;
  pool_class->get_options = gst_cv_buffer_pool_get_options;
  pool_class->set_config = gst_cv_buffer_pool_set_config;
  pool_class->alloc_buffer = gst_cv_buffer_pool_alloc_buffer;
  GST_DEBUG_CATEGORY_INIT (gst_cv_buffer_pool_debug, "cudavision-pool", 0, "cudavision buffer pool");
}

static void
gst_cv_buffer_pool_init (GstCvBufferPool *)
{
}

GstBufferPool *
gst_cv_buffer_pool_new (GstCudaContext * context)
{
  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), nullptr);
  GstCvBufferPool *self = (GstCvBufferPool *) g_object_new (GST_TYPE_CV_BUFFER_POOL, nullptr);
  gst_object_ref_sink (self);
  self->context = (GstCudaContext *) gst_object_ref (context);
  self->allocator = gst_cv_allocator_new (context);
  return GST_BUFFER_POOL_CAST (self);
}

GstCudaContext *
gst_cv_buffer_pool_get_context (GstCvBufferPool * pool)
{
  return pool->context;
}
