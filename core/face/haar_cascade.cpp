/* cudavision — OpenCV Haar cascade parser (see haar_cascade.h).
 *
 * Follows cv::CascadeClassifierImpl::Data::read and HaarEvaluator::read of
 * OpenCV 4.6 field by field, on the tree cascade_xml.h reads as OpenCV's
 * FileStorage does; where OpenCV would read out of bounds, loop, or read a
 * value of the wrong type as INT_MAX or FLT_MAX on a damaged file, this
 * parser refuses the file instead. */
#include "haar_cascade.h"

#include "cascade_xml.h"

#include "../file_read.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cudavision {

namespace {

/* What OpenCV subtracts from every stage threshold (Data::read). */
constexpr float kThresholdEps = 1e-5f;

const char *
type_name (XmlType t)
{
  switch (t) {
    case XmlType::None: return "nothing";
    case XmlType::Int: return "an integer";
    case XmlType::Real: return "a real number";
    case XmlType::String: return "a word";
    case XmlType::Seq: return "a sequence";
    case XmlType::Map: return "named elements";
  }
  return "?";
}

/* A scalar as written, for messages. */
std::string
text_of (const XmlNode & n)
{
  char buf[32];
  switch (n.type) {
    case XmlType::Int:
      return std::to_string (n.ival);
    case XmlType::Real: {
      std::snprintf (buf, sizeof buf, "%.9g", n.real);
      std::string t = buf;
      if (t.find_first_of (".eni") == std::string::npos)
        t += ".0";  /* 8.0 stays a real number in messages */
      return t;
    }
    case XmlType::String:
      return xml_quote (*n.str);
    default:
      return type_name (n.type);
  }
}

/* Why a value that looks like a number is not one to OpenCV. */
std::string
kind_note (const XmlNode & n)
{
  if (n.type == XmlType::String)
    return " (a word to OpenCV: it reads no number from quotes or entities)";
  if (n.type == XmlType::Real)
    return " (a real number)";
  return "";
}

/* The values of a node as cv::FileNode iterates them: a sequence's items,
 * a scalar itself, nothing for None. */
std::vector<const XmlNode *>
values_of (const XmlNode & n)
{
  std::vector<const XmlNode *> out;
  if (n.type == XmlType::Seq) {
    out.reserve (n.items.size ());
    for (const XmlNode & i : n.items)
      out.push_back (&i);
  } else if (n.type != XmlType::None && n.type != XmlType::Map) {
    out.push_back (&n);
  }
  return out;
}

/* Reads the element tree of a cascade into a HaarCascade, refusing what
 * cv::CascadeClassifier would refuse, and more: a cascade accepted here is
 * one OpenCV reads with the same numbers (fuzz/fuzz_cascade_diff.cpp
 * checks that), and one the kernels can evaluate without bounds checks. */
class Parser {
public:
  Parser (const std::string & name, HaarCascade * out) : name_ (name), c_ (*out) {}

