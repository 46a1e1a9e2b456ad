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

/* cudaEventQuery (not cudaEventElapsedTime) answers "not yet": it is the
 * API meant for polling, so compute-sanitizer does not report its
 * cudaErrorNotReady, while every cudaEventElapsedTime on an unfinished
 * event showed up in sanitizer logs as an API error. */
static AutoTimer::Poll
query (cudaEvent_t e)
{
  const cudaError_t r = cudaEventQuery (e);
  if (r == cudaSuccess)
    return AutoTimer::Poll::Ready;
  /* Neither answer may stay behind as the "last error" that the next
   * launcher's check would read; nothing else is cleared. */
  if (cudaPeekAtLastError () == r)
    cudaGetLastError ();
  return r == cudaErrorNotReady ? AutoTimer::Poll::NotReady : AutoTimer::Poll::Failed;
}

AutoTimer::Poll
CudaEventTimer::elapsed_us (Mark from, Mark to, double *us)
{
  if (from >= events_.size () || to >= events_.size ())
    return Poll::Failed;
  /* Marks on one stream complete in order: `to` done means `from` is too,
   * but a failed `from` still has to be seen. */
  for (const Mark m : { to, from }) {
    const Poll p = query (events_[m].get ());
    if (p != Poll::Ready)
      return p;
  }
  float ms = 0;
  const cudaError_t e = cudaEventElapsedTime (&ms, events_[from].get (), events_[to].get ());
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
