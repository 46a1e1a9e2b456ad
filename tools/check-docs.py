#!/usr/bin/env python3
"""The docs, run as written (test `docs`, suite `docs`; `docs-gpu`, suite `gpu`).

1. Every `gst-launch-1.0` command in a fenced code block of README.md,
   docs/**/*.md and examples/**/*.md runs from the repository root with
   the built plugin, on the CPU backend (every CUDA device hidden), and must
   exit 0. A command continued over several lines with `\\` is joined
   first; simple assignments earlier in the same block (`RTP="..."`) are
   set before it. To keep each run short and headless:
     - a display sink (autovideosink, xvimagesink, ...) becomes fakesink;
     - videotestsrc, audiotestsrc and imagefreeze without num-buffers get
       num-buffers=5;
     - a relative location= of filesink, multifilesink or splitmuxsink
       is written under the output directory instead of the tree;
     - each command gets --timeout seconds (default 120).
   A command that needs what the test machine may not have is marked in
   its block, on a comment line above it (other comment lines may come
   between):

       # needs: gpu
       gst-launch-1.0 ... nvh264dec ! ...

   `gpu` (an NVIDIA GPU: nvh264dec, memory:CUDAMemory, cudaupload,
   cudadownload, backend=cuda), `camera` (v4l2src), `network` (udpsrc,
   udpsink, rtspsrc, ...), or any other words for anything else (`nsys`,
   "the 1080p clip made above"), comma-separated. Marked commands are
   skipped with their reason printed; an unmarked command that uses one of
   the elements above fails, naming what to mark. A sample of a command's
   output quoted in the docs is tied to it by a comment line above it,

       # expect: count=(uint)278

   (one or more): on the CPU backend the command's output (stdout and
   stderr, GStreamer's backslash escapes removed) must contain that text. With --gpu only the
   commands marked `# needs: gpu` alone run, on the GPU (exit 77 when
   cudavision has no usable GPU here; a command whose elements this
   GStreamer lacks is skipped, said so).
2. The property tables of docs/elements/*.md, the common table of
   docs/elements/README.md and README.md's against gst-inspect-1.0 of the
   built plugin: one row per property (no more, no fewer), its default as
   gst-inspect-1.0 prints it, every value of an enum named in its row.
   Not with --gpu.

The first failure ends the run (--keep-going: all of them), naming the file
and line. Exit status: 0 all passed, 1 a failure, 77 skipped (--gpu).

    tools/check-docs.py [--gpu] [--keep-going] [--list] [--out DIR]
                        [--timeout S] [--only FILE[:LINE]] [--no-properties]

GST_PLUGIN_PATH should name the build's plugin folder (build/gst when not
set).
"""
import argparse
import os
import re
import shlex
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ELEMENTS = ["cudagray", "cudablur", "cudaotsu", "cudaharris", "cudacanny", "cudaflow", "cudafacedetect"]

DISPLAY_SINKS = ["autovideosink", "xvimagesink", "ximagesink", "glimagesink", "waylandsink",
                 "kmssink", "fbdevsink", "fpsdisplaysink", "gtksink", "gtkglsink", "qmlglsink",
                 "autoaudiosink", "alsasink", "pulsesink"]
ENDLESS_SOURCES = ["videotestsrc", "audiotestsrc", "imagefreeze"]
FILE_SINKS = ["filesink", "multifilesink", "splitmuxsink"]
# what an unmarked command may not use: (kind, pattern)
NEEDS_PATTERNS = [
    ("gpu", r"\bnv(h264|h265|vp8|vp9|av1|jpeg|mpeg2|mpeg4|mpeg)(dec|enc|sldec)\b|\bnvautogpu\w*|"
            r"\bmemory:CUDAMemory\b|\bcuda(upload|download|convert|scale|convertscale)\b|\bbackend=cuda\b"),
    ("camera", r"\b(v4l2src|libcamerasrc|pipewiresrc|ksvideosrc|avfvideosrc)\b"),
    ("network", r"\b(udpsrc|udpsink|multiudpsink|tcpserversrc|tcpserversink|tcpclientsrc|tcpclientsink|"
                r"rtspsrc|souphttpsrc|srtsrc|srtsink|ristsrc|ristsink|webrtcbin)\b"),
]
LAUNCH_RE = re.compile(r"(^|\s)gst-launch-1\.0(\s|$)")
ASSIGN_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
NEEDS_RE = re.compile(r"^\s*#\s*needs:\s*(.+?)\s*$")
EXPECT_RE = re.compile(r"^\s*#\s*expect:\s*(.+?)\s*$")
SH_INFO = {"", "sh", "bash", "shell", "console", "zsh"}


