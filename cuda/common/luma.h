/* cudavision — the luma of a frame on the GPU: packed RGB to GRAY8
 * (rgb_to_gray, the whole of cudagray; cudaharris's 3-byte RGB input),
 * and the same kernel as the input of cudaflow and cudafacedetect
 * (luma_and_copy: the luma and a copy of the frame from the same loads). A primitive the algorithms
 * build on, so it lives here rather than in an algorithm's folder. */
#pragma once

#include "cuda_check.h"
#include "../../core/image.h"
#include "../../core/policy/launch_policy.h"

namespace cudavision {

/* The kernels' traits, for the tuner and the benchmarks. */
const KernelTraits & gray_packed4_traits ();
const KernelTraits & gray_packed3_traits ();

/* Packed RGB family to grey, bit-exact to cv::cvtColor(COLOR_RGB2GRAY).
 * Asynchronous on `stream`. With `copy` given (its data not null), the
 * same launch also copies the source pixels to it (same size and format). */
CudaStatus rgb_to_gray (ConstImage8 src, PackedRgb layout, Image8 dst, const LaunchPolicy & policy,
    cudaStream_t stream, Image8 copy = {});

/* A frame as the luma-based algorithms take it: GRAY8 (or the Y plane of
 * NV12 / I420), or a packed RGB layout whose luma they compute first. */
struct LumaInput {
  ConstImage8 image;
  bool gray = true;
  PackedRgb layout = PackedRgb::RGBA; /* when !gray */
};

/* Where luma_and_copy's kernel reads the frame and writes its copy (copy
 * null: none). One struct, so that a caller can also leave it in device
 * memory for the kernel to read. */
struct LumaCopyArgs {
  const uint8_t *src;
  size_t src_pitch;
  uint8_t *copy;
  size_t copy_pitch;
};

#ifdef __CUDACC__
/* A drawing kernel's frame: the one it was given, or with `target` the
 * copy those arguments name (a graph replayed with each frame's pointers:
 * read when the kernel runs). cudaflow's and cudaharris's marks. */
__device__ inline void
frame_of_target (const LumaCopyArgs *target, uint8_t **frame, size_t *pitch)
{
  if (target) {
    *frame = target->copy;
    *pitch = target->copy_pitch;
  }
}
#endif

/* rgb_to_gray's kernel as cudaflow and cudafacedetect launch it for their
 * input: the luma of GRAY8 (`gray`: the bytes themselves; the Y plane of
 * NV12 and I420 likewise) or of a packed RGB `layout` into `luma` (the
 * frame's size), and with `copy` the frame's bytes unchanged to the args'
 * copy, from the same loads. A thread makes 4 pixels of one row: `traits`
 * name the launch for the block-sizing policy and must say so
 * (items_per_thread_x 4, items_per_thread_y 1). `luma`'s rows must be
 * 4-byte aligned.
 * The pointers are `args`, or, with `from` not null, read there by the
 * kernel (device memory written before it runs: a graph replayed with each
 * frame's pointers); then the frame and the copy must be
 * luma_and_copy_vectorizable. Given by value, frames that are not (3-byte
 * RGB among them) are made by two launches instead (copy_plane and
 * rgb_to_gray, or copy_plane into `luma` for GRAY8). */
CudaStatus luma_and_copy (const LumaCopyArgs & args, const LumaCopyArgs * from, bool gray, PackedRgb layout,
    bool copy, Image8 luma, const KernelTraits & traits, const LaunchPolicy & policy, cudaStream_t stream);

/* Whether luma_and_copy's kernel can take these rows with its word loads
 * and stores: 1- or 4-byte pixels, the frame and the copy (if any) 16-byte
 * aligned, 4 for GRAY8. Our frames' 256-byte pitch always is; a crop
 * upstream may not. */
bool luma_and_copy_vectorizable (const LumaCopyArgs & args, bool gray, PackedRgb layout, bool copy);

/* Traits for a caller's luma_and_copy launch, under the caller's name
 * (each caller its own tuned shapes): 4 pixels of one row a thread, an
 * RGBA pixel in (and out again when copying), one byte of luma out. */
KernelTraits luma_and_copy_traits (const char *name);

/* Pitched device-to-device plane copy (the Y plane of NV12 / I420). */
CudaStatus copy_plane (ConstImage8 src, Image8 dst, int bytes_per_row, cudaStream_t stream);

/* The same copy, args.src to args.copy (pitches included), by a kernel
 * that reads `from` (device memory written before it runs) when it runs:
 * one node of a graph replayed with each frame's pointers. Any alignment
 * (16-byte words where the pointers, pitches and row allow). */
CudaStatus copy_plane_from (const LumaCopyArgs * from, int bytes_per_row, int rows, cudaStream_t stream);

}  // namespace cudavision
