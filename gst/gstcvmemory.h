/* cudavision — device memory for video frames: GstCvMemory and its allocator.
 *
 * GstCudaMemory (memory:CUDAMemory) cannot hold GRAY8 in any GStreamer
 * version, and our elements produce GRAY8 and other formats it lacks, hence
 * this allocator. One GstCvMemory holds every plane of a frame in one
 * device allocation, each plane's rows 256-byte aligned; GstVideoMeta
 * carries the pitches.
 *
 * Mapping:
 *  - with GST_MAP_CUDA: the device pointer; the host copy, if newer, is
 *    uploaded first.
 *  - without it: a page-locked host copy in the same layout; the device
 *    copy, if newer, is downloaded first (after the last device use ends).
 *    Host writes are uploaded before the next device use.
 *
 * Ordering between elements (each has its own CUDA stream) uses one event
 * per memory: an element's stream waits for the memory's last device use
 * before touching it, and records the event after its own work, so neither
 * side ever synchronizes the host or the device. */
#pragma once

#ifndef GST_USE_UNSTABLE_API
#define GST_USE_UNSTABLE_API
#endif

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>

#include <cuda_runtime_api.h>

G_BEGIN_DECLS

#define GST_CAPS_FEATURE_MEMORY_CUDAVISION "memory:CudaVisionMemory"
#define GST_CV_MEMORY_TYPE_NAME "CudaVisionMemory"

/* The device-map flag: the same bit GstCudaMemory uses, so one flag maps
 * both kinds of device memory. */
#define GST_MAP_CV_DEVICE GST_MAP_CUDA

#define GST_TYPE_CV_ALLOCATOR (gst_cv_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstCvAllocator, gst_cv_allocator, GST, CV_ALLOCATOR, GstAllocator)

typedef struct _GstCvMemory GstCvMemory;

GstCvAllocator *gst_cv_allocator_new (GstCudaContext * context);
GstCudaContext *gst_cv_allocator_get_context (GstCvAllocator * allocator);

/* Allocates a frame of `info`'s format and size; the memory's layout (the
 * pitched strides and offsets) is what gst_cv_video_info_set_pitched gives.
 * NULL when the device is out of memory. */
GstMemory *gst_cv_allocator_alloc (GstCvAllocator * allocator, const GstVideoInfo * info);

/* A frame of `info` in nvcodec's memory (GstCudaMemory) of `context`,
 * from its default allocator; NULL when that cannot allocate it. */
GstMemory *gst_cv_cuda_memory_alloc (GstCudaContext * context, const GstVideoInfo * info);

gboolean gst_is_cv_memory (GstMemory * mem);
const GstVideoInfo *gst_cv_memory_get_layout (GstMemory * mem);
GstCudaContext *gst_cv_memory_get_context (GstMemory * mem);

/* Pitched layout of a frame in device memory: every plane's stride padded
 * to 256 bytes. Returns FALSE for formats GstVideoInfo cannot align. */
gboolean gst_cv_video_info_set_pitched (GstVideoInfo * info);

/* Stream ordering for every GstCvMemory of `buffer` (others are skipped).
 * Call wait before enqueuing work that touches the buffer on `stream`, and
 * record after it, with the buffer's context current. */
gboolean gst_cv_buffer_wait (GstBuffer * buffer, cudaStream_t stream);
gboolean gst_cv_buffer_record (GstBuffer * buffer, cudaStream_t stream);

/* Host<->device transfers of frame data since start or the last reset,
 * across all elements: the zero-copy tests and GST_DEBUG read these. */
void gst_cv_transfer_counts (guint64 * uploads, guint64 * downloads);
void gst_cv_transfer_counts_reset (void);
void gst_cv_count_upload (void);
void gst_cv_count_download (void);

G_END_DECLS
