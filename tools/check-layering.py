#!/usr/bin/env python3
"""Checks that every #include in the tree respects the layering.

Usage: check-layering.py [--self-test] [ROOT]

Scans ROOT (default: the tree this script sits in) and prints one line per
include that breaks a rule below, exit 1 on a finding. --self-test first
plants bad includes in a temporary tree and fails unless each is found (and
the good ones pass), so that a pass means something; alone, it stops there.

The house, bottom to top (a folder may include its own files and those of
the folders it names):

  core/             backend-neutral: only core/; no CUDA, GStreamer or
                    OpenCV headers. core/*.h is the ground floor;
                    core/draw/ and core/policy/ use it; the per-algorithm
                    folders (core/canny/, core/face/, ...) use all three
                    but never one another.
  cuda/common/      core/ and cuda/common/.
  cuda/<algo>/      core/, cuda/common/ and its own folder: no algorithm
                    folder includes another's.
  cuda/compose/     chains of algorithms: core/, cuda/common/, cuda/<algo>/.
  cpu/              the OpenCV backend: core/ and cpu/, no CUDA headers.
  gst-libs/         the public library: gst-libs/ and GStreamer only.
  gst/              the elements: core/, cuda/, cpu/, gst-libs/, gst/.
  frames/           test and benchmark frames: core/ and frames/.
  bench/            core/, cuda/, cpu/, gst-libs/, gst/ and frames/; never
                    tests/ (nor tools/, fuzz/).
  tests/            anything, but from bench/ only the headers of the
                    cvbench-util library (BENCH_SHARED), which the tuner
                    and the benchmarks share.
  tools/, fuzz/     core/, cuda/, cpu/, gst/, gst-libs/, frames/, their own
                    folder and BENCH_SHARED; never tests/.
  examples/         the public library only, as an application would.

Kernels stay free of GStreamer: nothing in core/, cuda/ or cpu/ includes
<gst/...>, gst-libs/ or gst/. OpenCV stays out of core/, cuda/ and
gst-libs/; the CUDA toolkit's headers out of core/, cpu/, frames/,
gst-libs/ and examples/.

Quoted includes are resolved as the compiler does: next to the including
file, then in the folders the build puts on the include path
(INCLUDE_DIRS); one that resolves to nothing is a finding too, since the
rule cannot be checked. Of the angle-bracket includes only <gst/...>,
<opencv2/...> and the CUDA toolkit's (<cuda...>, <cub/...>, ...) are
checked; other system headers are skipped.
"""

import os
import re
import sys
import tempfile

SCANNED = ("core", "cuda", "cpu", "gst", "gst-libs", "frames", "tests", "bench", "tools", "fuzz",
           "examples")
SOURCE_EXT = (".h", ".hpp", ".hh", ".c", ".cc", ".cpp", ".cxx", ".cu", ".cuh", ".inl")
# Where the build points the compiler for a quoted include not found next to
# the file: gst/meson.build's core_dep and gst-libs' cudavision_inc.
INCLUDE_DIRS = ("gst", "gst-libs", "gst-libs/gst/cudavision")
# The headers of the cvbench-util library (tools/meson.build): the tuner links
# it, and its launch gate has a GPU test of its own.
BENCH_SHARED = ("bench/bench_util.h", "bench/launch_gate.h")
# The core/ folders that are no one algorithm's.
CORE_SHARED = ("draw", "policy")

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
CUDA_HEADER_RE = re.compile(r"^(cuda|cub/|thrust/|cooperative_groups|curand|cufft|cublas|npp|nvrtc|"
                            r"nvtx|device_launch_parameters|vector_types)")

GST, OPENCV, CUDA = "GStreamer", "OpenCV", "CUDA toolkit"
KERNELS_FREE_OF_GST = "kernels are free of GStreamer (core/, cuda/, cpu/)"


def folders(names):
    """"core/, cpu/ and gst/" for ("core", "cpu", "gst")."""
    names = [n + "/" for n in names]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def layer(rel):
    """(top folder, sub folder) of a path relative to the root; the sub folder
    only below core/ and cuda/, "" for a file right in core/."""
    parts = rel.split("/")
    if parts[0] in ("core", "cuda") and len(parts) > 2:
        return parts[0], parts[1]
    return parts[0], ""


def external_kind(name):
    """The library an angle-bracket include belongs to, where one is checked."""
    if name.startswith("gst/"):
        return GST
    if name.startswith("opencv2/"):
        return OPENCV
    if CUDA_HEADER_RE.match(name):
        return CUDA
    return None


def check_external(src, kind):
    """The rule `src` breaks by including a header of `kind`, or None."""
    top, _ = layer(src)
    if kind == GST and top in ("core", "cuda", "cpu"):
        return KERNELS_FREE_OF_GST
    if kind == OPENCV and top in ("core", "cuda", "gst-libs"):
        return "OpenCV is the CPU backend's (cpu/): not in core/, cuda/ or gst-libs/"
    if kind == CUDA and top in ("core", "cpu", "frames", "gst-libs", "examples"):
        return "no CUDA toolkit header in core/, cpu/, frames/, gst-libs/ or examples/"
    return None


