#!/usr/bin/env python3
"""cudavision inside a Python application (PyGObject).

The same as examples/c/cudavision-embed.c: frames from memory (a picture
decoded once, or a synthetic pattern, moved a little on every frame) go
through

    appsrc ! [cudafacedetect !] cudagray ! cudaharris ! [cudaflow !]
        cudaotsu attach-meta=true ! appsink

and the script prints, per frame, what the metas and the bus messages say:
the first corners and the mean flow read from the metas themselves.
Elements the plugin does not have yet (in brackets) are left out.

    cudavision-embed.py [--backend auto|cuda|cpu] [--frames N] [--check] [PICTURE]

Needs Debian's python3-gi, gir1.2-gst-plugins-base-1.0 and python3-gst-1.0
(GStreamer's overrides: Gst.ValueList, for the message's face list), the
plugin on GST_PLUGIN_PATH (or installed), and libgstcudavision-1.0's
introspection data: GstCudaVision-1.0.typelib on GI_TYPELIB_PATH
(build/gst-libs/gst/cudavision in the build tree, LIBDIR/girepository-1.0
installed) with its library on the loader's path (LD_LIBRARY_PATH for a
private prefix).

What Python reads:
  - corners, the Otsu threshold and the flow: GstCudaVision's
    buffer_get_cv_keypoints_meta, buffer_get_cv_otsu_meta and
    buffer_get_cv_flow_meta. Scalar fields read directly (meta.threshold,
    meta.grid_step), the counts with meta.get_n () (the bindings cannot
    set `n`, which bounds the arrays); the points and vectors through
    meta.get_points () and meta.get_vectors (), which hand out copies
    (PyGObject cannot read an array field sized by another field).
  - faces: GStreamer's own GstVideoRegionOfInterestMeta, through GstVideo.
    The bindings reach these metas by id only
    (GstVideo.buffer_get_video_region_of_interest_meta_id); cudafacedetect
    gives each face of a frame its own id, 0..n-1, so the script reads
    every one, with its "detection" parameter (meta.get_param): the raw
    windows grouped into the face (neighbors, the detector's confidence)
    and its scale. The "facedetect" message lists the same faces (a
    Gst.ValueList of "face" structures).
  - the element messages "cudaharris" (the count and the 50 strongest
    corners), "cudaotsu" (the threshold) and "cudaflow" (the count, mean and
    median displacement), which --check holds against the metas.
"""
import argparse
import os
import sys
import warnings

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstApp", "1.0")
gi.require_version("GstVideo", "1.0")
gi.require_version("GstCudaVision", "1.0")
# GstApp is not named below but gives appsrc and appsink their methods
# (push_buffer, try_pull_sample, ...).
from gi.repository import GLib, Gst, GstApp, GstCudaVision, GstVideo  # noqa: E402,F401

FPS = 30
MESSAGE_CORNERS = 50  # cudaharris's message lists the 50 strongest


def load_picture(path):
    """Decodes a picture once: (width, height, RGBA rows as bytes)."""
    pipe = Gst.parse_launch(
        "filesrc name=file ! decodebin ! videoconvert ! video/x-raw,format=RGBA ! appsink name=sink")
    pipe.get_by_name("file").set_property("location", path)
    sink = pipe.get_by_name("sink")
    pipe.set_state(Gst.State.PLAYING)
    bus = pipe.get_bus()
    sample = None
    for _ in range(100):  # 10 s at most; an unreadable file posts an error
        sample = sink.try_pull_sample(100 * Gst.MSECOND)
        if sample or sink.is_eos() or bus.pop_filtered(Gst.MessageType.ERROR):
            break
    try:
        if not sample:
            sys.exit(f"cannot decode {path} (not a picture GStreamer reads?)")
        info = GstVideo.VideoInfo.new_from_caps(sample.get_caps())
        ok, mapinfo = sample.get_buffer().map(Gst.MapFlags.READ)
        data = bytes(mapinfo.data)
        sample.get_buffer().unmap(mapinfo)
        stride, row = info.stride[0], info.width * 4
        rows = [data[y * stride:y * stride + row] for y in range(info.height)]
        return info.width, info.height, rows
    finally:
        pipe.set_state(Gst.State.NULL)


def make_pattern():
    """Bright squares on a dark graded background, as the C example."""
    w, h = 320, 240
    rows = []
    for y in range(h):
        row = bytearray()
        for x in range(w):
            square = 16 <= x % 64 < 48 and 16 <= y % 64 < 48
            v = 200 + y // 8 if square else 30 + x // 16
            row += bytes((v, v, v - 40 if square else v, 255))
        rows.append(bytes(row))
    return w, h, rows


