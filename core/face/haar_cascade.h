/* cudavision — OpenCV Haar cascades (the current XML format), parsed and
 * validated.
 *
 * Reads what cv::CascadeClassifier reads for stageType BOOST / featureType
 * HAAR: stages of boosted weak classifiers (stumps or deeper trees) over
 * upright Haar features of up to three weighted rectangles. Values are
 * stored as OpenCV stores them (thresholds and weights as float, each stage
 * threshold minus OpenCV's 1e-5f), so the GPU evaluates the same numbers.
 *
 * Refused, with an error naming the file and the problem: the old format
 * (type_id="opencv-haar-classifier"), LBP and HOG cascades, tilted
 * features, and every structural fault (missing fields, out-of-range
 * indices, rectangles outside the window, trees that could loop), so a
 * loaded cascade can be evaluated without bounds checks. A file accepted
 * here is one cv::CascadeClassifier::load accepts too, with the same
 * numbers: the XML is read by OpenCV 4.6's rules (cascade_xml.h), so the
 * GPU and CPU backends give one verdict on one file. C++17. */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cudavision {

struct HaarRect {
  int x = 0, y = 0, width = 0, height = 0;
  float weight = 0.f;
};

/* Up to three rectangles; unused ones have weight 0 and size 0. */
struct HaarFeature {
  HaarRect rects[3];
  int nrects = 0;
};

/* An internal node of a weak classifier, as in OpenCV's DTreeNode: go
 * `left` when feature < threshold, else `right`; a value > 0 is a node of
 * the same tree (always after this one), a value <= 0 is leaf -value. */
struct HaarNode {
  int left = 0, right = 0;
  int feature = 0;
  float threshold = 0.f;
};

/* A weak classifier: node_count nodes from first_node, node_count + 1
 * leaves from first_leaf. */
struct HaarTree {
  int first_node = 0;
  int node_count = 0;
  int first_leaf = 0;
};

struct HaarStage {
  int first_tree = 0;
  int tree_count = 0;
  float threshold = 0.f;  /* (float) file value - 1e-5f, as OpenCV */
};

struct HaarCascade {
  int window_width = 0;
  int window_height = 0;
  std::vector<HaarStage> stages;
  std::vector<HaarTree> trees;
  std::vector<HaarNode> nodes;
  std::vector<float> leaves;
  std::vector<HaarFeature> features;
  int max_nodes_per_tree = 0;

  /* Every weak classifier a single node: OpenCV's stump path. */
  bool is_stump_based () const { return max_nodes_per_tree == 1; }
  bool empty () const { return stages.empty (); }
};

/* The largest window the GPU kernels take (rectangle coordinates are
 * packed in bytes there). Every cascade OpenCV ships is 64 or smaller. */
constexpr int kHaarMaxWindow = 255;

/* The largest cascade file read (the largest OpenCV ships is 2.6 MB). A
 * hostile file this size is refused in about 2 s with at most about 200 MB
 * held (cascade_xml.h caps the tree at two million nodes). */
constexpr size_t kHaarMaxFileBytes = 16u << 20;

/* Why a cascade was refused. */
enum class HaarLoadError {
  None,
  Io,           /* missing, unreadable, not a regular file, empty, over
                 * kHaarMaxFileBytes */
  Malformed,    /* not XML, truncated, fields missing or out of range */
  Unsupported,  /* a valid cascade of a kind not implemented: old format,
                 * LBP / HOG, tilted features, windows over 255 pixels */
};

/* Parses cascade XML text. `name` (usually the path) starts every error:
 * "NAME: line 123: stage 4, weak classifier 7: ...". */
bool parse_haar_cascade (const std::string & xml, const std::string & name, HaarCascade * out, std::string * error,
    HaarLoadError * kind = nullptr);

/* Reads and parses a file (a regular file only: a FIFO, a device or a
 * directory is refused, and so is a path with a '?', which OpenCV's
 * backend would read as another file); errors name the path and the cause
 * (common/file_read.h). */
bool load_haar_cascade (const std::string & path, HaarCascade * out, std::string * error,
    HaarLoadError * kind = nullptr);

}  // namespace cudavision
