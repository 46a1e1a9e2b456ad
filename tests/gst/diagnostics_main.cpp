/* main () of the diagnostics tests (test_debug_categories_cpu.cpp,
 * test_bus_messages_cpu.cpp): every CUDA device hidden before anything
 * touches CUDA, so that backend=auto falls back to the CPU on any machine,
 * and the debug categories noted before the plugin registers its own. */
#include "diagnostics_main.h"

#include "../common/test_util.h"

#include "plugin.h"

#include <gst/base/gstbasetransform.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <stdexcept>

namespace cvtest {

static std::set<std::string> before;

const std::set<std::string> &
categories_before_plugin ()
{
  return before;
}

}  // namespace cvtest

int
main (int argc, char **argv)
{
  /* before any CUDA call: the runtime reads it once */
  g_setenv ("CUDA_VISIBLE_DEVICES", "-1", TRUE);
  gst_init (&argc, &argv);
  /* the base class the elements build on registers its category when its
   * class is first used: before the plugin's, so not counted as theirs */
  g_type_class_unref (g_type_class_ref (GST_TYPE_BASE_TRANSFORM));
  GSList *all = gst_debug_get_all_categories ();
  for (GSList *l = all; l; l = l->next)
    cvtest::before.insert (gst_debug_category_get_name ((GstDebugCategory *) l->data));
  g_slist_free (all);
  if (!cudavision_register_static ())
    throw std::runtime_error ("cannot register the cudavision elements");
  ::testing::InitGoogleTest (&argc, argv);
  return RUN_ALL_TESTS ();
}
