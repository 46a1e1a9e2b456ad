/* libFuzzer target: our cascade reader against OpenCV 4.6's, on the same
 * bytes (a differential fuzzer). cudafacedetect reads a cascade with
 * ours on both backends and then, on the CPU backend, with
 * cv::CascadeClassifier::load; one file must get one verdict and one set
 * of numbers from both.
 *
 * Each input is written to a temporary file (OpenCV's file mode, which
 * the CPU backend uses, reads some bytes unlike its memory mode) and:
 *   1. the XML: our parse_xml (core/face/cascade_xml.h) succeeds exactly
 *      when cv::FileStorage opens the file without throwing, and the two
 *      trees are the same (types, names, values, order); inputs ours
 *      refuses as Unsupported, Limit or CrashesOpenCv are not given to
 *      OpenCV (it reads them, or crashes on them: never given to it by
 *      the element, since ours refuses them first);
 *   2. the cascade: a cascade parse_haar_cascade accepts,
 *      cv::CascadeClassifier::load accepts too, and the numbers OpenCV's
 *      Data::read takes from the file are ours, bit for bit. Our refusing
 *      a cascade OpenCV would load is allowed (it checks more: indices,
 *      rectangles, tree shapes, types; and LBP, tilted features and the
 *      old format are not implemented), so OpenCV's load is not run then
 *      (it reads out of bounds on some of those).
 * A disagreement aborts with both sides' words: a libFuzzer finding.
 * tools/fuzz.sh builds and runs it. */
#include "../core/face/cascade_xml.h"
#include "../core/face/haar_cascade.h"

#include <opencv2/core.hpp>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/objdetect.hpp>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace cudavision;

