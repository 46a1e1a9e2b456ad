/* cudavision — the CPU fallback's stderr line and the errors an element
 * already posted (see gstcvnotices.h). */
#include "gstcvnotices.h"

/* Marks a top-level bin whose elements have announced the fallback. */
static GQuark
announced_quark ()
{
  static const GQuark q = g_quark_from_static_string ("cudavision-cpu-fallback-announced");
  return q;
}

void
gst_cv_announce_cpu_fallback (GstElement * element, const gchar * reason)
{
  GstObject *top = GST_OBJECT (gst_object_ref (element));
  GstObject *parent;
  while ((parent = gst_object_get_parent (top))) {
    gst_object_unref (top);
    top = parent;
  }
  /* elements of one pipeline may start from several threads (nested bins) */
  static std::mutex lock;
  bool first;
  {
    std::lock_guard<std::mutex> guard (lock);
    first = g_object_get_qdata (G_OBJECT (top), announced_quark ()) == nullptr;
    if (first)
      g_object_set_qdata (G_OBJECT (top), announced_quark (), GINT_TO_POINTER (1));
  }
  if (first)
    g_printerr ("cudavision: %s: the elements run on the CPU backend (OpenCV); set backend=cpu to choose it "
                "explicitly, backend=cuda to make this an error\n",
        reason);
  gst_object_unref (top);
}

bool
GstCvPostedErrors::first (GstMessage * error)
{
  GError *e = nullptr;
  gst_message_parse_error (error, &e, nullptr);
  if (!e)
    return true;
  const std::string key = std::string (g_quark_to_string (e->domain)) + ":" + std::to_string (e->code) + ":" +
      (e->message ? e->message : "");
  g_error_free (e);
  std::lock_guard<std::mutex> guard (lock_);
  return seen_.insert (key).second;
}

void
GstCvPostedErrors::clear ()
{
  std::lock_guard<std::mutex> guard (lock_);
  seen_.clear ();
}