def shift(i):
    """Where frame i shows the picture: moved right by i, down by i // 2
    (wrapping), as a slowly panning camera would. The motion is known, so
    --check can hold cudaflow's measurement against it."""
    return i, i // 2


def make_frame(w, h, rows, i):
    """Frame i: the picture moved by shift(i)."""
    dx, dy = shift(i)
    dx, dy = dx % w, dy % h
    cut = (w - dx) * 4
    data = b"".join(rows[(y - dy) % h][cut:] + rows[(y - dy) % h][:cut] for y in range(h))
    buf = Gst.Buffer.new_wrapped(data)
    buf.pts = Gst.util_uint64_scale(i, Gst.SECOND, FPS)
    buf.duration = Gst.util_uint64_scale(1, Gst.SECOND, FPS)
    return buf


def white_share(buf, info):
    """Share of white (255) pixels of the GRAY8 output (reading the pixels
    on the host: one download of a device frame, at this edge only)."""
    ok, m = buf.map(Gst.MapFlags.READ)
    if not ok:
        return -1.0
    try:
        # bytes with the plain bindings, a memoryview with gst-python's
        # overrides: bytes either way
        data, stride, w = bytes(m.data), info.stride[0], info.width
        white = sum(data[y * stride:y * stride + w].count(255) for y in range(info.height))
    finally:
        buf.unmap(m)
    return white / (w * info.height)


def read_corners(buf, rec):
    """The corners meta: prints the count and the first three points."""
    meta = GstCudaVision.buffer_get_cv_keypoints_meta(buf)
    if meta is None:
        return
    points = meta.get_points()  # strongest first
    rec["meta_corners"] = [(p.x, p.y, p.score) for p in points]
    first = ", ".join(f"({p.x:.0f}, {p.y:.0f}) score {p.score:.4g}" for p in points[:3])
    print(f"  corners (GstCvKeypointsMeta): {meta.get_n()}" + (f"; strongest {first}" if first else ""))


def read_otsu(buf, rec):
    meta = GstCudaVision.buffer_get_cv_otsu_meta(buf)
    if meta is not None:
        rec["meta_otsu"] = meta.threshold
        print(f"  Otsu threshold (GstCvOtsuMeta): {meta.threshold}")


def read_flow(buf, rec):
    """The flow meta: prints how many points were tracked and their mean motion."""
    meta = GstCudaVision.buffer_get_cv_flow_meta(buf)
    if meta is None:
        return
    tracked = [v for v in meta.get_vectors() if v.status]
    mean = None
    if tracked:
        mean = (sum(v.x - v.prev_x for v in tracked) / len(tracked),
                sum(v.y - v.prev_y for v in tracked) / len(tracked))
    rec["meta_flow"] = (len(tracked), mean)
    print(f"  flow (GstCvFlowMeta): {meta.get_n()} points, {len(tracked)} tracked"
          + (f", mean motion ({mean[0]:.2f}, {mean[1]:.2f}) px" if mean else ""))


def face_rois(buf):
    """The region-of-interest metas by id: how many the buffer has, and a
    list of (id, type, (x, y, w, h), neighbors, scale) for the ids 0..n-1
    that reach one (neighbors and scale None without a "detection"
    parameter)."""
    api = GstVideo.VideoRegionOfInterestMeta.get_info().api
    n = buf.get_n_meta(api)
    found = []
    for roi_id in range(n):
        m = GstVideo.buffer_get_video_region_of_interest_meta_id(buf, roi_id)
        if not m:
            continue
        neighbors = scale = None
        detection = m.get_param("detection")
        if detection is not None:
            neighbors = detection.get_value("neighbors")
            scale = detection.get_value("scale")
        found.append((m.id, GLib.quark_to_string(m.roi_type), (m.x, m.y, m.w, m.h), neighbors, scale))
    return n, found


def structure_list(s, field):
    """A list field of a message (a GstValueList) as Python values: a
    Gst.ValueList through gst-python's overrides (python3-gst-1.0). Without
    them the bindings cannot convert a GstValueList (get_value raises
    TypeError) and Gst.Structure.get_list gives it as a GValueArray
    instead."""
    if hasattr(Gst, "ValueList"):
        value = s.get_value(field)
        return list(value) if value is not None else []
    ok, arr = s.get_list(field)
    if not ok:
        return []
    items = []
    with warnings.catch_warnings():  # GValueArray is deprecated, and the only way here
        warnings.simplefilter("ignore", DeprecationWarning)
        for i in range(arr.n_values):
            v = arr.get_nth(i)  # borrowed from arr: copy what outlives it
            items.append(v.copy() if isinstance(v, Gst.Structure) else v)
    return items


