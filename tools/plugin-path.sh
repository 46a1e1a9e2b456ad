# shellcheck shell=bash
# Sourced by the example and benchmark scripts: when GST_PLUGIN_PATH is not
# set (and the plugin is not installed), point it at the first build
# directory of this checkout that holds the plugin: build/gst, then any
# build-*/gst. CV_ROOT must be the repository root.
if [ -z "${GST_PLUGIN_PATH:-}" ]; then
  for d in "$CV_ROOT"/build/gst "$CV_ROOT"/build-*/gst; do
    if [ -e "$d/libgstcudavision.so" ]; then
      export GST_PLUGIN_PATH="$d"
      break
    fi
  done
fi
