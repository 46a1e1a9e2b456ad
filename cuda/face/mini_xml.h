/* cudavision — a small XML reader for OpenCV's FileStorage XML files.
 *
 * OpenCV cascades are regular XML: elements, attributes, character data,
 * comments and a prolog. This reader builds the element tree with line
 * numbers so that the cascade parser can say where a file is wrong, and
 * reports malformed or truncated input as an error instead of failing
 * later. Pure C++17, no dependency: the cascade must load the same on
 * machines without libxml2 and without OpenCV. */
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
  int line = 0;      /* line of the start tag, from 1 */

  /* First child called `name`, or nullptr. */
  const XmlElement *child (const std::string & name) const;
  /* Value of an attribute, or nullptr. */
  const std::string *attribute (const std::string & name) const;
};

/* Parses a whole document; on failure returns false with `error` saying
 * what was wrong and on which line ("line 12: ..."). */
bool parse_xml (const std::string & text, XmlElement * root, std::string * error);

}  // namespace cudavision