  bool run (const XmlDocument & doc);
  const std::string & error () const { return error_; }
  bool unsupported () const { return unsupported_; }

private:
  bool fail (const XmlNode * at, const std::string & what)
  {
    return fail (at ? at->line : 0, what);
  }
  bool fail (int line, const std::string & what)
  {
    error_ = name_ + ": ";
    if (line > 0)
      error_ += "line " + std::to_string (line) + ": ";
    error_ += what;
    return false;
  }
  /* A well-formed cascade of a kind this detector does not implement. */
  bool refuse (const XmlNode * at, const std::string & what)
  {
    unsupported_ = true;
    return fail (at, what);
  }
  /* `child` of a map; cv::FileNode::operator[] takes maps only. */
  const XmlNode *require (const XmlNode & parent, const char *child, const std::string & where)
  {
    const XmlNode *e = parent.child (child);
    if (!e)
      fail (&parent, where + "missing <" + child + ">");
    return e;
  }
  /* Items of a sequence of <_> maps (<stages>, <weakClassifiers>,
   * <features>): none is an error. */
  bool map_items (const XmlNode & seq, const char *what, const std::string & where,
      std::vector<const XmlNode *> * out)
  {
    if (seq.type != XmlType::Seq && seq.type != XmlType::None)
      return fail (&seq, where + "<" + *seq.name + "> must hold <_> elements, not " + type_name (seq.type));
    out->clear ();
    for (const XmlNode & i : seq.items) {
      if (i.type != XmlType::Map)
        return fail (&i, where + std::string (what) + " " + std::to_string (out->size ()) + ": <_> must hold named "
            "elements, not " + type_name (i.type));
      out->push_back (&i);
    }
    if (out->empty ())
      return fail (&seq, where + "no " + what + "s");
    return true;
  }
  bool to_int (const XmlNode & at, const XmlNode & v, const std::string & where, int *out)
  {
    if (v.type == XmlType::Int && !v.int_wrapped) {
      *out = v.ival;
      return true;
    }
    if (v.type == XmlType::Int)
      return fail (&at, where + "an integer out of range");
    return fail (&at, where + "'" + text_of (v) + "' is not an integer" + kind_note (v));
  }
  /* A number as a float, as OpenCV takes it ((float) of the double, or of
   * the int); non-finite values are refused. */
  bool to_real (const XmlNode & at, const XmlNode & v, const std::string & where, float *out)
  {
    float f = 0;
    if (v.type == XmlType::Int && !v.int_wrapped)
      f = (float) v.ival;
    else if (v.type == XmlType::Real)
      f = (float) v.real;
    else
      return fail (&at, where + "'" + text_of (v) + "' is not a finite number" + kind_note (v));
    if (!std::isfinite (f))
      return fail (&at, where + "'" + text_of (v) + "' is not a finite number");
    *out = f;
    return true;
  }
  bool single_int (const XmlNode & parent, const char *child, int *v)
  {
    const XmlNode *e = require (parent, child, "");
    if (!e)
      return false;
    if (e->type == XmlType::Seq || e->type == XmlType::Map || e->type == XmlType::None)
      return fail (e, std::string ("<") + child + "> must hold one integer, not " + type_name (e->type));
    return to_int (*e, *e, std::string ("<") + child + ">: ", v);
  }
  /* A word, as (String)node reads it: a single String. */
  bool word (const XmlNode & parent, const char *child, std::string * v)
  {
    const XmlNode *e = require (parent, child, "");
    if (!e)
      return false;
    if (e->type != XmlType::String)
      return fail (e, std::string ("<") + child + "> must hold one word, not " + type_name (e->type));
    *v = *e->str;
    return true;
  }

  bool read_header (const XmlNode & casc);
  bool read_stages (const XmlNode & casc);
  bool read_tree (const XmlNode & weak, const std::string & where);
  bool read_features (const XmlNode & casc);
  bool check_feature_indices ();

