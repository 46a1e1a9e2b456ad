/* cudavision-tune — the registry and the random input frames. */
#include "tunable.h"

#include <algorithm>
#include <cstring>
#include <vector>

using namespace cudavision;

namespace cvtune {

namespace {

std::vector<Tunable> &
registry ()
{
  static std::vector<Tunable> r;
  return r;
}

/* xorshift64*: fast enough to fill a few hundred MB at start-up. */
struct Rng {
  uint64_t s;
  uint64_t next ()
  {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 0x2545F4914F6CDD1DULL;
  }
};

CudaStatus
fill (DeviceBuffer & arena, size_t bytes, uint64_t seed, bool floats)
{
  CV_CUDA_TRY (arena.allocate (bytes).err);
  /* Uploaded in chunks through one host buffer. */
  const size_t chunk = 16u << 20;
  std::vector<uint8_t> host (chunk);
  Rng rng { seed * 0x9E3779B97F4A7C15ULL + 1 };
  for (size_t off = 0; off < bytes; off += chunk) {
    const size_t n = std::min (chunk, bytes - off);
    if (floats) {
      float *f = reinterpret_cast<float *> (host.data ());
      for (size_t i = 0; i < n / 4; i++)
        f[i] = (float) ((double) (rng.next () >> 11) * (2.0 / 9007199254740992.0) - 1.0);
    } else {
      for (size_t i = 0; i + 8 <= n; i += 8) {
        const uint64_t v = rng.next ();
        std::memcpy (&host[i], &v, 8);
      }
    }
    CV_CUDA_TRY (cudaMemcpy (static_cast<uint8_t *> (arena.get ()) + off, host.data (), n, cudaMemcpyHostToDevice));
  }
  /* from pageable memory a copy may return before its DMA lands, and the
   * timed launches go on a non-blocking stream that does not wait for the
   * legacy default stream */
  CV_CUDA_TRY (cudaStreamSynchronize (nullptr));
  return {};
}

size_t
frame_bytes (int width, int height, int bpp)
{
  return aligned_pitch ((size_t) width * bpp) * (size_t) height;
}

}  // namespace

RegisterTunable::RegisterTunable (Tunable t)
{
  auto & r = registry ();
  r.push_back (std::move (t));
  std::sort (r.begin (), r.end (), [] (const Tunable & a, const Tunable & b) { return a.name < b.name; });
}

const std::vector<Tunable> &
tunables ()
{
  return registry ();
}

CudaStatus
TuneInputs::init (size_t max_frame_bytes)
{
  int dev = 0, l2 = 0;
  CV_CUDA_TRY (cudaGetDevice (&dev));
  CV_CUDA_TRY (cudaDeviceGetAttribute (&l2, cudaDevAttrL2CacheSize, dev));
  arena_bytes_ = std::max<size_t> (3 * (size_t) l2, 2 * max_frame_bytes);
  arena_bytes_ = (arena_bytes_ + 4095) / 4096 * 4096;
  CudaStatus s = fill (in_, arena_bytes_, 1, false);
  if (s.ok ())
    s = fill (out_, arena_bytes_, 2, false);
  if (s.ok ())
    s = fill (f32_, arena_bytes_, 3, true);
  return s;
}

uint8_t *
TuneInputs::frame (const DeviceBuffer & arena, size_t bytes) const
{
  /* Consecutive iterations take consecutive frames of the arena, so the
   * whole arena (> L2) passes between two uses of one frame. */
  const size_t count = std::max<size_t> (1, arena_bytes_ / std::max<size_t> (bytes, 1));
  return static_cast<uint8_t *> (arena.get ()) + (size_t) (iteration_ % (long) count) * bytes;
}

ConstImage8
TuneInputs::src8 (int width, int height, int bpp) const
{
  const size_t pitch = aligned_pitch ((size_t) width * bpp);
  return { frame (in_, frame_bytes (width, height, bpp)), pitch, width, height };
}

Image8
TuneInputs::dst8 (int width, int height, int bpp) const
{
  const size_t pitch = aligned_pitch ((size_t) width * bpp);
  return { frame (out_, frame_bytes (width, height, bpp)), pitch, width, height };
}

ImageView<const float>
TuneInputs::src_f32 (int width, int height) const
{
  const size_t pitch = aligned_pitch ((size_t) width * sizeof (float));
  return { reinterpret_cast<const float *> (frame (f32_, pitch * height)), pitch, width, height };
}

DeviceBuffer &
TuneInputs::scratch (const std::string & name, size_t bytes)
{
  DeviceBuffer & b = scratch_[name];
  if (!b.ensure (bytes).ok ())
    cudaGetLastError ();  /* the launch that needs it reports the error */
  return b;
}

void
TuneInputs::release_state ()
{
  scratch_.clear ();
  objects_.clear ();
}

std::vector<const Tunable *>
tuning_order (std::vector<const Tunable *> ts)
{
  std::vector<const Tunable *> ordered;
  auto pending = [&] (const std::string & name) {
    return std::any_of (ts.begin (), ts.end (), [&] (const Tunable *u) { return u->name == name; });
  };
  while (!ts.empty ()) {
    auto it = std::find_if (ts.begin (), ts.end (), [&] (const Tunable *t) {
      return std::none_of (t->tuned_with.begin (), t->tuned_with.end (),
          [&] (const std::string & d) { return d != t->name && pending (d); });
    });
    if (it == ts.end ())
      it = ts.begin ();  /* a cycle: the order given */
    ordered.push_back (*it);
    ts.erase (it);
  }
  return ordered;
}

}  // namespace cvtune
