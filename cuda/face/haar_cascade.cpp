/* cudavision — OpenCV Haar cascade parser (see haar_cascade.h).
 *
 * Follows cv::CascadeClassifierImpl::Data::read and HaarEvaluator::read of
 * OpenCV 4.x field by field; where OpenCV would read out of bounds or loop
 * on a damaged file, this parser refuses the file instead. */
#include "haar_cascade.h"

#include "cascade_xml.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace cudavision {

namespace {

/* Files larger than this are not cascades (the largest OpenCV ships is
 * about 2.6 MB); refusing them early keeps garbage from exhausting memory. */
constexpr long long kMaxFileBytes = 64ll << 20;

/* What OpenCV subtracts from every stage threshold (Data::read). */
constexpr float kThresholdEps = 1e-5f;

class Parser {
public:
  Parser (const std::string & name, HaarCascade * out) : name_ (name), c_ (*out) {}

  bool run (const XmlElement & root);
  const std::string & error () const { return error_; }
  bool unsupported () const { return unsupported_; }

private:
  bool fail (const XmlElement * at, const std::string & what)
  {
    error_ = name_ + ": ";
    if (at)
      error_ += "line " + std::to_string (at->line) + ": ";
    error_ += what;
    return false;
  }
  /* A well-formed cascade of a kind this detector does not implement. */
  bool refuse (const XmlElement * at, const std::string & what)
  {
    unsupported_ = true;
    return fail (at, what);
  }
  const XmlElement *require (const XmlElement & parent, const char *child, const std::string & where)
  {
    const XmlElement *e = parent.child (child);
    if (!e)
      fail (&parent, where + "missing <" + child + ">");
    return e;
  }
  /* Whitespace-separated numbers of an element's text. */
  bool numbers (const XmlElement & e, const std::string & where, std::vector<std::string> * out)
  {
    out->clear ();
    std::istringstream in (e.text);
    std::string tok;
    while (in >> tok)
      out->push_back (tok);
    (void) where;
    return true;
  }
  bool to_int (const XmlElement & e, const std::string & tok, const std::string & where, int *v)
  {
    const char *b = tok.data () + (tok[0] == '+' ? 1 : 0);
    const char *end = tok.data () + tok.size ();
    auto r = std::from_chars (b, end, *v);
    if (r.ec != std::errc () || r.ptr != end)
      return fail (&e, where + "'" + tok + "' is not an integer");
    return true;
  }
  bool to_real (const XmlElement & e, const std::string & tok, const std::string & where, double *v)
  {
    const char *b = tok.data () + (tok[0] == '+' ? 1 : 0);
    const char *end = tok.data () + tok.size ();
    auto r = std::from_chars (b, end, *v);
    if (r.ec != std::errc () || r.ptr != end || !(*v == *v) || *v > 3.4e38 || *v < -3.4e38)
      return fail (&e, where + "'" + tok + "' is not a finite number");
    return true;
  }
  bool single_int (const XmlElement & parent, const char *child, int *v)
  {
    const XmlElement *e = require (parent, child, "");
    if (!e)
      return false;
    std::vector<std::string> t;
    numbers (*e, "", &t);
    if (t.size () != 1)
      return fail (e, std::string ("<") + child + "> must hold one integer");
    return to_int (*e, t[0], std::string ("<") + child + ">: ", v);
  }
  bool text_of (const XmlElement & parent, const char *child, std::string *v)
  {
    const XmlElement *e = require (parent, child, "");
    if (!e)
      return false;
    std::istringstream in (e->text);
    in >> *v;
    return true;
  }

  bool read_header (const XmlElement & root);
  bool read_stages (const XmlElement & root);
  bool read_tree (const XmlElement & weak, const std::string & where);
  bool read_features (const XmlElement & root);
  bool check_feature_indices ();

