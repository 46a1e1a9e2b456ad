/* The Haar cascade parser (cuda/face/haar_cascade.h) and its element tree
 * (cuda/face/cascade_xml.h, GLib's GMarkup underneath): every
 * cascade Debian ships against cv::CascadeClassifier and against counts
 * taken from the files' text, exact values of the first stage, and the
 * files it must refuse (truncated at every length, garbage, empty, missing,
 * LBP, tilted features, the old format, hand-broken structure) with an
 * error naming the file and the problem. Needs opencv-data's cascades. */
#include "../../cuda/face/haar_cascade.h"
#include "../../cuda/face/cascade_xml.h"
#include "../common/temp_file.h"

#include <gtest/gtest.h>
#include <opencv2/objdetect.hpp>

#include <filesystem>

using namespace cudavision;
using cvtest::read_text;
using cvtest::TempFile;

namespace {

const std::string kHaarDir = "/usr/share/opencv4/haarcascades/";
const std::string kLbpDir = "/usr/share/opencv4/lbpcascades/";

size_t
count_of (const std::string & text, const std::string & what)
{
  size_t n = 0;
  for (size_t p = text.find (what); p != std::string::npos; p = text.find (what, p + 1))
    n++;
  return n;
}

bool
have_cascades ()
{
  return std::filesystem::exists (kHaarDir + "haarcascade_frontalface_default.xml");
}

#define REQUIRE_CASCADES()                                                              \
  do {                                                                                  \
    if (!have_cascades ())                                                              \
      GTEST_SKIP () << "opencv-data's cascades are not installed in " << kHaarDir;      \
  } while (0)

struct Expect {
  const char *file;
  int width, height;
  size_t stages;
  size_t trees;
  int max_nodes;
};

/* Counts read off the files by hand: <stageNum>, the number of weak
 * classifiers, and the tree depth (alt2 is the tree-based one). */
const Expect kExpected[] = {
  { "haarcascade_frontalface_default.xml", 24, 24, 25, 2913, 1 },
  { "haarcascade_frontalface_alt.xml", 20, 20, 22, 2135, 1 },
  { "haarcascade_frontalface_alt2.xml", 20, 20, 20, 1047, 2 },
  { "haarcascade_eye.xml", 20, 20, 24, 1066, 1 },
  { "haarcascade_profileface.xml", 20, 20, 26, 2609, 1 },
  { "haarcascade_frontalcatface.xml", 24, 24, 20, 1275, 1 },
};

}  // namespace

TEST (HaarCascade, DebianCascadesMatchOpenCVAndTheirText)
{
  REQUIRE_CASCADES ();
  for (const Expect & e : kExpected) {
    const std::string path = kHaarDir + e.file;
    HaarCascade c;
    std::string err;
    HaarLoadError kind = HaarLoadError::Io;
    ASSERT_TRUE (load_haar_cascade (path, &c, &err, &kind)) << err;
    EXPECT_EQ (kind, HaarLoadError::None);
    EXPECT_EQ (c.window_width, e.width) << e.file;
    EXPECT_EQ (c.window_height, e.height) << e.file;
    EXPECT_EQ (c.stages.size (), e.stages) << e.file;
    EXPECT_EQ (c.trees.size (), e.trees) << e.file;
    EXPECT_EQ (c.max_nodes_per_tree, e.max_nodes) << e.file;

    /* Independent counts from the text. */
    const std::string text = read_text (path);
    EXPECT_EQ (c.trees.size (), count_of (text, "<internalNodes>")) << e.file;
    EXPECT_EQ (c.stages.size (), count_of (text, "<stageThreshold>")) << e.file;
    EXPECT_EQ (c.features.size (), count_of (text, "<rects>")) << e.file;
    EXPECT_EQ (c.leaves.size (), c.nodes.size () + c.trees.size ()) << e.file;

    /* What OpenCV reads from the same file. */
    cv::CascadeClassifier cv_c;
    ASSERT_TRUE (cv_c.load (path)) << path;
    EXPECT_FALSE (cv_c.isOldFormatCascade ());
    EXPECT_EQ (cv_c.getFeatureType (), 0) << "HAAR";
    EXPECT_EQ (cv_c.getOriginalWindowSize (), cv::Size (c.window_width, c.window_height)) << e.file;

    /* Structure invariants the kernels rely on. */
    int trees = 0;
    for (const HaarStage & s : c.stages) {
      EXPECT_EQ (s.first_tree, trees);
      trees += s.tree_count;
    }
    EXPECT_EQ ((size_t) trees, c.trees.size ());
    for (const HaarNode & n : c.nodes)
      ASSERT_LT ((size_t) n.feature, c.features.size ());
    for (const HaarFeature & f : c.features)
      for (int r = 0; r < f.nrects; r++) {
        ASSERT_GE (f.rects[r].x, 0);
        ASSERT_LE (f.rects[r].x + f.rects[r].width, c.window_width);
        ASSERT_LE (f.rects[r].y + f.rects[r].height, c.window_height);
      }
  }
}

