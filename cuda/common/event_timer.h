/* cudavision — the clock of block-sizing=auto: timing events on one
 * stream, polled with cudaEventQuery (which answers "not ready" rather than
 * waiting) and read with cudaEventElapsedTime once both have completed
 * (core/policy/auto_tuner.h). */
#pragma once

#include "../../core/policy/auto_tuner.h"
#include "cuda_raii.h"

#include <vector>

namespace cudavision {

class CudaEventTimer : public AutoTimer {
public:
  /* Events are created lazily, in the context current at record(); the
   * timer must be destroyed with that context current. */
  explicit CudaEventTimer (cudaStream_t stream) : stream_ (stream) {}

  bool record (Mark * out) override;
  Poll elapsed_us (Mark from, Mark to, double *us) override;
  void release (Mark m) override;

private:
  cudaStream_t stream_;
  std::vector<Event> events_;  /* a Mark is an index; released ones are reused */
  std::vector<Mark> free_;
};

}  // namespace cudavision
