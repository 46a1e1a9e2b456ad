#!/usr/bin/env python3
"""The keypoints and flow metas through GObject introspection: their count
`n` bounds the array that get_points () / get_vectors () hand out, so the
bindings read it (get_n ()) but cannot set it. A writable `n` let Python
make get_points () read past the meta's array. The Otsu meta is a plain
scalar, checked here for its name and round trip.

Run by tests/python/run-gi-test.sh with GI_TYPELIB_PATH and LD_LIBRARY_PATH
on the build tree's GstCudaVision typelib and library."""
import sys
import unittest

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstCudaVision", "1.0")
from gi.repository import Gst, GstCudaVision  # noqa: E402

# what PyGObject raises for a field it may not set
NOT_SETTABLE = (RuntimeError, AttributeError, TypeError)


def keypoint(x, y, score):
    p = GstCudaVision.CvKeypoint()
    p.x, p.y, p.score = x, y, score
    return p


def vector(prev_x, prev_y, x, y, status):
    v = GstCudaVision.CvFlowVector()
    v.prev_x, v.prev_y, v.x, v.y, v.status = prev_x, prev_y, x, y, status
    return v


class KeypointsMeta(unittest.TestCase):
    def setUp(self):
        self.buf = Gst.Buffer.new_allocate(None, 16, None)
        self.meta = GstCudaVision.buffer_add_cv_keypoints_meta(
            self.buf, [keypoint(1, 2, 0.5), keypoint(3, 4, 0.25)])

    def test_n_cannot_be_set(self):
        with self.assertRaises(NOT_SETTABLE):
            self.meta.n = 100000
        self.assertEqual(self.meta.get_n(), 2)
        self.assertEqual(len(self.meta.get_points()), 2)

    def test_points_cannot_be_set(self):
        with self.assertRaises(NOT_SETTABLE):
            self.meta.points = None
        self.assertEqual(len(self.meta.get_points()), 2)

    def test_getters(self):
        self.assertEqual(self.meta.get_n(), 2)
        points = self.meta.get_points()
        self.assertEqual([(p.x, p.y, p.score) for p in points], [(1, 2, 0.5), (3, 4, 0.25)])
        found = GstCudaVision.buffer_get_cv_keypoints_meta(self.buf)
        self.assertEqual(found.get_n(), 2)

    def test_empty(self):
        buf = Gst.Buffer.new_allocate(None, 16, None)
        meta = GstCudaVision.buffer_add_cv_keypoints_meta(buf, [])
        self.assertEqual(meta.get_n(), 0)
        self.assertFalse(meta.get_points())
        with self.assertRaises(NOT_SETTABLE):
            meta.n = 5
        self.assertFalse(meta.get_points())


class FlowMeta(unittest.TestCase):
    def setUp(self):
        self.buf = Gst.Buffer.new_allocate(None, 16, None)
        self.meta = GstCudaVision.buffer_add_cv_flow_meta(
            self.buf, [vector(0, 0, 1, 1, 1), vector(5, 5, 6, 4, 1), vector(9, 9, 0, 0, 0)])

    def test_n_cannot_be_set(self):
        with self.assertRaises(NOT_SETTABLE):
            self.meta.n = 100000
        self.assertEqual(self.meta.get_n(), 3)
        self.assertEqual(len(self.meta.get_vectors()), 3)

    def test_vectors_cannot_be_set(self):
        with self.assertRaises(NOT_SETTABLE):
            self.meta.vectors = None
        self.assertEqual(len(self.meta.get_vectors()), 3)

    def test_getters(self):
        self.assertEqual(self.meta.get_n(), 3)
        self.assertEqual([v.status for v in self.meta.get_vectors()], [1, 1, 0])
        # the grid fields stay plain fields (they bound nothing)
        self.assertEqual(self.meta.grid_step, 0)
        found = GstCudaVision.buffer_get_cv_flow_meta(self.buf)
        self.assertEqual(found.get_n(), 3)


class OtsuMeta(unittest.TestCase):
    def test_add_get(self):
        buf = Gst.Buffer.new_allocate(None, 16, None)
        self.assertIsNone(GstCudaVision.buffer_get_cv_otsu_meta(buf))
        meta = GstCudaVision.buffer_add_cv_otsu_meta(buf, 137)
        self.assertIsInstance(meta, GstCudaVision.CvOtsuMeta)
        # a buffer carries at most one: adding again updates it
        GstCudaVision.buffer_add_cv_otsu_meta(buf, 42)
        self.assertEqual(GstCudaVision.buffer_get_cv_otsu_meta(buf).threshold, 42)


if __name__ == "__main__":
    Gst.init(None)
    sys.exit(0 if unittest.main(exit=False, verbosity=2).result.wasSuccessful() else 1)
