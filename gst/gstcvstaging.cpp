/* cudavision — allocation and staging (see gstcvstaging.h). */
#include "gstcvstaging.h"

#include "gstcvbufferpool.h"
#include "gstcvcontext.h"

#include <gst/cuda/gstcudabufferpool.h>

/* The base class's category: these are its frames. */
GST_DEBUG_CATEGORY_EXTERN (gst_cv_base_filter_debug);
#define GST_CAT_DEFAULT gst_cv_base_filter_debug

/* A pool of our device frames of `info` in `ctx`, configured; NULL when
 * the pool refuses the configuration. */
static GstBufferPool *
make_device_pool (GstCudaContext * ctx, const GstVideoInfo * info, guint * size_out)
{
  GstBufferPool *pool = gst_cv_buffer_pool_new (ctx);
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

gboolean
gst_cv_propose_allocation (GstQuery * query, GstCudaContext * ctx, bool on_gpu)
{
  GstCaps *caps = nullptr;
  gboolean need_pool = FALSE;

  gst_query_parse_allocation (query, &caps, &need_pool);
  if (!caps)
    return FALSE;
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, nullptr);

  /* Upstream of ours writes device frames straight into our pool. */
  if (need_pool && on_gpu && gst_cv_caps_memory_kind (caps) == GST_CV_MEMORY_DEVICE) {
    GstVideoInfo info;
    guint size = 0;
    if (!gst_video_info_from_caps (&info, caps))
      return FALSE;
    GstBufferPool *pool = make_device_pool (ctx, &info, &size);
    if (!pool)
      return FALSE;
    gst_query_add_allocation_pool (query, pool, size, 0, 0);
    gst_object_unref (pool);
  }
  return TRUE;
}

gboolean
gst_cv_decide_allocation (GstElement * element, GstQuery * query, GstCudaContext * ctx)
{
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

  const GstCvMemoryKind out_kind = gst_cv_caps_memory_kind (outcaps);
  if (out_kind == GST_CV_MEMORY_CUDA_MEMORY) {
    /* nvcodec's memory, in the pipeline's context: a downstream pool of
     * that kind and context, or one of ours; it sizes the buffers itself */
    if (pool && !(GST_IS_CUDA_BUFFER_POOL (pool) && GST_CUDA_BUFFER_POOL (pool)->context == ctx))
      gst_clear_object (&pool);
    if (!pool) {
      /* GstCudaMemory's allocator exists once someone has set it up:
       * nvcodec's plugin does when it loads, a pipeline without nvcodec
       * (an application's appsink asking for memory:CUDAMemory) would find
       * none */
      gst_cuda_memory_init_once ();
      pool = gst_cuda_buffer_pool_new (ctx);
    }
    size = MAX (size, (guint) info.size);
  } else if (out_kind == GST_CV_MEMORY_DEVICE) {
    /* A downstream pool of ours in the same context is as good as our own. */
    if (pool && !(GST_IS_CV_BUFFER_POOL (pool) &&
                    gst_cv_buffer_pool_get_context (GST_CV_BUFFER_POOL (pool)) == ctx))
      gst_clear_object (&pool);
    if (!pool)
      pool = gst_cv_buffer_pool_new (ctx);
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
      GST_ERROR_OBJECT (element, "cannot configure the output pool");
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

/* A staging frame of `info` from *pool, made (in `ctx`) on first use. */
static GstBuffer *
acquire_staging (GstCudaContext * ctx, GstBufferPool ** pool, const GstVideoInfo * info)
{
  if (!*pool) {
    *pool = make_device_pool (ctx, info, nullptr);
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

static const GstMapFlags MAP_DEVICE_READ = (GstMapFlags) (GST_MAP_READ | GST_MAP_CV_DEVICE);
static const GstMapFlags MAP_DEVICE_WRITE = (GstMapFlags) (GST_MAP_WRITE | GST_MAP_CV_DEVICE);

GstFlowReturn
GstCvStaging::upload_input (GstCvBaseFilter * self, GstBuffer * inbuf, GstCvDeviceFrames & f)
{
  const GstVideoInfo *info = gst_cv_base_filter_in_info (self);
  cudaStream_t s = gst_cv_base_filter_stream (self);
  f.dev_in = acquire_staging (gst_cv_base_filter_context (self), &upload_pool_, info);
  if (!f.dev_in) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, ("Could not allocate a GPU frame for the input"),
        ("%dx%d %s", info->width, info->height, GST_VIDEO_INFO_NAME (info)));
    return GST_FLOW_ERROR;
  }
  f.in_staged = true;
  GstCvHostInput host;
  if (!host.map (GST_ELEMENT (self), info, inbuf))
    return GST_FLOW_ERROR;
  if (!gst_video_frame_map (&f.in, info, f.dev_in, MAP_DEVICE_WRITE)) {
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

/* The input where it lies, in our device memory or nvcodec's. */
static GstFlowReturn
map_device_input (GstCvBaseFilter * self, GstBuffer * inbuf, GstCvMemoryKind in_kind, GstCvDeviceFrames & f)
{
  GstCudaContext *ctx = gst_cv_base_filter_context (self);
  f.dev_in = inbuf;
  if (in_kind == GST_CV_MEMORY_CUDA_MEMORY) {
    GstMemory *mem = gst_buffer_peek_memory (inbuf, 0);
    if (!gst_is_cuda_memory (mem)) {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("memory:CUDAMemory caps without CUDA memory"), (nullptr));
      return GST_FLOW_ERROR;
    }
    GstCudaContext *mctx = GST_CUDA_MEMORY_CAST (mem)->context;
    if (mctx != ctx && !gst_cuda_context_can_access_peer (ctx, mctx)) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Input CUDA memory belongs to another CUDA context"),
          ("the upstream element did not share its GstCudaContext and peer access is not possible"));
      return GST_FLOW_ERROR;
    }
#if GST_CHECK_VERSION(1, 24, 0)
    gst_cuda_memory_sync (GST_CUDA_MEMORY_CAST (mem));
#endif
  } else {
    gst_cv_buffer_wait (inbuf, gst_cv_base_filter_stream (self));
  }
  if (!gst_video_frame_map (&f.in, gst_cv_base_filter_in_info (self), inbuf, MAP_DEVICE_READ)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map the input frame on the device"), (nullptr));
    return GST_FLOW_ERROR;
  }
  f.in_mapped = true;
  return GST_FLOW_OK;
}

GstFlowReturn
GstCvStaging::map (GstCvBaseFilter * self, GstBuffer * inbuf, GstBuffer * outbuf, GstCvMemoryKind in_kind,
    GstCvMemoryKind out_kind, GstCvDeviceFrames & f)
{
  const GstVideoInfo *out_info = gst_cv_base_filter_out_info (self);
  cudaStream_t s = gst_cv_base_filter_stream (self);
  GstFlowReturn ret = in_kind == GST_CV_MEMORY_SYSTEM ? upload_input (self, inbuf, f)
                                                      : map_device_input (self, inbuf, in_kind, f);
  if (ret != GST_FLOW_OK)
    return ret;

  if (out_kind == GST_CV_MEMORY_SYSTEM) {
    f.dev_out = acquire_staging (gst_cv_base_filter_context (self), &download_pool_, out_info);
    if (!f.dev_out) {
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, ("Could not allocate a GPU frame for the output"),
          ("%dx%d %s", out_info->width, out_info->height, GST_VIDEO_INFO_NAME (out_info)));
      return GST_FLOW_ERROR;
    }
    f.out_staged = true;
  } else {
    f.dev_out = outbuf;
  }
  /* The output frame may still be read by a consumer on its stream. */
  gst_cv_buffer_wait (f.dev_out, s);
  if (!gst_video_frame_map (&f.out, out_info, f.dev_out, MAP_DEVICE_WRITE)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map the output frame on the device"), (nullptr));
    return GST_FLOW_ERROR;
  }
  f.out_mapped = true;
  return GST_FLOW_OK;
}

