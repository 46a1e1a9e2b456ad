#!/usr/bin/env python3
"""Seed corpora for the fuzzers (tools/fuzz.sh), made from real files.

    make_seeds.py OUTDIR [--cascades DIR ...] [--tables FILE ...]

OUTDIR/haar-cascade/: every cascade given (opencv-data's Haar cascades, and
its LBP ones, which the reader must refuse), plus each Haar cascade cut to
its first 1, 2 and 3 stages with only the features those use: small valid
cascades, which the fuzzer mutates far faster than 0.5-2.7 MB files.
OUTDIR/tuning-table/: every table given (docs/measurements/*/table.tsv) and
its first 1, 5 and 20 entries.
"""
import argparse
import glob
import os
import shutil
import xml.etree.ElementTree as ET


def trimmed_cascade(path, stages):
    tree = ET.parse(path)
    cascade = tree.getroot().find("cascade")
    if cascade is None or cascade.find("stages") is None or cascade.find("features") is None:
        return None
    st = cascade.find("stages")
    kept = list(st)[:stages]
    if len(kept) < stages:
        return None
    for s in list(st)[stages:]:
        st.remove(s)
    used = -1
    for s in kept:
        for weak in s.iter("internalNodes"):
            nums = weak.text.split()
            for i in range(2, len(nums), 4):
                used = max(used, int(nums[i]))
    feats = cascade.find("features")
    for f in list(feats)[used + 1:]:
        feats.remove(f)
    num = cascade.find("stageNum")
    if num is not None:
        num.text = str(stages)
    return ET.tostring(tree.getroot(), encoding="unicode")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--cascades", nargs="*", default=[])
    ap.add_argument("--tables", nargs="*", default=[])
    a = ap.parse_args()
    hc = os.path.join(a.outdir, "haar-cascade")
    tt = os.path.join(a.outdir, "tuning-table")
    os.makedirs(hc, exist_ok=True)
    os.makedirs(tt, exist_ok=True)
    n = 0
    for d in a.cascades:
        for f in sorted(glob.glob(os.path.join(d, "*.xml"))):
            base = os.path.basename(f)
            shutil.copy(f, os.path.join(hc, base))
            n += 1
            if "haarcascade" not in base:
                continue
            for k in (1, 2, 3):
                try:
                    text = trimmed_cascade(f, k)
                except (ET.ParseError, ValueError):
                    text = None
                if text:
                    with open(os.path.join(hc, f"{base[:-4]}-{k}stage.xml"), "w") as out:
                        out.write('<?xml version="1.0"?>\n' + text + "\n")
                    n += 1
    m = 0
    for i, f in enumerate(a.tables):
        lines = open(f).read().splitlines(keepends=True)
        shutil.copy(f, os.path.join(tt, f"table{i}.tsv"))
        m += 1
        header = [l for l in lines if l.startswith("#") or l.startswith("cudavision-tuning-table")]
        body = [l for l in lines if l not in header]
        for k in (1, 5, 20):
            with open(os.path.join(tt, f"table{i}-{k}.tsv"), "w") as out:
                out.writelines(header + body[:k])
            m += 1
    print(f"seeds: {n} cascades in {hc}, {m} tables in {tt}")


if __name__ == "__main__":
    main()
