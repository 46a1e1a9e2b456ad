/* cudavision — an element's launch policy and what tunes it: the launch
 * properties as set, the tuning-table file the policy reads at start
 * (block-sizing=empirical-table and auto), and block-sizing=auto's online
 * tuner, whose results save-tuning=true merges into that file at stop
 * (docs/BLOCK-SIZING.md). The policy's choices go to the
 * cudavision-launch debug category (GST_DEBUG=cudavision*:5). */
#pragma once

#include "gstcvenums.h"

#include <gst/video/video.h>

#include "../core/policy/launch_policy.h"

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

namespace cudavision {
class AutoTuner;
}  // namespace cudavision

GST_DEBUG_CATEGORY_EXTERN (gst_cv_launch_debug);

#define GST_CV_DEFAULT_BLOCK_SIZING GST_CV_BLOCK_SIZING_STATIC

/* The launch properties, in the order of their ids. */
enum GstCvLaunchProp {
  GST_CV_LAUNCH_BLOCK_SIZING,
  GST_CV_LAUNCH_BLOCK_SIZE,
  GST_CV_LAUNCH_TUNING_TABLE,
  GST_CV_LAUNCH_SAVE_TUNING,
};

/* Installs them on the base class, the first with `first_id` and the
 * others with the ids that follow. */
void gst_cv_launch_install_properties (GObjectClass * klass, guint first_id);

/* Their values, kept by the element under its object lock. */
struct GstCvLaunchSettings {
  GstCvBlockSizing sizing = GST_CV_DEFAULT_BLOCK_SIZING;
  std::string block_size;  /* empty: each kernel's default */
  cudavision::BlockShape user_block;
  std::string tuning_table;  /* empty: $XDG_CACHE_HOME/cudavision/<gpu>.tsv */
  bool save_tuning = false;  /* block-sizing=auto: write what it learned at stop */

  /* Those set away from their defaults, e.g. "block-sizing=auto
   * save-tuning=true", and in *n how many: the CPU backend's warnings
   * name them, since they do nothing there. */
  std::string describe_set (guint * n) const;

  /* set_property and get_property of one of them; an invalid block-size
   * is refused with a warning naming `owner`, and the last valid one kept. */
  void set (GstObject * owner, GstCvLaunchProp prop, const GValue * value);
  void get (GstCvLaunchProp prop, GValue * value) const;
};

/* On the CPU backend the launch log's readers get an answer too, once per
 * negotiation: there are no block shapes to choose, OpenCV runs `info`'s
 * frames. */
void gst_cv_launch_log_cpu_backend (GstElement * element, const GstVideoInfo * info);

/* The launch policy of an element on the GPU, from start to stop. */
class GstCvTuning {
public:
  /* With the element's context pushed: the policy for `dev` in
   * `settings`' mode, with the table file read where the mode uses one,
   * and for block-sizing=auto the tuner, its events on `stream`. */
  void start (GstElement * element, const cudavision::DeviceDescription & dev, const GstCvLaunchSettings & settings,
      cudaStream_t stream);

  /* After a frame's GPU work is queued: block-sizing=auto times the
   * frame's last launch up to here. */
  void end_frame ();

  /* With the context pushed: with `save` (save-tuning), what auto mode
   * settled on is merged into the table file; the tuner's events are
   * destroyed and the policy dropped. */
  void stop (GstElement * element, bool save);

  /* Between start and stop. */
  const cudavision::LaunchPolicy & policy () const { return *policy_; }

private:
  void save_learned (GstElement * element);

  std::unique_ptr<cudavision::LaunchPolicy> policy_;
  /* block-sizing=auto: the online tuner, and the table file it reads
   * and may save to */
  std::shared_ptr<cudavision::AutoTuner> auto_tuner_;
  std::string table_path_;
};