def print_message(msg, records):
    s = msg.get_structure()
    name = s.get_name()
    ok, ts = s.get_uint64("timestamp")
    ts = ts if ok else Gst.CLOCK_TIME_NONE
    rec = records.setdefault(ts, {})
    if name == "cudaotsu":
        rec["otsu"] = s.get_value("threshold")
        print(f"message cudaotsu    {ts / Gst.SECOND:.3f} s: threshold {rec['otsu']}")
    elif name == "cudaharris":
        rec["corners"] = s.get_value("count")
        listed = structure_list(s, "corners")  # "corner" structures, strongest first
        rec["listed_corners"] = [(c.get_value("x"), c.get_value("y"), c.get_value("score")) for c in listed]
        strongest = ""
        if listed:
            c = listed[0]
            strongest = f"; strongest ({c.get_value('x'):.0f}, {c.get_value('y'):.0f})"
        print(f"message cudaharris  {ts / Gst.SECOND:.3f} s: {rec['corners']} corners{strongest}")
    elif name == "facedetect":
        faces = structure_list(s, "faces")  # "face" structures, in the metas' id order
        rec["message_faces"] = [(f.get_value("x"), f.get_value("y"), f.get_value("width"), f.get_value("height"))
                                for f in faces]
        print(f"message facedetect  {ts / Gst.SECOND:.3f} s: {len(faces)} face(s)")
        for i, (x, y, w, h) in enumerate(rec["message_faces"]):
            print(f"  face {i}: ({x}, {y}) {w}x{h}")
    elif name == "cudaflow":
        rec["flow_count"] = s.get_value("count")
        print(f"message cudaflow    {ts / Gst.SECOND:.3f} s: {s.get_value('count')} tracked, "
              f"displacement mean {s.get_value('mean'):.2f} median {s.get_value('median'):.2f} px")
    else:
        print(f"message {name}: {s.to_string()}")


def drain_bus(bus, records):
    """Prints the pending messages; False after an error."""
    ok = True
    while True:
        msg = bus.pop_filtered(Gst.MessageType.ELEMENT | Gst.MessageType.ERROR | Gst.MessageType.WARNING)
        if msg is None:
            return ok
        if msg.type == Gst.MessageType.ELEMENT:
            print_message(msg, records)
        elif msg.type == Gst.MessageType.WARNING:  # backend=auto without a GPU
            err, _ = msg.parse_warning()
            print(f"warning from {msg.src.get_name()}: {err.message}")
        else:
            err, dbg = msg.parse_error()
            print(f"error from {msg.src.get_name()}: {err.message}\n  {dbg}", file=sys.stderr)
            ok = False


def check(records, frames, with_faces, with_flow):
    """--check: every frame back, binarized, with its metas and messages;
    the metas agree with the messages (corner count, the strongest corners
    value for value, threshold, tracked points; with cudafacedetect, every
    face of the message reached by its id, in order, with its detection
    parameter); with cudaflow, the mean
    motion of the flow meta equal to the applied one (0.25 px of slack for
    the points crossing the wrapping seam)."""
    complete = 0
    for ts, rec in sorted(records.items()):
        problems = [k for k in ("frame", "meta_corners", "meta_otsu") if k not in rec]
        problems += [f"{k} message" for k in ("corners", "otsu") if k not in rec]
        if problems:
            print(f"CHECK {ts / Gst.SECOND:.3f} s: missing {', '.join(problems)}", file=sys.stderr)
            continue
        corners = rec["meta_corners"]
        if not corners:
            problems.append("no corners")
        if len(corners) != rec["corners"]:
            problems.append(f"corners meta has {len(corners)}, message says {rec['corners']}")
        if corners[:MESSAGE_CORNERS] != rec.get("listed_corners"):
            problems.append("the meta's strongest corners differ from the message's list")
        if rec["meta_otsu"] != rec["otsu"]:
            problems.append(f"Otsu meta {rec['meta_otsu']}, message {rec['otsu']}")
        if with_faces:
            listed = rec.get("message_faces")
            faces = rec.get("meta_faces", [])
            if listed is None:
                problems.append("no facedetect message")
            elif [box for (_, _, box, _, _) in faces] != listed:
                problems.append(f"{len(faces)} faces reached by id, the message lists {len(listed)}")
            elif any(fid != i or n is None or n < 1 for i, (fid, _, _, n, _) in enumerate(faces)):
                problems.append("a face without its own id or its detection parameter")
        if not 0 < rec.get("white", 0) < 1:
            problems.append(f"binarized frame {100 * rec.get('white', 0):.1f}% white: one class is empty")
        i = round(ts * FPS / Gst.SECOND)
        if with_flow:
            tracked, mean = rec.get("meta_flow", (None, None))
            if tracked is None:
                problems.append("no flow meta")
            elif tracked != rec.get("flow_count"):
                problems.append(f"flow meta tracks {tracked} points, message says {rec.get('flow_count')}")
            elif i > 0:
                (x0, y0), (x1, y1) = shift(i - 1), shift(i)
                want = (x1 - x0, y1 - y0)
                if mean is None or abs(mean[0] - want[0]) > 0.25 or abs(mean[1] - want[1]) > 0.25:
                    problems.append(f"flow meta mean motion {mean}, applied {want}")
        if problems:
            print(f"CHECK {ts / Gst.SECOND:.3f} s: {', '.join(problems)}", file=sys.stderr)
            continue
        complete += 1
    if complete != frames:
        print(f"CHECK: {complete} of {frames} frames came back complete and consistent", file=sys.stderr)
    return complete == frames