/* Values exactly as OpenCV stores them: float, stage thresholds - 1e-5f. */
TEST (HaarCascade, FirstStageValuesOfTheDefaultCascade)
{
  REQUIRE_CASCADES ();
  HaarCascade c;
  std::string err;
  ASSERT_TRUE (load_haar_cascade (kHaarDir + "haarcascade_frontalface_default.xml", &c, &err)) << err;
  EXPECT_EQ (c.stages[0].tree_count, 9);
  EXPECT_EQ (c.stages[0].threshold, (float) -5.0425500869750977e+00 - 1e-5f);
  EXPECT_EQ (c.nodes[0].left, 0);
  EXPECT_EQ (c.nodes[0].right, -1);
  EXPECT_EQ (c.nodes[0].feature, 0);
  EXPECT_EQ (c.nodes[0].threshold, (float) -3.1511999666690826e-02);
  EXPECT_EQ (c.leaves[0], (float) 2.0875380039215088e+00);
  EXPECT_EQ (c.leaves[1], (float) -2.2172100543975830e+00);
  /* feature 0: "6 4 12 9 -1." and "6 7 12 3 3." */
  const HaarFeature & f = c.features[0];
  ASSERT_EQ (f.nrects, 2);
  EXPECT_EQ (f.rects[0].x, 6);
  EXPECT_EQ (f.rects[0].y, 4);
  EXPECT_EQ (f.rects[0].width, 12);
  EXPECT_EQ (f.rects[0].height, 9);
  EXPECT_EQ (f.rects[0].weight, -1.f);
  EXPECT_EQ (f.rects[1].y, 7);
  EXPECT_EQ (f.rects[1].weight, 3.f);
  EXPECT_EQ (f.rects[2].weight, 0.f);
}

/* alt2's trees: "0 1 0 t -1 -2 1 t": node 0 goes to leaf 0 or node 1. */
TEST (HaarCascade, TreeCascadeKeepsItsNodes)
{
  REQUIRE_CASCADES ();
  HaarCascade c;
  std::string err;
  ASSERT_TRUE (load_haar_cascade (kHaarDir + "haarcascade_frontalface_alt2.xml", &c, &err)) << err;
  ASSERT_FALSE (c.is_stump_based ());
  const HaarTree & t = c.trees[0];
  EXPECT_EQ (t.node_count, 2);
  EXPECT_EQ (c.nodes[t.first_node].left, 0);
  EXPECT_EQ (c.nodes[t.first_node].right, 1);
  EXPECT_EQ (c.nodes[t.first_node + 1].left, -1);
  EXPECT_EQ (c.nodes[t.first_node + 1].right, -2);
  EXPECT_EQ (c.leaves[t.first_leaf + 1], (float) 8.9652568101882935e-01);
}