def md_files():
    files = [os.path.join(ROOT, "README.md")]
    for top in ("docs", "examples"):
        for d, subdirs, names in os.walk(os.path.join(ROOT, top)):
            subdirs.sort()
            files += [os.path.join(d, n) for n in sorted(names) if n.endswith(".md")]
    return [f for f in files if os.path.isfile(f)]


class Command:
    def __init__(self, path, line, text, needs, assigns, expects):
        self.path, self.line, self.text, self.needs, self.assigns = path, line, text, needs, assigns
        self.expects = expects

    def where(self):
        return "%s:%d" % (os.path.relpath(self.path, ROOT), self.line)


def extract(path):
    """The gst-launch-1.0 commands of one Markdown file's fenced blocks."""
    cmds = []
    lines = open(path, encoding="utf-8").read().split("\n")
    fence = None          # the fence that opened the current block
    info = ""
    needs = None          # a pending `# needs:` marker
    expects = []          # pending `# expect:` markers
    assigns = []          # simple assignments seen in the block
    i = 0
    while i < len(lines):
        raw = lines[i]
        s = raw.strip()
        m = re.match(r"^(`{3,}|~{3,})(.*)$", s)
        if fence is None:
            if m:
                fence, info = m.group(1), m.group(2).strip().split(" ")[0].lower()
                needs, assigns, expects = None, [], []
            i += 1
            continue
        if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not m.group(2).strip():
            fence = None
            i += 1
            continue
        if info not in SH_INFO:
            i += 1
            continue
        start = i
        # join continuation lines
        text = raw.rstrip()
        while text.endswith("\\") and i + 1 < len(lines):
            i += 1
            text = text[:-1].rstrip() + " " + lines[i].strip()
        i += 1
        body = text.strip()
        if not body:
            continue
        mk = NEEDS_RE.match(body)
        if mk:
            needs = [w.strip() for w in mk.group(1).split(",") if w.strip()]
            continue
        me = EXPECT_RE.match(body)
        if me:
            expects.append(me.group(1))
            continue
        if body.startswith("#"):
            continue
        if LAUNCH_RE.search(body):
            cmds.append(Command(path, start + 1, body, needs or [], list(assigns), expects))
        elif ASSIGN_RE.match(body) and len(shlex_split(body) or []) == 1:
            assigns.append(body)
        needs, expects = None, []
    return cmds


def shlex_split(text):
    try:
        return shlex.split(text, comments=True)
    except ValueError:
        return None


def segments(cmd):
    """The element names of a gst-launch-1.0 command (the first word of each
    `!`-separated part that is not caps)."""
    words = shlex_split(cmd) or []
    if "gst-launch-1.0" not in words:
        return []
    words = words[words.index("gst-launch-1.0") + 1:]
    names, first = [], True
    for w in words:
        if w == "!":
            first = True
            continue
        if first and not w.startswith("-"):
            if "/" not in w and "=" not in w and "." not in w and w not in ("(", ")"):
                names.append(w)
            first = False
    return names


def transform(cmd, outdir):
    t = cmd
    sinks = "|".join(DISPLAY_SINKS)
    t = re.sub(r"(?<![\w-])(%s)(?![\w-])[^!&;|]*" % sinks, "fakesink ", t)

    def bound(m):
        props = m.group(2)
        if "num-buffers=" in props:
            return m.group(0)
        return m.group(1) + " num-buffers=5" + props
    t = re.sub(r"(?<![\w-])(%s)(?![\w-])([^!&;|]*)" % "|".join(ENDLESS_SOURCES), bound, t)

    def relocate(m):
        def one(lm):
            q, loc = lm.group(1), lm.group(2)
            if loc.startswith("/") or loc.startswith("$"):
                return lm.group(0)
            target = os.path.join(outdir, loc)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            return "location=" + q + target + q
        return m.group(1) + re.sub(r"location=([\"']?)([^\"'\s]+)\1", one, m.group(2))
    t = re.sub(r"(?<![\w-])(%s)(?![\w-])([^!&;|]*)" % "|".join(FILE_SINKS), relocate, t)
    return t


def detected_needs(cmd):
    return [kind for kind, pat in NEEDS_PATTERNS if re.search(pat, cmd)]


def launch_prefix_ok(cmd):
    """Only environment assignments may come before gst-launch-1.0."""
    words = shlex_split(cmd)
    if words is None:
        return False
    for w in words:
        if w == "gst-launch-1.0":
            return True
        if not ASSIGN_RE.match(w):
            return False
    return False


_have = {}


