#!/usr/bin/python3
"""Builds faces/face_tiles.png and faces/face_tiles.csv for cudafacedetect's
known-position test.

The 100 face crops and 100 non-face crops of the LFW subset that Debian's
python3-skimage ships (skimage/data/lfw_subset.npy, 25x25 grey, faces
first) are upscaled and pasted at known places on a real background
(iceblock.jpg, converted to grey). Each crop sits in its own cell of a
20 x 10 grid; which cells hold faces, and each crop's offset inside its
cell, come from a fixed seed, so the output is reproducible. The CSV lists
the face boxes (x, y, width, height) in the PNG's pixels: the ground truth.
The files go to a subfolder so that the tests iterating over every image of
tests/data (test_images()) do not pick the mosaic up.

Why upscaled: the crops are 25 pixels wide and cut close around the face,
while OpenCV's frontal cascades look for faces of 24 (or 20) pixels with
some margin; at 25 pixels even OpenCV finds few of them. At FACE pixels
(default 48) the face fills a window of the pyramid comfortably.

Usage: make_face_tiles.py [--face N] [--cell N] [--out-dir DIR]
Needs python3-numpy, python3-pil and python3-skimage (the data file).
"""
import argparse
import os
import random

import numpy as np
from PIL import Image

LFW = "/usr/lib/python3/dist-packages/skimage/data/lfw_subset.npy"
COLS, ROWS = 20, 10
SEED = 20240607


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--face", type=int, default=48, help="face size in pixels")
    ap.add_argument("--cell", type=int, default=72, help="grid cell size in pixels")
    ap.add_argument("--out-dir", default=os.path.join(here, "faces"))
    ap.add_argument("--background", default=os.path.join(here, "iceblock.jpg"))
    args = ap.parse_args()
    if args.cell < args.face:
        ap.error("--cell must be at least --face")

    crops = np.load(LFW)
    assert crops.shape == (200, 25, 25), crops.shape
    width, height = COLS * args.cell, ROWS * args.cell

    # The background: iceblock in grey, scaled to cover the canvas, centred.
    bg = Image.open(args.background).convert("L")
    k = max(width / bg.width, height / bg.height)
    bg = bg.resize((round(bg.width * k), round(bg.height * k)), Image.BICUBIC)
    left, top = (bg.width - width) // 2, (bg.height - height) // 2
    canvas = bg.crop((left, top, left + width, top + height))

    rng = random.Random(SEED)
    kinds = ["face"] * 100 + ["nonface"] * 100
    rng.shuffle(kinds)
    faces = iter(range(0, 100))
    others = iter(range(100, 200))
    boxes = []
    for cell, kind in enumerate(kinds):
        cx, cy = (cell % COLS) * args.cell, (cell // COLS) * args.cell
        x = cx + rng.randint(0, args.cell - args.face)
        y = cy + rng.randint(0, args.cell - args.face)
        idx = next(faces) if kind == "face" else next(others)
        crop = Image.fromarray((crops[idx] * 255.0 + 0.5).astype(np.uint8), "L")
        canvas.paste(crop.resize((args.face, args.face), Image.BICUBIC), (x, y))
        if kind == "face":
            boxes.append((x, y, args.face, args.face))

    os.makedirs(args.out_dir, exist_ok=True)
    canvas.save(os.path.join(args.out_dir, "face_tiles.png"), optimize=True)
    with open(os.path.join(args.out_dir, "face_tiles.csv"), "w") as f:
        f.write("# LFW face crops (skimage lfw_subset.npy) pasted by make_face_tiles.py; "
                "%d tiles, face %d px, cell %d px\n" % (len(kinds), args.face, args.cell))
        f.write("x,y,width,height\n")
        for b in boxes:
            f.write("%d,%d,%d,%d\n" % b)


if __name__ == "__main__":
    main()