TEST (HaarCascade, RefusesLbpTiltedAndOldFormatCascades)
{
  REQUIRE_CASCADES ();
  struct Case {
    std::string path;
    const char *problem;
  };
  const Case cases[] = {
    { kLbpDir + "lbpcascade_frontalface.xml", "LBP cascades are not supported" },
    { kHaarDir + "haarcascade_smile.xml", "tilted" },
    { kHaarDir + "haarcascade_eye_tree_eyeglasses.xml", "tilted" },
    { kHaarDir + "haarcascade_licence_plate_rus_16stages.xml", "old Haar format" },
  };
  for (const Case & k : cases) {
    if (!std::filesystem::exists (k.path))
      continue;
    HaarCascade c;
    std::string err;
    HaarLoadError kind = HaarLoadError::None;
    EXPECT_FALSE (load_haar_cascade (k.path, &c, &err, &kind)) << k.path;
    EXPECT_EQ (kind, HaarLoadError::Unsupported) << err;
    EXPECT_NE (err.find (k.path), std::string::npos) << err;
    EXPECT_NE (err.find (k.problem), std::string::npos) << err;
    EXPECT_NE (err.find ("line "), std::string::npos) << err;
  }
}

/* Every prefix of a real cascade is refused cleanly (the reader must
 * neither crash nor accept a cut file); prefixes cut inside the data say
 * the file ends early. */
TEST (HaarCascade, TruncatedAtEveryLengthIsAnError)
{
  REQUIRE_CASCADES ();
  const std::string text = read_text (kHaarDir + "haarcascade_frontalface_alt2.xml");
  ASSERT_GT (text.size (), 100000u);
  /* every byte of the first 3 KiB (the prolog, the licence comment, the
   * header) and of the last 2 KiB, a prime stride through the rest */
  std::vector<size_t> cuts;
  for (size_t n = 0; n < 3072; n++)
    cuts.push_back (n);
  for (size_t n = 3072; n < text.size () - 2048; n += 1009)
    cuts.push_back (n);
  for (size_t n = text.size () - 2048; n < text.size (); n++)
    cuts.push_back (n);
  size_t said_end = 0, mid = 0;
  for (size_t n : cuts) {
    /* a cut that only drops the trailing newline leaves a complete file */
    if (text.find_first_not_of (" \t\r\n", n) == std::string::npos)
      continue;
    HaarCascade c;
    std::string err;
    HaarLoadError kind = HaarLoadError::None;
    ASSERT_FALSE (parse_haar_cascade (text.substr (0, n), "cut.xml", &c, &err, &kind)) << "accepted at " << n;
    ASSERT_EQ (err.rfind ("cut.xml: ", 0), 0u) << err;
    EXPECT_EQ (kind, HaarLoadError::Malformed) << n << ": " << err;
    if (n > 3000 && n < text.size () - 20) {
      mid++;
      if (err.find ("end of file") != std::string::npos)
        said_end++;
    }
  }
  EXPECT_EQ (said_end, mid) << "cuts inside the data should report the end of the file";
  /* and the whole file parses */
  HaarCascade c;
  std::string err;
  EXPECT_TRUE (parse_haar_cascade (text, "whole.xml", &c, &err)) << err;
}

