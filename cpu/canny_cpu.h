/* cudavision — cudacanny's CPU backend: cv::GaussianBlur (optional) and
 * cv::Canny, the references users know, on the same plain image views the
 * GPU path takes; the automatic thresholds; and a plain model of the GPU
 * arithmetic, which the tests hold against OpenCV on machines without a
 * GPU. */
#pragma once

#include "../core/canny/canny_params.h"
#include "../core/image.h"

namespace cudavision {
namespace cpu {

/* The lower median of a GRAY8 view (canny_math.h, canny_median_rank). */
int median_u8 (ConstImage8 src);

/* The value an automatic mode derives the thresholds from (high = value,
 * low = value / 2): the Otsu threshold cv::threshold (THRESH_OTSU) returns,
 * or the lower median. `mode` must not be Off. */
int canny_auto_value (ConstImage8 src, CannyAuto mode);

/* The CPU backend: cv::GaussianBlur (src, tmp, Size (k, k), sigma, sigma,
 * BORDER_REFLECT_101) when p.blur_ksize > 0, then cv::Canny (tmp, dst, low,
 * high, p.aperture, p.l2_gradient). With an automatic mode the thresholds
 * come from `auto_value` when it is >= 0 (a GstCvOtsuMeta), else from
 * canny_auto_value (src) (the frame before the blur). */
void canny (ConstImage8 src, Image8 dst, const CannyParams & p, int auto_value = -1);

/* What the GPU computes, written plainly (canny_math.h; hysteresis by a
 * flood fill from the strong pixels), on `src` as it is (no blur). */
void canny_model (ConstImage8 src, Image8 dst, double low, double high, int aperture, bool l2);

}  // namespace cpu
}  // namespace cudavision
