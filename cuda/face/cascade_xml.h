/* cudavision — the element tree of an OpenCV FileStorage XML file (a
 * cascade), read with GLib's GMarkup.
 *
 * GMarkup does the XML (tags, attributes, entities, comments, CDATA,
 * UTF-8 checks); this file only keeps the tree with the line of every
 * start tag, so that the cascade parser can say where a file is wrong, and
 * reports malformed or truncated input as an error instead of failing
 * later. GLib, not OpenCV's cv::FileStorage: FileStorage keeps no line
 * numbers (the cascade errors name the line), throws on bad input instead
 * of returning, and would bring OpenCV into cuda/, which the GPU-only tools
 * link without it; GLib is already there. */
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace cudavision {

struct XmlElement {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;
  std::string text;  /* character data directly inside, entities decoded */
  std::vector<XmlElement> children;
  int line = 0;      /* line of the start tag (of its end), from 1 */

  /* First child called `name`, or nullptr. */
  const XmlElement *child (const std::string & name) const;
  /* Value of an attribute, or nullptr. */
  const std::string *attribute (const std::string & name) const;
};

/* Parses a whole document; on failure returns false with `error` saying
 * what was wrong and where ("line 12: ..."; GMarkup's own errors say
 * "Error on line 12 char 3: ..."). A file that ends inside an element says
 * "unexpected end of file". */
bool parse_xml (const std::string & text, XmlElement * root, std::string * error);

}  // namespace cudavision