TEST (HaarCascade, FileErrors)
{
  HaarCascade c;
  std::string err;
  HaarLoadError kind = HaarLoadError::None;

  EXPECT_FALSE (load_haar_cascade ("/nonexistent/cascade.xml", &c, &err, &kind));
  EXPECT_EQ (kind, HaarLoadError::Io);
  EXPECT_NE (err.find ("/nonexistent/cascade.xml"), std::string::npos) << err;
  EXPECT_NE (err.find ("no such file"), std::string::npos) << err;

  EXPECT_FALSE (load_haar_cascade ("", &c, &err, &kind));
  EXPECT_EQ (kind, HaarLoadError::Io);

  EXPECT_FALSE (load_haar_cascade (std::filesystem::temp_directory_path ().string (), &c, &err, &kind));
  EXPECT_NE (err.find ("directory"), std::string::npos) << err;

  TempFile empty ("empty.xml", "");
  EXPECT_FALSE (load_haar_cascade (empty.path, &c, &err, &kind));
  EXPECT_EQ (kind, HaarLoadError::Io);
  EXPECT_NE (err.find (empty.path), std::string::npos) << err;
  EXPECT_NE (err.find ("empty"), std::string::npos) << err;

  std::string garbage (4096, '\0');
  for (size_t i = 0; i < garbage.size (); i++)
    garbage[i] = (char) ((i * 2654435761u) >> 13);
  TempFile junk ("junk.xml", garbage);
  EXPECT_FALSE (load_haar_cascade (junk.path, &c, &err, &kind));
  EXPECT_EQ (kind, HaarLoadError::Malformed);
  EXPECT_NE (err.find ("malformed XML"), std::string::npos) << err;

  TempFile text ("text.xml", "this is not a cascade\n");
  EXPECT_FALSE (load_haar_cascade (text.path, &c, &err, &kind));
  EXPECT_NE (err.find ("line 1"), std::string::npos) << err;

  TempFile other ("html.xml", "<?xml version=\"1.0\"?>\n<html><body/></html>\n");
  EXPECT_FALSE (load_haar_cascade (other.path, &c, &err, &kind));
  EXPECT_NE (err.find ("not an OpenCV cascade"), std::string::npos) << err;

  TempFile nothing ("nothing.xml", "<?xml version=\"1.0\"?>\n<opencv_storage>\n</opencv_storage>\n");
  EXPECT_FALSE (load_haar_cascade (nothing.path, &c, &err, &kind));
  EXPECT_NE (err.find ("no cascade"), std::string::npos) << err;
}

namespace {

/* A small valid cascade: one stage of two stumps and one of a depth-2
 * tree, over three features. Each broken variant below edits one thing. */
const char *kSmall = R"(<?xml version="1.0"?>
<opencv_storage>
<cascade type_id="opencv-cascade-classifier"><stageType>BOOST</stageType>
  <featureType>HAAR</featureType>
  <height>8</height>
  <width>8</width>
  <stageParams><maxWeakCount>2</maxWeakCount></stageParams>
  <featureParams><maxCatCount>0</maxCatCount></featureParams>
  <stageNum>2</stageNum>
  <stages>
    <_>
      <maxWeakCount>2</maxWeakCount>
      <stageThreshold>-1.5</stageThreshold>
      <weakClassifiers>
        <_><internalNodes>0 -1 0 0.25</internalNodes><leafValues>1. -1.</leafValues></_>
        <_><internalNodes>0 -1 1 -0.5</internalNodes><leafValues>-0.5 0.5</leafValues></_></weakClassifiers></_>
    <_>
      <maxWeakCount>1</maxWeakCount>
      <stageThreshold>0.125</stageThreshold>
      <weakClassifiers>
        <_><internalNodes>1 0 2 0.5 -1 -2 0 0.75</internalNodes><leafValues>0.1 0.2 0.3</leafValues></_></weakClassifiers></_></stages>
  <features>
    <_><rects><_>0 0 8 4 -1.</_><_>0 2 8 2 2.</_></rects></_>
    <_><rects><_>1 1 3 3 -1.</_><_>4 1 3 3 1.</_><_>2 4 4 4 0.5</_></rects><tilted>0</tilted></_>
    <_><rects><_>0 0 8 8 1.</_></rects></_></features></cascade>
</opencv_storage>
)";

std::string
edit (const std::string & from, const std::string & to)
{
  std::string s = kSmall;
  const size_t p = s.find (from);
  EXPECT_NE (p, std::string::npos) << from;
  return p == std::string::npos ? s : s.replace (p, from.size (), to);
}

}  // namespace