  std::string name_;
  HaarCascade & c_;
  std::string error_;
  bool unsupported_ = false;
  /* Where each node came from, for errors found after all are read. */
  std::vector<int> node_line_;
  std::vector<std::string> node_where_;
};

bool
Parser::read_header (const XmlNode & casc)
{
  std::string stage_type, feature_type;
  if (!word (casc, "stageType", &stage_type))
    return false;
  if (stage_type != "BOOST")
    return refuse (casc.child ("stageType"), "stageType '" + xml_quote (stage_type) +
        "' is not supported (only BOOST)");
  if (!word (casc, "featureType", &feature_type))
    return false;
  if (feature_type == "LBP")
    return refuse (casc.child ("featureType"),
        "LBP cascades are not supported: only HAAR features are implemented (use a haarcascade_*.xml file)");
  if (feature_type == "HOG")
    return refuse (casc.child ("featureType"), "HOG cascades are not supported (only HAAR)");
  if (feature_type != "HAAR")
    return refuse (casc.child ("featureType"), "unknown featureType '" + xml_quote (feature_type) +
        "' (only HAAR is supported)");

  if (!single_int (casc, "width", &c_.window_width) || !single_int (casc, "height", &c_.window_height))
    return false;
  if (c_.window_width < 3 || c_.window_height < 3 || c_.window_width > kHaarMaxWindow ||
      c_.window_height > kHaarMaxWindow)
    return refuse (casc.child ("width"), "window " + std::to_string (c_.window_width) + "x" +
        std::to_string (c_.window_height) + " is out of range (3 to " + std::to_string (kHaarMaxWindow) +
        " pixels per side)");

  /* OpenCV looks <maxCatCount> up in it, which throws unless it is a map */
  const XmlNode *fp = require (casc, "featureParams", "");
  if (!fp)
    return false;
  if (fp->type != XmlType::Map)
    return fail (fp, std::string ("<featureParams> must hold named elements (<maxCatCount>), not ") +
        type_name (fp->type));
  if (fp->child ("maxCatCount")) {
    int cats = 0;
    if (!single_int (*fp, "maxCatCount", &cats))
      return false;
    if (cats != 0)
      return refuse (fp->child ("maxCatCount"), "categorical features (maxCatCount " + std::to_string (cats) +
          ") are not supported by HAAR cascades");
  }
  return true;
}

bool
Parser::read_tree (const XmlNode & weak, const std::string & where)
{
  const XmlNode *in = require (weak, "internalNodes", where);
  const XmlNode *lv = require (weak, "leafValues", where);
  if (!in || !lv)
    return false;
  const std::vector<const XmlNode *> t = values_of (*in), l = values_of (*lv);
  if (in->type == XmlType::Map)
    return fail (in, where + "<internalNodes> must hold numbers, not named elements");
  if (lv->type == XmlType::Map)
    return fail (lv, where + "<leafValues> must hold numbers, not named elements");
  if (t.empty () || t.size () % 4 != 0)
    return fail (in, where + "<internalNodes> has " + std::to_string (t.size ()) +
        " numbers; expected 4 per node (left right featureIdx threshold)");
  HaarTree tree;
  tree.first_node = (int) c_.nodes.size ();
  tree.node_count = (int) (t.size () / 4);
  tree.first_leaf = (int) c_.leaves.size ();
  if ((int) l.size () != tree.node_count + 1)
    return fail (lv, where + "<leafValues> has " + std::to_string (l.size ()) + " values; " +
        std::to_string (tree.node_count) + " nodes need " + std::to_string (tree.node_count + 1));
  for (int n = 0; n < tree.node_count; n++) {
    HaarNode node;
    const std::string w = where + "node " + std::to_string (n) + ": ";
    if (!to_int (*in, *t[4 * n], w, &node.left) || !to_int (*in, *t[4 * n + 1], w, &node.right) ||
        !to_int (*in, *t[4 * n + 2], w, &node.feature) || !to_real (*in, *t[4 * n + 3], w, &node.threshold))
      return false;
    for (int child : { node.left, node.right }) {
      /* Children after their parent: evaluation always terminates. */
      if (child > 0 && (child <= n || child >= tree.node_count))
        return fail (in, w + "child node " + std::to_string (child) + " is not a later node of this " +
            std::to_string (tree.node_count) + "-node tree");
      if (child <= 0 && -(int64_t) child > tree.node_count)
        return fail (in, w + "leaf " + std::to_string (-(int64_t) child) + " does not exist (" +
            std::to_string (tree.node_count + 1) + " leaves)");
    }
    if (node.feature < 0)
      return fail (in, w + "negative feature index " + std::to_string (node.feature));
    c_.nodes.push_back (node);
    node_line_.push_back (in->line);
    node_where_.push_back (w);
  }
  for (size_t i = 0; i < l.size (); i++) {
    float v = 0;
    if (!to_real (*lv, *l[i], where + "leaf " + std::to_string (i) + ": ", &v))
      return false;
    c_.leaves.push_back (v);
  }
  c_.max_nodes_per_tree = std::max (c_.max_nodes_per_tree, tree.node_count);
  c_.trees.push_back (tree);
  return true;
}

bool
Parser::read_stages (const XmlNode & casc)
{
  const XmlNode *st = require (casc, "stages", "");
  std::vector<const XmlNode *> stages;
  if (!st || !map_items (*st, "stage", "", &stages))
    return false;
  for (size_t si = 0; si < stages.size (); si++) {
    const XmlNode & s = *stages[si];
    const std::string where = "stage " + std::to_string (si) + ": ";
    const XmlNode *thr_e = require (s, "stageThreshold", where);
    if (!thr_e)
      return false;
    if (thr_e->type == XmlType::Seq || thr_e->type == XmlType::Map || thr_e->type == XmlType::None)
      return fail (thr_e, where + "<stageThreshold> must hold one number, not " + type_name (thr_e->type));
    float thr = 0;
    if (!to_real (*thr_e, *thr_e, where + "<stageThreshold>: ", &thr))
      return false;
    const XmlNode *weak = require (s, "weakClassifiers", where);
    std::vector<const XmlNode *> trees;
    if (!weak || !map_items (*weak, "weak classifier", where, &trees))
      return false;
    HaarStage stage;
    stage.threshold = thr - kThresholdEps;
    stage.first_tree = (int) c_.trees.size ();
    for (size_t wi = 0; wi < trees.size (); wi++)
      if (!read_tree (*trees[wi], where + "weak classifier " + std::to_string (wi) + ": "))
        return false;
    stage.tree_count = (int) trees.size ();
    c_.stages.push_back (stage);
  }
  if (casc.child ("stageNum")) {
    int declared = 0;
    if (!single_int (casc, "stageNum", &declared))
      return false;
    if (declared != (int) stages.size ())
      return fail (casc.child ("stageNum"), "<stageNum> says " + std::to_string (declared) +
          " stages but <stages> has " + std::to_string (stages.size ()));
  }
  return true;
}

bool
Parser::read_features (const XmlNode & casc)
{
  const XmlNode *fs = require (casc, "features", "");
  std::vector<const XmlNode *> feats;
  if (!fs || !map_items (*fs, "feature", "", &feats))
    return false;
  for (size_t fi = 0; fi < feats.size (); fi++) {
    const XmlNode & f = *feats[fi];
    const std::string where = "feature " + std::to_string (fi) + ": ";
    if (const XmlNode *tl = f.child ("tilted")) {
      if (tl->type != XmlType::Int || tl->int_wrapped)
        return fail (tl, where + "<tilted> must hold 0 or 1, not " + text_of (*tl));
      if (tl->ival != 0)
        return refuse (tl, where + "tilted (45-degree) features are not supported; "
                                   "use a cascade with upright features only");
    }
    const XmlNode *rects = require (f, "rects", where);
    if (!rects)
      return false;
    if (rects->type != XmlType::Seq && rects->type != XmlType::None)
      return fail (rects, where + "<rects> must hold <_> rectangles, not " + type_name (rects->type));
    HaarFeature feat;
    for (const XmlNode & r : rects->items) {
      if (feat.nrects == 3)
        return fail (&r, where + "more than 3 rectangles");
      const std::string rw = where + "rectangle " + std::to_string (feat.nrects) + ": ";
      const std::vector<const XmlNode *> t = values_of (r);
      if (r.type != XmlType::Seq || t.size () != 5)
        return fail (&r, rw + "expected 5 numbers (x y width height weight), found " +
            (r.type == XmlType::Map ? std::string ("named elements") : std::to_string (t.size ())));
      HaarRect & hr = feat.rects[feat.nrects];
      if (!to_int (r, *t[0], rw, &hr.x) || !to_int (r, *t[1], rw, &hr.y) || !to_int (r, *t[2], rw, &hr.width) ||
          !to_int (r, *t[3], rw, &hr.height) || !to_real (r, *t[4], rw, &hr.weight))
        return false;
      /* 64-bit sums: x + width in int overflows for values near INT_MAX,
       * wraps negative and would pass (found by fuzz/fuzz_haar_cascade).
       * x and y inside the window, not on its far edge even when empty:
       * OpenCV 4.6 refuses that too (found by fuzz-cascade-diff). */
      if (hr.x < 0 || hr.y < 0 || hr.width < 0 || hr.height < 0 || hr.x >= c_.window_width ||
          hr.y >= c_.window_height || (int64_t) hr.x + hr.width > c_.window_width ||
          (int64_t) hr.y + hr.height > c_.window_height)
        return fail (&r, rw + "(" + std::to_string (hr.x) + "," + std::to_string (hr.y) + ") " +
            std::to_string (hr.width) + "x" + std::to_string (hr.height) + " is not inside the " +
            std::to_string (c_.window_width) + "x" + std::to_string (c_.window_height) + " window");
      feat.nrects++;
    }
    if (feat.nrects == 0)
      return fail (rects, where + "no rectangles");
    c_.features.push_back (feat);
  }
  return true;
}

bool
Parser::check_feature_indices ()
{
  for (size_t n = 0; n < c_.nodes.size (); n++)
    if (c_.nodes[n].feature >= (int) c_.features.size ())
      return fail (node_line_[n], node_where_[n] + "feature index " + std::to_string (c_.nodes[n].feature) +
          " is out of range (" + std::to_string (c_.features.size ()) + " features)");
  return true;
}

bool
Parser::run (const XmlDocument & doc)
{
  if (doc.roots.empty ())
    return fail (0, "no <opencv_storage> element: not an OpenCV cascade");
  const XmlNode & root = doc.roots.front ();
  /* OpenCV takes the first top-level node (FileStorage::getFirstTopLevelNode). */
  if (root.items.empty ())
    return fail (&root, "<opencv_storage> is empty: no cascade in the file");
  const XmlNode & casc = root.items.front ();
  const std::string cname = casc.name ? *casc.name : std::string ("_");
  /* The old format, which OpenCV converts when the new one does not read:
   * its root has a <size> and no <stageType>. */
  if ((casc.type_id && *casc.type_id == "opencv-haar-classifier") ||
      (casc.child ("size") && !casc.child ("stageType")))
    return refuse (&casc, "<" + cname + "> is in OpenCV's old Haar format (type_id=\"opencv-haar-classifier\"), "
                         "which is not supported; use a cascade in the current format (<cascade>, as "
                         "opencv_traincascade writes and OpenCV 3/4 ship)");
  if (casc.type != XmlType::Map || (!casc.child ("stages") && !casc.child ("stageType")))
    return fail (&casc, "<" + cname + "> is not a cascade (no <stageType> or <stages>)");
  return read_header (casc) && read_stages (casc) && read_features (casc) && check_feature_indices ();
}

}  // namespace

