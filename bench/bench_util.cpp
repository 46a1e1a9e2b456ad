#include "bench_util.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <stdexcept>

namespace cvbench {

void
check (cudaError_t e, const char *what)
{
  if (e != cudaSuccess) {
    std::fprintf (stderr, "%s: %s\n", what, cudaGetErrorString (e));
    std::exit (1);
  }
}

Timing
time_segments (cudaStream_t stream, int warmup, int iters,
    const std::function<void (int, cudaEvent_t, cudaEvent_t)> & launch)
{
  for (int i = 0; i < warmup; i++)
    launch (i, nullptr, nullptr);
  std::vector<cudavision::Event> ev (2 * iters);
  for (auto & e : ev)
    check (e.create (true).err, "event");
  for (int i = 0; i < iters; i++)
    launch (warmup + i, ev[2 * i].get (), ev[2 * i + 1].get ());
  check (cudaStreamSynchronize (stream), "sync");
  check (cudaGetLastError (), "launch");
  return event_timing (ev);
}

Timing
event_timing (const std::vector<cudavision::Event> & ev)
{
  const size_t iters = ev.size () / 2;
  if (iters == 0)
    return {};
  std::vector<double> us (iters);
  for (size_t i = 0; i < iters; i++) {
    float ms = 0;
    check (cudaEventElapsedTime (&ms, ev[2 * i].get (), ev[2 * i + 1].get ()), "elapsed");
    us[i] = ms * 1000.0;
  }
  std::sort (us.begin (), us.end ());
  return { us[iters / 2], us[iters / 10], us[iters * 9 / 10] };
}

Timing
time_launches (cudaStream_t stream, int warmup, int iters, const std::function<void (int)> & launch)
{
  return time_segments (stream, warmup, iters, [&] (int i, cudaEvent_t start, cudaEvent_t stop) {
    if (start)
      check (cudaEventRecord (start, stream), "record");
    launch (i);
    if (stop)
      check (cudaEventRecord (stop, stream), "record");
  });
}

int
rotation_count (size_t bytes)
{
  int dev = 0, l2 = 0;
  cudaGetDevice (&dev);
  cudaDeviceGetAttribute (&l2, cudaDevAttrL2CacheSize, dev);
  const size_t want = 3 * (size_t) l2;
  return (int) std::max<size_t> (2, (want + bytes - 1) / std::max<size_t> (bytes, 1));
}

std::vector<cudavision::DeviceBuffer>
random_buffers (int count, size_t bytes, unsigned seed)
{
  std::vector<cudavision::DeviceBuffer> out (count);
  std::vector<uint8_t> host (bytes);
  std::mt19937 rng (seed);
  for (int i = 0; i < count; i++) {
    for (auto & b : host)
      b = (uint8_t) rng ();
    check (out[i].allocate (bytes).err, "cudaMalloc");
    check (cudaMemcpy (out[i].get (), host.data (), bytes, cudaMemcpyHostToDevice), "upload");
  }
  /* pageable uploads may still be in flight on the legacy stream */
  check (cudaStreamSynchronize (0), "sync");
  return out;
}

double
copy_bandwidth_gbs (cudaStream_t stream, size_t bytes, int iters, double * median_us)
{
  const int n = rotation_count (bytes);
  auto src = random_buffers (n, bytes, 1);
  auto dst = random_buffers (n, bytes, 2);
  Timing t = time_launches (stream, 10, iters, [&] (int i) {
    check (cudaMemcpyAsync (dst[i % n].get (), src[i % n].get (), bytes, cudaMemcpyDeviceToDevice, stream), "copy");
  });
  if (median_us)
    *median_us = t.median_us;
  return 2.0 * bytes / (t.median_us * 1e3);
}

cudavision::BlockSizing
parse_mode (const std::string & s)
{
  if (s == "static")
    return cudavision::BlockSizing::Static;
  if (s == "model")
    return cudavision::BlockSizing::Model;
  if (s == "empirical-table" || s == "table")
    return cudavision::BlockSizing::EmpiricalTable;
  throw std::invalid_argument ("unknown mode " + s);
}

}  // namespace cvbench
