/* cudavision — colour to GRAY8 on the GPU (cudagray). */
#pragma once

#include "../common/cuda_check.h"
#include "../common/image.h"
#include "../policy/launch_policy.h"

namespace cudavision {

/* The kernels' traits, for the tuner and the benchmarks. */
const KernelTraits & gray_packed4_traits ();
const KernelTraits & gray_packed3_traits ();

/* Packed RGB family to grey, bit-exact to cv::cvtColor(COLOR_RGB2GRAY).
 * Asynchronous on `stream`. With `copy` given (its data not null), the
 * same launch also copies the source pixels to it (same size and format). */
CudaStatus rgb_to_gray (ConstImage8 src, PackedRgb layout, Image8 dst, const LaunchPolicy & policy,
    cudaStream_t stream, Image8 copy = {});

/* Pitched device-to-device plane copy (the Y plane of NV12 / I420). */
CudaStatus copy_plane (ConstImage8 src, Image8 dst, int bytes_per_row, cudaStream_t stream);

}  // namespace cudavision
