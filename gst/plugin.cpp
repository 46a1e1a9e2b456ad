/* cudavision — the plugin module: classic computer vision on NVIDIA GPUs. */
#include "plugin.h"

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, cudavision,
    "Classic computer vision on NVIDIA GPUs, checked against OpenCV", cudavision_plugin_init, PACKAGE_VERSION,
    "LGPL", "cudavision", "https://github.com/cudavision/cudavision")