def run(pipe, w, h, rows, frames):
    """Pushes the frames, prints what comes back: (ok, frames received, records)."""
    src, sink, bus = pipe.get_by_name("src"), pipe.get_by_name("sink"), pipe.get_bus()
    for i in range(frames):
        src.push_buffer(make_frame(w, h, rows, i))
    src.end_of_stream()

    records, ok, received = {}, True, 0
    while True:
        # A failing element stops the stream without an EOS: wait in steps
        # and look at the bus in between.
        sample = sink.try_pull_sample(100 * Gst.MSECOND)
        if sample is None:
            if sink.is_eos():
                break
            ok = drain_bus(bus, records)
            if not ok:
                break
            continue
        buf = sample.get_buffer()
        info = GstVideo.VideoInfo.new_from_caps(sample.get_caps())
        rec = records.setdefault(buf.pts, {})
        rec["frame"] = True
        rec["white"] = white_share(buf, info)
        print(f"frame {received}  {buf.pts / Gst.SECOND:.3f} s  {info.width}x{info.height} {info.finfo.name}, "
              f"{100 * rec['white']:.1f}% white")
        read_corners(buf, rec)
        read_otsu(buf, rec)
        read_flow(buf, rec)
        n, rois = face_rois(buf)
        rec["meta_faces"] = [r for r in rois if r[1] == "face"]
        for roi_id, kind, (x, y, rw, rh), neighbors, scale in rois:
            detail = f", {neighbors} neighbors, scale {scale:.2f}" if neighbors is not None else ""
            print(f"  region of interest {roi_id}: {kind} at ({x}, {y}) {rw}x{rh}{detail}")
        if n:
            print(f"  regions of interest: {n}, {len(rois)} reached by their id")
        received += 1
        ok = drain_bus(bus, records) and ok
    ok = drain_bus(bus, records) and ok
    return ok, received, records


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backend", choices=("auto", "cuda", "cpu"), default=os.environ.get("CUDAVISION_BACKEND", "auto"))
    ap.add_argument("--frames", type=int, default=10)
    ap.add_argument("--check", action="store_true", help="exit 1 unless every frame came back with its metas and messages")
    ap.add_argument("picture", nargs="?")
    args = ap.parse_args()
    if args.frames <= 0:
        ap.error("--frames must be positive")

    Gst.init(None)
    if Gst.ElementFactory.find("cudagray") is None:
        sys.exit("the cudavision plugin was not found: set GST_PLUGIN_PATH to the build's gst/ directory")
    w, h, rows = load_picture(args.picture) if args.picture else make_pattern()

    b = f"backend={args.backend}"
    faces = f"cudafacedetect post-messages=true {b} ! " if Gst.ElementFactory.find("cudafacedetect") else ""
    flow = f"cudaflow post-messages=true {b} ! " if Gst.ElementFactory.find("cudaflow") else ""
    desc = (f"appsrc name=src format=time caps=video/x-raw,format=RGBA,width={w},height={h},framerate={FPS}/1 ! "
            f"{faces}cudagray {b} ! cudaharris post-messages=true {b} ! {flow}"
            f"cudaotsu attach-meta=true post-messages=true {b} ! appsink name=sink sync=false")
    print("pipeline:", desc)
    pipe = Gst.parse_launch(desc)
    pipe.set_state(Gst.State.PLAYING)
    try:
        ok, received, records = run(pipe, w, h, rows, args.frames)
    finally:
        pipe.set_state(Gst.State.NULL)
    print(f"{received} of {args.frames} frames came back")
    if args.check and ok:
        ok = check(records, args.frames, bool(faces), bool(flow))
    return 0 if ok and received == args.frames else 1

if __name__ == "__main__":
    sys.exit(main())
