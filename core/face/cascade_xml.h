/* cudavision — an OpenCV FileStorage XML file (a cascade) read as OpenCV
 * 4.6 reads it: the same tree of maps, sequences and scalars, the same
 * verdict on every file.
 *
 * The CPU backend hands the cascade file to cv::CascadeClassifier, whose
 * cv::FileStorage has an XML dialect of its own, not XML: it takes
 * unknown entities and octal or hex numbers, splits a number at a comment
 * ("1<!-- -->2" is two values), drops the rest of a line after a lone
 * carriage return or a NUL byte, and ends the file at a NUL that starts a
 * line; it refuses a byte order mark, anything before "<?xml", <!DOCTYPE>,
 * CDATA, processing instructions and empty-element tags (<a/>). A real XML
 * parser (GLib's GMarkup before) therefore read some files differently
 * from the CPU backend, or took files the CPU backend refuses. This reader
 * follows OpenCV's rules instead, the line reading included (its behaviour
 * with NUL bytes comes from fgets and strlen), so that the GPU backend
 * reads the same numbers from a file that the CPU backend does, and
 * refuses the files that it refuses. fuzz/fuzz_cascade_diff.cpp holds it
 * to that against OpenCV itself.
 *
 * Not taken, though OpenCV reads them (a cascade never holds them; errors
 * of kind Unsupported): YAML and JSON storage files, base64 data
 * (type_id="binary"), type_id="str" (OpenCV 4.6 throws std::length_error
 * on it), and a sign before a bare decimal point ("-.5", which OpenCV
 * reads differently under a decimal-comma locale). Limits (kind Limit):
 * elements nested deeper than 256, more than two million nodes.
 *
 * Not OpenCV's own code (it would bring OpenCV into cuda/, which the
 * GPU-only tools link without it, and it throws instead of saying where a
 * file is wrong): errors here name the line. */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

namespace cudavision {

/* cv::FileNode's types. */
enum class XmlType : uint8_t { None, Int, Real, String, Seq, Map };

/* One node: an element, or a value of a sequence. As in OpenCV, an
 * element holding one value is that value (Int, Real or String); more
 * values, or <_> children, make a Seq (the two mix: "<a><_>1</_> 2</a>"
 * is the sequence 1 2); named children make a Map; nothing is None. */
struct XmlNode {
  XmlType type = XmlType::None;
  /* Int: strtol's value did not fit in an int; `ival` is then what OpenCV
   * keeps (the value cast to int). */
  bool int_wrapped = false;
  int line = 0;                         /* line of the start tag or value */
  const std::string *name = nullptr;    /* key in a Map; null in a Seq */
  const std::string *type_id = nullptr; /* the type_id attribute, if any */
  union {
    int ival;                /* Int */
    double real;             /* Real */
    const std::string *str;  /* String, entities decoded */
  };
  std::vector<XmlNode> items;  /* Seq and Map, in file order */

  XmlNode () : real (0) {}

  bool is_number () const { return type == XmlType::Int || type == XmlType::Real; }
  /* Map: the first item called `key` (as cv::FileNode::operator[]), or
   * nullptr; nullptr for other types too. */
  const XmlNode *child (const std::string & key) const;
};

/* A parsed file: one Map per <opencv_storage> (OpenCV takes several;
 * the cascade is the first item of the first). Strings live in `strings`,
 * which keeps their addresses when the document is moved. */
struct XmlDocument {
  std::vector<XmlNode> roots;
  std::unordered_set<std::string> strings;
};

enum class XmlError {
  None,
  Malformed,    /* OpenCV refuses the file too */
  Unsupported,  /* OpenCV reads it; this reader does not (see above) */
  Limit,        /* over this reader's limits (nesting, node count) */
  /* refused; OpenCV 4.6 would dereference a null pointer on it (a file
   * that ends inside an unquoted attribute value) */
  CrashesOpenCv,
};

/* `s` for an error message: bytes outside printable ASCII as \xNN (a
 * message may not carry invalid UTF-8), cut after max_len bytes. */
std::string xml_quote (const std::string & s, size_t max_len = 60);

/* Parses a whole file. On failure returns false with `error` saying what
 * was wrong and where ("line 12: ..."); a file that ends inside an element
 * says "unexpected end of file: <x> opened on line 3 is not closed". */
bool parse_xml (const std::string & text, XmlDocument * doc, std::string * error, XmlError * kind = nullptr);

}  // namespace cudavision
