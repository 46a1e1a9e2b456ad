/* cudavision — a frame's launches replayed as one CUDA graph (frame_graph.h). */
#include "frame_graph.h"

#include <atomic>
#include <cstdlib>

namespace cudavision {

namespace {

/* Programmatic dependent launches on the current device: compute
 * capability 9.0 and up (asked once a device). */
bool
programmatic_launches ()
{
  constexpr int kDevices = 64;
  static std::atomic<int> known[kDevices] = {}; /* 0 unknown, 1 no, 2 yes (elements on several threads) */
  int dev = 0;
  if (cudaGetDevice (&dev) != cudaSuccess || dev < 0 || dev >= kDevices)
    return false;
  int k = known[dev].load (std::memory_order_relaxed);
  if (!k) {
    int major = 0;
    cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor, dev);
    k = major >= 9 ? 2 : 1;
    known[dev].store (k, std::memory_order_relaxed);
  }
  return k == 2;
}

}  // namespace

bool
frame_graphs_enabled ()
{
  static const bool on = [] {
    const char *v = std::getenv ("CUDAVISION_GRAPHS");
    return !(v && v[0] == '0');
  }();
  return on;
}

void
FrameLaunches::reset (bool now, cudaStream_t stream)
{
  ops_.clear ();
  blob_.clear ();
  offsets_.clear ();
  now_ = now;
  stream_ = stream;
}

CudaStatus
FrameLaunches::add (const Op & op)
{
  ops_.push_back (op);
  if (now_)
    return launch (ops_.back (), stream_);
  return {};
}

void **
FrameLaunches::params (const Op & op)
{
  param_ptrs_.resize (op.n_args);
  for (size_t i = 0; i < op.n_args; i++)
    param_ptrs_[i] = blob_.data () + offsets_[op.first_arg + i];
  return param_ptrs_.data ();
}

cudaKernelNodeParams
FrameLaunches::kernel_node (const Op & op)
{
  cudaKernelNodeParams k {};
  k.func = (void *) op.func;
  k.gridDim = op.grid;
  k.blockDim = op.block;
  k.sharedMemBytes = (unsigned) op.smem;
  k.kernelParams = params (op);
  return k;
}

cudaMemsetParams
FrameLaunches::memset_node (const Op & op)
{
  cudaMemsetParams m {};
  m.dst = op.dst;
  m.value = (unsigned) (op.value & 0xff);
  m.elementSize = 1;
  m.width = op.bytes;
  m.height = 1;
  return m;
}

CudaStatus
FrameLaunches::launch (const Op & op, cudaStream_t stream)
{
  if (op.kind == Op::Memset) {
    CV_CUDA_TRY (cudaMemsetAsync (op.dst, op.value, op.bytes, stream));
    return {};
  }
  if (op.programmatic && programmatic_launches ()) {
    cudaLaunchAttribute attr {};
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config {};
    config.gridDim = op.grid;
    config.blockDim = op.block;
    config.dynamicSmemBytes = op.smem;
    config.stream = stream;
    config.attrs = &attr;
    config.numAttrs = 1;
    CV_CUDA_TRY (cudaLaunchKernelExC (&config, op.func, params (op)));
    return {};
  }
  CV_CUDA_TRY (cudaLaunchKernel (op.func, op.grid, op.block, params (op), op.smem, stream));
  return {};
}

bool
FrameLaunches::same_shape (const Op & a, const Op & b)
{
  if (a.kind != b.kind)
    return false;
  if (a.kind == Op::Memset)
    return a.bytes == b.bytes;
  return a.func == b.func && a.programmatic == b.programmatic && a.grid.x == b.grid.x && a.grid.y == b.grid.y &&
      a.grid.z == b.grid.z && a.block.x == b.block.x && a.block.y == b.block.y && a.block.z == b.block.z &&
      a.smem == b.smem && a.n_args == b.n_args && a.args_end - a.args_begin == b.args_end - b.args_begin;
}

