/* cudavision — what an element tells the user about the backend it could
 * not have: backend=cuda without a usable device (an error that says
 * which devices there are), backend=auto without one (a bus warning per
 * element, and the pipeline's one line on stderr, gstcvnotices.h), the
 * launch properties that do nothing on the CPU backend, and device
 * memory on a pad of an element on the CPU, which it can neither read
 * nor make: an error that says so, where negotiation alone would end in
 * a bare not-negotiated from the source. */
#pragma once

#include "gstcvbasefilter.h"
#include "gstcvtuning.h"

#include <atomic>

/* Why `element` runs on the CPU ("backend=cpu" or "no usable CUDA
 * device"), for the errors and warnings that say what it cannot do there. */
const gchar *gst_cv_cpu_backend_reason (GstElement * element);

/* Start found no usable GPU for `backend` (or was told backend=cpu):
 * whether the element may run on the CPU. backend=cuda: no, after an
 * error that names the devices there are where `device_id` is not one of
 * them (`no_such_device`). backend=auto: yes, after one bus warning per
 * element, which also names the launch properties set in `launch` (they
 * do nothing now), and the pipeline's one line on stderr. backend=cpu:
 * yes, with one warning that lists the launch properties set, if any. */
bool gst_cv_fallback_start_on_cpu (GstElement * element, GstCvBackend backend, const GstCvLaunchSettings & launch,
    bool no_such_device, gint device_id, int n_devices);

/* The error that device memory needs the GPU backend, posted at most
 * once per start: negotiation asks again and again. Only an element
 * started on the CPU backend, which has not posted it yet, looks at why
 * a negotiation failed. */
class GstCvDeviceMemoryNotice {
public:
  /* At start: not posted yet, and watching when the element runs on the
   * CPU (`on_cpu`); at stop: not watching. */
  void start (bool on_cpu)
  {
    told_ = false;
    watching_ = on_cpu;
  }
  void stop () { watching_ = false; }

  /* `kind` of memory on a pad needs the GPU backend. `input`: upstream
   * sends it; else downstream takes nothing else. */
  void post (GstCvBaseFilter * self, GstCvMemoryKind kind, bool input);

  /* A caps query on the sink pad was answered: when nothing upstream could
   * send, the source will stop with not-negotiated and never send caps
   * (e.g. a source before an element on the CPU that only device memory
   * follows). Posts the error where device memory downstream is why. */
  void explain_caps_query (GstCvBaseFilter * self, GstQuery * query);

  /* Around a caps event: its caps (a reference) where a refusal is worth
   * explaining, else NULL; after it, with those caps and whether they
   * were `accepted`: where not, posts the error where device memory
   * upstream (set_caps says so when it gets that far) or downstream is
   * why. Takes the reference back. */
  GstCaps *keep_caps (GstEvent * event) const;
  void explain_caps_event (GstCvBaseFilter * self, GstCaps * caps, gboolean accepted);

private:
  bool worth_explaining () const { return watching_ && !told_; }
  void explain_empty_caps_answer (GstCvBaseFilter * self, GstCaps * filter);

  std::atomic<bool> told_ { false };
  std::atomic<bool> watching_ { false };
};
