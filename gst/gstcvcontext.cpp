#include "gstcvcontext.h"

#include <gst/cuda/gstcudaloader.h>

#include "../cuda/common/device_info.h"

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
