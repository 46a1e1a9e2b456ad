/* cudavision benchmarks — what the soak (bench/soak.cpp) and many-stream
 * (bench/streams.cpp) programs feed their pipelines and how they watch
 * them: a few frames of real, moving content, uploaded once as device
 * frames (or kept in system memory), pushed again and again through appsrc;
 * a pipeline around a chain of elements with probes that count frames and
 * time each element; the process's resident memory and the device memory
 * in use. */
#pragma once

#include <gst/gst.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/video/video.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace cvbench {

/* `count` frames of `format` at w x h: the picture at `image` (decoded by
 * GStreamer; tests/data/grace_hopper.jpg, a face, edges and corners, when
 * empty), scaled to cover the frame and moved 2 pixels right and 1 down
 * per frame (motion for cudaflow). In device memory of `ctx` (uploaded
 * now, so a timed run makes no host copies) or, with ctx null, in system
 * memory. The buffers are the caller's. */
std::vector<GstBuffer *> make_frames (GstCudaContext * ctx, GstVideoFormat format, int w, int h, int count,
    const std::string & image = "");
std::string frames_caps (GstVideoFormat format, int w, int h, bool device);

/* Resident set size of this process, MiB. */
double resident_mib ();
/* Device memory in use on the current device (all processes), MiB; the
 * context must be current. */
double device_used_mib ();

double percentile (std::vector<double> v, double p);

/* `s` cut at `sep`, each part without surrounding spaces, empty parts
 * dropped: the benchmarks' lists ("1,2,4", "a ! b"). */
std::vector<std::string> split_list (const std::string & s, char sep);

/* A pipeline "appsrc ! CHAIN ! [video/x-raw !] fakesink" fed copies of
 * `frames` (sharing their memory). Host time of every element of the
 * chain, from its sink pad to its source pad (its transform and the
 * buffer handling around it, not downstream), is recorded per frame; so
 * is the arrival of every frame at the sink.
 *
 * The bus is read as an application reads it (gst-launch-1.0 blocks on
 * it; a main loop's watch sleeps in poll ()): a thread of its own waits
 * for messages, keeps the first error and EOS, and drops the rest (the
 * elements' messages). A thread polling the bus in a loop instead holds
 * the bus's queue lock that every post takes, which no application does
 * (cudavision-bench-message --reader spin against blocking: each post
 * some 6 µs dearer on the 2-core development machine, no dearer on the
 * 16-core GPU machine; docs/RELIABILITY.md). */
class ChainRun {
public:
  /* `chain`: gst-launch syntax; `system_out`: end in system memory
   * (download). The context (may be null) is set on the pipeline. */
  ChainRun (const std::string & chain, const std::string & caps, GstCudaContext * ctx, bool system_out);
  ~ChainRun ();
  bool ok () const { return pipe_ != nullptr; }
  const std::string & description () const { return desc_; }

  bool start ();
  /* Pushes frame i (a copy of frames[i % n]) with timestamp i/30 s;
   * blocks while appsrc holds a few frames. False once the pipeline has
   * failed. */
  bool push (const std::vector<GstBuffer *> & frames, guint64 i);
  /* EOS, then waits for it (or an error). */
  bool finish (int timeout_s = 600);
  void stop ();

  /* First error on the bus, "" if none (non-blocking: what the bus
   * thread has read). */
  std::string error ();
  guint64 frames_out () const;
  /* Arrival times at the sink, steady clock, seconds since start(). */
  std::vector<double> arrivals ();
  /* Per element (in chain order): host microseconds per frame. */
  std::vector<std::pair<std::string, std::vector<double>>> element_times ();
  /* Called in the streaming thread for every frame at the sink, with the
   * frame's number (0-based): the soak program samples memory there. */
  void on_frame (std::function<void (guint64)> f) { on_frame_ = std::move (f); }
  /* Elements of the chain, in order. */
  std::vector<GstElement *> elements () const { return elements_; }
  /* Frames the chain holds back (the elements' latency-frames): frame i
   * leaves once frame i + held_frames () has entered. */
  guint64 held_frames () const;

private:
  struct Probe;
  static GstPadProbeReturn sink_probe (GstPad *, GstPadProbeInfo *, gpointer);
  static GstPadProbeReturn src_probe (GstPad *, GstPadProbeInfo *, gpointer);
  static void handoff (GstElement *, GstBuffer *, GstPad *, gpointer);
  void read_bus ();

  std::string desc_;
  GstElement *pipe_ = nullptr, *src_ = nullptr, *sink_ = nullptr;
  GstBus *bus_ = nullptr;
  std::vector<GstElement *> elements_;
  std::vector<std::unique_ptr<Probe>> probes_;
  std::chrono::steady_clock::time_point t0_;
  mutable std::mutex lock_;
  std::vector<double> arrivals_;
  std::atomic<guint64> out_ { 0 };  /* read in a loop by the feeding thread: no lock */
  std::function<void (guint64)> on_frame_;
  /* the bus thread's findings, under bus_lock_ */
  std::mutex bus_lock_;
  std::condition_variable bus_cond_;
  std::string error_;
  bool eos_ = false;
  std::atomic<bool> bus_quit_ { false };
  std::thread bus_thread_;
};

}  // namespace cvbench