  std::string name_;
  HaarCascade & c_;
  std::string error_;
  bool unsupported_ = false;
  /* Where each node came from, for errors found after all are read. */
  std::vector<const XmlElement *> node_origin_;
  std::vector<std::string> node_where_;
};

bool
Parser::read_header (const XmlElement & casc)
{
  std::string stage_type, feature_type;
  if (!text_of (casc, "stageType", &stage_type))
    return false;
  if (stage_type != "BOOST")
    return refuse (casc.child ("stageType"), "stageType '" + stage_type + "' is not supported (only BOOST)");
  if (!text_of (casc, "featureType", &feature_type))
    return false;
  if (feature_type == "LBP")
    return refuse (casc.child ("featureType"),
        "LBP cascades are not supported: only HAAR features are implemented (use a haarcascade_*.xml file)");
  if (feature_type == "HOG")
    return refuse (casc.child ("featureType"), "HOG cascades are not supported (only HAAR)");
  if (feature_type != "HAAR")
    return refuse (casc.child ("featureType"), "unknown featureType '" + feature_type + "' (only HAAR is supported)");

  if (!single_int (casc, "width", &c_.window_width) || !single_int (casc, "height", &c_.window_height))
    return false;
  if (c_.window_width < 3 || c_.window_height < 3 || c_.window_width > kHaarMaxWindow ||
      c_.window_height > kHaarMaxWindow)
    return refuse (casc.child ("width"), "window " + std::to_string (c_.window_width) + "x" +
        std::to_string (c_.window_height) + " is out of range (3 to " + std::to_string (kHaarMaxWindow) +
        " pixels per side)");

  const XmlElement *fp = require (casc, "featureParams", "");
  if (!fp)
    return false;
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
Parser::read_tree (const XmlElement & weak, const std::string & where)
{
  const XmlElement *in = require (weak, "internalNodes", where);
  const XmlElement *lv = require (weak, "leafValues", where);
  if (!in || !lv)
    return false;
  std::vector<std::string> t, l;
  numbers (*in, where, &t);
  numbers (*lv, where, &l);
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
    double thr = 0;
    const std::string w = where + "node " + std::to_string (n) + ": ";
    if (!to_int (*in, t[4 * n], w, &node.left) || !to_int (*in, t[4 * n + 1], w, &node.right) ||
        !to_int (*in, t[4 * n + 2], w, &node.feature) || !to_real (*in, t[4 * n + 3], w, &thr))
      return false;
    node.threshold = (float) thr;
    for (int child : { node.left, node.right }) {
      /* Children after their parent: evaluation always terminates. */
      if (child > 0 && (child <= n || child >= tree.node_count))
        return fail (in, w + "child node " + std::to_string (child) + " is not a later node of this " +
            std::to_string (tree.node_count) + "-node tree");
      if (child <= 0 && -child > tree.node_count)
        return fail (in, w + "leaf " + std::to_string (-child) + " does not exist (" +
            std::to_string (tree.node_count + 1) + " leaves)");
    }
    if (node.feature < 0)
      return fail (in, w + "negative feature index " + std::to_string (node.feature));
    c_.nodes.push_back (node);
    node_origin_.push_back (in);
    node_where_.push_back (w);
  }
  for (size_t i = 0; i < l.size (); i++) {
    double v = 0;
    if (!to_real (*lv, l[i], where + "leaf " + std::to_string (i) + ": ", &v))
      return false;
    c_.leaves.push_back ((float) v);
  }
  c_.max_nodes_per_tree = std::max (c_.max_nodes_per_tree, tree.node_count);
  c_.trees.push_back (tree);
  return true;
}

bool
Parser::read_stages (const XmlElement & casc)
{
  const XmlElement *st = require (casc, "stages", "");
  if (!st)
    return false;
  int si = 0;
  for (const XmlElement & s : st->children) {
    const std::string where = "stage " + std::to_string (si) + ": ";
    if (s.name != "_")
      return fail (&s, "unexpected <" + s.name + "> in <stages>");
    const XmlElement *thr_e = require (s, "stageThreshold", where);
    if (!thr_e)
      return false;
    std::vector<std::string> t;
    numbers (*thr_e, where, &t);
    double thr = 0;
    if (t.size () != 1)
      return fail (thr_e, where + "<stageThreshold> must hold one number");
    if (!to_real (*thr_e, t[0], where + "<stageThreshold>: ", &thr))
      return false;
    const XmlElement *weak = require (s, "weakClassifiers", where);
    if (!weak)
      return false;
    HaarStage stage;
    stage.threshold = (float) thr - kThresholdEps;
    stage.first_tree = (int) c_.trees.size ();
    int wi = 0;
    for (const XmlElement & w : weak->children) {
      if (w.name != "_")
        return fail (&w, where + "unexpected <" + w.name + "> in <weakClassifiers>");
      if (!read_tree (w, where + "weak classifier " + std::to_string (wi) + ": "))
        return false;
      wi++;
    }
    if (wi == 0)
      return fail (weak, where + "no weak classifiers");
    stage.tree_count = wi;
    c_.stages.push_back (stage);
    si++;
  }
  if (si == 0)
    return fail (st, "no stages");
  if (casc.child ("stageNum")) {
    int declared = 0;
    if (!single_int (casc, "stageNum", &declared))
      return false;
    if (declared != si)
      return fail (casc.child ("stageNum"), "<stageNum> says " + std::to_string (declared) + " stages but <stages> has " +
          std::to_string (si));
  }
  return true;
}

bool
Parser::read_features (const XmlElement & casc)
{
  const XmlElement *fs = require (casc, "features", "");
  if (!fs)
    return false;
  int fi = 0;
  for (const XmlElement & f : fs->children) {
    const std::string where = "feature " + std::to_string (fi) + ": ";
    if (f.name != "_")
      return fail (&f, "unexpected <" + f.name + "> in <features>");
    if (const XmlElement *tl = f.child ("tilted")) {
      std::vector<std::string> t;
      numbers (*tl, where, &t);
      int tilted = 0;
      if (t.size () != 1 || !to_int (*tl, t[0], where + "<tilted>: ", &tilted))
        return error_.empty () ? fail (tl, where + "<tilted> must hold 0 or 1") : false;
      if (tilted != 0)
        return refuse (tl, where + "tilted (45-degree) features are not supported; "
                                 "use a cascade with upright features only");
    }
    const XmlElement *rects = require (f, "rects", where);
    if (!rects)
      return false;
    HaarFeature feat;
    for (const XmlElement & r : rects->children) {
      if (r.name != "_")
        return fail (&r, where + "unexpected <" + r.name + "> in <rects>");
      if (feat.nrects == 3)
        return fail (&r, where + "more than 3 rectangles");
      std::vector<std::string> t;
      numbers (r, where, &t);
      const std::string rw = where + "rectangle " + std::to_string (feat.nrects) + ": ";
      if (t.size () != 5)
        return fail (&r, rw + "expected 5 numbers (x y width height weight), found " + std::to_string (t.size ()));
      HaarRect & hr = feat.rects[feat.nrects];
      double weight = 0;
      if (!to_int (r, t[0], rw, &hr.x) || !to_int (r, t[1], rw, &hr.y) || !to_int (r, t[2], rw, &hr.width) ||
          !to_int (r, t[3], rw, &hr.height) || !to_real (r, t[4], rw, &weight))
        return false;
      hr.weight = (float) weight;
      /* 64-bit sums: x + width in int overflows for values near INT_MAX,
       * wraps negative and would pass (found by fuzz/fuzz_haar_cascade) */
      if (hr.x < 0 || hr.y < 0 || hr.width < 0 || hr.height < 0 || (int64_t) hr.x + hr.width > c_.window_width ||
          (int64_t) hr.y + hr.height > c_.window_height)
        return fail (&r, rw + "(" + t[0] + "," + t[1] + ") " + t[2] + "x" + t[3] + " is not inside the " +
            std::to_string (c_.window_width) + "x" + std::to_string (c_.window_height) + " window");
      feat.nrects++;
    }
    if (feat.nrects == 0)
      return fail (rects, where + "no rectangles");
    c_.features.push_back (feat);
    fi++;
  }
  if (fi == 0)
    return fail (fs, "no features");
  return true;
}

bool
Parser::check_feature_indices ()
{
  for (size_t n = 0; n < c_.nodes.size (); n++)
    if (c_.nodes[n].feature >= (int) c_.features.size ())
      return fail (node_origin_[n], node_where_[n] + "feature index " + std::to_string (c_.nodes[n].feature) +
          " is out of range (" + std::to_string (c_.features.size ()) + " features)");
  return true;
}

bool
Parser::run (const XmlElement & root)
{
  if (root.name != "opencv_storage")
    return fail (&root, "not an OpenCV cascade: the root element is <" + root.name + ">, not <opencv_storage>");
  /* OpenCV takes the first top-level node (FileStorage::getFirstTopLevelNode). */
  if (root.children.empty ())
    return fail (&root, "<opencv_storage> is empty: no cascade in the file");
  const XmlElement & casc = root.children.front ();
  const std::string *type = casc.attribute ("type_id");
  if (type && *type == "opencv-haar-classifier")
    return refuse (&casc, "<" + casc.name + "> is in OpenCV's old Haar format (type_id=\"opencv-haar-classifier\"), "
                        "which is not supported; use a cascade in the current format (<cascade>, as "
                        "opencv_traincascade writes and OpenCV 3/4 ship)");
  if (!casc.child ("stages") && !casc.child ("stageType"))
    return fail (&casc, "<" + casc.name + "> is not a cascade (no <stageType> or <stages>)");
  return read_header (casc) && read_stages (casc) && read_features (casc) && check_feature_indices ();
}

}  // namespace

