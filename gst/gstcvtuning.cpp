/* cudavision — an element's launch policy and what tunes it (see
 * gstcvtuning.h). */
#include "gstcvtuning.h"

#include "gstcvbasefilter.h"
#include "gstcvfallback.h"

#include "../core/policy/auto_tuner.h"
#include "../core/policy/tuning_table.h"
#include "../cuda/common/event_timer.h"

/* The launch policy's choices: GST_DEBUG=cudavision*:5 shows them (on the
 * CPU backend, one line per negotiation saying there are none). */
GST_DEBUG_CATEGORY (gst_cv_launch_debug);

/* The base class's category: the table files and the tuner's life. */
GST_DEBUG_CATEGORY_EXTERN (gst_cv_base_filter_debug);
#define GST_CAT_DEFAULT gst_cv_base_filter_debug

std::string
GstCvLaunchSettings::describe_set (guint * n) const
{
  std::string set;
  *n = 0;
  auto add = [&set, n] (const std::string & s) {
    set += ((*n)++ ? " " : "") + s;
  };
  if (sizing != GST_CV_DEFAULT_BLOCK_SIZING) {
    GEnumClass *e = (GEnumClass *) g_type_class_ref (GST_TYPE_CV_BLOCK_SIZING);
    GEnumValue *v = g_enum_get_value (e, sizing);
    add (std::string ("block-sizing=") + (v ? v->value_nick : "?"));
    g_type_class_unref (e);
  }
  if (!block_size.empty ())
    add ("block-size=" + block_size);
  if (!tuning_table.empty ())
    add ("tuning-table=" + tuning_table);
  if (save_tuning)
    add ("save-tuning=true");
  return set;
}

void
gst_cv_launch_install_properties (GObjectClass * klass, guint first_id)
{
  g_object_class_install_property (klass, first_id + GST_CV_LAUNCH_BLOCK_SIZING,
      g_param_spec_enum ("block-sizing", "Block sizing", "How CUDA block sizes are chosen",
          GST_TYPE_CV_BLOCK_SIZING, GST_CV_DEFAULT_BLOCK_SIZING, GST_CV_PARAM_RW_READY));
  g_object_class_install_property (klass, first_id + GST_CV_LAUNCH_BLOCK_SIZE,
      g_param_spec_string ("block-size", "Block size",
          "Block shape for block-sizing=static, e.g. 32x8 or 256 (NULL = each kernel's default)", nullptr,
          GST_CV_PARAM_RW_READY));
  g_object_class_install_property (klass, first_id + GST_CV_LAUNCH_TUNING_TABLE,
      g_param_spec_string ("tuning-table", "Tuning table",
          "Table file for block-sizing=empirical-table and auto (NULL = $XDG_CACHE_HOME/cudavision/<gpu>.tsv)", nullptr,
          GST_CV_PARAM_RW_READY));
  g_object_class_install_property (klass, first_id + GST_CV_LAUNCH_SAVE_TUNING,
      g_param_spec_boolean ("save-tuning", "Save tuning",
          "block-sizing=auto: at stop, write the shapes it settled on into tuning-table (merged with its entries)",
          FALSE, GST_CV_PARAM_RW_READY));
}

void
GstCvLaunchSettings::set (GstObject * owner, GstCvLaunchProp prop, const GValue * value)
{
  switch (prop) {
    case GST_CV_LAUNCH_BLOCK_SIZING:
      sizing = (GstCvBlockSizing) g_value_get_enum (value);
      break;
    case GST_CV_LAUNCH_BLOCK_SIZE: {
      const gchar *s = g_value_get_string (value);
      cudavision::BlockShape shape;
      if (!s || !*s) {
        block_size.clear ();
        user_block = {};
      } else if (cudavision::BlockShape::parse (s, &shape)) {
        block_size = s;
        user_block = shape;
      } else {
        g_warning ("%s: invalid block-size '%s': expected WIDTHxHEIGHT (e.g. 32x8) or a thread count, "
                   "at most 1024 threads; keeping '%s'",
            GST_OBJECT_NAME (owner), s, block_size.c_str ());
      }
      break;
    }
    case GST_CV_LAUNCH_TUNING_TABLE: {
      const gchar *s = g_value_get_string (value);
      tuning_table = s ? s : "";
      break;
    }
    case GST_CV_LAUNCH_SAVE_TUNING:
      save_tuning = g_value_get_boolean (value);
      break;
  }
}

void
GstCvLaunchSettings::get (GstCvLaunchProp prop, GValue * value) const
{
  switch (prop) {
    case GST_CV_LAUNCH_BLOCK_SIZING:
      g_value_set_enum (value, sizing);
      break;
    case GST_CV_LAUNCH_BLOCK_SIZE:
      g_value_set_string (value, block_size.empty () ? nullptr : block_size.c_str ());
      break;
    case GST_CV_LAUNCH_TUNING_TABLE:
      g_value_set_string (value, tuning_table.empty () ? nullptr : tuning_table.c_str ());
      break;
    case GST_CV_LAUNCH_SAVE_TUNING:
      g_value_set_boolean (value, save_tuning);
      break;
  }
}

