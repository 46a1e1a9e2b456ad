/* cudavision — the enums of the elements' properties (see gstcvenums.h). */
#include "gstcvenums.h"

GType
gst_cv_backend_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    { GST_CV_BACKEND_AUTO, "CUDA when a device is usable, else the CPU (warns on the bus)", "auto" },
    { GST_CV_BACKEND_CUDA, "CUDA only: an error when no device is usable", "cuda" },
    { GST_CV_BACKEND_CPU, "CPU only (OpenCV)", "cpu" },
    { 0, NULL, NULL },
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCvBackend", values));
  return type;
}

GType
gst_cv_block_sizing_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    { GST_CV_BLOCK_SIZING_STATIC, "Each kernel's documented default shape, or block-size", "static" },
    { GST_CV_BLOCK_SIZING_EMPIRICAL_TABLE, "Measured per GPU and size by cudavision-tune (tuning-table)",
        "empirical-table" },
    { GST_CV_BLOCK_SIZING_MODEL, "Occupancy model of the device and input size", "model" },
    { GST_CV_BLOCK_SIZING_AUTO,
        "Online: the first frames time a few candidate shapes per kernel and size, then keep the fastest",
        "auto" },
    { 0, NULL, NULL },
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCvBlockSizing", values));
  return type;
}
