/* cudavision — a frame's launches replayed as one CUDA graph.
 *
 * An element launches the same few kernels every frame, with the same
 * grids; only some arguments change (the frame pointers). Each launch costs
 * the host a few microseconds in the driver, and that host time per frame
 * is what an element adds to a pipeline whose GPU is not busy
 * (docs/RELIABILITY.md, host time per element). So a launcher that issues
 * several kernels a frame can collect them in a FrameLaunches and hand
 * them to its FrameGraph: the first frame (or one whose sequence changed:
 * another kernel, grid, block or memset size) builds and instantiates a
 * graph of them, in order; later frames update the arguments of the nodes
 * whose arguments changed and launch the graph, one launch a frame. What
 * runs on the device is the same sequence as launching each on the stream.
 *
 * Not for block-sizing=auto: the auto tuner times each launch from its
 * choice to the next one, so those launchers keep launching directly
 * (FrameLaunches::launch_now). CUDAVISION_GRAPHS=0 in the environment turns
 * replays off everywhere (a switch for measuring and for bisecting).
 *
 * Only for .cu files: kernel () takes a __global__ function. */
#pragma once

#include "cuda_check.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstring>
#include <new>
#include <vector>

namespace cudavision {

/* False when CUDAVISION_GRAPHS=0 (read once). */
bool frame_graphs_enabled ();

class FrameLaunches {
public:
  /* Collected for a FrameGraph, or (launch_now) issued on `stream` as
   * they come, for callers that must launch each at once. */
  void reset_collect () { reset (false, nullptr); }
  void reset_launch_now (cudaStream_t stream) { reset (true, stream); }

  template <typename... P, typename... A>
  CudaStatus kernel (void (*f) (P...), dim3 grid, dim3 block, size_t smem, const A &... args)
  {
    return kernel_op (false, f, grid, block, smem, args...);
  }

  /* A kernel that may start while the kernel before it on the stream
   * still runs (programmatic dependent launch, compute capability 9.0 and
   * up; elsewhere an ordinary launch): it calls wait_for_previous_grid ()
   * (launch_util.cuh) before it reads anything the launches before it
   * wrote, and the kernel before it lets it start with allow_next_grid ().
   * What it saves is the gap between two kernels of a frame: the launch
   * and the blocks' start overlap the previous kernel's last blocks. */
  template <typename... P, typename... A>
  CudaStatus programmatic_kernel (void (*f) (P...), dim3 grid, dim3 block, size_t smem, const A &...args)
  {
    return kernel_op (true, f, grid, block, smem, args...);
  }

  CudaStatus memset (void *dst, int value, size_t bytes)
  {
    Op op;
    op.kind = Op::Memset;
    op.dst = dst;
    op.value = value;
    op.bytes = bytes;
    return add (op);
  }

  bool empty () const { return ops_.empty (); }

private:
  friend class FrameGraph;
  struct Op {
    enum Kind { Kernel, Memset } kind = Kernel;
    bool programmatic = false; /* programmatic_kernel () */
    const void *func = nullptr;
    dim3 grid, block;
    size_t smem = 0;
    size_t first_arg = 0, n_args = 0;   /* into offsets_ */
    size_t args_begin = 0, args_end = 0; /* into blob_ */
    void *dst = nullptr;
    int value = 0;
    size_t bytes = 0;
  };

  void reset (bool now, cudaStream_t stream);
  CudaStatus add (const Op & op);
  CudaStatus launch (const Op & op, cudaStream_t stream);
  /* op's kernelParams: pointers into blob_, valid until the next append */
  void **params (const Op & op);
  /* op as a graph node's parameters (kernel: with params (op)) */
  cudaKernelNodeParams kernel_node (const Op & op);
  static cudaMemsetParams memset_node (const Op & op);
  /* same kernel, grid, block, shared memory, or same memset size */
  static bool same_shape (const Op & a, const Op & b);

  template <typename... P, typename... A>
  CudaStatus kernel_op (bool programmatic, void (*f) (P...), dim3 grid, dim3 block, size_t smem, const A &...args)
  {
    static_assert (sizeof...(P) == sizeof...(A), "one argument per parameter");
    Op op;
    op.kind = Op::Kernel;
    op.programmatic = programmatic;
    op.func = (const void *) f;
    op.grid = grid;
    op.block = block;
    op.smem = smem;
    op.first_arg = offsets_.size ();
    op.args_begin = blob_.size ();
    (append<P> (static_cast<P> (args)), ...);
    op.n_args = offsets_.size () - op.first_arg;
    op.args_end = blob_.size ();
    return add (op);
  }

  template <typename T>
  void append (const T & v)
  {
    const size_t at = (blob_.size () + alignof (T) - 1) / alignof (T) * alignof (T);
    blob_.resize (at + sizeof (T));
    std::memcpy (blob_.data () + at, &v, sizeof (T));
    offsets_.push_back (at);
  }

  std::vector<Op> ops_;
  /* arguments, each at its type's alignment (the vector's storage is
   * aligned for any fundamental type) */
  std::vector<unsigned char> blob_;
  std::vector<size_t> offsets_;
  std::vector<void *> param_ptrs_;
  bool now_ = false;
  cudaStream_t stream_ = nullptr;
};

/* The graph of the last sequence, its instance, and the arguments it
 * holds. Destroy with the CUDA context current. */
class FrameGraph {
public:
  FrameGraph () = default;
  FrameGraph (const FrameGraph &) = delete;
  FrameGraph & operator= (const FrameGraph &) = delete;
  ~FrameGraph () { reset (); }

  /* Launches `l`'s sequence on `stream` as one graph (built or updated). */
  CudaStatus run (FrameLaunches & l, cudaStream_t stream);
  void reset ();
  /* builds so far: 1 for a steady sequence (tests, logs) */
  unsigned builds () const { return builds_; }

private:
  CudaStatus build (FrameLaunches & l);
  CudaStatus update (FrameLaunches & l);

  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  std::vector<cudaGraphNode_t> nodes_;
  FrameLaunches held_; /* the sequence and arguments exec_ runs */
  unsigned builds_ = 0;
};

}  // namespace cudavision
