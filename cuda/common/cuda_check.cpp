#include "cuda_check.h"

namespace cudavision {

std::string
CudaStatus::message () const
{
  if (ok ())
    return "success";
  return std::string (what) + " failed: " + cudaGetErrorString (err) + " (" +
      cudaGetErrorName (err) + ")";
}

}  // namespace cudavision
