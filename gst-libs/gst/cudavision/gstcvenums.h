/* cudavision — enums shared by every element's properties ("backend",
 * "block-sizing"). Registered once and marked as plugin API in the
 * elements' base class. */
#pragma once

#include <gst/cudavision/cudavision-prelude.h>

G_BEGIN_DECLS

/**
 * GstCvBackend:
 * @GST_CV_BACKEND_AUTO: CUDA when a device is usable, else the CPU (says
 *     so on the bus)
 * @GST_CV_BACKEND_CUDA: CUDA only: an error when no device is usable
 * @GST_CV_BACKEND_CPU: CPU only (OpenCV)
 *
 * Where an element computes: the "backend" property of every cudavision
 * element.
 */
typedef enum {
  GST_CV_BACKEND_AUTO = 0,
  GST_CV_BACKEND_CUDA = 1,
  GST_CV_BACKEND_CPU = 2,
} GstCvBackend;

#define GST_TYPE_CV_BACKEND (gst_cv_backend_get_type ())
GST_CUDA_VISION_API
GType gst_cv_backend_get_type (void);

/**
 * GstCvBlockSizing:
 * @GST_CV_BLOCK_SIZING_STATIC: each kernel's documented default shape, or
 *     the "block-size" property
 * @GST_CV_BLOCK_SIZING_EMPIRICAL_TABLE: measured per GPU and size by
 *     cudavision-tune (the "tuning-table" property)
 * @GST_CV_BLOCK_SIZING_MODEL: occupancy model of the device and input size
 * @GST_CV_BLOCK_SIZING_AUTO: online: the first frames time a few candidate
 *     shapes per kernel and size, then keep the fastest
 *
 * How an element picks its CUDA block shapes: the "block-sizing" property
 * (values match the kernels'
 * cudavision::BlockSizing).
 */
typedef enum {
  GST_CV_BLOCK_SIZING_STATIC = 0,
  GST_CV_BLOCK_SIZING_EMPIRICAL_TABLE = 1,
  GST_CV_BLOCK_SIZING_MODEL = 2,
  GST_CV_BLOCK_SIZING_AUTO = 3,
} GstCvBlockSizing;

#define GST_TYPE_CV_BLOCK_SIZING (gst_cv_block_sizing_get_type ())
GST_CUDA_VISION_API
GType gst_cv_block_sizing_get_type (void);

G_END_DECLS