bool
parse_haar_cascade (const std::string & xml, const std::string & name, HaarCascade * out, std::string * error,
    HaarLoadError * kind)
{
  if (kind)
    *kind = HaarLoadError::Malformed;
  XmlDocument doc;
  std::string xml_error;
  XmlError xml_kind = XmlError::None;
  if (!parse_xml (xml, &doc, &xml_error, &xml_kind)) {
    if (error)
      *error = name + ": " +
          (xml_kind == XmlError::Unsupported ? "unsupported: " : xml_kind == XmlError::Limit ? "" : "malformed XML: ") +
          xml_error;
    if (kind && xml_kind == XmlError::Unsupported)
      *kind = HaarLoadError::Unsupported;
    return false;
  }
  HaarCascade c;
  Parser p (name, &c);
  if (!p.run (doc)) {
    if (error)
      *error = p.error ();
    if (kind && p.unsupported ())
      *kind = HaarLoadError::Unsupported;
    return false;
  }
  *out = std::move (c);
  if (kind)
    *kind = HaarLoadError::None;
  return true;
}

bool
load_haar_cascade (const std::string & path, HaarCascade * out, std::string * error, HaarLoadError * kind)
{
  auto fail = [&] (const std::string & what, HaarLoadError k = HaarLoadError::Io) {
    if (error)
      *error = what;
    if (kind)
      *kind = k;
    return false;
  };
  if (path.empty ())
    return fail ("no cascade file given");
  /* cv::FileStorage reads "a.xml?b" as the file "a.xml" with parameters
   * "b" (a path without a newline): the CPU backend would read another
   * file than this reader. */
  if (path.find ('?') != std::string::npos && path.find ('\n') == std::string::npos)
    return fail (path + ": a '?' in the path: OpenCV would read '" + path.substr (0, path.rfind ('?')) +
        "' instead; rename the file");
  std::string text, why;
  if (!read_regular_file (path, kHaarMaxFileBytes, "a cascade file", &text, &why))
    return fail (why);
  if (text.empty ())
    return fail (path + ": the file is empty");
  if (text.size () >= 2 && (unsigned char) text[0] == 0x1f && (unsigned char) text[1] == 0x8b)
    return fail (path + ": a gzip-compressed file: decompress it first", HaarLoadError::Unsupported);
  return parse_haar_cascade (text, path, out, error, kind);
}

}  // namespace cudavision
