/* cudavision NPP baselines — compiled on a GPU machine only (NPP ships with
 * the CUDA toolkit there; the plugin never links it): bench/npp/run.sh.
 * Each program times one NPP function like cudavision-bench-kernels times
 * ours: CUDA-event medians, inputs rotated through a set 3x the L2 size. */
#pragma once

#include "../bench_util.h"

#include <npp.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

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

/* The sizes a baseline measures: `--sizes WxH,...` (bench/npp/run.sh passes
 * its own on), by default cudavision-bench-kernels' default list, so that
 * both sides of a comparison cover the same sizes. Anything else on the
 * command line, or a malformed size, ends the program with its usage. */
inline std::vector<Frame>
sizes (int argc, char **argv)
{
  std::string list = "1280x720,1920x1080,3840x2160";
  bool ok = argc == 1;
  if (argc == 3 && std::string (argv[1]) == "--sizes") {
    list = argv[2];
    ok = true;
  }
  std::vector<Frame> out;
  std::stringstream ss (list);
  std::string item;
  while (ok && std::getline (ss, item, ',')) {
    Frame f {};
    char extra = 0;
    ok = std::sscanf (item.c_str (), "%dx%d%c", &f.w, &f.h, &extra) == 2 && f.w > 0 && f.h > 0 && f.w <= 16384 &&
        f.h <= 16384;
    out.push_back (f);
  }
  if (!ok || out.empty ()) {
    std::fprintf (stderr, "usage: %s [--sizes WxH,...] (default %s)\n", argv[0], "1280x720,1920x1080,3840x2160");
    std::exit (2);
  }
  return out;
}

inline void
print_row (const char *name, Frame f, const cvbench::Timing & t)
{
  std::printf ("NPP %-40s %5dx%-5d median %8.2f us (p10 %.2f, p90 %.2f)\n", name, f.w, f.h, t.median_us, t.p10_us,
      t.p90_us);
}

}  // namespace nppbench
