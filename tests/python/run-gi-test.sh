#!/usr/bin/env bash
# Runs a Python test of the library's GObject introspection data with the
# first Python 3 that has PyGObject and GStreamer's typelib (Debian:
# python3-gi, gir1.2-gstreamer-1.0); exit 77 (skipped) when none has. A
# python3 earlier on PATH (pyenv, venv) may lack them while
# /usr/bin/python3 has them. GI_TYPELIB_PATH and LD_LIBRARY_PATH come from
# tests/meson.build (the build tree's GstCudaVision typelib and library).
#
#   run-gi-test.sh SCRIPT [ARGS...]
set -u
probe="import gi; gi.require_version('Gst', '1.0'); from gi.repository import Gst"
for py in python3 /usr/bin/python3; do
  if command -v "$py" > /dev/null && "$py" -c "$probe" 2> /dev/null; then
    exec "$py" "$@"
  fi
done
echo "skipped: no python3 with the GStreamer introspection bindings (python3-gi, gir1.2-gstreamer-1.0)"
exit 77
