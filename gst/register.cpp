/* cudavision — registers every element; used by the plugin module and by
 * the tests, which register the plugin statically. */
#include "plugin.h"

#include "gstcudablur.h"
#include "gstcudacanny.h"
#include "gstcudafacedetect.h"
#include "gstcudaflow.h"
#include "gstcudagray.h"
#include "gstcudaharris.h"
#include "gstcudaotsu.h"

gboolean
cudavision_plugin_init (GstPlugin * plugin)
{
  gboolean ok = FALSE;
  ok |= GST_ELEMENT_REGISTER (cudagray, plugin);
  ok |= GST_ELEMENT_REGISTER (cudaharris, plugin);
  ok |= GST_ELEMENT_REGISTER (cudablur, plugin);
  ok |= GST_ELEMENT_REGISTER (cudaotsu, plugin);
  ok |= GST_ELEMENT_REGISTER (cudaflow, plugin);
  ok |= GST_ELEMENT_REGISTER (cudacanny, plugin);
  ok |= GST_ELEMENT_REGISTER (cudafacedetect, plugin);
  return ok;
}

gboolean
cudavision_register_static (void)
{
  return gst_plugin_register_static (GST_VERSION_MAJOR, GST_VERSION_MINOR, "cudavision",
      "Classic computer vision on NVIDIA GPUs", cudavision_plugin_init, PACKAGE_VERSION, "LGPL",
      "cudavision", "cudavision", "https://github.com/cudavision/cudavision");
}