def check_internal(src, dst):
    """The rule `src` breaks by including the tree's file `dst` (both relative
    to the root), or None."""
    top, sub = layer(src)
    dtop, dsub = layer(dst)
    if top == "core":
        if dtop != "core":
            return "core/ includes only core/"
        if sub == "" and dsub != "":
            return "core/*.h is the ground floor: it includes only core/*.h"
        if sub in CORE_SHARED and dsub not in ("", sub):
            return "core/%s/ includes only core/*.h and core/%s/" % (sub, sub)
        if dsub not in ("", sub) + CORE_SHARED:
            return "core/%s/ includes core/*.h, core/draw/, core/policy/ and itself, " \
                   "no other algorithm's folder" % sub
        return None
    if top in ("cuda", "cpu") and dtop in ("gst", "gst-libs"):
        return KERNELS_FREE_OF_GST
    if top == "cuda":
        if sub == "common":
            if dtop != "core" and (dtop, dsub) != ("cuda", "common"):
                return "cuda/common/ includes only core/ and cuda/common/, no algorithm folder"
        elif sub == "compose":
            if dtop not in ("core", "cuda"):
                return "cuda/compose/ includes only core/ and cuda/"
        elif dtop != "core" and (dtop != "cuda" or dsub not in ("common", sub)):
            return "cuda/%s/ includes only core/, cuda/common/ and itself: " \
                   "no algorithm folder includes another's" % sub
        return None
    allowed = {
        "cpu": ("core", "cpu"),
        "gst-libs": ("gst-libs",),
        "gst": ("core", "cuda", "cpu", "gst-libs", "gst"),
        "frames": ("core", "frames"),
        "bench": ("core", "cuda", "cpu", "gst-libs", "gst", "frames", "bench"),
        "tests": SCANNED,
        "tools": ("core", "cuda", "cpu", "gst-libs", "gst", "frames", "bench", "tools"),
        "fuzz": ("core", "cuda", "cpu", "gst-libs", "gst", "frames", "bench", "fuzz"),
        "examples": ("gst-libs", "examples"),
    }
    if top not in allowed:
        return "no layering rule for %s/" % top
    if dtop not in allowed[top]:
        return "%s/ includes only %s" % (top, folders(allowed[top]))
    if dtop == "bench" and top != "bench" and dst not in BENCH_SHARED:
        return "%s/ includes from bench/ only the shared %s" % (top, " and ".join(BENCH_SHARED))
    return None


def resolve(root, src, name):
    """The tree's file a quoted include names, relative to root, or None."""
    for folder in (os.path.dirname(src),) + INCLUDE_DIRS:
        path = os.path.normpath(os.path.join(root, folder, name))
        if os.path.isfile(path):
            return os.path.relpath(path, root).replace(os.sep, "/")
    return None


def sources(root):
    for top in SCANNED:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for f in sorted(filenames):
                if f.endswith(SOURCE_EXT):
                    yield os.path.relpath(os.path.join(dirpath, f), root).replace(os.sep, "/")


def check_include(root, src, quote, name):
    """(rule broken, file included) for one include; rule None when fine."""
    if quote == '"':
        dst = resolve(root, src, name)
        if dst is None:
            return "resolves to no file (next to it or in %s)" % folders(INCLUDE_DIRS), None
        return check_internal(src, dst), dst
    if name.startswith("gst/cudavision/"):  # the public library, as installed
        dst = "gst-libs/" + name
        return check_internal(src, dst), dst
    kind = external_kind(name)
    return (check_external(src, kind) if kind else None), None


