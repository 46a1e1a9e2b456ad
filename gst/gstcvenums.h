/* cudavision — enums shared by every element's properties. Registered once
 * and marked as plugin API in the base class. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

typedef enum {
  GST_CV_BACKEND_AUTO = 0,
  GST_CV_BACKEND_CUDA = 1,
  GST_CV_BACKEND_CPU = 2,
} GstCvBackend;

#define GST_TYPE_CV_BACKEND (gst_cv_backend_get_type ())
GType gst_cv_backend_get_type (void);

/* Values match cudavision::BlockSizing. */
typedef enum {
  GST_CV_BLOCK_SIZING_STATIC = 0,
  GST_CV_BLOCK_SIZING_EMPIRICAL_TABLE = 1,
  GST_CV_BLOCK_SIZING_MODEL = 2,
  GST_CV_BLOCK_SIZING_AUTO = 3,
} GstCvBlockSizing;

#define GST_TYPE_CV_BLOCK_SIZING (gst_cv_block_sizing_get_type ())
GType gst_cv_block_sizing_get_type (void);

G_END_DECLS