namespace {

[[noreturn]] void
disagree (const char *what, const std::string & ours, const std::string & theirs)
{
  std::fprintf (stderr, "cascade readers disagree: %s\n  ours:   %s\n  OpenCV: %s\n", what, ours.c_str (),
      theirs.c_str ());
  std::abort ();
}

/* Never destroyed: static destructors run at exit() before atexit
 * handlers registered earlier. */
const std::string &
temp_path ()
{
  static const std::string *p = [] {
    const char *dir = std::getenv ("TMPDIR");
    return new std::string (std::string (dir && *dir ? dir : "/tmp") + "/cudavision-fuzz-diff-" +
        std::to_string (getpid ()) + ".xml");
  }();
  return *p;
}

/* The input's file lives while OpenCV reads it, and is removed after each
 * input, so that no run leaves it behind (libFuzzer leaves through _Exit()
 * after a finding, past any atexit handler). */
struct RemoveAtEnd {
  ~RemoveAtEnd () { std::remove (temp_path ().c_str ()); }
};

bool
write_file (const std::string & path, const std::string & bytes)
{
  FILE *f = std::fopen (path.c_str (), "wb");
  if (!f)
    return false;
  const bool ok = std::fwrite (bytes.data (), 1, bytes.size (), f) == bytes.size ();
  return std::fclose (f) == 0 && ok;
}

int
cv_type (XmlType t)
{
  switch (t) {
    case XmlType::None: return cv::FileNode::NONE;
    case XmlType::Int: return cv::FileNode::INT;
    case XmlType::Real: return cv::FileNode::REAL;
    case XmlType::String: return cv::FileNode::STRING;
    case XmlType::Seq: return cv::FileNode::SEQ;
    case XmlType::Map: return cv::FileNode::MAP;
  }
  return -1;
}

bool
same_bits (double a, double b)
{
  return std::memcmp (&a, &b, sizeof a) == 0 || (std::isnan (a) && std::isnan (b));
}

std::string
describe (const XmlNode & n, const std::string & path)
{
  return path + " (line " + std::to_string (n.line) + ")";
}

/* The two trees node by node; `path` names the node in messages. */
void
compare (const XmlNode & ours, const cv::FileNode & theirs, const std::string & path)
{
  if (cv_type (ours.type) != theirs.type ())
    disagree ("node types differ", describe (ours, path) + " type " + std::to_string (cv_type (ours.type)),
        "type " + std::to_string (theirs.type ()));
  switch (ours.type) {
    case XmlType::Int:
      if (ours.ival != (int) theirs)
        disagree ("integers differ", describe (ours, path) + " " + std::to_string (ours.ival),
            std::to_string ((int) theirs));
      break;
    case XmlType::Real:
      if (!same_bits (ours.real, (double) theirs))
        disagree ("reals differ", describe (ours, path), "");
      break;
    case XmlType::String:
      if (*ours.str != theirs.string ())
        disagree ("strings differ", describe (ours, path) + " '" + xml_quote (*ours.str) + "'",
            "'" + xml_quote (theirs.string ()) + "'");
      break;
    case XmlType::Seq:
    case XmlType::Map: {
      if (ours.items.size () != theirs.size ())
        disagree ("collection sizes differ", describe (ours, path) + " " + std::to_string (ours.items.size ()),
            std::to_string (theirs.size ()));
      cv::FileNodeIterator it = theirs.begin ();
      for (size_t i = 0; i < ours.items.size (); i++, ++it) {
        const cv::FileNode n = *it;
        const XmlNode & o = ours.items[i];
        std::string sub;
        if (ours.type == XmlType::Map) {
          if (!o.name || *o.name != n.name ())
            disagree ("map keys differ", describe (o, path) + " key '" + (o.name ? *o.name : "") + "'",
                "'" + n.name () + "'");
          sub = path + "/" + *o.name;
        } else {
          sub = path + "[" + std::to_string (i) + "]";
        }
        compare (o, n, sub);
      }
      break;
    }
    case XmlType::None:
      break;
  }
}

/* What CascadeClassifierImpl::Data::read and HaarEvaluator::read (OpenCV
 * 4.6) take from the file, read through OpenCV's own FileNode, against
 * ours. Called only for cascades both accept. */
void
compare_values (const cv::FileStorage & fs, const HaarCascade & c)
{
  const cv::FileNode root = fs.getFirstTopLevelNode ();
  auto want = [] (bool same, const char *what, const std::string & where) {
    if (!same)
      disagree (what, where, "differs");
  };
  want ((int) root["width"] == c.window_width && (int) root["height"] == c.window_height, "window size", "");
  const cv::FileNode stages = root["stages"];
  want (stages.size () == c.stages.size (), "stage count", std::to_string (c.stages.size ()));
  size_t node_i = 0, leaf_i = 0, tree_i = 0;
  cv::FileNodeIterator si = stages.begin ();
  for (size_t s = 0; s < c.stages.size (); s++, ++si) {
    const cv::FileNode st = *si;
    const float thr = (float) st["stageThreshold"] - 1e-5f;
    want (same_bits (thr, c.stages[s].threshold), "stage threshold", "stage " + std::to_string (s));
    const cv::FileNode weak = st["weakClassifiers"];
    want ((int) weak.size () == c.stages[s].tree_count, "weak classifier count", "stage " + std::to_string (s));
    for (cv::FileNodeIterator wi = weak.begin (); wi != weak.end (); ++wi, ++tree_i) {
      const cv::FileNode w = *wi;
      const cv::FileNode in = w["internalNodes"], lv = w["leafValues"];
      const HaarTree & t = c.trees[tree_i];
      want ((int) in.size () / 4 == t.node_count, "node count", "tree " + std::to_string (tree_i));
      cv::FileNodeIterator ni = in.begin ();
      for (int n = 0; n < t.node_count; n++, node_i++) {
        const HaarNode & hn = c.nodes[node_i];
        const int left = (int) *ni;
        ++ni;
        const int right = (int) *ni;
        ++ni;
        const int feature = (int) *ni;
        ++ni;
        const float threshold = (float) *ni;
        ++ni;
        want (left == hn.left && right == hn.right && feature == hn.feature && same_bits (threshold, hn.threshold),
            "tree node", "node " + std::to_string (node_i));
      }
      want (lv.size () == (size_t) t.node_count + 1, "leaf count", "tree " + std::to_string (tree_i));
      for (cv::FileNodeIterator li = lv.begin (); li != lv.end (); ++li, ++leaf_i)
        want (same_bits ((float) *li, c.leaves[leaf_i]), "leaf value", "leaf " + std::to_string (leaf_i));
    }
  }
  const cv::FileNode feats = root["features"];
  want (feats.size () == c.features.size (), "feature count", std::to_string (c.features.size ()));
  cv::FileNodeIterator fi = feats.begin ();
  for (size_t f = 0; f < c.features.size (); f++, ++fi) {
    const cv::FileNode rn = (*fi)["rects"];
    want ((int) rn.size () == c.features[f].nrects, "rectangle count", "feature " + std::to_string (f));
    int r = 0;
    for (cv::FileNodeIterator ri = rn.begin (); ri != rn.end (); ++ri, r++) {
      cv::FileNodeIterator it2 = (*ri).begin ();
      int x = 0, y = 0, w = 0, h = 0;
      float weight = 0;
      it2 >> x >> y >> w >> h >> weight;
      const HaarRect & hr = c.features[f].rects[r];
      want (x == hr.x && y == hr.y && w == hr.width && h == hr.height && same_bits (weight, hr.weight),
          "rectangle", "feature " + std::to_string (f) + " rectangle " + std::to_string (r));
    }
  }
}

/* How the inputs went, printed at exit: a run whose inputs never get to
 * "cascades read by both" checks little of the second half. */
struct Stats {
  unsigned long inputs = 0, skipped = 0, xml_refused = 0, xml_read = 0, cascade_refused = 0, cascade_read = 0;
} stats;

void
print_stats ()
{
  std::fprintf (stderr,
      "cascade-diff: %lu inputs: %lu not given to OpenCV (ours: unsupported, over a limit, or OpenCV would "
      "crash), %lu refused as XML by both, %lu read by both with the same tree; of those %lu cascades refused by "
      "ours, %lu read by both with the same numbers\n",
      stats.inputs, stats.skipped, stats.xml_refused, stats.xml_read, stats.cascade_refused, stats.cascade_read);
}

}  // namespace