TEST (HaarCascade, SmallCascadeParses)
{
  HaarCascade c;
  std::string err;
  ASSERT_TRUE (parse_haar_cascade (kSmall, "small.xml", &c, &err)) << err;
  EXPECT_EQ (c.stages.size (), 2u);
  EXPECT_EQ (c.trees.size (), 3u);
  EXPECT_EQ (c.nodes.size (), 4u);
  EXPECT_EQ (c.leaves.size (), 7u);
  EXPECT_EQ (c.features.size (), 3u);
  EXPECT_EQ (c.features[1].nrects, 3);
  EXPECT_EQ (c.features[2].nrects, 1);
  EXPECT_EQ (c.max_nodes_per_tree, 2);
  EXPECT_EQ (c.stages[1].threshold, 0.125f - 1e-5f);
  EXPECT_EQ (c.trees[2].first_node, 2);
  EXPECT_EQ (c.trees[2].first_leaf, 4);
}

TEST (HaarCascade, BrokenStructureIsNamed)
{
  struct Case {
    std::string xml;
    const char *says;
    HaarLoadError kind;
  };
  const Case cases[] = {
    { edit ("<featureType>HAAR", "<featureType>LBP"), "LBP", HaarLoadError::Unsupported },
    { edit ("<featureType>HAAR", "<featureType>HOG"), "HOG", HaarLoadError::Unsupported },
    { edit ("<stageType>BOOST", "<stageType>CART"), "stageType 'CART'", HaarLoadError::Unsupported },
    { edit ("<tilted>0", "<tilted>1"), "feature 1: tilted", HaarLoadError::Unsupported },
    { edit ("<maxCatCount>0", "<maxCatCount>256"), "categorical", HaarLoadError::Unsupported },
    { edit ("<width>8", "<width>300"), "out of range", HaarLoadError::Unsupported },
    { edit ("<width>8", "<width>eight"), "'eight' is not an integer", HaarLoadError::Malformed },
    { edit ("<height>8</height>", ""), "missing <height>", HaarLoadError::Malformed },
    { edit ("<stageNum>2", "<stageNum>3"), "<stageNum> says 3 stages but <stages> has 2", HaarLoadError::Malformed },
    { edit ("<stageThreshold>-1.5</stageThreshold>", ""), "stage 0: missing <stageThreshold>", HaarLoadError::Malformed },
    { edit ("<stageThreshold>0.125", "<stageThreshold>abc"), "stage 1: <stageThreshold>: 'abc'", HaarLoadError::Malformed },
    { edit ("0 -1 1 -0.5", "0 -1 1"), "weak classifier 1: <internalNodes> has 3 numbers", HaarLoadError::Malformed },
    { edit ("-0.5 0.5", "-0.5 0.5 0.7"), "stage 0: weak classifier 1: <leafValues> has 3 values", HaarLoadError::Malformed },
    { edit ("0 -1 1 -0.5", "0 -1 7 -0.5"), "feature index 7 is out of range (3 features)", HaarLoadError::Malformed },
    { edit ("1 0 2 0.5 -1 -2", "0 1 2 0.5 1 -2"), "child node 1 is not a later node", HaarLoadError::Malformed },
    { edit ("1 0 2 0.5 -1 -2", "1 0 2 0.5 -1 -3"), "leaf 3 does not exist", HaarLoadError::Malformed },
    { edit ("1 0 2 0.5", "5 0 2 0.5"), "child node 5", HaarLoadError::Malformed },
    { edit ("0 2 8 2 2.", "0 2 8 7 2."), "rectangle 1: (0,2) 8x7 is not inside the 8x8 window", HaarLoadError::Malformed },
    /* x + width beyond INT_MAX: once wrapped negative and accepted */
    { edit ("0 2 8 2 2.", "2147483000 2 1000 2 2."), "is not inside the 8x8 window", HaarLoadError::Malformed },
    { edit ("1 1 3 3 -1.", "-1 1 3 3 -1."), "feature 1: rectangle 0", HaarLoadError::Malformed },
    { edit ("2 4 4 4 0.5</_>", "2 4 4 4 0.5</_><_>0 0 1 1 1.</_>"), "more than 3 rectangles", HaarLoadError::Malformed },
    { edit ("0 0 8 8 1.", "0 0 8 8"), "expected 5 numbers", HaarLoadError::Malformed },
    { edit ("0.1 0.2 0.3", "0.1 nan 0.3"), "not a finite number", HaarLoadError::Malformed },
    { edit ("</stages>", "</stagez>"), "currently open element is", HaarLoadError::Malformed },
    { edit ("<weakClassifiers>\n        <_><internalNodes>1 0", "<weakClassifiers>\n        <x><internalNodes>1 0"),
        "currently open element is", HaarLoadError::Malformed },
    { edit ("<cascade type_id=\"opencv-cascade-classifier\">", "<cascade type_id=\"opencv-haar-classifier\">"),
        "old Haar format", HaarLoadError::Unsupported },
    { edit ("<features>", "<featurez>"), "currently open element is", HaarLoadError::Malformed },
    { edit ("-1.5</stageThreshold>", "-1.5 &bogus;</stageThreshold>"), "is not known", HaarLoadError::Malformed },
  };
  for (const Case & k : cases) {
    HaarCascade c;
    std::string err;
    HaarLoadError kind = HaarLoadError::None;
    EXPECT_FALSE (parse_haar_cascade (k.xml, "broken.xml", &c, &err, &kind)) << k.says;
    EXPECT_EQ (err.rfind ("broken.xml: ", 0), 0u) << err;
    EXPECT_NE (err.find (k.says), std::string::npos) << "expected '" << k.says << "' in: " << err;
    EXPECT_EQ (kind, k.kind) << err;
  }
}

