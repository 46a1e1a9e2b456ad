/* cudavision — block-sizing=auto: the online tuner's state machine
 * (auto_tuner.h says how launches are timed without host waits). */
#include "auto_tuner.h"

#include "tuning_table.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>
#include <tuple>

namespace cudavision {

double
median_of (std::vector<double> v)
{
  if (v.empty ())
    return 0;
  std::sort (v.begin (), v.end ());
  const size_t m = v.size () / 2;
  return v.size () % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

std::vector<BlockShape>
auto_candidates (const DeviceDescription & dev, const KernelResources & res, const KernelTraits & k,
    long width, long height, const TuningTable * table)
{
  std::vector<BlockShape> out;
  auto add = [&] (BlockShape b) {
    b = clamp_block (b, dev, res);
    if (b.valid () && std::find (out.begin (), out.end (), b) == out.end ())
      out.push_back (b);
  };
  const std::string name = k.name ? k.name : "";
  if (table) {
    if (auto e = table->lookup (dev, name, width, height); e && e->block.valid ())
      add (e->block);
  }
  for (BlockShape b : model_ranked (dev, res, k, width, height, 3))
    add (b);
  add (k.static_block);
  if (out.empty ())
    out.push_back ({ (unsigned) (dev.warp_size > 0 ? dev.warp_size : 32), 1 });
  return out;
}

bool
AutoTuner::Key::operator< (const Key & o) const
{
  return std::tie (kernel, width, height) < std::tie (o.kernel, o.width, o.height);
}

AutoTuner::AutoTuner (std::unique_ptr<AutoTimer> timer, AutoTunerConfig cfg)
    : timer_ (std::move (timer)), cfg_ (cfg)
{
  cfg_.samples_per_candidate = std::max (1, cfg_.samples_per_candidate);
  cfg_.warmup_launches = std::max (0, cfg_.warmup_launches);
}

AutoTuner::~AutoTuner ()
{
  for (const auto & [mark, n] : holds_)
    timer_->release (mark);
}

void
AutoTuner::set_logger (LaunchPolicy::Logger l)
{
  std::lock_guard<std::mutex> g (lock_);
  logger_ = std::move (l);
}

void
AutoTuner::hold (AutoTimer::Mark m)
{
  holds_[m]++;
}

void
AutoTuner::drop (AutoTimer::Mark m)
{
  auto it = holds_.find (m);
  if (it == holds_.end ())
    return;
  if (--it->second <= 0) {
    holds_.erase (it);
    timer_->release (m);
  }
}

bool
AutoTuner::close_open (AutoTimer::Mark * end)
{
  if (!open_)
    return false;
  Open o = *open_;
  open_.reset ();
  AutoTimer::Mark e = 0;
  if (!timer_->record (&e)) {
    /* Cannot be timed: the trial is run again later, up to the limit. */
    auto it = states_.find (o.key);
    if (it != states_.end ()) {
      segment_done (it->second, o.frame, -1);
      try_settle (o.key, it->second);
    }
    drop (o.start);
    return false;
  }
  hold (e);  /* for the pending measurement, which also takes o.start's hold */
  pending_.push_back ({ o.key, o.cand, o.start, e, o.frame });
  hold (e);  /* for the caller */
  *end = e;
  return true;
}

void
AutoTuner::segment_done (State & st, unsigned long long frame, double us)
{
  for (Trial & t : st.trials)
    if (t.frame == frame) {
      if (us >= 0)
        t.sum_us += us;
      else
        t.failed = true;
      t.outstanding--;
      break;
    }
  complete_trials (st);
}

void
AutoTuner::complete_trials (State & st)
{
  for (size_t i = 0; i < st.trials.size ();) {
    const Trial & t = st.trials[i];
    /* the frame has ended and every segment is in */
    if (t.frame >= frame_ || t.outstanding > 0) {
      i++;
      continue;
    }
    if (t.failed) {
      st.issued[t.cand]--;  /* run that trial again */
      st.failures++;
    } else {
      st.samples[t.cand].push_back (t.sum_us);
    }
    st.trials.erase (st.trials.begin () + (long) i);
  }
}

size_t
AutoTuner::best_so_far (const State & st) const
{
  size_t best = 0;
  double best_us = -1;
  for (size_t i = 0; i < st.cands.size (); i++) {
    if (st.samples[i].empty ())
      continue;
    const double m = median_of (st.samples[i]);
    if (best_us < 0 || m < best_us) {
      best_us = m;
      best = i;
    }
  }
  return best;
}

void
AutoTuner::try_settle (const Key & key, State & st)
{
  if (st.settled)
    return;
  const bool give_up = st.failures > cfg_.max_failures;
  if (!give_up) {
    for (const auto & s : st.samples)
      if ((int) s.size () < cfg_.samples_per_candidate)
        return;
  }
  std::vector<double> med (st.cands.size (), -1);
  double fastest = -1;
  for (size_t i = 0; i < st.cands.size (); i++) {
    if (st.samples[i].empty ())
      continue;
    med[i] = median_of (st.samples[i]);
    if (fastest < 0 || med[i] < fastest)
      fastest = med[i];
  }
  /* The first candidate within the tolerance of the fastest: the list is
   * ordered by prior confidence (table, model, static), and differences
   * below the tolerance are within a few samples' noise. */
  st.winner = 0;
  for (size_t i = 0; i < st.cands.size (); i++) {
    if (med[i] >= 0 && med[i] <= fastest * (1 + cfg_.tie_tolerance)) {
      st.winner = i;
      break;
    }
  }
  st.winner_us = med[st.winner] >= 0 ? med[st.winner] : 0;
  st.settled = true;

  if (logger_) {
    std::ostringstream m;
    m << "kernel " << key.kernel << ' ' << key.width << 'x' << key.height << ": auto "
      << (give_up ? "gave up timing after " + std::to_string (st.failures) + " failed measurements, using "
                  : std::string ("settled on "))
      << st.cands[st.winner].str () << " after " << st.launches << " launches (median us:";
    for (size_t i = 0; i < st.cands.size (); i++) {
      char buf[32];
      std::snprintf (buf, sizeof buf, "%.2f", med[i]);
      m << ' ' << st.cands[i].str () << '=' << (med[i] >= 0 ? buf : "-");
    }
    m << ')';
    logger_ (LaunchPolicy::LOG_DEBUG, m.str ());
  }
}

void
AutoTuner::poll_locked ()
{
  std::set<Key> touched;
  size_t done = 0;
  for (; done < pending_.size (); done++) {
    const Pending & p = pending_[done];
    double us = 0;
    const AutoTimer::Poll r = timer_->elapsed_us (p.start, p.end, &us);
    /* Marks on one stream complete in order: the later ones are not
     * ready either, so stop asking. */
    if (r == AutoTimer::Poll::NotReady)
      break;
    auto it = states_.find (p.key);
    if (it != states_.end () && !it->second.settled) {
      segment_done (it->second, p.frame, r == AutoTimer::Poll::Ready && us >= 0 ? us : -1);
      touched.insert (p.key);
    }
    drop (p.start);
    drop (p.end);
  }
  pending_.erase (pending_.begin (), pending_.begin () + (long) done);
  for (const Key & k : touched)
    try_settle (k, states_[k]);
}

void
AutoTuner::poll ()
{
  std::lock_guard<std::mutex> g (lock_);
  poll_locked ();
}

AutoTuner::Choice
AutoTuner::on_choose (const std::string & kernel, long width, long height,
    const std::function<std::vector<BlockShape> ()> & candidates)
{
  std::lock_guard<std::mutex> g (lock_);
  poll_locked ();
  AutoTimer::Mark end = 0;
  const bool have_end = close_open (&end);
  auto done_with_end = [&] {
    if (have_end)
      drop (end);
  };

  const Key key { kernel, width, height };
  auto it = states_.find (key);
  if (it == states_.end ()) {
    State st;
    st.cands = candidates ? candidates () : std::vector<BlockShape> {};
    if (st.cands.empty ())
      st.cands.push_back ({ 32, 1 });
    st.samples.resize (st.cands.size ());
    st.issued.assign (st.cands.size (), 0);
    /* One candidate: nothing to compare. */
    st.settled = st.cands.size () == 1;
    it = states_.emplace (key, std::move (st)).first;
  }
  State & st = it->second;
  st.launches++;
  const bool new_frame = st.frame != frame_;
  if (new_frame) {
    st.frame = frame_;
    st.frames++;
    st.untimed_frame = false;
  }

  if (st.settled) {
    done_with_end ();
    return { st.cands[st.winner], Phase::Settled };
  }
  if (st.frames <= cfg_.warmup_launches) {
    done_with_end ();
    return { st.cands[0], Phase::Warmup };
  }

  /* This frame's trial, if its first launch started one: every launch of
   * the key in a frame takes the same candidate, and their segments make
   * one sample. */
  Trial *trial = !st.trials.empty () && st.trials.back ().frame == frame_ ? &st.trials.back () : nullptr;
  const size_t n = st.cands.size ();
  size_t pick = n;
  if (trial) {
    pick = trial->cand;
  } else if (new_frame) {
    /* Round robin over the candidates that still need samples, so that a
     * drift in clocks or load spreads over all of them. */
    for (size_t i = 0; i < n; i++) {
      const size_t j = (st.next + i) % n;
      if (st.issued[j] < cfg_.samples_per_candidate) {
        pick = j;
        break;
      }
    }
  }
  if (pick == n || st.untimed_frame || (!trial && pending_.size () >= cfg_.max_pending)) {
    /* nothing to time this frame (all trials queued, or a frame that
     * started untimed): the best so far */
    st.untimed_frame = true;
    done_with_end ();
    return { st.cands[best_so_far (st)], Phase::Waiting };
  }

  AutoTimer::Mark start = 0;
  if (have_end) {
    /* The previous launch's end is this one's start: nothing is queued in
     * between. The caller's hold passes to the open segment. */
    start = end;
  } else if (timer_->record (&start)) {
    hold (start);
  } else {
    if (trial) {
      trial->failed = true;  /* the frame's sample lacks this launch */
    } else {
      st.failures++;
      st.untimed_frame = true;
    }
    try_settle (key, st);
    return { st.cands[st.settled ? st.winner : best_so_far (st)], Phase::Waiting };
  }
  open_ = Open { key, pick, start, frame_ };
  if (!trial) {
    st.issued[pick]++;
    st.next = (pick + 1) % n;
    st.trials.push_back ({ pick, frame_, 0.0, 0, false });
    trial = &st.trials.back ();
  }
  trial->outstanding++;
  return { st.cands[pick], Phase::Trial };
}

void
AutoTuner::end_open_locked ()
{
  poll_locked ();
  AutoTimer::Mark end = 0;
  if (close_open (&end))
    drop (end);
}

void
AutoTuner::on_untimed_launch ()
{
  std::lock_guard<std::mutex> g (lock_);
  end_open_locked ();
}

void
AutoTuner::end_frame ()
{
  std::lock_guard<std::mutex> g (lock_);
  end_open_locked ();
  /* the frame's trials are complete once their segments are read */
  frame_++;
  for (auto & [k, st] : states_) {
    if (st.settled || st.trials.empty ())
      continue;
    complete_trials (st);
    try_settle (k, st);
  }
}

bool
AutoTuner::settled (const std::string & kernel, long width, long height) const
{
  std::lock_guard<std::mutex> g (lock_);
  auto it = states_.find ({ kernel, width, height });
  return it != states_.end () && it->second.settled;
}

bool
AutoTuner::all_settled () const
{
  std::lock_guard<std::mutex> g (lock_);
  for (const auto & [k, st] : states_)
    if (!st.settled)
      return false;
  return true;
}

bool
AutoTuner::quiet () const
{
  std::lock_guard<std::mutex> g (lock_);
  if (states_.empty () || !pending_.empty () || open_)
    return false;
  for (const auto & [k, st] : states_)
    if (!st.settled)
      return false;
  return true;
}

std::vector<AutoResult>
AutoTuner::results () const
{
  std::lock_guard<std::mutex> g (lock_);
  std::vector<AutoResult> out;
  for (const auto & [k, st] : states_) {
    if (!st.settled)
      continue;
    AutoResult r;
    r.kernel = k.kernel;
    r.width = k.width;
    r.height = k.height;
    r.block = st.cands[st.winner];
    r.median_us = st.winner_us;
    r.samples = (int) st.samples[st.winner].size ();
    out.push_back (r);
  }
  return out;
}

std::vector<BlockShape>
AutoTuner::candidates (const std::string & kernel, long width, long height) const
{
  std::lock_guard<std::mutex> g (lock_);
  auto it = states_.find ({ kernel, width, height });
  return it == states_.end () ? std::vector<BlockShape> {} : it->second.cands;
}

int
AutoTuner::launches (const std::string & kernel, long width, long height) const
{
  std::lock_guard<std::mutex> g (lock_);
  auto it = states_.find ({ kernel, width, height });
  return it == states_.end () ? 0 : it->second.launches;
}

size_t
AutoTuner::pending () const
{
  std::lock_guard<std::mutex> g (lock_);
  return pending_.size ();
}

}  // namespace cudavision
