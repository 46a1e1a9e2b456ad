/* cudavision — block-sizing=auto: an online block-size tuner.
 *
 * During the first frames of every (kernel, size), each frame's launches
 * of it take the next shape of a short candidate list (auto_candidates)
 * and are timed; once every candidate has enough samples, the one with the
 * lowest median wins and is used from then on, with no more timing. A
 * sample is a frame's time in the key: a kernel launched more than once a
 * frame with the same key (the face search's batches of levels at 4K) has
 * every launch of that frame take the same candidate and their times
 * added, so that each candidate is timed on the same work (launch by
 * launch, three batches and three candidates gave each candidate always
 * the same batch).
 *
 * No host waits. A launch is timed from a mark (a timestamp queued on the
 * element's stream, a CUDA event) queued when its shape is chosen, to the
 * next mark: the choice of the next launch, or the end of the element's
 * frame. Marks are read later, when the device has passed them: every call
 * first collects the finished ones (cudaEventQuery, which returns "not
 * ready" instead of waiting, then cudaEventElapsedTime) and leaves the rest for the next frame.
 * So a segment covers the kernel plus whatever its launcher queues after it
 * on the stream; that is the same for every candidate, so the ranking holds.
 *
 * Pure C++: the clock is an AutoTimer, CUDA events in the elements
 * (cuda/event_timer.h), a fake one in the unit tests. Thread-safe. */
#pragma once

#include "launch_policy.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace cudavision {

class TuningTable;

/* Timestamps on one stream, read without waiting for the device. */
class AutoTimer {
public:
  using Mark = unsigned long;
  enum class Poll { Ready, NotReady, Failed };

  virtual ~AutoTimer () = default;
  /* Queues a timestamp behind all the work queued so far; false when that
   * failed (the launch is then not timed). */
  virtual bool record (Mark * out) = 0;
  /* Microseconds from `from` to `to` when the device has passed both;
   * NotReady otherwise. Must never block. */
  virtual Poll elapsed_us (Mark from, Mark to, double *us) = 0;
  /* The mark is not asked about again; its resources may be reused. */
  virtual void release (Mark m) = 0;
};

struct AutoTunerConfig {
  /* Untimed frames per (kernel, size) before the trials (for a kernel
   * launched once a frame, launches): the first launch of a kernel may
   * carry one-time costs (module loading). */
  int warmup_launches = 1;
  /* Timed frames per candidate; the median decides. */
  int samples_per_candidate = 4;
  /* Medians within this fraction of the fastest tie; the earlier candidate
   * in the list (the table's, then the model's) wins a tie. */
  double tie_tolerance = 0.01;
  /* Measurements queued and not yet read, at most: beyond, launches wait
   * (untimed) for the device to catch up rather than queue more marks. */
  size_t max_pending = 256;
  /* Failed measurements re-run, per (kernel, size), before settling on
   * what has been measured. */
  int max_failures = 16;
};

/* What auto mode settled on for one kernel and size. */
struct AutoResult {
  std::string kernel;
  long width = 0;
  long height = 0;
  BlockShape block;
  double median_us = 0;  /* the winner's median segment time */
  int samples = 0;       /* the winner's samples */
};

class AutoTuner {
public:
  enum class Phase {
    Warmup,   /* the first launches of a key: the first candidate, untimed */
    Trial,    /* a candidate under test: this launch is timed */
    Waiting,  /* all trials queued, some not read yet: the best so far, untimed */
    Settled,  /* the winner, untimed */
  };
  struct Choice {
    BlockShape block;
    Phase phase = Phase::Settled;
  };

  explicit AutoTuner (std::unique_ptr<AutoTimer> timer, AutoTunerConfig cfg = {});
  /* Releases every mark still held (for CUDA events: with the context
   * current). */
  ~AutoTuner ();
  AutoTuner (const AutoTuner &) = delete;
  AutoTuner & operator= (const AutoTuner &) = delete;

