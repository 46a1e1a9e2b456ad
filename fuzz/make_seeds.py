#!/usr/bin/env python3
"""Seed corpora for the fuzzers (tools/fuzz.sh), made from real files.

    make_seeds.py OUTDIR [--cascades DIR ...] [--tables FILE ...]

OUTDIR/haar-cascade/: every cascade given (opencv-data's Haar cascades, and
its LBP ones, which the reader must refuse), plus each Haar cascade cut to
its first 1, 2 and 3 stages with only the features those use: small valid
cascades, which the fuzzer mutates far faster than 0.5-2.7 MB files.
Plus, from the smallest of those, the corners of OpenCV's XML dialect
(core/face/cascade_xml.h) where a real XML parser and OpenCV disagree: a
byte order mark, <!DOCTYPE>, CDATA, a comment inside a number and between
numbers, entities, octal and hex numbers, a lone carriage return, NUL
bytes, two <opencv_storage> roots, an empty-element tag, type_id="map".
OUTDIR/tuning-table/: every table given (fuzz/seeds/tuning-table/*.tsv) and
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


XML_SEEDS = {
    "values": b'<?xml version="1.0"?>\n<opencv_storage>\n<a type_id="opencv-x">1 -2 3.5 010 0x1f .inf -.Nan 1e5</a>\n'
              b'<b>word "two words" x&lt;y &amp; &gt; &apos; &quot; &bogus; &#65;&#x42; &#0;</b>\n'
              b'<c><_>1</_> 2 <_><d>3</d></_></c>\n<e>1<!-- splits -->2</e>\n<f>7</f>\r<dropped>\n'
              b'<g>4294967297</g>\n<h></h>\n<i type_id="seq">1</i>\n<j type_id="map"><k>1</k></j>\n'
              b'</opencv_storage>\n<opencv_storage><l>1</l></opencv_storage>\n',
    "lines": b'<?xml version="1.0"?>\n<opencv_storage>\n<a>1\x00x\n2</a>\n<b\n  x = "1"\n>w</b>\n'
             b'<!-- a\n comment -->\n<c>1\r2\n3</c>\n</opencv_storage>\n\x00junk',
    "minimal": b'<?xml version="1.0"?>\n<opencv_storage>\n<a>x</a>\n</opencv_storage>\n',
}


def dialect_variants(text):
    """name -> bytes: one OpenCV-dialect corner each (see the docstring)."""
    def edit(old, new, count=1):
        return text.replace(old, new, count) if old in text else None

    b = text.encode()
    v = {
        "bom": b"\xef\xbb\xbf" + b,
        "doctype": edit("<opencv_storage>", "<!DOCTYPE opencv_storage>\n<opencv_storage>"),
        "cdata": edit("<height>", "<height><![CDATA[") and
                 edit("<height>", "<height><![CDATA[").replace("</height>", "]]></height>", 1),
        "comment-in-number": edit("<width>24</width>", "<width>2<!-- c -->4</width>") or
                             edit("<width>20</width>", "<width>2<!-- c -->0</width>"),
        "comment-between-numbers": edit("<internalNodes>", "<internalNodes><!-- c -->"),
        "entity-in-number": edit("<height>2", "<height>&#50;"),
        "entity-in-word": edit("<stageType>BOOST", "<stageType>BOO&#83;T"),
        "octal": edit("<height>24", "<height>030") or edit("<height>20", "<height>024"),
        "hex": edit("<height>24", "<height>0x18") or edit("<height>20", "<height>0x14"),
        "lone-cr": edit("</stageType>", "</stageType>\r<ignored>"),
        "nul-after-end": text + "\n\0trailing",
        "nul-mid-line": edit("</featureType>", "</featureType><x>1\0ignored\n</x>"),
        "two-roots": text + "<opencv_storage><x>1</x></opencv_storage>\n",
        "empty-tag": edit("<stageParams>", "<x/><stageParams>"),
        "type-id-map": edit("<featureParams>", '<featureParams type_id="map">'),
        "no-prolog": text.split("\n", 1)[1] if "\n" in text else None,
        "quoted-word": edit("<stageType>BOOST", '<stageType>"BOOST"'),
        "two-words": edit("<stageType>BOOST", "<stageType>BOOST extra"),
    }
    return {k: (x if isinstance(x, bytes) else x.encode()) for k, x in v.items() if x}


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
    smallest = min((os.path.join(hc, f) for f in os.listdir(hc) if f.endswith("-1stage.xml")),
                   key=os.path.getsize, default=None)
    if smallest:
        for name, data in dialect_variants(open(smallest).read()).items():
            with open(os.path.join(hc, f"dialect-{name}.xml"), "wb") as out:
                out.write(data)
            n += 1
    # small files of OpenCV's XML with no cascade in them: the XML half of
    # cascade-diff (the trees compared) mutates these far more usefully
    # than cascades, which most mutations leave unreadable
    for name, data in XML_SEEDS.items():
        with open(os.path.join(hc, f"xml-{name}.xml"), "wb") as out:
            out.write(data)
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
