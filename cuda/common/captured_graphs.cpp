/* cudavision — captured CUDA graphs keyed by a launcher's inputs
 * (captured_graphs.h). */
#include "captured_graphs.h"

#include "frame_graph.h"

#include <algorithm>

namespace cudavision {

namespace {
/* Graphs kept per cache: a pool's frames (a handful of pointers) times the
 * sizes a stream switches between. */
constexpr size_t kMaxGraphs = 16;

CapturedGraphs::Shape
shape_of (cudaGraph_t graph)
{
  CapturedGraphs::Shape sh;
  size_t n = 0;
  if (cudaGraphGetNodes (graph, nullptr, &n) != cudaSuccess) {
    cudaGetLastError ();
    return sh;
  }
  std::vector<cudaGraphNode_t> nodes (n);
  if (n && cudaGraphGetNodes (graph, nodes.data (), &n) != cudaSuccess) {
    cudaGetLastError ();
    return sh;
  }
  sh.nodes = (unsigned) n;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType t = cudaGraphNodeTypeEmpty;
    if (cudaGraphNodeGetType (node, &t) != cudaSuccess) {
      cudaGetLastError ();
      continue;
    }
    switch (t) {
      case cudaGraphNodeTypeKernel: sh.kernels++; break;
      case cudaGraphNodeTypeMemset: sh.memsets++; break;
      case cudaGraphNodeTypeMemcpy: sh.memcpys++; break;
      case cudaGraphNodeTypeEventRecord:
      case cudaGraphNodeTypeWaitEvent: sh.events++; break;
      default: break;
    }
  }
  return sh;
}
}  // namespace

void
CapturedGraphs::clear ()
{
  for (Entry & e : entries_)
    if (e.exec)
      cudaGraphExecDestroy (e.exec);
  entries_.clear ();
}

CudaStatus
CapturedGraphs::capture (Entry & e, cudaStream_t stream, const std::function<CudaStatus (cudaStream_t)> & work)
{
  CV_CUDA_TRY (cudaStreamBeginCapture (stream, cudaStreamCaptureModeThreadLocal));
  const CudaStatus s = work (stream);
  cudaGraph_t graph = nullptr;
  const cudaError_t end = cudaStreamEndCapture (stream, &graph);
  if (!s.ok () || end != cudaSuccess) {
    if (graph)
      cudaGraphDestroy (graph);
    cudaGetLastError ();
    return s.ok () ? CudaStatus { end, "stream capture" } : s;
  }
  last_shape_ = shape_of (graph);
  const cudaError_t inst = cudaGraphInstantiate (&e.exec, graph, 0);
  cudaGraphDestroy (graph);
  if (inst != cudaSuccess) {
    e.exec = nullptr;
    cudaGetLastError ();
    return { inst, "graph instantiation" };
  }
  return {};
}

CudaStatus
CapturedGraphs::run (const Key & key, cudaStream_t stream, bool enabled,
    const std::function<CudaStatus (cudaStream_t)> & work)
{
  if (!enabled || broken_ || !frame_graphs_enabled ())
    return work (stream);
  if (allocation_generation () != generation_) {
    clear ();
    generation_ = allocation_generation ();
  }
  auto it = std::find_if (entries_.begin (), entries_.end (), [&] (const Entry & e) { return e.key == key; });
  if (it == entries_.end ()) {
    /* first sighting: run directly (it may size buffers), capture next time */
    if (entries_.size () >= kMaxGraphs) {
      auto lru = std::min_element (entries_.begin (), entries_.end (),
          [] (const Entry & a, const Entry & b) { return a.last_use < b.last_use; });
      if (lru->exec)
        cudaGraphExecDestroy (lru->exec);
      entries_.erase (lru);
    }
    Entry e;
    e.key = key;
    e.last_use = ++uses_;
    entries_.push_back (std::move (e));
    const CudaStatus s = work (stream);
    /* an allocation just now: the entries are stale, this key included */
    if (allocation_generation () != generation_) {
      clear ();
      generation_ = allocation_generation ();
    }
    return s;
  }
  it->last_use = ++uses_;
  if (!it->exec) {
    /* a capture only records: the frame's work runs when it is launched */
    const CudaStatus s = capture (*it, stream, work);
    if (!s.ok ()) {
      broken_ = true;  /* not capturable: direct from now on */
      clear ();
      return work (stream);
    }
    if (allocation_generation () != generation_) {
      /* an allocation meanwhile (another thread's, maybe): start again */
      clear ();
      generation_ = allocation_generation ();
      return work (stream);
    }
  }
  CV_CUDA_TRY (cudaGraphLaunch (it->exec, stream));
  return {};
}

CudaStatus
record_in_work (cudaEvent_t event, cudaStream_t stream)
{
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  CV_CUDA_TRY (cudaStreamIsCapturing (stream, &capture));
  CV_CUDA_TRY (cudaEventRecordWithFlags (event, stream,
      capture == cudaStreamCaptureStatusActive ? cudaEventRecordExternal : cudaEventRecordDefault));
  return {};
}

}  // namespace cudavision
