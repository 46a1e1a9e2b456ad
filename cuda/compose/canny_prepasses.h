/* cudavision — cudacanny's passes from other algorithms: the separate
 * pre-blur is cudablur's Gaussian (its Fused variant), the Otsu threshold
 * cudaotsu's histogram and search. The one place where one algorithm is
 * built from others' launchers, above the algorithm folders, so that
 * cuda/canny/ includes neither cuda/blur/ nor cuda/otsu/. */
#pragma once

#include "../canny/canny.h"

namespace cudavision {

const CannyPrepasses & canny_prepasses ();

}  // namespace cudavision
