/* cudavision — everything libgstcudavision-1.0 offers applications: the
 * metas the cudavision elements attach to frames and the enums of their
 * properties.
 *
 * |[
 * #define GST_USE_UNSTABLE_API
 * #include <gst/cudavision/cudavision.h>
 * ]|
 *
 * Build with `pkg-config --cflags --libs gstreamer-cudavision-1.0`; from
 * Python, `gi.require_version ("GstCudaVision", "1.0")`. */
#pragma once

#include <gst/cudavision/cudavision-prelude.h>
#include <gst/cudavision/gstcvenums.h>
#include <gst/cudavision/gstcvflowmeta.h>
#include <gst/cudavision/gstcvkeypointsmeta.h>
#include <gst/cudavision/gstcvotsumeta.h>
