/* cudavision — CUDA events as the auto tuner's clock. */
#include "event_timer.h"

namespace cudavision {

bool
CudaEventTimer::record (Mark * out)
{
  Mark m;
  if (!free_.empty ()) {
    m = free_.back ();
    free_.pop_back ();
  } else {
    Event e;
    if (!e.create (true).ok ()) {
      cudaGetLastError ();
      return false;
    }
    m = events_.size ();
    events_.push_back (std::move (e));
  }
  if (cudaEventRecord (events_[m].get (), stream_) != cudaSuccess) {
    cudaGetLastError ();
    free_.push_back (m);
    return false;
  }
  *out = m;
  return true;
}

AutoTimer::Poll
CudaEventTimer::elapsed_us (Mark from, Mark to, double *us)
{
  if (from >= events_.size () || to >= events_.size ())
    return Poll::Failed;
  float ms = 0;
  const cudaError_t e = cudaEventElapsedTime (&ms, events_[from].get (), events_[to].get ());
  if (e == cudaErrorNotReady) {
    /* Not an error: but make sure it is not left as the "last error" that
     * the next launcher's check would read. Nothing else is cleared. */
    if (cudaPeekAtLastError () == cudaErrorNotReady)
      cudaGetLastError ();
    return Poll::NotReady;
  }
  if (e != cudaSuccess) {
    if (cudaPeekAtLastError () == e)
      cudaGetLastError ();
    return Poll::Failed;
  }
  *us = (double) ms * 1000.0;
  return Poll::Ready;
}

void
CudaEventTimer::release (Mark m)
{
  if (m < events_.size ())
    free_.push_back (m);
}

}  // namespace cudavision
