// Does launching a frame graph from the device (a one-kernel graph that
// tail-launches the frame's graph) cost the host less than launching the
// frame's graph of K kernels from the host? Paced (1 ms sleep before each
// launch, as a camera frame) and hot.
//   nvcc -O2 -arch=sm_90 -rdc=true devlaunch.cu -lcudadevrt -o devlaunch
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf ("%s: %s (line %d)\n", #x, cudaGetErrorString (e_), __LINE__); return 1; } } while (0)

__global__ void step (int *p, int k) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < 132 * 256) p[i] += k; }
__global__ void launcher (cudaGraphExec_t g) { cudaGraphLaunch (g, cudaStreamGraphTailLaunch); }

using Clock = std::chrono::steady_clock;
static double us (Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::micro> (b - a).count (); }
static double pct (std::vector<double> v, double p) { std::sort (v.begin (), v.end ()); return v[(size_t) (p * (v.size () - 1))]; }

int main (int argc, char **argv)
{
  const int K = argc > 1 ? atoi (argv[1]) : 15, N = argc > 2 ? atoi (argv[2]) : 1000;
  int *buf; CK (cudaMalloc (&buf, 132 * 256 * sizeof (int)));
  cudaStream_t s; CK (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  auto capture = [&] (int kernels, cudaGraph_t *g) {
    cudaStreamBeginCapture (s, cudaStreamCaptureModeThreadLocal);
    for (int k = 0; k < kernels; k++) step<<<132, 256, 0, s>>> (buf, k);
    return cudaStreamEndCapture (s, g);
  };
  cudaGraph_t gk, g1, gd, gl;
  cudaGraphExec_t ek, e1, ed, el;
  CK (capture (K, &gk)); CK (cudaGraphInstantiate (&ek, gk, 0)); CK (cudaGraphUpload (ek, s));
  CK (capture (1, &g1)); CK (cudaGraphInstantiate (&e1, g1, 0)); CK (cudaGraphUpload (e1, s));
  CK (capture (K, &gd)); CK (cudaGraphInstantiate (&ed, gd, cudaGraphInstantiateFlagDeviceLaunch)); CK (cudaGraphUpload (ed, s));
  CK (cudaStreamBeginCapture (s, cudaStreamCaptureModeThreadLocal));
  launcher<<<1, 1, 0, s>>> (ed);
  CK (cudaStreamEndCapture (s, &gl)); CK (cudaGraphInstantiate (&el, gl, 0)); CK (cudaGraphUpload (el, s));
  CK (cudaStreamSynchronize (s));
  const char *names[3] = { "host-launched graph of K kernels", "one-kernel graph (floor)", "one-kernel graph tail-launching the K-kernel device graph" };
  cudaGraphExec_t ex[3] = { ek, e1, el };
  for (int paced = 1; paced >= 0; paced--) {
    std::vector<double> launch[3], total[3];
    for (int i = 0; i < N + 50; i++)
      for (int m = 0; m < 3; m++) {
        if (paced) std::this_thread::sleep_for (std::chrono::milliseconds (1));
        const auto t0 = Clock::now ();
        CK (cudaGraphLaunch (ex[m], s));
        const auto t1 = Clock::now ();
        CK (cudaStreamSynchronize (s));
        const auto t2 = Clock::now ();
        if (i >= 50) { launch[m].push_back (us (t0, t1)); total[m].push_back (us (t0, t2)); }
      }
    for (int m = 0; m < 3; m++)
      std::printf ("%s K=%d %-58s launch median %.2f p90 %.2f us | launch to done median %.2f us\n", paced ? "paced" : "hot  ", K,
          names[m], pct (launch[m], 0.5), pct (launch[m], 0.9), pct (total[m], 0.5));
  }
  // the results: every launch added sum(k) to each element (K-kernel graphs) or 0 (the floor)
  std::vector<int> h (132 * 256);
  CK (cudaMemcpy (h.data (), buf, h.size () * sizeof (int), cudaMemcpyDeviceToHost));
  const long long per = (long long) K * (K - 1) / 2, launches = 4LL * (N + 50);  // ek and el, both passes
  std::printf ("check: element 0 = %d, expected %lld\n", h[0], per * launches % (1LL << 32));
  return 0;
}
