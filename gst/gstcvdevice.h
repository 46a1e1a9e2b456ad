/* cudavision — the CUDA device an element runs on: its GstCudaContext,
 * found through GStreamer's context mechanism (the application, a bin or
 * a neighbour such as nvcodec's elements may hold one) or made, and
 * shared with the neighbours that ask for it; the element's own stream in
 * it; and the launch policy for that device. */
#pragma once

#include "gstcvcontext.h"
#include "gstcvtuning.h"

#include "../cuda/common/cuda_raii.h"

#include <memory>

/* Starts `element` on the GPU: the context of `device_id` (-1: any, or
 * the shared context's) in *context, found or made, and with it pushed a
 * new stream in *stream and the launch policy in `tuning`, from
 * `launch`. False where the device is unusable (*context may be set
 * then, for the caller to drop). */
bool gst_cv_device_start (GstElement * element, gint device_id, const GstCvLaunchSettings & launch,
    GstCudaContext ** context, std::unique_ptr<cudavision::Stream> * stream, GstCvTuning & tuning);

/* GstElement::set_context: a GstCudaContext of `device_id` given to the
 * element is kept in *cuda (when the CUDA driver is there at all). */
void gst_cv_device_set_context (GstElement * element, GstContext * context, gint device_id, GstCudaContext ** cuda);

/* A neighbour's context query, answered with `cuda` (the element's
 * context; NULL before start or on the CPU backend): TRUE when answered. */
gboolean gst_cv_device_answer_context_query (GstElement * element, GstQuery * query, GstCudaContext * cuda);
