/* cudavision-bench-launch-scaling — how far CUDA itself lets launches from
 * several host threads scale in one context, with nothing of GStreamer or
 * cudavision around them (docs/RELIABILITY.md, "Many streams").
 *
 *   cudavision-bench-launch-scaling [--size WxH] [--frames N] [--threads 1,2,4,8]
 *
 * Each thread has its own stream and does per "frame" what one of our
 * elements does at the least: a stream wait on its previous frame's event,
 * one kernel (RGBA to GRAY over WxH), two event records. Aggregate frames/s
 * and the speed-up over one thread per thread count. At --size 32x1 the
 * kernel is one block: what is left is the host side of the launches, and
 * how that scales bounds what any number of pipelines can reach.
 * --size sides 1 to 16384, --frames 1 to 10^8, --threads 1 to 256 each; a
 * bad number is refused (exit status 2) before CUDA starts. */
#include "bench_util.h"

#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

__global__ void
gray_kernel (const uchar4 * in, unsigned char *out, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const uchar4 p = in[i];
    out[i] = (unsigned char) ((p.x * 77 + p.y * 150 + p.z * 29) >> 8);
  }
}

bool
check (cudaError_t e, const char *what)
{
  if (e != cudaSuccess)
    std::fprintf (stderr, "%s: %s\n", what, cudaGetErrorString (e));
  return e == cudaSuccess;
}

struct Lane {
  uchar4 *in = nullptr;
  unsigned char *out = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t done = nullptr, ready = nullptr;
};

}  // namespace

int
main (int argc, char **argv)
{
  int w = 1280, h = 720, frames = 20000;
  std::vector<int> counts { 1, 2, 4, 8 };
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp (argv[i], "--size")) {
      const cvbench::Dims d = cvbench::arg_dims ("--size", cvbench::arg_value (argc, argv, i), 1, cvbench::kMaxSide);
      w = d.w;
      h = d.h;
    } else if (!std::strcmp (argv[i], "--frames"))
      frames = cvbench::arg_int ("--frames", cvbench::arg_value (argc, argv, i), 1, 100000000);
    else if (!std::strcmp (argv[i], "--threads"))
      counts = cvbench::arg_int_list ("--threads", cvbench::arg_value (argc, argv, i), 1, 256);
    else {
      std::fprintf (stderr, "usage: %s [--size WxH] [--frames N] [--threads 1,2,4,8]\n", argv[0]);
      return 2;
    }
  }
  if (!check (cudaFree (nullptr), "no CUDA device"))
    return 77;
  const int n = w * h;
  double one = 0;
  for (int threads : counts) {
    std::vector<Lane> lanes (threads);
    for (Lane & l : lanes)
      if (!check (cudaMalloc (&l.in, (size_t) n * 4), "cudaMalloc") ||
          !check (cudaMalloc (&l.out, (size_t) n), "cudaMalloc") ||
          !check (cudaStreamCreateWithFlags (&l.stream, cudaStreamNonBlocking), "cudaStreamCreate") ||
          !check (cudaEventCreateWithFlags (&l.done, cudaEventDisableTiming), "cudaEventCreate") ||
          !check (cudaEventCreateWithFlags (&l.ready, cudaEventDisableTiming), "cudaEventCreate") ||
          !check (cudaMemset (l.in, 0, (size_t) n * 4), "cudaMemset"))
        return 1;
    check (cudaDeviceSynchronize (), "cudaDeviceSynchronize");
    const auto t0 = std::chrono::steady_clock::now ();
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; t++)
      ts.emplace_back ([&, t] () {
        Lane & l = lanes[t];
        cudaSetDevice (0);
        for (int f = 0; f < frames; f++) {
          cudaStreamWaitEvent (l.stream, l.ready, 0);
          gray_kernel<<<(n + 255) / 256, 256, 0, l.stream>>> (l.in, l.out, n);
          cudaEventRecord (l.done, l.stream);
          cudaEventRecord (l.ready, l.stream);
        }
      });
    for (auto & t : ts)
      t.join ();
    if (!check (cudaDeviceSynchronize (), "frames"))
      return 1;
    const double s = std::chrono::duration<double> (std::chrono::steady_clock::now () - t0).count ();
    const double fps = (double) threads * frames / s;
    if (one == 0)
      one = fps;
    std::printf ("LAUNCHSCALE size=%dx%d threads=%d fps=%.0f speedup=%.2f\n", w, h, threads, fps, fps / one);
    for (Lane & l : lanes) {
      cudaFree (l.in);
      cudaFree (l.out);
      cudaStreamDestroy (l.stream);
      cudaEventDestroy (l.done);
      cudaEventDestroy (l.ready);
    }
  }
  return 0;
}