GstFlowReturn
GstCvStaging::download (GstCvBaseFilter * self, GstCvDeviceFrames & f, GstBuffer * outbuf,
    const cudavision::Stream & stream)
{
  GstVideoFrame host;
  if (!gst_video_frame_map (&host, gst_cv_base_filter_out_info (self), outbuf, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map the output frame"), (nullptr));
    return GST_FLOW_ERROR;
  }
  cudavision::CudaStatus st = gst_cv_frame_copy_planes (&host, &f.out, 0, cudaMemcpyDeviceToHost, stream.get ());
  if (st.ok ())
    st = stream.synchronize ();
  gst_video_frame_unmap (&host);
  gst_cv_count_download ();
  return gst_cv_base_filter_check (self, st, "download");
}

void
GstCvStaging::reset ()
{
  for (GstBufferPool ** pool : { &upload_pool_, &download_pool_ }) {
    if (*pool) {
      gst_buffer_pool_set_active (*pool, FALSE);
      gst_clear_object (pool);
    }
  }
}

void
gst_cv_post_output_alloc_error (GstElement * element, const GstVideoInfo * info, GstCvMemoryKind kind)
{
  GST_ELEMENT_ERROR (element, RESOURCE, NO_SPACE_LEFT,
      ("Could not allocate a %dx%d %s output frame", info->width, info->height, GST_VIDEO_INFO_NAME (info)),
      ("the %s memory is exhausted or the frame is too large", kind == GST_CV_MEMORY_SYSTEM ? "system" : "GPU"));
}

GstFlowReturn
gst_cv_complete_cuda_memory_output (GstCvBaseFilter * self, const cudavision::Stream & stream)
{
  GstCvContextGuard guard (gst_cv_base_filter_context (self));
  if (!guard.ok ()) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("Could not push the CUDA context"), (nullptr));
    return GST_FLOW_ERROR;
  }
  return gst_cv_base_filter_check (self, stream.synchronize (), "the output frame");
}

gboolean
gst_cv_base_filter_map_device_output (GstCvBaseFilter * self, GstBuffer * buf, GstVideoFrame * frame)
{
  gst_cv_buffer_wait (buf, gst_cv_base_filter_stream (self));
  return gst_video_frame_map (frame, gst_cv_base_filter_out_info (self), buf, MAP_DEVICE_WRITE);
}

void
gst_cv_base_filter_unmap_device_output (GstCvBaseFilter * self, GstBuffer * buf, GstVideoFrame * frame)
{
  gst_cv_buffer_record (buf, gst_cv_base_filter_stream (self));
  gst_video_frame_unmap (frame);
}