extern "C" int
LLVMFuzzerInitialize (int *, char ***)
{
  std::atexit (print_stats);
  cv::utils::logging::setLogLevel (cv::utils::logging::LOG_LEVEL_SILENT);
  cv::redirectError ([] (int, const char *, const char *, const char *, int, void *) { return 0; });
  return 0;
}

extern "C" int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  const std::string bytes (reinterpret_cast<const char *> (data), size);
  XmlDocument doc;
  std::string xml_error;
  XmlError kind = XmlError::None;
  const bool ours = parse_xml (bytes, &doc, &xml_error, &kind);
  stats.inputs++;
  if (!ours && kind != XmlError::Malformed) {
    stats.skipped++;
    return 0;
  }
  if (!ours && xml_error.empty ())
    disagree ("refused without a message", "", "");

  const std::string & path = temp_path ();
  const RemoveAtEnd remove_file;
  if (!write_file (path, bytes)) {
    std::perror (path.c_str ());
    std::abort ();
  }
  cv::FileStorage fs;
  std::string cv_error;
  try {
    fs.open (path, cv::FileStorage::READ);
  } catch (const std::exception & e) {
    cv_error = e.what ();
  }
  const bool theirs = cv_error.empty ();
  if (ours != theirs)
    disagree (ours ? "the XML: ours reads it, OpenCV refuses it" : "the XML: ours refuses it, OpenCV reads it",
        ours ? "read" : xml_error, theirs ? "read" : cv_error);
  if (!ours) {
    stats.xml_refused++;
    return 0;
  }
  stats.xml_read++;
  for (size_t i = 0; i < doc.roots.size (); i++)
    compare (doc.roots[i], fs.root ((int) i), "root" + std::to_string (i));
  if (!fs.root ((int) doc.roots.size ()).empty ())
    disagree ("root counts differ", std::to_string (doc.roots.size ()), "more");

  HaarCascade c;
  std::string error;
  HaarLoadError load_kind = HaarLoadError::None;
  if (!parse_haar_cascade (bytes, "fuzz.xml", &c, &error, &load_kind)) {
    stats.cascade_refused++;
    return 0;
  }
  bool loaded = false;
  std::string load_error;
  try {
    cv::CascadeClassifier cc;
    loaded = cc.load (path);
  } catch (const std::exception & e) {
    load_error = e.what ();
  }
  if (!loaded)
    disagree ("the cascade: ours accepts it, OpenCV's CascadeClassifier::load refuses it", "accepted",
        load_error.empty () ? "load returned false" : load_error);
  compare_values (fs, c);
  stats.cascade_read++;
  return 0;
}
