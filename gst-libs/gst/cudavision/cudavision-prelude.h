/* cudavision — prelude of libgstcudavision-1.0: the export macro, and the
 * notice that this API is not frozen yet.
 *
 * Every public header includes this one. The library is at version 0.x:
 * the meta layouts and enums may still gain fields or values between
 * releases, as libgstcuda's do, so applications opt in with
 * GST_USE_UNSTABLE_API (bindings through GObject introspection need not). */
#pragma once

#include <gst/gst.h>

#ifndef GST_USE_UNSTABLE_API
#warning "libgstcudavision-1.0 is unstable API and may change in future."
#warning "You can define GST_USE_UNSTABLE_API to avoid this warning."
#endif

#ifndef GST_CUDA_VISION_API
#ifdef BUILDING_GST_CUDA_VISION
#define GST_CUDA_VISION_API GST_API_EXPORT
#else
#define GST_CUDA_VISION_API GST_API_IMPORT
#endif
#endif
