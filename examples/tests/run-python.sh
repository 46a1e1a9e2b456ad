#!/usr/bin/env bash
# Runs examples/python/cudavision-embed.py with the first Python 3 that has
# the GStreamer bindings (Debian: python3-gi, gir1.2-gst-plugins-base-1.0);
# exit 77 (skipped) when none has. A python3 earlier on PATH (pyenv, venv)
# may lack them while /usr/bin/python3 has them.
#
#   run-python.sh [ARGS...]
set -u
script="$(dirname "$0")/../python/cudavision-embed.py"
probe="import gi; gi.require_version('Gst', '1.0'); gi.require_version('GstApp', '1.0'); gi.require_version('GstVideo', '1.0'); from gi.repository import Gst, GstApp, GstVideo"
for py in python3 /usr/bin/python3; do
  if command -v "$py" > /dev/null && "$py" -c "$probe" 2> /dev/null; then
    exec "$py" "$script" "$@"
  fi
done
echo "skipped: no python3 with the GStreamer introspection bindings (python3-gi, gir1.2-gst-plugins-base-1.0)"
exit 77
