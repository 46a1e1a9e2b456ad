/* cudavision-tune — what is measured: the block shapes, the frame sizes and
 * the kernels a run selects. Pure C++ (unit-tested without a GPU). */
#pragma once

#include "../../core/policy/launch_policy.h"

#include <string>
#include <vector>

namespace cvtune {

struct FrameSize {
  int width = 0;
  int height = 0;
  bool operator== (const FrameSize & o) const { return width == o.width && height == o.height; }
  std::string str () const { return std::to_string (width) + "x" + std::to_string (height); }
};

/* The block-size paper's ten sizes (100x100 ... 1024x1280), then 1920x1080
 * and 3840x2160. */
std::vector<FrameSize> default_sizes ();

/* "640x480,1920x1080": false with *error naming the bad item. */
bool parse_sizes (const std::string & text, std::vector<FrameSize> * out, std::string * error);

/* The shapes searched for a kernel, before device limits:
 *  - x-only kernels (two_d = false): the paper's multiples of 32 up to
 *    1024 threads, as Nx1;
 *  - 2D kernels: x in 32, 64, 128, 256, 512, 1024 and every y from 1 up to
 *    1024 / x (32x1 ... 32x32, 64x1 ... 64x16, ..., 512x1, 512x2, 1024x1).
 * Sorted by thread count, then x. */
std::vector<cudavision::BlockShape> search_space (const cudavision::KernelTraits & k);

/* The shapes actually timed for one kernel and size: the search space
 * without the shapes the device or the kernel's resources cannot launch
 * (clamped into another shape, or no block resident), plus the kernel's
 * static shape and the model's choice when they are not in it already,
 * so that the report can time both. Same order as search_space. */
std::vector<cudavision::BlockShape> timed_shapes (const cudavision::KernelTraits & k,
    const cudavision::DeviceDescription & dev, const cudavision::KernelResources & res,
    cudavision::BlockShape static_block, cudavision::BlockShape model_block);

/* Shell-style glob ('*', '?', '[...]'), on the whole name. */
bool glob_match (const std::string & pattern, const std::string & name);
/* `patterns`: comma-separated globs; empty selects everything. */
bool kernel_selected (const std::string & patterns, const std::string & name);

}  // namespace cvtune
