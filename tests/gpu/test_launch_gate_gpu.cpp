/* cudavision-tune's LaunchGate (bench/launch_gate.h) on the GPU: a held
 * gate keeps the stream's work from running until it is released, and a
 * host that waits on a held stream gets its wait back after the timeout
 * (no hang), with release () saying so. Skips (exit 77) without a CUDA
 * device. */
#include "../../bench/launch_gate.h"
#include "../../cuda/common/cuda_raii.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

using namespace cudavision;

namespace {

struct GateStream {
  Stream stream;
  Event done;
  GateStream ()
  {
    EXPECT_TRUE (stream.create ().ok ());
    EXPECT_TRUE (done.create ().ok ());
  }
};

}  // namespace

TEST (LaunchGate, HoldsTheStreamUntilReleased)
{
  GateStream g;
  cvbench::LaunchGate gate (2000.0);
  ASSERT_TRUE (gate.ok ());
  for (int round = 0; round < 3; round++) {
    ASSERT_EQ (gate.hold (g.stream.get ()), cudaSuccess);
    ASSERT_EQ (cudaEventRecord (g.done.get (), g.stream.get ()), cudaSuccess);
    std::this_thread::sleep_for (std::chrono::milliseconds (20));
    EXPECT_EQ (cudaEventQuery (g.done.get ()), cudaErrorNotReady) << "round " << round << ": the gate let work through";
    EXPECT_TRUE (gate.release ()) << "round " << round;
    EXPECT_EQ (cudaStreamSynchronize (g.stream.get ()), cudaSuccess);
    EXPECT_EQ (cudaEventQuery (g.done.get ()), cudaSuccess);
  }
}

/* The host runs ahead of the GPU by several gates (the tuner queues its
 * next turn while the GPU runs the last): every gate opens. */
TEST (LaunchGate, GatesQueuedAheadAllOpen)
{
  GateStream g;
  cvbench::LaunchGate gate (2000.0);
  ASSERT_TRUE (gate.ok ());
  const auto t0 = std::chrono::steady_clock::now ();
  for (int i = 0; i < 8; i++) {
    ASSERT_EQ (gate.hold (g.stream.get ()), cudaSuccess);
    EXPECT_TRUE (gate.release ());
  }
  ASSERT_EQ (cudaStreamSynchronize (g.stream.get ()), cudaSuccess);
  const double s = std::chrono::duration<double> (std::chrono::steady_clock::now () - t0).count ();
  EXPECT_LT (s, 1.0) << "a gate waited for its timeout though the host had opened a later one";
}

TEST (LaunchGate, AHostWaitEndsAtTheTimeout)
{
  GateStream g;
  cvbench::LaunchGate gate (50.0);
  ASSERT_TRUE (gate.ok ());
  ASSERT_EQ (gate.hold (g.stream.get ()), cudaSuccess);
  const auto t0 = std::chrono::steady_clock::now ();
  ASSERT_EQ (cudaStreamSynchronize (g.stream.get ()), cudaSuccess);
  const double ms = std::chrono::duration<double, std::milli> (std::chrono::steady_clock::now () - t0).count ();
  EXPECT_GE (ms, 40.0);
  EXPECT_LT (ms, 5000.0);
  EXPECT_FALSE (gate.release ()) << "the timeout went unnoticed";
  /* and the next gate works as before */
  ASSERT_EQ (gate.hold (g.stream.get ()), cudaSuccess);
  EXPECT_TRUE (gate.release ());
  EXPECT_EQ (cudaStreamSynchronize (g.stream.get ()), cudaSuccess);
}
