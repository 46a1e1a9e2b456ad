/* cudavision — the colour overlays of cudafacedetect, cudaharris and
 * cudaflow: their `color` property (an ARGB value, as textoverlay's) and
 * the canvas (core/draw/canvas.h) of a negotiated format, with the
 * colour converted to the format's bytes: the RGB bytes at the layout's
 * offsets, or Y, U and V by the caps' colorimetry (matrix and range;
 * BT.601 where the caps say none). GRAY8 has no colour: marks there are
 * white (255), as they always were. */
#pragma once

#include "gstcvbasefilter.h"

#include "../core/draw/canvas.h"

/* Installs the "color" property (guint, 0xAARRGGBB, mutable in PLAYING). */
void gst_cv_overlay_install_color (GObjectClass * klass, guint prop_id, guint32 default_argb, const gchar * blurb);

/* The canvas of frames of `info` in colour `argb`, its planes not set
 * yet (gst_cv_canvas_set_frame); false for a format it cannot draw on. */
bool gst_cv_canvas_init (const GstVideoInfo * info, guint32 argb, cudavision::Canvas * canvas);

/* `canvas` pointing at a mapped frame's planes (host or device). */
void gst_cv_canvas_set_frame (cudavision::Canvas * canvas, GstVideoFrame * frame);

/* The canvas of a mapped frame (its format and colorimetry) in `argb`:
 * gst_cv_canvas_init and gst_cv_canvas_set_frame. */
cudavision::Canvas gst_cv_frame_canvas (GstVideoFrame * frame, guint32 argb);

/* Whether a format is NV12 or I420: the elements that analyse the luma
 * read its Y plane where it lies. */
bool gst_cv_format_is_yuv420 (GstVideoFormat format);
