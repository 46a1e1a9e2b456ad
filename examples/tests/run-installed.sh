#!/usr/bin/env bash
# Installs the build into a temporary DESTDIR and uses it as an application
# would, with nothing from the build tree:
#   1. gst-inspect-1.0 finds the plugin through the prefix's GST_PLUGIN_PATH
#      alone (it finds libgstcudavision-1.0 one folder up by itself);
#   2. examples/c/cudavision-embed.c compiled against the installed
#      gstreamer-cudavision-1.0.pc runs its --check;
#   3. examples/python/cudavision-embed.py reads the metas through the
#      installed GstCudaVision typelib (GI_TYPELIB_PATH of the prefix) and
#      runs its --check.
#
#   run-installed.sh MESON BUILD_DIR PREFIX LIBDIR CC SOURCE_ROOT PICTURE [python]
#
# `python` as last argument runs step 3 (the build has introspection data).
# Exit 77 (skipped) when step 3 is asked for but no python3 has PyGObject.
set -euo pipefail
meson=$1 build=$2 prefix=$3 libdir=$4 cc=$5 src=$6 picture=$7 python=${8:-}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest
"$meson" install -C "$build" --no-rebuild --destdir "$dest" > "$tmp/install.log" ||
  { cat "$tmp/install.log"; exit 1; }
root=$dest$prefix
lib=$root/$libdir
echo "installed into $root"

# Nothing of the build tree: the plugin, the library and the typelib come
# from the installed tree only.
unset GST_PLUGIN_PATH GI_TYPELIB_PATH LD_LIBRARY_PATH PKG_CONFIG_PATH
export GST_REGISTRY=$tmp/registry.bin

echo "== 1. gst-inspect-1.0 with GST_PLUGIN_PATH=$lib/gstreamer-1.0"
GST_PLUGIN_PATH=$lib/gstreamer-1.0 gst-inspect-1.0 cudavision > "$tmp/inspect.txt" ||
  { cat "$tmp/inspect.txt"; echo "FAIL: gst-inspect-1.0 does not find the installed plugin"; exit 1; }
grep -E "^  (Filename|Version)" "$tmp/inspect.txt"
grep -q "Filename *$lib/gstreamer-1.0/libgstcudavision.so" "$tmp/inspect.txt" ||
  { echo "FAIL: the plugin was not loaded from the installed tree"; exit 1; }
for e in cudagray cudablur cudaotsu cudacanny cudaharris cudaflow cudafacedetect; do
  grep -q "^  $e:" "$tmp/inspect.txt" || { echo "FAIL: element $e missing"; exit 1; }
done

echo "== 2. the C example against the installed gstreamer-cudavision-1.0.pc"
export PKG_CONFIG_PATH=$lib/pkgconfig
flags=$(pkg-config --cflags --libs gstreamer-cudavision-1.0 gstreamer-app-1.0 gstreamer-video-1.0)
echo "pkg-config: $flags"
# a relocatable .pc: its prefix follows the file into the DESTDIR
pc_inc=$(realpath -m "$(pkg-config --variable=includedir gstreamer-cudavision-1.0)")
pc_lib=$(realpath -m "$(pkg-config --variable=libdir gstreamer-cudavision-1.0)")
if [ "$pc_inc" != "$(realpath -m "$root/include")" ] || [ "$pc_lib" != "$(realpath -m "$lib")" ]; then
  echo "FAIL: the .pc file points to $pc_inc and $pc_lib, not into the installed tree"
  exit 1
fi
# shellcheck disable=SC2086 # word splitting of the flags is intended
"$cc" -o "$tmp/cudavision-embed" "$src/examples/c/cudavision-embed.c" $flags -lm
export LD_LIBRARY_PATH=$lib # a private prefix: the loader must be told
# grep reads all of ldd's output (no -q): under pipefail an early exit
# would kill ldd with SIGPIPE and fail the pipe although the line was found
ldd "$tmp/cudavision-embed" | grep "libgstcudavision-1.0.so.0 => $lib/" >/dev/null ||
  { ldd "$tmp/cudavision-embed"; echo "FAIL: not linked to the installed library"; exit 1; }
GST_PLUGIN_PATH=$lib/gstreamer-1.0 "$tmp/cudavision-embed" --backend cpu --frames 4 --check "$picture" \
  > "$tmp/embed-c.txt" || { cat "$tmp/embed-c.txt"; echo "FAIL: the C example"; exit 1; }
tail -n 6 "$tmp/embed-c.txt"

if [ -z "$python" ]; then
  echo "(no introspection data in this build: the Python step is left out)"
  exit 0
fi
echo "== 3. the Python example through GI_TYPELIB_PATH=$lib/girepository-1.0"
test -f "$root/share/gir-1.0/GstCudaVision-1.0.gir" || { echo "FAIL: no .gir installed"; exit 1; }
test -f "$lib/girepository-1.0/GstCudaVision-1.0.typelib" || { echo "FAIL: no .typelib installed"; exit 1; }
rc=0
GI_TYPELIB_PATH=$lib/girepository-1.0 GST_PLUGIN_PATH=$lib/gstreamer-1.0 \
  "$src/examples/tests/run-python.sh" --backend cpu --frames 4 --check "$picture" > "$tmp/embed-py.txt" 2>&1 ||
  rc=$?
if [ $rc != 0 ]; then
  cat "$tmp/embed-py.txt"
  [ $rc = 77 ] || echo "FAIL: the Python example"
  exit $rc
fi
tail -n 6 "$tmp/embed-py.txt"
echo "installed tree: plugin, C and Python all work"
