/* cudavision — the caps of every cudavision element: its pad templates
 * (each format in our device memory, in nvcodec's memory:CUDAMemory and
 * in system memory), the memory a pad's caps put frames in, and the
 * format mappings elements share. Formats map the same way whatever
 * memory holds them: subclasses map plain caps, and these helpers add
 * the memories. */
#pragma once

#include "gstcvmemory.h"

#include <gst/video/video.h>

G_BEGIN_DECLS

/* Where a pad's frames live. */
typedef enum {
  GST_CV_MEMORY_SYSTEM,
  GST_CV_MEMORY_DEVICE,       /* memory:CudaVisionMemory, ours */
  GST_CV_MEMORY_CUDA_MEMORY,  /* memory:CUDAMemory, libgstcuda's */
} GstCvMemoryKind;

/* Caps of a pad template: `formats` as a caps format list string, e.g.
 * "{ RGBA, BGRA }", offered with our device feature, with nvcodec's
 * memory:CUDAMemory (on a source pad only in the formats GstCudaMemory
 * can hold: not GRAY8), and in system memory. */
GstCaps *gst_cv_base_filter_make_caps (const gchar * formats, GstPadDirection direction);

/* Adds the "sink" and "src" always pads with gst_cv_base_filter_make_caps
 * of the format lists. */
void gst_cv_base_filter_class_add_pad_templates (GstElementClass * element_class, const gchar * sink_formats,
    const gchar * src_formats);

G_END_DECLS

#ifdef __cplusplus
#include "../core/image.h"

/* The cuda/ layout of a packed 3- or 4-byte RGB format; false for others. */
bool gst_cv_packed_rgb_layout (GstVideoFormat format, cudavision::PackedRgb * layout);

/* transform_video_caps for elements whose output has one format whatever
 * the input (GRAY8, or cudaflow's RGBA flow image): towards the source pad
 * every format becomes `format` (colorimetry and chroma siting dropped);
 * towards the sink pad any template format. */
GstCaps *gst_cv_caps_map_to_format (GstPadDirection direction, GstCaps *caps, const char *format);

/* The memory of the first structure of `caps`, and its name in messages
 * (a caps feature, or "system memory"). */
GstCvMemoryKind gst_cv_caps_memory_kind (GstCaps * caps);
const gchar *gst_cv_memory_kind_name (GstCvMemoryKind kind);

/* `caps`' structures without their caps features (system memory). */
GstCaps *gst_cv_caps_without_features (GstCaps * caps);

/* Copies of `src`'s structures, each with `feature` (NULL: none),
 * appended to `dst`. */
void gst_cv_caps_append_with_feature (GstCaps * dst, GstCaps * src, const gchar * feature);

/* `mapped` (plain caps on the pad opposite `direction`'s) in every memory
 * the element can use there: with `gpu_possible`, device frames first
 * (between our elements they are preferred) and nvcodec's memory (any
 * format in, since its producers hold only what it can; out only in the
 * formats it can hold, and without I420 of odd height where GstCudaMemory
 * in `ctx` would garble it), then system memory. */
GstCaps *gst_cv_caps_in_memories (GstCaps * mapped, GstPadDirection direction, bool gpu_possible,
    GstCudaContext * ctx);

/* Whether memory:CUDAMemory in `ctx` can hold the frames of `caps` (fixed
 * output caps): not I420 of an odd height, whose U and V planes this
 * GStreamer's GstCudaMemory may overlap; else an element error. */
bool gst_cv_caps_check_cuda_memory_output (GstElement * element, GstCaps * caps, GstCudaContext * ctx);

/* `caps` reordered: device memory first, then libgstcuda's, then the
 * rest; stable within each. */
GstCaps *gst_cv_caps_device_first (GstCaps * caps);

/* An answered caps query's result with device memory first. GstBaseTransform
 * puts the downstream peer's untransformed caps first (it favours
 * passthrough). With a system-memory element at the end of a chain, that
 * would put system memory first at every link upstream, and each of our
 * elements would download and upload. Device memory first keeps frames on
 * the GPU between our elements; the edge still gets system memory. */
void gst_cv_caps_query_device_first (GstQuery * query);
#endif
