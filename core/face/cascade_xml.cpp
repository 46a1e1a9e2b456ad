/* cudavision — OpenCV 4.6's FileStorage XML dialect, read as it reads it
 * (see cascade_xml.h).
 *
 * Two layers, both written to behave as OpenCV's (modules/core/src/
 * persistence.cpp and persistence_xml.cpp of 4.6.0) does on every input:
 *
 * LineSource: FileStorage reads a file a line at a time into one growing
 * buffer, with fgets, and measures what it got with strlen. So a NUL byte
 * cuts its line there and the next line is appended in its place (without
 * the newline between), a NUL at the start of a line reads as the end of
 * the file, and the parser, which stops at the first NUL, can look at
 * bytes left in the buffer by an earlier, longer line. LineSource keeps the
 * same buffer with the same sizes and the same writes, so all of that comes
 * out the same, and remembers where each piece came from in the file, for
 * the line numbers of errors.
 *
 * Parser: the grammar, over that buffer: "<?xml" first; comments between
 * values only (not in tags, not before the prolog); values are numbers
 * (strtol base 0 for integers, strtod for reals, ".inf"/".nan") or words
 * and quoted strings with five entities and &#N; (other entities kept as
 * written, plus a ';'); a new line is fetched only where spaces are
 * skipped, where a carriage return or a NUL ends the line too. */
#include "cascade_xml.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <locale.h>
#include <utility>