void
gst_cv_launch_log_cpu_backend (GstElement * element, const GstVideoInfo * info)
{
  GST_CAT_DEBUG_OBJECT (gst_cv_launch_debug, element,
      "%s %dx%d: the CPU backend (%s) launches no CUDA kernels, so there are no block shapes to choose; "
      "OpenCV runs the frames",
      GST_VIDEO_INFO_NAME (info), info->width, info->height, gst_cv_cpu_backend_reason (element));
}

static void
log_launch (GstElement * element, int level, const std::string & msg)
{
  GST_CAT_LEVEL_LOG (gst_cv_launch_debug, (GstDebugLevel) level, element, "%s", msg.c_str ());
}

/* The tuning-table property, or the GPU's default file. */
static std::string
tuning_table_path (const cudavision::DeviceDescription & dev, std::string path)
{
  if (path.empty ()) {
    gchar *p = g_build_filename (g_get_user_cache_dir (), "cudavision",
        cudavision::tuning_file_name (dev).c_str (), nullptr);
    path = p;
    g_free (p);
  }
  return path;
}

static std::shared_ptr<const cudavision::TuningTable>
load_tuning_table (GstElement * element, const std::string & path)
{
  auto table = std::make_shared<cudavision::TuningTable> ();
  std::string error;
  bool missing = false;
  /* missing is told apart from unreadable by the reader itself (a symlink
   * loop is not "no table") */
  const bool loaded = table->load (path, &error, &missing);
  if (!loaded && missing) {
    GST_INFO_OBJECT (element, "no tuning table at %s: every launch uses the model", path.c_str ());
  } else if (!loaded) {
    GST_ELEMENT_WARNING (element, RESOURCE, READ, ("Could not read the tuning table %s", path.c_str ()),
        ("%s; falling back to the model", error.c_str ()));
    table = std::make_shared<cudavision::TuningTable> ();
  } else {
    GST_INFO_OBJECT (element, "tuning table %s: %zu entries", path.c_str (), table->size ());
  }
  return table;
}

void
GstCvTuning::start (GstElement * element, const cudavision::DeviceDescription & dev,
    const GstCvLaunchSettings & settings, cudaStream_t stream)
{
  const auto mode = (cudavision::BlockSizing) settings.sizing;
  const bool uses_table = mode == cudavision::BlockSizing::EmpiricalTable || mode == cudavision::BlockSizing::Auto;
  table_path_ = tuning_table_path (dev, settings.tuning_table);
  auto table = uses_table ? load_tuning_table (element, table_path_) : nullptr;
  policy_ = std::make_unique<cudavision::LaunchPolicy> (dev, mode, settings.user_block, table);
  /* Only format log lines when someone will read them. */
  const bool logged = gst_debug_category_get_threshold (gst_cv_launch_debug) >= GST_LEVEL_DEBUG;
  if (logged)
    policy_->set_logger ([element] (int level, const std::string & msg) { log_launch (element, level, msg); });

  auto_tuner_.reset ();
  if (mode != cudavision::BlockSizing::Auto)
    return;
  auto_tuner_ = std::make_shared<cudavision::AutoTuner> (std::make_unique<cudavision::CudaEventTimer> (stream));
  if (logged)
    auto_tuner_->set_logger ([element] (int level, const std::string & msg) { log_launch (element, level, msg); });
  policy_->set_auto_tuner (auto_tuner_);
}

void
GstCvTuning::end_frame ()
{
  if (auto_tuner_)
    auto_tuner_->end_frame ();
}

/* What auto mode settled on is merged into the table file (entries it
 * re-measured replaced), written atomically. */
void
GstCvTuning::save_learned (GstElement * element)
{
  if (!auto_tuner_ || !policy_)
    return;
  const cudavision::DeviceDescription & dev = policy_->device ();
  cudavision::TuningTable table;
  std::string error;
  bool missing = false;
  /* a missing table is made; one that cannot be read (not a regular
   * file, a symlink loop, too large) is not replaced */
  if (!table.load (table_path_, &error, &missing) && !missing) {
    GST_ELEMENT_WARNING (element, RESOURCE, WRITE, ("Not saving the learned block sizes"),
        ("%s; the file is left as it is", error.c_str ()));
    return;
  }
  size_t n = 0;
  for (const cudavision::AutoResult & r : auto_tuner_->results ()) {
    if (r.samples == 0)  /* one candidate only: nothing was measured */
      continue;
    table.put ({ dev.name, dev.cc_major, dev.cc_minor, dev.sm_count, r.kernel, r.width, r.height },
        { r.block, r.median_us, dev.driver_version });
    n++;
  }
  if (n == 0) {
    GST_INFO_OBJECT (element, "auto mode settled nothing: %s left as it is", table_path_.c_str ());
  } else if (!table.save (table_path_, &error)) {
    GST_ELEMENT_WARNING (element, RESOURCE, WRITE, ("Could not save the learned block sizes"),
        ("%s", error.c_str ()));
  } else {
    GST_INFO_OBJECT (element, "saved %zu learned block sizes to %s", n, table_path_.c_str ());
  }
}

void
GstCvTuning::stop (GstElement * element, bool save)
{
  if (save)
    save_learned (element);
  /* The tuner's events are destroyed here, with the context current. */
  if (policy_)
    policy_->set_auto_tuner (nullptr);
  auto_tuner_.reset ();
  policy_.reset ();
}
