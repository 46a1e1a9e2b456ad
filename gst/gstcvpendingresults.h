/* cudavision — the results of frames processed but not yet finished
 * (GstCvBaseFilterClass::finish_frame), oldest first: what cudaharris,
 * cudaflow and cudafacedetect keep between a frame's process and its
 * finish, which with latency-frames=1 comes after the next frame's
 * process. The base class holds the frames themselves meanwhile
 * (gstcvholdqueue.h). */
#pragma once

#include "gstcvbasefilter.h"

#include <deque>
#include <utility>

template <typename T> class GstCvPendingResults {
public:
  /* Before a frame's process on the GPU: at most the held frame stays (a
   * frame that failed after its process, in a download, never finished).
   * Returns which of the element's two sets of GPU state the frame uses:
   * 0 without holding, else the one the held frame does not. */
  int begin_gpu_frame (bool hold)
  {
    while (q_.size () > (hold ? 1u : 0u))
      q_.pop_front ();
    slot_ = hold ? slot_ ^ 1 : 0;
    return slot_;
  }
  void push (T && v) { q_.push_back (std::move (v)); }
  void clear () { q_.clear (); }

  /* The oldest frame's results, for finish_frame; without any, an element
   * error and false. */
  bool take (GstCvBaseFilter * self, T * out)
  {
    if (q_.empty ()) {
      GST_ELEMENT_ERROR (self, CORE, FAILED, ("No results for a finished frame"), (nullptr));
      return false;
    }
    *out = std::move (q_.front ());
    q_.pop_front ();
    return true;
  }

private:
  std::deque<T> q_;
  int slot_ = 0;
};
