/* cudavision — a launcher's frame work replayed from captured CUDA graphs.
 *
 * FrameGraph (frame_graph.h) suits launchers whose launches it can list
 * one by one. The Harris detection and the face search also run CUB and a
 * cooperative launch, so they are captured from the stream instead: the
 * frame's work runs under stream capture once, and later frames with the
 * same key (the input pointer, the sizes, the parameters: everything the
 * sequence and its arguments depend on) launch the instantiated graph, one
 * launch instead of ten to twenty. With video frames from a pool the input
 * pointers repeat, so a few graphs serve a whole stream.
 *
 * A graph holds the addresses of the scratch buffers it was captured with:
 * any device or pinned allocation since (allocation_generation ()) drops
 * every graph, and a key is captured only when it comes again with no
 * allocation in between, so that the capture itself never allocates (its
 * first run launches directly and sizes the buffers). Host state the work
 * sets must not matter to the replay: keep it out of `work`. A capture
 * that fails (a call that cannot be captured) turns the cache off:
 * everything launches directly from then on.
 * CUDAVISION_GRAPHS=0 turns replays off, as for FrameGraph. */
#pragma once

#include "cuda_check.h"
#include "cuda_raii.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

namespace cudavision {

class CapturedGraphs {
public:
  CapturedGraphs () = default;
  ~CapturedGraphs () { clear (); }
  CapturedGraphs (const CapturedGraphs &) = delete;
  CapturedGraphs & operator= (const CapturedGraphs &) = delete;

  /* A key: plain bytes of the values `work` depends on. */
  class Key {
  public:
    /* room for a launcher's usual key: no reallocations per frame */
    Key () { bytes_.reserve (256); }
    template <typename T> Key & add (const T & v)
    {
      const size_t at = bytes_.size ();
      bytes_.resize (at + sizeof (T));
      std::memcpy (bytes_.data () + at, &v, sizeof (T));
      return *this;
    }
    bool operator== (const Key & o) const { return bytes_ == o.bytes_; }

  private:
    std::vector<uint8_t> bytes_;
  };

  /* Runs `work` on `stream`: replays the graph of `key`, captures it (then
   * launches it), or calls work (stream) directly. With `enabled` false
   * always directly. */
  CudaStatus run (const Key & key, cudaStream_t stream, bool enabled,
      const std::function<CudaStatus (cudaStream_t)> & work);

  /* Destroys every graph (the context must be current). */
  void clear ();

  /* What the last capture recorded, by node type: memset, memcpy and
   * event nodes make a graph's launch dearer than kernel nodes do (whose
   * number changes it little, docs/RELIABILITY.md), so tests hold
   * launchers to the nodes they mean to have. */
  struct Shape {
    unsigned nodes = 0, kernels = 0, memsets = 0, memcpys = 0, events = 0;
  };
  const Shape & last_shape () const { return last_shape_; }

private:
  struct Entry {
    Key key;
    cudaGraphExec_t exec = nullptr;  /* null: seen once, not captured yet */
    uint64_t last_use = 0;
  };
  CudaStatus capture (Entry & e, cudaStream_t stream, const std::function<CudaStatus (cudaStream_t)> & work);

  std::vector<Entry> entries_;
  uint64_t generation_ = 0;  /* allocation_generation () the entries are valid for */
  uint64_t uses_ = 0;
  bool broken_ = false;      /* a capture failed: launch directly from now on */
  Shape last_shape_;
};

/* Records `event` on `stream` from inside CapturedGraphs::run's work:
 * under capture an event node of the graph (the external kind, refused
 * outside a capture), so that a replay records it without a host call of
 * its own; else recorded now. */
CudaStatus record_in_work (cudaEvent_t event, cudaStream_t stream);

}  // namespace cudavision
