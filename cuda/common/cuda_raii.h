/* cudavision — RAII owners for CUDA resources.
 *
 * Each owner is created in the CUDA context current on the calling thread
 * (the element pushes its GstCudaContext first) and must be destroyed with
 * that context current too: the element's stop() does so.
 */
#pragma once

#include "cuda_check.h"

#include <cstddef>
#include <cstdint>
#include <utility>

namespace cudavision {

/* One stream per element instance: work of different elements overlaps,
 * and no call on the hot path synchronizes the whole device. */
class Stream {
public:
  Stream () = default;
  ~Stream () { reset (); }
  Stream (const Stream &) = delete;
  Stream & operator= (const Stream &) = delete;
  Stream (Stream && o) noexcept : s_ (std::exchange (o.s_, nullptr)) {}

  CudaStatus create ();
  void reset ();
  cudaStream_t get () const { return s_; }
  CudaStatus synchronize () const;

private:
  cudaStream_t s_ = nullptr;
};

class Event {
public:
  Event () = default;
  ~Event () { reset (); }
  Event (const Event &) = delete;
  Event & operator= (const Event &) = delete;
  Event (Event && o) noexcept : e_ (std::exchange (o.e_, nullptr)) {}

  /* timing=false gives the cheap kind used for cross-stream ordering. */
  CudaStatus create (bool timing = false);
  void reset ();
  cudaEvent_t get () const { return e_; }

private:
  cudaEvent_t e_ = nullptr;
};

/* Bumped by every DeviceBuffer and PinnedBuffer allocation and free, in
 * any thread: captured graphs (captured_graphs.h) hold buffer addresses
 * and are valid only while it stays the same. */
uint64_t allocation_generation ();

/* A linear device allocation; images inside it carry their own pitch. */
class DeviceBuffer {
public:
  DeviceBuffer () = default;
  ~DeviceBuffer () { reset (); }
  DeviceBuffer (const DeviceBuffer &) = delete;
  DeviceBuffer & operator= (const DeviceBuffer &) = delete;
  DeviceBuffer (DeviceBuffer && o) noexcept
      : p_ (std::exchange (o.p_, nullptr)), size_ (std::exchange (o.size_, 0)) {}
  DeviceBuffer & operator= (DeviceBuffer && o) noexcept {
    if (this != &o) {
      reset ();
      p_ = std::exchange (o.p_, nullptr);
      size_ = std::exchange (o.size_, 0);
    }
    return *this;
  }

  CudaStatus allocate (size_t bytes);
  /* Keeps the allocation when it is already large enough. */
  CudaStatus ensure (size_t bytes) { return bytes <= size_ ? CudaStatus {} : allocate (bytes); }
  void reset ();
  void *get () const { return p_; }
  template <typename T> T *as () const { return static_cast<T *> (p_); }
  size_t size () const { return size_; }

private:
  void *p_ = nullptr;
  size_t size_ = 0;
};

/* Page-locked host memory: the staging area for host maps of device frames,
 * so downloads run at full PCIe speed. */
class PinnedBuffer {
public:
  PinnedBuffer () = default;
  ~PinnedBuffer () { reset (); }
  PinnedBuffer (const PinnedBuffer &) = delete;
  PinnedBuffer & operator= (const PinnedBuffer &) = delete;

  CudaStatus allocate (size_t bytes);
  void reset ();
  void *get () const { return p_; }
  size_t size () const { return size_; }

private:
  void *p_ = nullptr;
  size_t size_ = 0;
};

/* Row pitch for device images: rows start 256-byte aligned so that 16-byte
 * vector loads are always aligned and rows are coalesced. */
constexpr size_t kPitchAlignment = 256;
inline size_t
aligned_pitch (size_t row_bytes)
{
  return (row_bytes + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment;
}

}  // namespace cudavision