def check_tree(root, counts=None):
    """One line per include that breaks the layering; counts, where given,
    gets the number of files and includes read."""
    findings = []
    files = includes = 0
    for src in sources(root):
        files += 1
        with open(os.path.join(root, src), encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
        for number, text in enumerate(lines, 1):
            m = INCLUDE_RE.match(text)
            if not m:
                continue
            includes += 1
            quote, name = m.groups()
            rule, dst = check_include(root, src, quote, name)
            if rule:
                shown = '"%s"' % name if quote == '"' else "<%s>" % name
                if dst and dst != name:
                    shown += " (%s)" % dst
                findings.append("%s:%d: #include %s: %s" % (src, number, shown, rule))
    if counts is not None:
        counts.update(files=files, includes=includes)
    return findings


# --self-test: each BAD file breaks one rule with its one include; the GOOD
# files, which they include, must pass.
SELF_TEST_BAD = {
    "core/cuda_bad.h": "#include <cuda_runtime.h>",
    "core/gst_bad.h": "#include <gst/gst.h>",
    "core/cv_bad.h": "#include <opencv2/core.hpp>",
    "core/up_bad.h": '#include "../cuda/common/x.h"',
    "core/root_bad.h": '#include "canny/p.h"',
    "core/draw/algo_bad.h": '#include "../face/f.h"',
    "core/canny/cross_bad.h": '#include "../face/f.h"',
    "cuda/common/algo_bad.h": '#include "../canny/c.h"',
    "cuda/canny/cross_bad.cu": '#include "../face/fd.h"',
    "cuda/canny/compose_bad.cu": '#include "../compose/k.h"',
    "cuda/face/gst_bad.cpp": '#include "gstcvmemory.h"',
    "cuda/face/gstlib_bad.cpp": "#include <gst/cudavision/gstcvmeta.h>",
    "cuda/face/cv_bad.cpp": "#include <opencv2/imgproc.hpp>",
    "cpu/cuda_bad.cpp": '#include "../cuda/common/x.h"',
    "cpu/runtime_bad.cpp": "#include <cuda_runtime_api.h>",
    "gst-libs/gst/cudavision/core_bad.c": '#include "../../../core/image.h"',
    "frames/bench_bad.cpp": '#include "../bench/bench_util.h"',
    "bench/tests_bad.cpp": '#include "../tests/common/t.h"',
    "tests/gpu/bench_bad.cpp": '#include "../../bench/b.h"',
    "tools/tests_bad.cpp": '#include "../tests/common/t.h"',
    "fuzz/missing_bad.cpp": '#include "nowhere.h"',
    "examples/internal_bad.c": '#include "../gst/gstcvmemory.h"',
}
SELF_TEST_GOOD = {
    "core/image.h": '#include "hd.h"\n#include <cstdint>',
    "core/hd.h": "",
    "core/draw/canvas.h": '#include "../image.h"',
    "core/policy/p.h": '#include "../hd.h"',
    "core/canny/p.h": '#include "../draw/canvas.h"\n#include "../policy/p.h"',
    "core/face/f.h": "#include <vector>",
    "cuda/common/x.h": '#include "../../core/image.h"\n#include <cuda_runtime.h>',
    "cuda/canny/c.h": '#include "../common/x.h"\n#include "../../core/canny/p.h"',
    "cuda/face/fd.h": "#include <cub/block/block_scan.cuh>\n#include <cooperative_groups.h>",
    "cuda/compose/k.h": '#include "../canny/c.h"\n#include "../face/fd.h"',
    "cpu/c.cpp": '#include "../core/canny/p.h"\n#include <opencv2/core.hpp>',
    "gst/gstcvmemory.h": '#include <cuda_runtime_api.h>\n#include "../cuda/canny/c.h"\n'
                         '#include "../cpu/c.cpp"\n#include "gstcvmeta.h"',
    "gst-libs/gst/cudavision/gstcvmeta.h": "#include <gst/gst.h>",
    "gst-libs/gst/cudavision/gstcvmeta.c": '#include "gstcvmeta.h"\n#include <gst/video/video.h>',
    "frames/fr.h": '#include "../core/image.h"\n#include <gst/gst.h>\n#include <opencv2/core.hpp>',
    "bench/bench_util.h": '#include "../cuda/common/x.h"',
    "bench/b.h": '#include "../frames/fr.h"\n#include "gstcvmemory.h"\n#include "bench_util.h"',
    "tests/common/t.h": '#include "../../bench/bench_util.h"\n#include "../../tools/tool.h"',
    "tools/tool.h": '#include "../bench/bench_util.h"\n#include "../gst/gstcvmemory.h"',
    "fuzz/f.cpp": '#include "../core/face/f.h"\n#include <opencv2/core.hpp>',
    "examples/e.c": "#include <gst/cudavision/gstcvmeta.h>\n#include <gst/video/video.h>",
}


def self_test():
    with tempfile.TemporaryDirectory() as root:
        for files in (SELF_TEST_GOOD, SELF_TEST_BAD):
            for rel, text in files.items():
                path = os.path.join(root, rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(text + "\n")
        findings = check_tree(root)
    flagged = {}
    for line in findings:
        flagged.setdefault(line.split(":", 1)[0], []).append(line)
    failures = []
    for rel, text in SELF_TEST_BAD.items():
        if len(flagged.get(rel, [])) != 1:
            failures.append("%s: %s should be one finding, got %s" % (rel, text, flagged.get(rel, [])))
    for rel in SELF_TEST_GOOD:
        if rel in flagged:
            failures.append("%s: should pass: %s" % (rel, flagged[rel]))
    for line in failures:
        print("self-test: " + line)
    if failures:
        return 1
    print("self-test: %d bad includes found, %d good files pass" % (len(SELF_TEST_BAD), len(SELF_TEST_GOOD)))
    return 0


def main(argv):
    args = argv[1:]
    self_testing = args[:1] == ["--self-test"]
    if self_testing:
        args = args[1:]
    if len(args) > 1 or args[:1] in (["-h"], ["--help"], ["--self-test"]):
        print(__doc__.strip())
        return 2
    if self_testing:
        # the rules first, so that a pass on the tree means something
        if self_test() != 0:
            return 1
        if not args:
            return 0
    root = args[0] if args else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    counts = {}
    findings = check_tree(root, counts)
    for line in findings:
        print(line)
    print("%d includes in %d files checked" % (counts["includes"], counts["files"]))
    if findings:
        print("%d include(s) break the layering (the rules: tools/check-layering.py --help)" % len(findings))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