def have_element(name):
    if name not in _have:
        _have[name] = subprocess.run(["gst-inspect-1.0", "--exists", name],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    return _have[name]


def run_one(c, args, env):
    script = "\n".join(c.assigns + [transform(c.text, args.out)])
    t0 = time.monotonic()
    p = subprocess.Popen(["bash", "-c", script], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=args.timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        rc = "timeout after %d s" % args.timeout
    return rc, out.decode(errors="replace"), time.monotonic() - t0, script


# ---- property tables ------------------------------------------------------

def inspect(element, env):
    out = subprocess.run(["gst-inspect-1.0", element], env=env, capture_output=True, text=True).stdout
    if "Element Properties:" not in out:
        raise RuntimeError("gst-inspect-1.0 %s: no such element (GST_PLUGIN_PATH=%s)"
                           % (element, env.get("GST_PLUGIN_PATH")))
    sec = out.split("Element Properties:", 1)[1]
    props = {}
    for chunk in re.split(r"\n  (?=[a-z][a-z0-9-]* +:)", sec)[1:]:
        name = chunk.split()[0]
        if name in ("name", "parent", "qos"):
            continue
        d = re.search(r"Default: ?(.*)", chunk)
        default = d.group(1).strip() if d else ""
        enum = re.findall(r"^\s+\(\d+\): (\S+)", chunk, re.M)
        if enum:
            default = re.search(r'"(.*)"', default).group(1)
        elif default.startswith('"'):
            default = default.strip('"')
        kind = chunk.split("\n")[2].split(".")[0].strip() if chunk.count("\n") >= 2 else ""
        props[name] = {"default": default, "enum": enum, "kind": kind}
    return props


def table_rows(path, first_header):
    """(line, cells) of the rows of every table whose first header cell is
    `first_header`, and those tables' headers."""
    rows, header = [], None
    lines = open(path, encoding="utf-8").read().split("\n")
    for n, l in enumerate(lines, 1):
        if not l.startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", l.strip())[1:-1]]
        if header is None:
            header = cells
            continue
        if set("".join(cells)) <= set("-: "):
            continue
        if header and header[0] == first_header:
            rows.append((n, cells, header))
    return rows


def default_ok(doc, prop):
    want = prop["default"]
    cell = doc.replace("`", "").strip()
    if want == "null":
        return True  # a string property unset: the row says what that means
    if prop["enum"] or prop["kind"] in ("Boolean", "String"):
        return cell.split(" ")[0] == want
    first = cell.split(" ")[0].rstrip(",;")
    try:
        num = int(first, 16) if first.lower().startswith("0x") else float(first)
        return abs(num - float(want)) <= 1e-9 * max(1.0, abs(float(want)))
    except ValueError:
        return False


def check_properties(env):
    errors = []
    inspected = {e: inspect(e, env) for e in ELEMENTS}
    common = set.intersection(*(set(p) for p in inspected.values()))
    any_props = inspected[ELEMENTS[0]]

    def check_rows(path, rows, expected, props, default_col, values_col):
        where = os.path.relpath(path, ROOT)
        seen = {}
        for n, cells, header in rows:
            name = cells[0].strip("`")
            seen[name] = n
            if name not in expected:
                errors.append("%s:%d: property `%s` is not one gst-inspect-1.0 lists here" % (where, n, name))
                continue
            p = props[name]
            if len(cells) <= default_col or not default_ok(cells[default_col], p):
                errors.append("%s:%d: `%s` default is %r, gst-inspect-1.0 says %s"
                              % (where, n, name, cells[default_col] if len(cells) > default_col else "",
                                 p["default"]))
            for v in p["enum"]:
                if "`%s`" % v not in " ".join(cells[1:]):
                    errors.append("%s:%d: `%s` row does not name the value `%s`" % (where, n, name, v))
        for name in sorted(expected - set(seen)):
            errors.append("%s: no row for property `%s` (gst-inspect-1.0 lists it)" % (where, name))

    for path in (os.path.join(ROOT, "README.md"), os.path.join(ROOT, "docs", "elements", "README.md")):
        rows = [r for r in table_rows(path, "property") if r[2][1:3] == ["values", "default"]]
        check_rows(path, rows, common, any_props, 2, 1)
    for e in ELEMENTS:
        path = os.path.join(ROOT, "docs", "elements", e + ".md")
        rows = [r for r in table_rows(path, "property") if len(r[2]) > 1 and r[2][1] == "default"]
        check_rows(path, rows, set(inspected[e]) - common, inspected[e], 1, 2)
    return errors


# ---- main -------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpu", action="store_true", help="run only the commands marked `# needs: gpu`, on the GPU")
    ap.add_argument("--keep-going", action="store_true", help="run every command, report every failure")
    ap.add_argument("--list", action="store_true", help="list the commands and their needs, run nothing")
    ap.add_argument("--out", default=None, help="where the commands' files go (default: a temporary folder)")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per command")
    ap.add_argument("--only", default=None, help="FILE or FILE:LINE (relative to the tree)")
    ap.add_argument("--no-properties", action="store_true", help="skip the property tables")
    args = ap.parse_args()

    env = dict(os.environ)
    env.setdefault("GST_PLUGIN_PATH", os.path.join(ROOT, "build", "gst"))
    if not args.gpu:
        env["CUDA_VISIBLE_DEVICES"] = "-1"  # the CPU backend, as on a machine without a GPU
    if args.out is None:
        import tempfile
        args.out = tempfile.mkdtemp(prefix="cudavision-docs-")
    args.out = os.path.abspath(args.out)
    os.makedirs(args.out, exist_ok=True)

    cmds = []
    for f in md_files():
        cmds += extract(f)
    if args.only:
        f, _, line = args.only.partition(":")
        cmds = [c for c in cmds if os.path.relpath(c.path, ROOT) == os.path.normpath(f)
                and (not line or c.line == int(line))]

    if args.list:
        for c in cmds:
            print("%-36s needs: %-20s %s%s" % (c.where(), ", ".join(c.needs) or "-", c.text,
                                               "".join("\n%36s expect: %s" % ("", e) for e in c.expects)))
        return 0

    if args.gpu:
        probe = subprocess.run(["gst-launch-1.0", "-q", "videotestsrc", "num-buffers=1", "!", "cudagray",
                                "backend=cuda", "!", "fakesink"], env=env, capture_output=True)
        if probe.returncode != 0:
            print("skipped: no usable CUDA device (cudagray backend=cuda failed)")
            return 77

    failures, ran, skipped = [], 0, []

    def fail(c, msg):
        failures.append(c.where())
        print("FAIL %s: %s" % (c.where(), msg))
        return not args.keep_going

    for c in cmds:
        # marks first: the command must say what it needs
        if not launch_prefix_ok(c.text) and not c.needs:
            if fail(c, "gst-launch-1.0 runs under another program here: mark what that needs "
                       "('# needs: gpu, nsys' ...) on a comment line above it\n    %s" % c.text):
                break
            continue
        missing = [k for k in detected_needs(c.text) if k not in c.needs]
        if missing:
            if fail(c, "uses %s: mark it with a comment line '# needs: %s' above it\n    %s"
                    % (" and ".join("a " + k if k != "network" else "the network" for k in missing),
                       ", ".join(c.needs + missing), c.text)):
                break
            continue
        if args.gpu:
            if c.needs != ["gpu"]:
                if "gpu" in c.needs:
                    skipped.append((c, "needs " + ", ".join(c.needs)))
                continue
            absent = [e for e in segments(transform(c.text, args.out)) if not have_element(e)]
            if absent:
                skipped.append((c, "this GStreamer has no " + ", ".join(absent)))
                print("skip %s: no %s here" % (c.where(), ", ".join(absent)))
                continue
        elif c.needs:
            skipped.append((c, "needs " + ", ".join(c.needs)))
            print("skip %s (needs: %s)" % (c.where(), ", ".join(c.needs)))
            continue
        rc, out, secs, script = run_one(c, args, env)
        ran += 1
        if rc != 0:
            tail = "\n".join(out.rstrip().split("\n")[-40:])
            if fail(c, "exit status %s after %.1f s\n  as written: %s\n  as run:     %s\n  output (the end):\n%s"
                    % (rc, secs, c.text, script.replace("\n", "; "),
                       "\n".join("    " + l for l in tail.split("\n")))):
                break
            continue
        plain = out.replace("\\", "")
        lacking = [e for e in c.expects if e not in plain] if not args.gpu else []
        if lacking:
            tail = "\n".join(plain.rstrip().split("\n")[-20:])
            if fail(c, "the output lacks %s (the docs quote it)\n  as run: %s\n  output (the end):\n%s"
                    % (", ".join(repr(e) for e in lacking), script.replace("\n", "; "),
                       "\n".join("    " + l[:300] for l in tail.split("\n")))):
                break
            continue
        print("ok   %s (%.1f s)%s" % (c.where(), secs, ", output as quoted" if c.expects and not args.gpu else ""))

    if not args.gpu and not args.no_properties and (not failures or args.keep_going) and not args.only:
        errs = check_properties(env)
        for e in errs:
            print("FAIL " + e)
        if errs:
            failures.append("property tables")
        else:
            print("ok   property tables of README.md and docs/elements/ match gst-inspect-1.0")

    gpu_lines = [c for c, why in skipped if c.needs == ["gpu"]]
    print("\n%d commands run, %d skipped, %d failed (of %d in the docs); files in %s"
          % (ran, len(skipped), len(failures), len(cmds), args.out))
    if skipped and not args.gpu:
        print("skipped, by what they need:")
        for c, why in skipped:
            print("  %-36s %s" % (c.where(), why))
        if gpu_lines:
            print("the %d marked '# needs: gpu' alone run in the gpu suite (test docs-gpu: "
                  "tools/check-docs.py --gpu)" % len(gpu_lines))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
