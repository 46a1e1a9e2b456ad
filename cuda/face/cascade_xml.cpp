/* cudavision — the cascade's element tree through GMarkup (see
 * cascade_xml.h).
 *
 * GMarkup parses; the callbacks below only build the tree, with an explicit
 * element stack (no recursion, so hostile nesting cannot overflow the C++
 * stack; depth is capped anyway), and refuse what GMarkup accepts but an
 * XML file may not hold: a second root element. */
#include "cascade_xml.h"

#include <glib.h>

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

struct TreeBuilder {
  explicit TreeBuilder (const std::string & t) : text (t)
  {
    for (size_t i = 0; i < t.size (); i++)
      if (t[i] == '\n')
        line_start.push_back (i + 1);
  }
  /* The line of the start tag of `name` that GMarkup just reported.
   * GMarkup reports an element once it has read a character or two past
   * its '>', so its position can be on the next line: go back from there
   * to the tag's '<' (nothing between the two can be a '<' of the same
   * name on another line). */
  int start_tag_line (GMarkupParseContext * ctx, const char *name) const;

  const std::string & text;
  std::vector<size_t> line_start { 0 };  /* offset of each line's start */
  std::vector<XmlElement> stack;
  XmlElement root;
  bool have_root = false;
};

int
line_of (GMarkupParseContext * ctx)
{
  int line = 0;
  g_markup_parse_context_get_position (ctx, &line, nullptr);
  return line;
}

int
TreeBuilder::start_tag_line (GMarkupParseContext * ctx, const char *name) const
{
  int line = 0, chr = 0;
  g_markup_parse_context_get_position (ctx, &line, &chr);
  if (line < 1 || (size_t) line > line_start.size ())
    return line;
  /* line and char (UTF-8 characters, from 1) to a byte offset */
  const size_t begin = line_start[line - 1];
  const size_t end = (size_t) line < line_start.size () ? line_start[line] : text.size ();
  const char *p = text.data () + begin;
  for (int c = 1; c < chr && p < text.data () + end; c++)
    p = g_utf8_next_char (p);
  /* a UTF-8 lead byte near the end (GMarkup reports the element before it
   * has checked what follows) steps p up to 3 bytes past the line: clamp,
   * or the walk back below starts outside the text (found by fuzz-haar-cascade) */
  if (p > text.data () + end)
    p = text.data () + end;
  const size_t len = strlen (name);
  for (size_t at = (size_t) (p - text.data ()); at-- > 0;) {
    if (text[at] == '\n')
      line--;
    else if (text[at] == '<' && text.compare (at + 1, len, name) == 0 &&
        (at + 1 + len >= text.size () || strchr (" \t\r\n/>", text[at + 1 + len])))
      return line;
  }
  return line;
}

void
fail (GMarkupParseContext * ctx, GError ** error, const std::string & what)
{
  g_set_error (error, G_MARKUP_ERROR, G_MARKUP_ERROR_INVALID_CONTENT, "line %d: %s", line_of (ctx), what.c_str ());
}

void
on_start (GMarkupParseContext * ctx, const gchar * name, const gchar ** attr_names, const gchar ** attr_values,
    gpointer data, GError ** error)
{
  TreeBuilder *b = static_cast<TreeBuilder *> (data);
  if (b->stack.size () >= kMaxDepth)
    return fail (ctx, error, "elements nested deeper than " + std::to_string (kMaxDepth));
  if (b->stack.empty () && b->have_root)
    return fail (ctx, error, std::string ("a second root element <") + name + ">");
  XmlElement e;
  e.name = name;
  e.line = b->start_tag_line (ctx, name);
  for (int i = 0; attr_names[i]; i++)
    e.attributes.emplace_back (attr_names[i], attr_values[i]);
  b->stack.push_back (std::move (e));
}

/* GMarkup has checked that the name matches the open element. */
void
on_end (GMarkupParseContext *, const gchar *, gpointer data, GError **)
{
  TreeBuilder *b = static_cast<TreeBuilder *> (data);
  XmlElement done = std::move (b->stack.back ());
  b->stack.pop_back ();
  if (b->stack.empty ()) {
    b->root = std::move (done);
    b->have_root = true;
  } else {
    b->stack.back ().children.push_back (std::move (done));
  }
}

/* Character data, entities decoded, CDATA included; GMarkup refuses text
 * outside the root element itself. */
void
on_text (GMarkupParseContext *, const gchar * text, gsize len, gpointer data, GError **)
{
  TreeBuilder *b = static_cast<TreeBuilder *> (data);
  if (!b->stack.empty ())
    b->stack.back ().text.append (text, len);
}

}  // namespace

bool
parse_xml (const std::string & text, XmlElement * root, std::string * error)
{
  /* comments, the prolog and <!DOCTYPE> go to the (absent) passthrough */
  static const GMarkupParser parser = { on_start, on_end, on_text, nullptr, nullptr };
  TreeBuilder b (text);
  GMarkupParseContext *ctx = g_markup_parse_context_new (&parser, G_MARKUP_TREAT_CDATA_AS_TEXT, &b, nullptr);
  /* A UTF-8 byte order mark may come before the prolog; GMarkup takes none. */
  const size_t bom = text.compare (0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  GError *err = nullptr;
  std::string what;
  if (!g_markup_parse_context_parse (ctx, text.data () + bom, (gssize) (text.size () - bom), &err)) {
    what = err->message;
  } else if (!g_markup_parse_context_end_parse (ctx, &err)) {
    /* The text ran out: inside an element, a tag, a comment, or before
     * any element at all. */
    if (!b.stack.empty ())
      what = "unexpected end of file: <" + b.stack.back ().name + "> opened on line " +
          std::to_string (b.stack.back ().line) + " is not closed (truncated file?)";
    else if (b.have_root || err->code != G_MARKUP_ERROR_EMPTY)
      what = std::string ("unexpected end of file: ") + err->message;
    else
      what = "no XML element in the file";
  }
  if (err)
    g_error_free (err);
  g_markup_parse_context_free (ctx);
  if (!what.empty ()) {
    if (error)
      *error = what;
    return false;
  }
  *root = std::move (b.root);
  return true;
}

}  // namespace cudavision
