/* cudavision — the small XML reader (see mini_xml.h).
 *
 * Iterative, with an explicit element stack, so hostile nesting cannot
 * overflow the C++ stack; depth is capped anyway. */
#include "mini_xml.h"

#include <cstring>

namespace cudavision {

const XmlElement *
XmlElement::child (const std::string & n) const
{
  for (const auto & c : children)
    if (c.name == n)
      return &c;
  return nullptr;
}

const std::string *
XmlElement::attribute (const std::string & n) const
{
  for (const auto & a : attributes)
    if (a.first == n)
      return &a.second;
  return nullptr;
}

namespace {

constexpr size_t kMaxDepth = 256;

class Reader {
public:
  explicit Reader (const std::string & t) : s_ (t) {}

  bool parse (XmlElement * root, std::string * error);

private:
  bool fail (const std::string & what)
  {
    if (error_.empty ())
      error_ = "line " + std::to_string (line_) + ": " + what;
    return false;
  }
  bool at_end () const { return pos_ >= s_.size (); }
  bool starts (const char *p) const { return s_.compare (pos_, std::strlen (p), p) == 0; }
  void advance (size_t n)
  {
    for (size_t i = 0; i < n && pos_ < s_.size (); i++, pos_++)
      if (s_[pos_] == '\n')
        line_++;
  }
  bool skip_until (const char *end, const char *what)
  {
    const size_t e = s_.find (end, pos_);
    if (e == std::string::npos)
      return fail (std::string ("unexpected end of file inside ") + what);
    advance (e + std::strlen (end) - pos_);
    return true;
  }
  void skip_space ()
  {
    while (!at_end () && is_space (s_[pos_]))
      advance (1);
  }
  static bool is_space (char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
  static bool is_name_char (char c)
  {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
        c == '.' || c == ':';
  }
  bool read_name (std::string * out)
  {
    const size_t b = pos_;
    while (!at_end () && is_name_char (s_[pos_]))
      pos_++;
    if (pos_ == b)
      return fail (at_end () ? "unexpected end of file in a tag" : "expected a name");
    *out = s_.substr (b, pos_ - b);
    return true;
  }
  bool decode (const std::string & raw, std::string * out);
  bool start_tag (std::vector<XmlElement> & stack);
  bool end_tag (std::vector<XmlElement> & stack);

  const std::string & s_;
  size_t pos_ = 0;
  int line_ = 1;
  std::string error_;
  XmlElement root_;
  bool have_root_ = false;
};

bool
Reader::decode (const std::string & raw, std::string * out)
{
  for (size_t i = 0; i < raw.size (); i++) {
    if (raw[i] != '&') {
      out->push_back (raw[i]);
      continue;
    }
    const size_t semi = raw.find (';', i);
    if (semi == std::string::npos || semi - i > 10)
      return fail ("malformed entity");
    const std::string ent = raw.substr (i + 1, semi - i - 1);
    if (ent == "lt") out->push_back ('<');
    else if (ent == "gt") out->push_back ('>');
    else if (ent == "amp") out->push_back ('&');
    else if (ent == "quot") out->push_back ('"');
    else if (ent == "apos") out->push_back ('\'');
    else if (ent.size () > 1 && ent[0] == '#') {
      /* Character references only matter for ASCII here (numbers, names). */
      const bool hex = ent[1] == 'x';
      unsigned long v = 0;
      for (size_t k = hex ? 2 : 1; k < ent.size (); k++) {
        const char c = ent[k];
        int d = c >= '0' && c <= '9' ? c - '0' : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10
            : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0 || v > 0x10ffff)
          return fail ("malformed character reference &" + ent + ";");
        v = v * (hex ? 16 : 10) + (unsigned long) d;
      }
      if (v == 0 || v > 127)
        return fail ("unsupported character reference &" + ent + ";");
      out->push_back ((char) v);
    } else {
      return fail ("unknown entity &" + ent + ";");
    }
    i = semi;
  }
  return true;
}

bool
Reader::start_tag (std::vector<XmlElement> & stack)
{
  advance (1);  /* '<' */
  XmlElement e;
  e.line = line_;
  if (!read_name (&e.name))
    return false;
  while (true) {
    skip_space ();
    if (at_end ())
      return fail ("unexpected end of file in the tag <" + e.name + ">");
    const char c = s_[pos_];
    if (c == '>' || c == '/') {
      const bool empty = c == '/';
      advance (1);
      if (empty) {
        if (at_end () || s_[pos_] != '>')
          return fail ("expected '>' after '/' in <" + e.name + ">");
        advance (1);
      }
      if (stack.size () >= kMaxDepth)
        return fail ("elements nested deeper than " + std::to_string (kMaxDepth));
      if (stack.empty () && have_root_)
        return fail ("a second root element <" + e.name + ">");
      if (empty) {
        if (stack.empty ()) {
          root_ = std::move (e);
          have_root_ = true;
        } else {
          stack.back ().children.push_back (std::move (e));
        }
      } else {
        stack.push_back (std::move (e));
      }
      return true;
    }
    std::string name, value;
    if (!read_name (&name))
      return false;
    skip_space ();
    if (at_end () || s_[pos_] != '=')
      return fail ("expected '=' after attribute " + name + " of <" + e.name + ">");
    advance (1);
    skip_space ();
    if (at_end () || (s_[pos_] != '"' && s_[pos_] != '\''))
      return fail ("expected a quoted value for attribute " + name + " of <" + e.name + ">");
    const char q = s_[pos_];
    const size_t close = s_.find (q, pos_ + 1);
    if (close == std::string::npos)
      return fail ("unexpected end of file in attribute " + name + " of <" + e.name + ">");
    const std::string raw = s_.substr (pos_ + 1, close - pos_ - 1);
    if (raw.find ('<') != std::string::npos)
      return fail ("'<' in attribute " + name + " of <" + e.name + ">");
    if (!decode (raw, &value))
      return false;
    advance (close + 1 - pos_);
    e.attributes.emplace_back (std::move (name), std::move (value));
  }
}

bool
Reader::end_tag (std::vector<XmlElement> & stack)
{
  advance (2);  /* "</" */
  std::string name;
  if (!read_name (&name))
    return false;
  skip_space ();
  if (at_end ())
    return fail ("unexpected end of file in the end tag </" + name + ">");
  if (s_[pos_] != '>')
    return fail ("expected '>' in the end tag </" + name + ">");
  advance (1);
  if (stack.empty ())
    return fail ("end tag </" + name + "> without a start tag");
  if (stack.back ().name != name)
    return fail ("end tag </" + name + "> does not match <" + stack.back ().name + "> opened on line " +
        std::to_string (stack.back ().line));
  XmlElement done = std::move (stack.back ());
  stack.pop_back ();
  if (stack.empty ()) {
    root_ = std::move (done);
    have_root_ = true;
  } else {
    stack.back ().children.push_back (std::move (done));
  }
  return true;
}

bool
Reader::parse (XmlElement * root, std::string * error)
{
  std::vector<XmlElement> stack;
  bool ok = true;
  /* A UTF-8 byte order mark is allowed before the prolog. */
  if (starts ("\xEF\xBB\xBF"))
    pos_ = 3;
  while (ok && !at_end ()) {
    if (starts ("<!--")) {
      ok = skip_until ("-->", "a comment");
    } else if (starts ("<?")) {
      ok = skip_until ("?>", "a processing instruction");
    } else if (starts ("<![CDATA[")) {
      if (stack.empty ()) {
        ok = fail ("character data outside the root element");
        break;
      }
      const size_t b = pos_ + 9;
      ok = skip_until ("]]>", "a CDATA section");
      if (ok)
        stack.back ().text += s_.substr (b, pos_ - 3 - b);
    } else if (starts ("<!")) {
      ok = skip_until (">", "a declaration");
    } else if (starts ("</")) {
      ok = end_tag (stack);
    } else if (s_[pos_] == '<') {
      ok = start_tag (stack);
    } else {
      const size_t next = s_.find ('<', pos_);
      const size_t end = next == std::string::npos ? s_.size () : next;
      const std::string raw = s_.substr (pos_, end - pos_);
      if (stack.empty ()) {
        for (char c : raw) {
          if (!is_space (c)) {
            ok = fail (c == '\0' || (unsigned char) c >= 0x7f || (c < ' ' && !is_space (c))
                    ? std::string ("binary data where XML was expected: not an XML file")
                    : std::string ("text outside the root element starting with '") + c + "'");
            break;
          }
        }
      } else if (raw.find ('\0') != std::string::npos) {
        ok = fail ("binary data (a NUL byte) inside <" + stack.back ().name + ">");
      } else {
        ok = decode (raw, &stack.back ().text);
      }
      if (ok)
        advance (end - pos_);
    }
  }
  if (ok && !stack.empty ())
    ok = fail ("unexpected end of file: <" + stack.back ().name + "> opened on line " +
        std::to_string (stack.back ().line) + " is not closed (truncated file?)");
  if (ok && !have_root_)
    ok = fail ("no XML element in the file");
  if (!ok) {
    if (error)
      *error = error_;
    return false;
  }
  *root = std::move (root_);
  return true;
}

}  // namespace

bool
parse_xml (const std::string & text, XmlElement * root, std::string * error)
{
  Reader r (text);
  return r.parse (root, error);
}

}  // namespace cudavision