bool
parse_haar_cascade (const std::string & xml, const std::string & name, HaarCascade * out, std::string * error,
    HaarLoadError * kind)
{
  if (kind)
    *kind = HaarLoadError::Malformed;
  XmlElement root;
  std::string xml_error;
  if (!parse_xml (xml, &root, &xml_error)) {
    if (error)
      *error = name + ": malformed XML: " + xml_error;
    return false;
  }
  HaarCascade c;
  Parser p (name, &c);
  if (!p.run (root)) {
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
  auto fail = [&] (const std::string & what) {
    if (error)
      *error = path + ": " + what;
    if (kind)
      *kind = HaarLoadError::Io;
    return false;
  };
  if (path.empty ())
    return fail ("no cascade file given");
  struct stat st;
  if (stat (path.c_str (), &st) != 0)
    return fail ("cannot open the cascade file: no such file");
  if (S_ISDIR (st.st_mode))
    return fail ("is a directory, not a cascade file");
  if ((long long) st.st_size > kMaxFileBytes)
    return fail ("is " + std::to_string ((long long) st.st_size) + " bytes: too large for a cascade file");
  std::ifstream f (path, std::ios::binary);
  if (!f)
    return fail ("cannot open the cascade file (permission denied?)");
  std::ostringstream buf;
  buf << f.rdbuf ();
  if (f.bad ())
    return fail ("read error");
  const std::string text = buf.str ();
  if (text.empty ())
    return fail ("the file is empty");
  return parse_haar_cascade (text, path, out, error, kind);
}

}  // namespace cudavision