TEST (CascadeXml, ReadsWhatCascadesUse)
{
  XmlElement root;
  std::string err;
  ASSERT_TRUE (parse_xml ("\xEF\xBB\xBF<?xml version=\"1.0\"?>\n<!-- c -->\n<!DOCTYPE x>\n<a k='v' j=\"w&amp;\">"
                          "t&lt;1<b/><![CDATA[<raw>]]><c>2</c>&#65;</a>\n<!-- after -->\n",
      &root, &err))
      << err;
  EXPECT_EQ (root.name, "a");
  ASSERT_NE (root.attribute ("k"), nullptr);
  EXPECT_EQ (*root.attribute ("j"), "w&");
  EXPECT_EQ (root.text, "t<1<raw>A");
  ASSERT_EQ (root.children.size (), 2u);
  EXPECT_EQ (root.child ("c")->text, "2");
  EXPECT_EQ (root.child ("c")->line, 4);
  EXPECT_EQ (root.child ("d"), nullptr);

  const char *bad[] = { "", "   ", "<a>", "<a></b>", "<a><b></a>", "</a>", "<a/><b/>", "<a x=1/>", "<a x='1/>",
    "<a>&#0;</a>", "x<a/>", "<a><!-- open</a>", "<a><![CDATA[ open</a>" };
  for (const char *b : bad)
    EXPECT_FALSE (parse_xml (b, &root, &err)) << "accepted: " << b;
  /* a start tag that ends the input in a truncated UTF-8 sequence: the
   * line lookup must stay inside the text (fuzz-haar-cascade's finding of
   * 2026-11-24, an out-of-bounds read under ASan before the fix) */
  const std::string truncated_utf8 ("<?1mi\"?>\n<oen\n>cUsmi\"?>\n<oen\n>\xE9");
  EXPECT_FALSE (parse_xml (truncated_utf8, &root, &err));
  /* deep nesting is refused, not recursed into */
  std::string deep;
  for (int i = 0; i < 100000; i++)
    deep += "<a>";
  EXPECT_FALSE (parse_xml (deep, &root, &err));
  EXPECT_NE (err.find ("nested deeper"), std::string::npos) << err;
}
