/* cudavision — the latency-frames hold queue of the base class. With
 * latency-frames=1 an element's output is held until the next frame's
 * work is queued, then finished (GstCvBaseFilterClass::finish_frame) and
 * pushed: by then its results are ready, or the GPU is busy with the
 * frames before, so the streaming thread does not wait for the GPU. Its
 * input is held with it, so that its device frame is not reused before
 * the results are read. A serialized event, new caps, a drain query, a
 * flush or stop drains the held frame. The elements keep the results
 * themselves in the meantime (gstcvpendingresults.h). */
#pragma once

#include "gstcvbasefilter.h"

#define GST_CV_DEFAULT_LATENCY_FRAMES 0

class GstCvHoldQueue {
public:
  /* How a frame is finished: the base class's finish_frame, which pushes
   * the CUDA context around the subclass's. */
  using Finish = GstFlowReturn (*) (GstCvBaseFilter * self, GstBuffer * inbuf, GstBuffer * outbuf);

  explicit GstCvHoldQueue (Finish finish) : finish_ (finish) {}
  GstCvHoldQueue (const GstCvHoldQueue &) = delete;
  GstCvHoldQueue & operator= (const GstCvHoldQueue &) = delete;

  /* GstBaseTransform::generate_output through `parent`'s. With `hold`
   * (gst_cv_base_filter_holds_results) the new frame's work is queued
   * (transform), it takes the held place, and the previous one is
   * finished and goes out in *outbuf; without, a held frame leaves first
   * and the new one is made as usual. */
  GstFlowReturn generate_output (GstCvBaseFilter * self, GstBaseTransformClass * parent, bool hold,
      GstBuffer ** outbuf);

  /* The held frame, finished; pushed downstream or (flush, stop) dropped. */
  GstFlowReturn drain (GstCvBaseFilter * self, bool push);

  /* Whether the frame in transform () is to be held: its finish waits. */
  bool holding_this () const { return hold_this_; }

  /* The answer to a latency query with one frame of `info` added: a held
   * frame leaves one frame duration later (unknown for variable frame
   * rates, where nothing can be added). */
  static void add_frame_latency (GstQuery * query, const GstVideoInfo * info);

private:
  Finish finish_;
  GstBuffer *held_out_ = nullptr;
  GstBuffer *held_in_ = nullptr;
  bool hold_this_ = false;
};