void
FrameGraph::reset ()
{
  if (exec_)
    cudaGraphExecDestroy (exec_);
  if (graph_)
    cudaGraphDestroy (graph_);
  exec_ = nullptr;
  graph_ = nullptr;
  nodes_.clear ();
  held_.reset_collect ();
}

CudaStatus
FrameGraph::build (FrameLaunches & l)
{
  reset ();
  builds_++;
  CV_CUDA_TRY (cudaGraphCreate (&graph_, 0));
  cudaGraphNode_t prev = nullptr;
  bool prev_kernel = false;
  for (const FrameLaunches::Op & op : l.ops_) {
    cudaGraphNode_t node = nullptr;
    if (op.kind == FrameLaunches::Op::Memset) {
      const cudaMemsetParams m = FrameLaunches::memset_node (op);
      CV_CUDA_TRY (cudaGraphAddMemsetNode (&node, graph_, prev ? &prev : nullptr, prev ? 1 : 0, &m));
    } else {
      const cudaKernelNodeParams k = l.kernel_node (op);
      const bool early = op.programmatic && prev && prev_kernel && programmatic_launches ();
      CV_CUDA_TRY (
          cudaGraphAddKernelNode (&node, graph_, prev && !early ? &prev : nullptr, prev && !early ? 1 : 0, &k));
      if (early) {
        /* the edge of a programmatic launch: from the previous kernel's
         * trigger (allow_next_grid), not from its end */
        cudaGraphEdgeData edge {};
        edge.from_port = cudaGraphKernelNodePortProgrammatic;
        edge.type = cudaGraphDependencyTypeProgrammatic;
        CV_CUDA_TRY (cudaGraphAddDependencies (graph_, &prev, &node, &edge, 1));
      }
    }
    prev_kernel = op.kind == FrameLaunches::Op::Kernel;
    nodes_.push_back (node);
    prev = node;
  }
  CV_CUDA_TRY (cudaGraphInstantiate (&exec_, graph_, 0));
  return {};
}

CudaStatus
FrameGraph::update (FrameLaunches & l)
{
  for (size_t i = 0; i < l.ops_.size (); i++) {
    const FrameLaunches::Op & op = l.ops_[i], & was = held_.ops_[i];
    if (op.kind == FrameLaunches::Op::Memset) {
      if (op.dst == was.dst && op.value == was.value)
        continue;
      const cudaMemsetParams m = FrameLaunches::memset_node (op);
      CV_CUDA_TRY (cudaGraphExecMemsetNodeSetParams (exec_, nodes_[i], &m));
      continue;
    }
    if (std::memcmp (l.blob_.data () + op.args_begin, held_.blob_.data () + was.args_begin,
            op.args_end - op.args_begin) == 0)
      continue;
    const cudaKernelNodeParams k = l.kernel_node (op);
    CV_CUDA_TRY (cudaGraphExecKernelNodeSetParams (exec_, nodes_[i], &k));
  }
  return {};
}

CudaStatus
FrameGraph::run (FrameLaunches & l, cudaStream_t stream)
{
  if (l.ops_.empty ())
    return {};
  bool same = exec_ && l.ops_.size () == held_.ops_.size ();
  for (size_t i = 0; same && i < l.ops_.size (); i++)
    same = FrameLaunches::same_shape (l.ops_[i], held_.ops_[i]);
  CudaStatus s = same ? update (l) : build (l);
  if (!s.ok ()) {
    /* a half-updated or unbuilt graph is not run again */
    reset ();
    return s;
  }
  /* what exec_ now holds, for the next frame's comparison */
  held_.ops_ = l.ops_;
  held_.blob_ = l.blob_;
  held_.offsets_ = l.offsets_;
  CV_CUDA_TRY (cudaGraphLaunch (exec_, stream));
  return s;
}

}  // namespace cudavision
