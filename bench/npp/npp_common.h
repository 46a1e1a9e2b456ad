/* cudavision NPP baselines — compiled on a GPU machine only (NPP ships with
 * the CUDA toolkit there; the plugin never links it): bench/npp/run.sh.
 * Each program times one NPP function like cudavision-bench-kernels times
 * ours: CUDA-event medians, inputs rotated through a set 3x the L2 size. */
#pragma once

#include "../bench_util.h"

#include <npp.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace nppbench {

inline NppStreamContext
stream_context (cudaStream_t s)
{
  NppStreamContext c {};
  int dev = 0;
  cudaGetDevice (&dev);
  cudaDeviceProp p;
  cudaGetDeviceProperties (&p, dev);
  c.hStream = s;
  c.nCudaDeviceId = dev;
  c.nMultiProcessorCount = p.multiProcessorCount;
  c.nMaxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
  c.nMaxThreadsPerBlock = p.maxThreadsPerBlock;
  c.nSharedMemPerBlock = p.sharedMemPerBlock;
  c.nCudaDevAttrComputeCapabilityMajor = p.major;
  c.nCudaDevAttrComputeCapabilityMinor = p.minor;
  cudaStreamGetFlags (s, &c.nStreamFlags);
  return c;
}

inline void
npp_check (NppStatus s, const char *what)
{
  if (s != NPP_SUCCESS) {
    std::fprintf (stderr, "%s: NPP status %d\n", what, (int) s);
    std::exit (1);
  }
}

/* A stream and NPP's context for it: every baseline starts with one. */
struct Session {
  cudavision::Stream stream;
  NppStreamContext ctx {};
  Session () {
    cvbench::check (stream.create ().err, "stream");
    ctx = stream_context (stream.get ());
  }
  cudaStream_t s () const { return stream.get (); }
};

struct Frame {
  int w, h;
};
static const Frame kSizes[] = { { 1920, 1080 }, { 3840, 2160 } };

inline void
print_row (const char *name, Frame f, const cvbench::Timing & t)
{
  std::printf ("NPP %-40s %5dx%-5d median %8.2f us (p10 %.2f, p90 %.2f)\n", name, f.w, f.h, t.median_us, t.p10_us,
      t.p90_us);
}

}  // namespace nppbench