namespace cudavision {

std::string
xml_quote (const std::string & s, size_t max_len)
{
  static const char hex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < s.size () && i < max_len; i++) {
    const unsigned char c = (unsigned char) s[i];
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += (char) c;
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  if (s.size () > max_len)
    out += "...";
  return out;
}

const XmlNode *
XmlNode::child (const std::string & key) const
{
  if (type != XmlType::Map)
    return nullptr;
  for (const XmlNode & n : items)
    if (n.name && *n.name == key)
      return &n;
  return nullptr;
}

namespace {

const std::string kNoName = "_";
constexpr int kMaxDepth = 256;
constexpr size_t kMaxNodes = 2000000;
/* OpenCV's CV_FS_MAX_LEN: a string value holds at most 4094 bytes. */
constexpr int kMaxStringLen = 4096;

struct Failure {
  XmlError kind;
  std::string what;
};

[[noreturn]] void
fail (XmlError kind, std::string what)
{
  throw Failure { kind, std::move (what) };
}

bool is_digit (char c) { return c >= '0' && c <= '9'; }
bool is_alpha (char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_alnum (char c) { return is_digit (c) || is_alpha (c); }
bool is_space (char c) { return (c >= 9 && c <= 13) || c == ' '; }
/* OpenCV's cv_isprint: every byte from ' ' up, bytes over 0x7f included */
bool is_print (char c) { return (unsigned char) c >= ' '; }
char to_upper (char c) { return c >= 'a' && c <= 'z' ? (char) (c - 'a' + 'A') : c; }

/* strtod in the C locale: OpenCV's reading of reals comes out as in the C
 * locale in any locale (it retries a '.' as the locale's decimal point),
 * but for a sign before a bare point, which parse_number refuses. */
double
strtod_c (const char *s, char **end)
{
  static const locale_t c_locale = newlocale (LC_NUMERIC_MASK, "C", (locale_t) 0);
  return strtod_l (s, end, c_locale);
}

/* ---------------------------------------------------------------- lines */

class LineSource {
public:
  explicit LineSource (const std::string & in) : in_ (in), buf_ (40, '\0') {}

  char *start () { return buf_.data (); }
  /* FileStorage::Impl::gets(maxCount): nullptr at the end of the file. */
  char *gets (size_t max_count);
  /* FileStorage::Impl::gets(): the parser's next line. */
  char *next_line ();
  void rewind ()
  {
    pos_ = 0;
    line_ = 1;
    feof_ = false;
  }
  bool eof () const { return dummy_eof_ || feof_; }
  /* The file line of a byte of the buffer. */
  int line_at (const char *p) const;
  /* Whether the buffer holds the last bytes of the file. */
  bool at_end () const { return pos_ >= in_.size (); }

private:
  /* fgets (glibc) into buf_ at `ofs`; false for its NULL. */
  bool fgets_at (size_t ofs, int n);

  struct Piece {
    size_t buf_ofs;
    int line;
  };
  const std::string & in_;
  std::vector<char> buf_;
  std::vector<Piece> pieces_;  /* where the buffer's bytes came from */
  size_t pos_ = 0;             /* the file position */
  int line_ = 1;               /* the line at pos_ */
  bool feof_ = false;          /* the stream's end-of-file flag */
  bool dummy_eof_ = false;     /* FileStorage's own, set at the end */
};

bool
LineSource::fgets_at (size_t ofs, int n)
{
  if (n <= 0)
    return false;
  if (n == 1) {
    /* glibc: no room to read anything; an empty string, not NULL */
    buf_[ofs] = '\0';
    return true;
  }
  const size_t want = (size_t) n - 1;
  const size_t avail = in_.size () - pos_;
  const char *src = in_.data () + pos_;
  size_t count;
  const void *nl = memchr (src, '\n', std::min (avail, want));
  if (nl)
    count = (size_t) ((const char *) nl - src) + 1;
  else if (avail < want) {
    count = avail;  /* ran out: the stream saw its end */
    feof_ = true;
  } else {
    count = want;
  }
  if (count == 0)
    return false;
  pieces_.push_back ({ ofs, line_ });
  memcpy (&buf_[ofs], src, count);
  buf_[ofs + count] = '\0';
  pos_ += count;
  if (nl)
    line_++;
  return true;
}

char *
LineSource::gets (size_t max_count)
{
  const size_t kMaxBlock = 0x7fffffff / 2;
  if (max_count == 0)
    max_count = kMaxBlock;
  size_t ofs = 0;
  pieces_.clear ();
  for (;;) {
    const int count = (int) std::min (buf_.size () - ofs - 16, max_count);
    if (!fgets_at (ofs, count + 1))
      break;
    const size_t delta = strlen (&buf_[ofs]);
    const bool ends_line = delta > 0 && buf_[ofs + delta - 1] == '\n';
    ofs += delta;
    max_count -= delta;
    if (delta == 0 || ends_line || max_count == 0)
      break;
    if (delta == (size_t) count)
      buf_.resize ((size_t) ((double) buf_.size () * 1.5));
  }
  return ofs > 0 ? buf_.data () : nullptr;
}

char *
LineSource::next_line ()
{
  char *p = gets (0);
  if (!p) {
    buf_[0] = '\0';
    dummy_eof_ = true;
    return nullptr;
  }
  const size_t l = strlen (p);
  if (l > 0 && p[l - 1] != '\n' && p[l - 1] != '\r' && !eof ()) {
    p[l] = '\n';
    p[l + 1] = '\0';
  }
  return p;
}

int
LineSource::line_at (const char *p) const
{
  const size_t ofs = (size_t) (p - buf_.data ());
  int line = pieces_.empty () ? 1 : pieces_.front ().line;
  for (const Piece & pc : pieces_)
    if (pc.buf_ofs <= ofs)
      line = pc.line;
  return line;
}

/* --------------------------------------------------------------- parser */

enum TagType { kOpening, kClosing, kEmpty, kHeader, kDirective };

class Parser {
public:
  Parser (const std::string & text, XmlDocument * doc) : text_ (text), src_ (text), doc_ (*doc) {}
  void run ();

private:
  /* Errors name a line: of `at`, a position in the current buffer, or
   * one taken before a new line was fetched. */
  [[noreturn]] void error (const char *at, const std::string & what, XmlError kind = XmlError::Malformed)
  {
    error (src_.line_at (at), what, kind);
  }
  [[noreturn]] void error (int line, const std::string & what, XmlError kind = XmlError::Malformed)
  {
    fail (kind, "line " + std::to_string (line) + ": " + what);
  }
  /* The file ended where more was needed: inside the innermost element
   * still open, if any. */
  [[noreturn]] void end_of_file (const char *inside)
  {
    if (!open_.empty ())
      fail (XmlError::Malformed, "unexpected end of file: <" + *open_.back ().first + "> opened on line " +
          std::to_string (open_.back ().second) + " is not closed (truncated file?)");
    fail (XmlError::Malformed, std::string ("unexpected end of file ") + inside);
  }
  /* At a NUL that ends the data, a parse error is the file's end. */
  bool ended (const char *p) const { return *p == '\0' && src_.at_end (); }

  char *skip_spaces (char *p, int mode);
  char *parse_tag (char *p, std::string * name, std::string * type_id, TagType * type);
  char *parse_tag_names (char *p, std::string * name, std::string * type_id, TagType * type);
  char *parse_value (char *p, XmlNode & node, int depth);
  char *parse_number (char *p, XmlNode & elem);
  char *parse_string (char *p, XmlNode & elem);
  double special_double (char *p, char **end);
  XmlNode & add_node (XmlNode & coll, const std::string & key, XmlType type, int line);
  void to_collection (XmlNode & node, XmlType type, int line);
  const std::string *intern (std::string s) { return &*doc_.strings.insert (std::move (s)).first; }
  void count_node (int line)
  {
    if (++nodes_ > kMaxNodes)
      error (line, "more than " + std::to_string (kMaxNodes) + " values and elements: not a cascade", XmlError::Limit);
  }

  enum { kPlain = 0, kComment = 1, kInsideTag = 2 };

  const std::string & text_;
  LineSource src_;
  XmlDocument & doc_;
  std::vector<std::pair<const std::string *, int>> open_;  /* open elements: name, line */
  size_t nodes_ = 0;
  bool seen_prolog_ = false;
};

/* Skips spaces and tabs, comments (not inside a tag, not before the
 * prolog: mode kInsideTag) and line ends, fetching lines; a carriage
 * return or a NUL ends a line as a newline does (the rest is dropped).
 * Returns the first other byte, or nullptr at the end of the file. */
char *
Parser::skip_spaces (char *p, int mode)
{
  for (;;) {
    char c;
    p--;
    if (mode == kComment) {
      do
        c = *++p;
      while ((is_print (c) || c == '\t') && (c != '-' || p[1] != '-' || p[2] != '>'));
      if (c == '-') {
        mode = kPlain;
        p += 3;
      }
    } else {
      do
        c = *++p;
      while (c == ' ' || c == '\t');
      if (c == '<' && p[1] == '!' && p[2] == '-' && p[3] == '-') {
        if (mode != kPlain)
          error (p, mode == kInsideTag && open_.empty () && !seen_prolog_ ?
                  "a comment before '<?xml ...?>': OpenCV's reader takes nothing before it" :
                  "a comment inside a tag");
        mode = kComment;
        p += 4;
      } else if (is_print (c)) {
        break;
      }
    }
    if (!is_print (*p)) {
      if (*p != '\0' && *p != '\n' && *p != '\r')
        error (p, "control character " + xml_quote (std::string (1, *p)) + " in the file");
      p = src_.next_line ();
      if (!p || *p == '\0')
        break;
    }
  }
  return p;
}

/* A tag: <name attr="v" ...>, </name>, <name/>, <?xml ...?> or <!...>;
 * of the attributes only type_id is kept. */
char *
Parser::parse_tag (char *p, std::string * name, std::string * type_id, TagType * type)
{
  if (!p || *p == '\0')
    end_of_file ("where a tag was expected");
  if (*p != '<')
    error (p, "expected a tag, found '" + xml_quote (std::string (1, *p)) + "'");
  const int line = src_.line_at (p);
  p++;
  if (is_alnum (*p) || *p == '_') {
    *type = kOpening;
  } else if (*p == '/') {
    *type = kClosing;
    p++;
  } else if (*p == '?') {
    *type = kHeader;
    p++;
  } else if (*p == '!') {
    /* Every <!...> is an error for OpenCV, sooner or later: say why. Its
     * parser reads on through the tag first, where it can crash. */
    if (p[1] == '-' && p[2] == '-')
      error (line, "a comment where a tag is expected");
    const std::string what = !strncmp (p, "![CDATA[", 8) ?
        "a CDATA section: OpenCV's reader does not take them (write the text plainly)" :
        !strncmp (p, "!DOCTYPE", 8) ? "a <!DOCTYPE> declaration: OpenCV's reader does not take them" :
                                      "a <!...> declaration: OpenCV's reader does not take them";
    *type = kDirective;
    try {
      parse_tag_names (p + 1, name, type_id, type);
    } catch (const Failure & f) {
      if (f.kind == XmlError::CrashesOpenCv)
        throw;
    }
    error (line, what);
  } else {
    if (ended (p))
      end_of_file ("inside a tag");
    error (line, "'<' is not followed by a tag name");
  }
  return parse_tag_names (p, name, type_id, type);
}

/* The rest of a tag, from its name. */
char *
Parser::parse_tag_names (char *p, std::string * name, std::string * type_id, TagType * type)
{
  name->clear ();
  type_id->clear ();
  for (;;) {
    if (!is_alpha (*p) && *p != '_') {
      if (ended (p))
        end_of_file ("inside a tag");
      error (p, "a name in a tag must start with a letter or '_'");
    }
    char *end = p - 1;
    char c;
    do
      c = *++end;
    while (is_alnum (c) || c == '_' || c == '-');
    std::string attr (p, (size_t) (end - p));
    p = end;
    if (name->empty ()) {
      *name = std::move (attr);
    } else {
      if (*type == kClosing)
        error (p, "attributes in the closing tag </" + *name + ">");
      if (*p != '=') {
        p = skip_spaces (p, kInsideTag);
        if (!p)
          end_of_file ("inside a tag");
        if (*p != '=')
          error (p, "attribute " + attr + " of <" + *name + "> has no '=' (OpenCV takes attr=\"value\" only)");
      }
      c = *++p;
      if (c != '"' && c != '\'') {
        p = skip_spaces (p, kInsideTag);
        if (!p)  /* where OpenCV 4.6 dereferences a null pointer */
          fail (XmlError::CrashesOpenCv, "unexpected end of file inside the tag <" + *name + ">");
        if (*p != '"' && *p != '\'')
          error (p, "the value of attribute " + attr + " of <" + *name + "> is not quoted");
      }
      const char quote = *p++;
      end = p;
      for (;;) {
        c = *end++;
        if (c == quote)
          break;
        if (c == '\0') {
          if (ended (end - 1))
            end_of_file ("inside an attribute value");
          error (p, "the value of attribute " + attr + " of <" + *name + "> does not end on its line");
        }
      }
      if (attr == "type_id") {
        if (!type_id->empty ())
          error (p, "two type_id attributes in <" + *name + ">");
        type_id->assign (p, (size_t) (end - 1 - p));
      }
      p = end;
    }
    c = *p;
    const bool have_space = is_space (c) || c == '\0';
    if (c != '>') {
      p = skip_spaces (p, kInsideTag);
      if (!p)
        end_of_file (("inside the tag <" + *name + ">").c_str ());
      c = *p;
    }
    if (c == '>') {
      if (*type == kHeader)
        error (p, "'<?" + *name + "' ends with '>', not '?>'");
      p++;
      break;
    } else if (c == '?' && *type == kHeader) {
      if (p[1] != '>')
        error (p, "'<?" + *name + "' ends with '?', not '?>'");
      p += 2;
      break;
    } else if (c == '/' && p[1] == '>' && *type == kOpening) {
      *type = kEmpty;
      p += 2;
      break;
    }
    if (!have_space)
      error (p, "no space before an attribute in <" + *name + ">");
  }
  return p;
}

/* cv::FileStorage's convertToCollection: an element becomes a Seq or a
 * Map as items come; a value already there becomes the Seq's first. */
void
Parser::to_collection (XmlNode & node, XmlType type, int line)
{
  if (node.type == type)
    return;
  if (node.type != XmlType::None) {
    if (type != XmlType::Seq || node.type == XmlType::Map)
      error (line, std::string (node.type == XmlType::Map ? "a value or <_> among named elements" :
                                                          "a named element among values or <_> elements") +
          (node.name ? " in <" + *node.name + ">" : std::string ()) + " (OpenCV takes either, not both)");
    XmlNode first = node;  /* the value; its name stays with the element */
    first.name = nullptr;
    first.type_id = nullptr;
    /* OpenCV copies it through a C string: a word holding a NUL (&#0;)
     * ends there (found by fuzz-cascade-diff's corner seeds) */
    if (first.type == XmlType::String && first.str->find ('\0') != std::string::npos)
      first.str = intern (first.str->substr (0, first.str->find ('\0')));
    node.items.push_back (std::move (first));
    node.int_wrapped = false;
  }
  node.type = type;
}

XmlNode &
Parser::add_node (XmlNode & coll, const std::string & key, XmlType type, int line)
{
  const bool noname = key.empty () || key == "_";
  to_collection (coll, noname ? XmlType::Seq : XmlType::Map, line);
  count_node (line);
  coll.items.emplace_back ();
  XmlNode & n = coll.items.back ();
  n.type = type;
  n.line = line;
  if (!noname)
    n.name = intern (key);
  return n;
}

/* processSpecialDouble: [+-].inf and .nan, any case. */
double
Parser::special_double (char *p, char **end)
{
  char *b = p;
  bool negative = false;
  char c = *b;
  if (c == '-' || c == '+') {
    negative = c == '-';
    c = *++b;
  }
  const size_t len = strcspn (p, " \t\r\n<");
  if (ended (p + len))  /* "1.5e" at the end: a cut file */
    end_of_file ("inside a number");
  if (c != '.')
    error (p, "'" + xml_quote (std::string (p, len)) + "' is not a number");
  double v;
  if (to_upper (b[1]) == 'I' && to_upper (b[2]) == 'N' && to_upper (b[3]) == 'F')
    v = negative ? -HUGE_VAL : HUGE_VAL;
  else if (to_upper (b[1]) == 'N' && to_upper (b[2]) == 'A' && to_upper (b[3]) == 'N')
    v = NAN;
  else
    error (p, "'" + xml_quote (std::string (p, len)) + "' is not a number");
  *end = b + 4;
  return v;
}

char *
Parser::parse_number (char *p, XmlNode & elem)
{
  const char c = *p;
  char *end = p + (c == '-' || c == '+');
  if ((c == '-' || c == '+') && p[1] == '.' && is_digit (p[2]))
    error (p, std::string ("'") + c + ".' without a digit before the point: OpenCV reads it differently in a "
        "decimal-comma locale; write '" + c + "0.'", XmlError::Unsupported);
  while (is_digit (*end))
    end++;
  if (*end == '.' || *end == 'e') {
    char *e = nullptr;
    double v = strtod_c (p, &e);
    if (e == p || is_alpha (*e))
      v = special_double (p, &e);
    elem.type = XmlType::Real;
    elem.real = v;
    end = e;
  } else {
    char *e = nullptr;
    const long v = strtol (p, &e, 0);
    elem.type = XmlType::Int;
    elem.ival = (int) v;
    elem.int_wrapped = (long) elem.ival != v;
    end = e;
  }
  if (end == p)
    error (p, "not a number");
  return end;
}

/* A word or a "quoted string", entities decoded as OpenCV decodes them. */
char *
Parser::parse_string (char *p, XmlNode & elem)
{
  std::string s;
  const bool quoted = *p == '"';
  if (!quoted)
    --p;
  for (;;) {
    char c = *++p;
    if (!is_alnum (c)) {
      if (c == '"') {
        if (!quoted)
          error (p, "a '\"' inside a word (write &quot;)");
        ++p;
        break;
      } else if (!is_print (c) || c == '<' || (!quoted && is_space (c))) {
        if (quoted) {
          if (ended (p))
            end_of_file ("inside a quoted string");
          error (p, "a quoted string does not end on its line");
        }
        break;
      } else if (c == '\'' || c == '>') {
        error (p, std::string ("a '") + c + "' in a value (write " + (c == '>' ? "&gt;)" : "&apos;)"));
      } else if (c == '&') {
        char *end;
        if (*++p == '#') {
          int base = 10;
          p++;
          if (*p == 'x') {
            base = 16;
            p++;
          }
          const int v = (int) strtol (p, &end, base);
          if ((unsigned) v > 255u || *end != ';')
            error (p, "a character reference &#...; that is not a number from 0 to 255 followed by ';'");
          c = (char) v;
        } else {
          /* OpenCV does not look at the first character of the name */
          end = p;
          do
            c = *++end;
          while (is_alnum (c));
          if (c != ';')
            error (p, "an entity '&' without its ';' (write &amp; for '&')");
          const size_t len = (size_t) (end - p);
          if (len == 2 && !memcmp (p, "lt", 2))
            c = '<';
          else if (len == 2 && !memcmp (p, "gt", 2))
            c = '>';
          else if (len == 3 && !memcmp (p, "amp", 3))
            c = '&';
          else if (len == 4 && !memcmp (p, "apos", 4))
            c = '\'';
          else if (len == 4 && !memcmp (p, "quot", 4))
            c = '"';
          else {
            /* kept as written; the ';' is added again below */
            if (len + 2 + s.size () >= (size_t) kMaxStringLen)
              error (p, "a value longer than " + std::to_string (kMaxStringLen - 2) + " characters");
            s.append (p - 1, len + 2);
          }
        }
        p = end;
      }
    }
    if (s.size () + 1 >= (size_t) kMaxStringLen)
      error (p, "a value longer than " + std::to_string (kMaxStringLen - 2) + " characters");
    s.push_back (c);
  }
  elem.type = XmlType::String;
  elem.str = intern (std::move (s));
  return p;
}

/* The content of an element, up to its closing tag (which the caller
 * reads). */
char *
Parser::parse_value (char *p, XmlNode & node, int depth)
{
  if (!p)
    end_of_file ("");
  bool have_space = true;
  const XmlType value_type = node.type;
  std::string key, key2, type_id;
  for (;;) {
    char c = *p;
    if (is_space (c) || c == '\0' || (c == '<' && p[1] == '!' && p[2] == '-')) {
      p = skip_spaces (p, kPlain);
      if (!p)
        end_of_file ("");
      have_space = true;
      c = *p;
    }
    const char d = p[1];
    if (c == '<' || c == '\0') {
      if (d == '/' || c == '\0')
        break;
      const int at = src_.line_at (p);
      TagType tag;
      p = parse_tag (p, &key, &type_id, &tag);
      if (tag == kEmpty)
        error (at, "an empty-element tag <" + key + "/>: OpenCV's reader does not take them (write <" + key +
            "></" + key + ">)");
      if (tag == kHeader)
        error (at, "a processing instruction <?" + key + " ...?> inside an element");
      XmlType type = XmlType::None;
      if (type_id == "str")
        error (at, "type_id=\"str\" (OpenCV 4.6 fails on it)", XmlError::Unsupported);
      else if (type_id == "map")
        type = XmlType::Map;
      else if (type_id == "seq")
        type = XmlType::Seq;
      XmlNode & child = add_node (node, key, type, at);
      if (!type_id.empty ())
        child.type_id = intern (type_id);
      if (type_id == "binary")
        error (at, "base64 data (type_id=\"binary\") is not supported", XmlError::Unsupported);
      if (depth + 1 > kMaxDepth)
        error (at, "elements nested deeper than " + std::to_string (kMaxDepth), XmlError::Limit);
      open_.emplace_back (child.name ? child.name : &kNoName, child.line);
      p = parse_value (p, child, depth + 1);
      const int close_at = p ? src_.line_at (p) : 0;
      p = parse_tag (p, &key2, &type_id, &tag);
      if (tag != kClosing || key2 != key)
        error (close_at, "<" + key + "> (line " + std::to_string (open_.back ().second) + ") is closed by <" +
            (tag == kClosing ? "/" : "") + key2 + ">");
      open_.pop_back ();
      have_space = true;
    } else {
      if (!have_space)
        error (p, "no space between two values");
      XmlNode *elem = &node;
      const int line = src_.line_at (p);
      if (node.type != XmlType::None) {
        to_collection (node, XmlType::Seq, line);
        elem = &add_node (node, std::string (), XmlType::None, line);
      } else {
        count_node (line);
      }
      if (value_type != XmlType::String &&
          (is_digit (c) || ((c == '-' || c == '+') && (is_digit (d) || d == '.')) || (c == '.' && is_alnum (d))))
        p = parse_number (p, *elem);
      else
        p = parse_string (p, *elem);
      if (value_type != XmlType::None && value_type != XmlType::Seq && value_type != XmlType::Map)
        break;
      have_space = false;
    }
  }
  return p;
}

void
Parser::run ()
{
  /* FileStorage::open: the format is told from the first line (up to 16
   * bytes), a UTF-8 byte order mark skipped; then the file is read again
   * from its start, the mark included. */
  const char *first = src_.gets (16);
  if (!first)
    fail (XmlError::Malformed, text_.empty () ? "the file is empty" : "line 1: a NUL byte first");
  const char *sig = first;
  const bool bom = (unsigned char) sig[0] == 0xef && (unsigned char) sig[1] == 0xbb && (unsigned char) sig[2] == 0xbf;
  if (bom)
    sig += 3;
  if (!strncmp (sig, "%YAML", 5) || !strncmp (sig, "{", 1))
    fail (XmlError::Unsupported, std::string ("a ") + (sig[0] == '{' ? "JSON" : "YAML") +
        " storage file: only XML cascades are supported");
  if (strncmp (sig, "<?xml", 5))
    fail (XmlError::Malformed, "line 1: not an OpenCV XML file: it must start with '<?xml' (OpenCV's reader takes "
                               "nothing before it, not even a space)");
  if (bom)
    fail (XmlError::Malformed, "line 1: a UTF-8 byte order mark: OpenCV's reader does not take one (remove it)");
  src_.rewind ();
  char *p = src_.start ();
  p[0] = p[1] = p[2] = '\0';

  p = skip_spaces (p, kInsideTag);
  if (!p || memcmp (p, "<?xml", 5))
    fail (XmlError::Malformed, "line 1: not an OpenCV XML file: it must start with '<?xml'");
  std::string key, key2, type_id;
  TagType tag;
  p = parse_tag (p, &key, &type_id, &tag);
  seen_prolog_ = true;
  while (p && *p != '\0') {
    p = skip_spaces (p, kPlain);
    if (!p)
      end_of_file ("after the prolog: no <opencv_storage>");
    if (*p == '\0')
      continue;
    const int at = src_.line_at (p);
    p = parse_tag (p, &key, &type_id, &tag);
    if (tag != kOpening || key != "opencv_storage")
      error (at, "expected <opencv_storage>, found " + std::string (tag == kClosing ? "</" : "<") + key + ">");
    count_node (at);
    doc_.roots.emplace_back ();
    XmlNode & root = doc_.roots.back ();
    root.type = XmlType::Map;
    root.line = at;
    open_.emplace_back (intern (key), root.line);  /* once per root */
    p = parse_value (p, root, 1);
    const int close_at = p ? src_.line_at (p) : 0;
    p = parse_tag (p, &key2, &type_id, &tag);
    if (tag != kClosing || key2 != key)
      error (close_at, "<opencv_storage> (line " + std::to_string (root.line) + ") is closed by <" +
          (tag == kClosing ? "/" : "") + key2 + ">");
    open_.pop_back ();
    p = skip_spaces (p, kPlain);
  }
}

}  // namespace

bool
parse_xml (const std::string & text, XmlDocument * doc, std::string * error, XmlError * kind)
{
  XmlDocument d;
  try {
    Parser (text, &d).run ();
  } catch (const Failure & f) {
    if (error)
      *error = f.what;
    if (kind)
      *kind = f.kind;
    return false;
  }
  *doc = std::move (d);
  if (kind)
    *kind = XmlError::None;
  return true;
}

}  // namespace cudavision
