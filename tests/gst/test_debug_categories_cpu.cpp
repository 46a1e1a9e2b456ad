/* The debug categories as a user reaches them: GST_DEBUG=cudavision*:5, the
 * pattern README.md gives, enables every category the plugin has, every
 * element's own among them (cudavision-gray, ...), and nothing else; the
 * launch log (cudavision-launch) answers on the CPU backend too, once per
 * element and negotiation, that there are no block shapes there. */
#include "diagnostics_main.h"

#include "../common/edge_cases.h"
#include "../common/test_util.h"

#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <string>
#include <vector>

using namespace cvtest;

namespace {

const char *const kPattern = "cudavision*";

/* The plugin's element factories. */
std::vector<std::string>
plugin_elements ()
{
  std::vector<std::string> names;
  GList *features = gst_registry_get_feature_list_by_plugin (gst_registry_get (), "cudavision");
  for (GList *l = features; l; l = l->next)
    if (GST_IS_ELEMENT_FACTORY (l->data))
      names.push_back (GST_OBJECT_NAME (l->data));
  gst_plugin_feature_list_free (features);
  return names;
}

/* The categories registered when the plugin registered its elements. */
std::vector<GstDebugCategory *>
plugin_categories ()
{
  std::vector<GstDebugCategory *> out;
  GSList *all = gst_debug_get_all_categories ();
  for (GSList *l = all; l; l = l->next) {
    GstDebugCategory *c = (GstDebugCategory *) l->data;
    if (!categories_before_plugin ().count (gst_debug_category_get_name (c)))
      out.push_back (c);
  }
  g_slist_free (all);
  return out;
}

/* GST_DEBUG as the test environment set it, restored after each test. */
class DebugCategories : public ::testing::Test {
protected:
  void TearDown () override
  {
    const gchar *env = g_getenv ("GST_DEBUG");
    gst_debug_set_threshold_from_string (env ? env : "", TRUE);
  }
};

}  // namespace

TEST_F (DebugCategories, ThePatternEnablesEveryPluginCategoryAndNoOther)
{
  const std::vector<GstDebugCategory *> ours = plugin_categories ();
  ASSERT_FALSE (ours.empty ()) << "the plugin registered no debug category";
  gst_debug_set_threshold_from_string ("cudavision*:5", TRUE);
  std::set<std::string> names;
  for (GstDebugCategory *c : ours) {
    const std::string name = gst_debug_category_get_name (c);
    names.insert (name);
    EXPECT_EQ (name.rfind ("cudavision", 0), 0u) << "\"" << name << "\" is not reached by " << kPattern;
    EXPECT_EQ (gst_debug_category_get_threshold (c), GST_LEVEL_DEBUG) << "\"" << name << "\"";
  }
  /* the pattern is not everything */
  GstDebugCategory *other = _gst_debug_get_category ("basetransform");
  ASSERT_TRUE (other);
  EXPECT_NE (gst_debug_category_get_threshold (other), GST_LEVEL_DEBUG);

  /* each element has its own, cudavision-<name without "cuda">, and no
   * category is named like an element (the names before) */
  const std::vector<std::string> elements = plugin_elements ();
  ASSERT_EQ (elements.size (), edge_elements ().size ()) << "an element is missing from the lists";
  for (const std::string & e : elements) {
    ASSERT_EQ (e.rfind ("cuda", 0), 0u) << e;
    const std::string own = "cudavision-" + e.substr (4);
    EXPECT_TRUE (names.count (own)) << e << " has no category " << own;
    EXPECT_EQ (_gst_debug_get_category (e.c_str ()), nullptr) << "a category is still named " << e;
  }
}

namespace {

/* The lines of one category, with the object that logged each. */
struct Captured {
  std::mutex lock;
  std::string category;
  std::vector<std::pair<std::string, std::string>> lines;  /* object name, message */
};

void
capture (GstDebugCategory * category, GstDebugLevel, const gchar *, const gchar *, gint, GObject * object,
    GstDebugMessage * message, gpointer data)
{
  Captured *c = static_cast<Captured *> (data);
  if (c->category != gst_debug_category_get_name (category))
    return;
  const std::string who = object && GST_IS_OBJECT (object) ? GST_OBJECT_NAME (object) : "";
  std::lock_guard<std::mutex> guard (c->lock);
  c->lines.emplace_back (who, gst_debug_message_get (message));
}

/* The cudavision-launch lines of one run of `description` under
 * GST_DEBUG=`pattern`, the default log function (stderr) off meanwhile. */
std::vector<std::pair<std::string, std::string>>
launch_lines (const std::string & pattern, const std::string & description)
{
  Captured c;
  c.category = "cudavision-launch";
  gst_debug_set_threshold_from_string (pattern.c_str (), TRUE);
  gst_debug_remove_log_function (gst_debug_log_default);
  gst_debug_add_log_function (capture, &c, nullptr);
  const BusResult r = run_pipeline (description, 60);
  gst_debug_remove_log_function (capture);
  gst_debug_add_log_function (gst_debug_log_default, nullptr, nullptr);
  EXPECT_TRUE (r.eos) << description << ": " << (r.errors.empty () ? "" : r.errors[0]);
  std::lock_guard<std::mutex> guard (c.lock);
  return c.lines;
}

}  // namespace

TEST_F (DebugCategories, LaunchLogAnswersOnTheCpuBackend)
{
  const bool was_active = gst_debug_is_active ();
  gst_debug_set_active (TRUE);
  for (const EdgeElement & el : edge_elements ()) {
    for (const char *backend : { "backend=cpu", "backend=auto" }) {
      const std::string name = el.name + "0";
      const std::string desc = "videotestsrc num-buffers=3 ! " + caps_string (el.fmt_a, 96, 64) + " ! " + el.name +
          " name=" + name + " " + backend + " " + el.props + " ! fakesink";
      const auto lines = launch_lines (std::string (kPattern) + ":5", desc);
      size_t mine = 0;
      for (const auto & l : lines) {
        if (l.first != name)
          continue;
        mine++;
        EXPECT_NE (l.second.find ("no block shapes"), std::string::npos) << desc << ": " << l.second;
        EXPECT_NE (l.second.find ("CPU backend"), std::string::npos) << desc << ": " << l.second;
        EXPECT_NE (l.second.find ("96x64"), std::string::npos) << desc << ": " << l.second;
      }
      EXPECT_EQ (mine, 1u) << desc << ": one line at negotiation";
      /* at the documented level (5, DEBUG), not at 4 */
      EXPECT_TRUE (launch_lines (std::string (kPattern) + ":4", desc).empty ()) << desc;
    }
  }
  gst_debug_set_active (was_active);
}