  /* The shape for a launch of `kernel` on width x height work, about to be
   * queued. `candidates` (the list to try, best guess first) is asked once,
   * on the first launch of that key; an empty list gets 32x1. Ends the
   * timing of the previous launch and, for a trial, starts this one's.
   * Launches of a key between two end_frame () calls are one trial. */
  Choice on_choose (const std::string & kernel, long width, long height,
      const std::function<std::vector<BlockShape> ()> & candidates);
  /* A launch that is not timed (a fixed-shape kernel) is about to be
   * queued: ends the timing of the launch before it. */
  void on_untimed_launch ();
  /* The element has queued all of a frame's work: ends the open timing
   * and the frame's trials. */
  void end_frame ();
  /* Reads the finished measurements and settles what can be settled;
   * never waits. The calls above do it first. */
  void poll ();

  bool settled (const std::string & kernel, long width, long height) const;
  /* True when every key seen so far has settled. */
  bool all_settled () const;
  /* True once some key was seen, every key seen has settled and no
   * measurement is open or pending: launches then take their settled
   * shapes with no timing, so they may be captured and replayed. */
  bool quiet () const;
  /* Settled keys, in key order. */
  std::vector<AutoResult> results () const;
  /* The list being tried for a key (empty if never launched). */
  std::vector<BlockShape> candidates (const std::string & kernel, long width, long height) const;
  /* Launches of a key so far. */
  int launches (const std::string & kernel, long width, long height) const;
  /* Measurements queued and not read yet. */
  size_t pending () const;

  /* Receives one line per settled key (and per give-up), at debug level. */
  void set_logger (LaunchPolicy::Logger l);

private:
  struct Key {
    std::string kernel;
    long width, height;
    bool operator< (const Key & o) const;
  };
  /* One frame's timing of a candidate: its segments' sum once all are
   * read and the frame has ended. */
  struct Trial {
    size_t cand = 0;
    unsigned long long frame = 0;
    double sum_us = 0;
    int outstanding = 0;  /* segments opened and not read yet */
    bool failed = false;
  };
  struct State {
    std::vector<BlockShape> cands;
    std::vector<std::vector<double>> samples;  /* per candidate */
    std::vector<int> issued;                   /* trials started, per candidate */
    std::vector<Trial> trials;                 /* started, not complete yet */
    int launches = 0;
    int frames = 0;                            /* frames the key was launched in */
    unsigned long long frame = ~0ull;          /* the last of them */
    bool untimed_frame = false;                /* that frame's launches are not timed */
    int failures = 0;
    size_t next = 0;                           /* round robin over the candidates */
    bool settled = false;
    size_t winner = 0;
    double winner_us = 0;
  };
  struct Pending {
    Key key;
    size_t cand;
    AutoTimer::Mark start, end;
    unsigned long long frame;
  };
  struct Open {
    Key key;
    size_t cand;
    AutoTimer::Mark start;
    unsigned long long frame;
  };

  void poll_locked ();
  /* Reads what is finished, then ends the open segment (untimed launch,
   * end of frame). */
  void end_open_locked ();
  /* Ends the open segment; *end receives its end mark (held once more for
   * the caller) when there was one. */
  bool close_open (AutoTimer::Mark * end);
  void hold (AutoTimer::Mark m);
  void drop (AutoTimer::Mark m);
  void try_settle (const Key & key, State & st);
  /* A segment of the trial of `frame` read (us >= 0) or lost (us < 0). */
  void segment_done (State & st, unsigned long long frame, double us);
  /* Trials of ended frames with every segment read become samples (or,
   * failed, are run again). */
  void complete_trials (State & st);
  size_t best_so_far (const State & st) const;

  std::unique_ptr<AutoTimer> timer_;
  AutoTunerConfig cfg_;
  mutable std::mutex lock_;
  std::map<Key, State> states_;
  std::vector<Pending> pending_;
  std::optional<Open> open_;
  std::map<AutoTimer::Mark, int> holds_;
  unsigned long long frame_ = 0;  /* end_frame () calls so far */
  LaunchPolicy::Logger logger_;
};

/* The short list auto mode tries for one launch, in this order (which
 * breaks ties): the tuning table's entry for this GPU, kernel and size when
 * there is one, the model's three best shapes, and the kernel's static
 * default; each clamped as any shape is, duplicates removed. Never empty. */
std::vector<BlockShape> auto_candidates (const DeviceDescription & dev, const KernelResources & res,
    const KernelTraits & k, long width, long height, const TuningTable * table);

/* The median of a list of samples (the mean of the middle two for an even
 * count); 0 for none. */
double median_of (std::vector<double> v);

}  // namespace cudavision
