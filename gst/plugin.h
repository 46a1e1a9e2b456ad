/* cudavision — plugin registration, shared by the plugin module and the
 * tests. */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

gboolean cudavision_plugin_init (GstPlugin * plugin);
/* Registers the elements into the current process without loading the
 * module (tests link the elements statically). */
gboolean cudavision_register_static (void);

G_END_DECLS
