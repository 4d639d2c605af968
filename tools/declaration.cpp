// tools/declaration.cpp — the UPC declaration reader behind pgas-layout and pgas-tables
// (tools/declaration.hpp): a tokenizer, a recursive-descent parser that remembers where each
// token was so every error can point at it, and the evaluation of THREADS expressions that turns
// a parsed declaration into a pgas::layout for one thread count.

#include "declaration.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <limits>
#include <utility>

namespace pgas::tools {

namespace {

struct token {
  enum class kind { word, number, punct, end };
  kind what = kind::end;
  std::string_view text;
  std::size_t column = 0;

  bool is(std::string_view s) const { return what != kind::end && text == s; }
};

bool is_word_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_';
}
bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// Unknown characters become one-character punct tokens (a whole UTF-8 sequence for non-ASCII),
// so the parser reports them in context ("unexpected '=' after the declaration").
std::vector<token> tokenize(std::string_view text) {
  std::vector<token> out;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    token::kind k = token::kind::punct;
    if (is_word_start(c)) {
      k = token::kind::word;
      while (j < text.size() && is_word_char(text[j]))
        ++j;
    } else if (std::isdigit(static_cast<unsigned char>(c)) != 0) {
      // Everything a careless literal may run into ("12abc") is one token, judged later.
      k = token::kind::number;
      while (j < text.size() && is_word_char(text[j]))
        ++j;
    } else if ((static_cast<unsigned char>(c) & 0xC0) == 0xC0) {
      while (j < text.size() && (static_cast<unsigned char>(text[j]) & 0xC0) == 0x80)
        ++j;
    }
    out.push_back({k, text.substr(i, j - i), i});
    i = j;
  }
  // The end points just past the last visible character, where the missing token belongs.
  std::size_t end = text.size();
  while (end > 0 && std::isspace(static_cast<unsigned char>(text[end - 1])) != 0)
    --end;
  out.push_back({token::kind::end, {}, end});
  return out;
}

std::string describe(const token& t) {
  if (t.what == token::kind::end) return "the end of the declaration";
  return fmt::format("'{}'", t.text);
}

enum class literal { ok, malformed, too_large };

// C integer literal: decimal, octal with a leading 0, hexadecimal with 0x; u/l suffixes.
literal parse_literal(std::string_view text, std::int64_t& value) {
  std::size_t end = text.size();
  int suffix_u = 0;
  int suffix_l = 0;
  while (end > 0) {
    const char c = text[end - 1];
    if (c == 'u' || c == 'U') {
      ++suffix_u;
    } else if (c == 'l' || c == 'L') {
      ++suffix_l;
    } else {
      break;
    }
    --end;
  }
  if (suffix_u > 1 || suffix_l > 2 || end == 0) return literal::malformed;
  std::string_view digits = text.substr(0, end);
  unsigned base = 10;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    base = 16;
    digits.remove_prefix(2);
  } else if (digits.size() > 1 && digits[0] == '0') {
    base = 8;
    digits.remove_prefix(1);
  }
  std::uint64_t v = 0;
  bool too_large = false;
  for (char c : digits) {
    unsigned d = 0;
    if (c >= '0' && c <= '9') {
      d = static_cast<unsigned>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      d = static_cast<unsigned>(c - 'a') + 10;
    } else if (c >= 'A' && c <= 'F') {
      d = static_cast<unsigned>(c - 'A') + 10;
    } else {
      return literal::malformed;
    }
    if (d >= base) return literal::malformed;
    if (__builtin_mul_overflow(v, base, &v) || __builtin_add_overflow(v, d, &v)) too_large = true;
  }
  if (digits.empty()) return literal::malformed;
  if (too_large || v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return literal::too_large;
  }
  value = static_cast<std::int64_t>(v);
  return literal::ok;
}

// The words C combines into an arithmetic type; a set is valid while it is part of some type.
struct type_words {
  int signed_ = 0;
  int unsigned_ = 0;
  int char_ = 0;
  int short_ = 0;
  int int_ = 0;
  int long_ = 0;
  int float_ = 0;
  int double_ = 0;
  std::string typedef_;  // int8_t … uint64_t, alone
  std::string written;   // as written, for messages

  bool any() const {
    return signed_ + unsigned_ + char_ + short_ + int_ + long_ + float_ + double_ > 0 ||
           !typedef_.empty();
  }
  bool consistent() const {
    if (signed_ + unsigned_ > 1 || char_ > 1 || short_ > 1 || int_ > 1 || long_ > 2 || float_ > 1 ||
        double_ > 1) {
      return false;
    }
    const int words = signed_ + unsigned_ + char_ + short_ + int_ + long_ + float_ + double_;
    if (!typedef_.empty()) return words == 0;
    if (float_ == 1) return words == 1;
    if (double_ == 1) return words == 1 + long_ && long_ <= 1;
    if (char_ == 1) return short_ + int_ + long_ == 0;
    if (short_ == 1) return long_ == 0;
    return true;
  }
  element_type resolve() const {
    if (!typedef_.empty()) {
      // "int16_t" → 2, "uint64_t" → 8: the width is the digits between "int" and "_t".
      const std::size_t digits = typedef_.find_first_of("123456789");
      const int bits = std::stoi(typedef_.substr(digits));
      return {typedef_, static_cast<std::size_t>(bits / 8)};
    }
    if (float_ == 1) return {"float", 4};
    if (double_ == 1)
      return long_ == 1 ? element_type{"long double", 16} : element_type{"double", 8};
    const std::string sign = unsigned_ == 1               ? "unsigned "
                             : signed_ == 1 && char_ == 1 ? "signed "
                                                          : "";
    if (char_ == 1) return {sign + "char", 1};
    if (short_ == 1) return {sign + "short", 2};
    if (long_ == 2) return {sign + "long long", 8};
    if (long_ == 1) return {sign + "long", 8};
    return {unsigned_ == 1 ? "unsigned int" : "int", 4};
  }
};

constexpr std::array<std::string_view, 4> qualifier_words = {"strict", "relaxed", "const",
                                                             "volatile"};
constexpr std::array<std::string_view, 8> fixed_width_types = {
    "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t"};

template <std::size_t N>
bool one_of(std::string_view word, const std::array<std::string_view, N>& set) {
  for (auto s : set) {
    if (word == s) return true;
  }
  return false;
}

bool is_type_word(std::string_view w) {
  return w == "signed" || w == "unsigned" || w == "char" || w == "short" || w == "int" ||
         w == "long" || w == "float" || w == "double" || one_of(w, fixed_width_types);
}

// Words that cannot be an array's name.
bool is_keyword(std::string_view w) {
  return w == "shared" || w == "THREADS" || w == "MYTHREAD" || one_of(w, qualifier_words) ||
         is_type_word(w);
}

}  // namespace

declaration_error::declaration_error(const std::string& message, std::string text,
                                     std::size_t column)
    : std::invalid_argument(message), text_(std::move(text)), column_(column) {}

std::string declaration_error::excerpt(std::size_t indent) const {
  std::string line = text_;
  for (char& c : line) {
    if (std::isspace(static_cast<unsigned char>(c)) != 0) c = ' ';
  }
  while (!line.empty() && line.back() == ' ')
    line.pop_back();
  // The caret counts characters, not bytes, so it stays under its token after UTF-8 text.
  std::size_t caret = 0;
  for (std::size_t i = 0; i < column_ && i < text_.size(); ++i) {
    if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) ++caret;
  }
  const std::string pad(indent, ' ');
  return pad + line + "\n" + pad + std::string(caret, ' ') + "^";
}

// The parser proper: one instance per parse(), filling a declaration as it goes.
class declaration_parser {
 public:
  explicit declaration_parser(std::string_view text) {
    if (text.size() > declaration::max_length) {
      throw declaration_error(fmt::format("the declaration is {} bytes long; at most {} are read",
                                          text.size(), declaration::max_length),
                              std::string(text.substr(0, 80)), 0);
    }
    tokens_ = tokenize(text);
    d_.text_ = std::string(text);
  }

  declaration run() {
    parse_specifiers();
    parse_name();
    parse_extents();
    if (d_.block_kind_ == block_spec::kind::tiles && d_.block_.size() != d_.extents_.size()) {
      fail(fmt::format("{} tile extents for an array of {} dimension{}", d_.block_.size(),
                       d_.extents_.size(), d_.extents_.size() == 1 ? "" : "s"),
           d_.layout_column_);
    }
    if (peek().is(";")) next();
    const token& t = peek();
    if (t.is(",")) fail("one array per declaration: unexpected ','", t.column);
    if (t.what != token::kind::end) {
      fail(fmt::format("unexpected {} after the declaration", describe(t)), t.column);
    }
    return std::move(d_);
  }

 private:
  const token& peek(std::size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  const token& next() {
    const token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  [[noreturn]] void fail(const std::string& message, std::size_t column) const {
    throw declaration_error(message, d_.text_, column);
  }
  void expect(std::string_view what, const std::string& message) {
    const token& t = peek();
    if (!t.is(what)) fail(message, t.column);
    next();
  }

  void parse_specifiers() {
    bool shared = false;
    while (peek().what == token::kind::word) {
      const token& t = peek();
      if (t.text == "shared") {
        if (shared) fail("'shared' is given twice", t.column);
        shared = true;
        d_.layout_column_ = t.column;
        next();
        if (peek().is("[")) parse_layout();
      } else if (one_of(t.text, qualifier_words)) {
        add_qualifier(t);
        next();
      } else if (is_type_word(t.text)) {
        add_type_word(t);
        next();
      } else {
        break;  // the name, or an unknown type
      }
    }
    const token& t = peek();
    if (!shared) {
      fail(tokens_.size() == 1
               ? "empty declaration: expected 'shared [B] TYPE NAME[N]...'"
               : "expected 'shared': a UPC shared array declaration starts 'shared [B] TYPE NAME'",
           tokens_.front().column);
    }
    if (!type_.any()) {
      if (t.what == token::kind::word && !is_keyword(t.text) && peek(1).what == token::kind::word) {
        fail(fmt::format("unknown element type '{}'", t.text), t.column);
      }
      fail("expected an element type (int, double, uint64_t, ...)", t.column);
    }
    d_.type_ = type_.resolve();
  }

  void add_qualifier(const token& t) {
    const std::string word(t.text);
    const bool strict = word == "strict";
    const bool relaxed = word == "relaxed";
    for (const auto& q : d_.qualifiers_) {
      if ((strict && q == "relaxed") || (relaxed && q == "strict")) {
        fail(fmt::format("'{}' contradicts '{}'", word, q), t.column);
      }
      if (q == word) return;  // C allows a repeated qualifier
    }
    d_.qualifiers_.push_back(word);
  }

  void add_type_word(const token& t) {
    const std::string_view w = t.text;
    if (w == "signed") ++type_.signed_;
    if (w == "unsigned") ++type_.unsigned_;
    if (w == "char") ++type_.char_;
    if (w == "short") ++type_.short_;
    if (w == "int") ++type_.int_;
    if (w == "long") ++type_.long_;
    if (w == "float") ++type_.float_;
    if (w == "double") ++type_.double_;
    const bool had_typedef = !type_.typedef_.empty();
    if (!had_typedef && one_of(w, fixed_width_types)) type_.typedef_ = std::string(w);
    if (!type_.written.empty()) type_.written += ' ';
    type_.written += w;
    if (!type_.consistent() || (had_typedef && one_of(w, fixed_width_types))) {
      fail(fmt::format("invalid element type '{}'", type_.written), t.column);
    }
  }

  // After `shared`: [] | [*] | [expr] | [expr][expr]…
  void parse_layout() {
    d_.layout_column_ = peek().column;
    next();
    if (peek().is("]")) {
      next();
      d_.block_kind_ = block_spec::kind::indefinite;
    } else if (peek().is("*")) {
      next();
      expect("]", "expected ']' to close '[*'");
      d_.block_kind_ = block_spec::kind::star;
    } else {
      d_.block_.push_back(parse_expression());
      expect("]", "expected ']' to close the block size");
      d_.block_kind_ = block_spec::kind::cyclic;
    }
    while (peek().is("[")) {
      const token& open = next();
      if (d_.block_kind_ == block_spec::kind::star ||
          d_.block_kind_ == block_spec::kind::indefinite) {
        fail(fmt::format("'{}' cannot be combined with tile extents",
                         d_.block_kind_ == block_spec::kind::star ? "[*]" : "[]"),
             open.column);
      }
      if (peek().is("*")) fail("'[*]' cannot be combined with tile extents", peek().column);
      if (peek().is("]")) {
        fail(fmt::format("tile extent {} is missing ('[]' cannot be combined with tile extents)",
                         d_.block_.size()),
             peek().column);
      }
      d_.block_kind_ = block_spec::kind::tiles;
      d_.block_.push_back(parse_expression());
      expect("]", fmt::format("expected ']' to close tile extent {}", d_.block_.size() - 1));
    }
  }

  void parse_name() {
    const token& t = peek();
    if (t.what == token::kind::word && (t.text == "THREADS" || t.text == "MYTHREAD")) {
      fail(fmt::format("'{}' is reserved by UPC and cannot name an array", t.text), t.column);
    }
    if (t.what != token::kind::word || is_keyword(t.text)) {
      fail(t.is("*") ? "expected the array's name (a pointer-to-shared is not an array)"
                     : "expected the array's name",
           t.column);
    }
    d_.name_ = std::string(t.text);
    d_.name_column_ = t.column;
    next();
  }

  void parse_extents() {
    if (peek().what == token::kind::word) {
      // `shared long doubel A[4]`: what looked like the name was the end of a misspelt type.
      fail(fmt::format("unknown element type '{} {}'", type_.written, d_.name_), d_.name_column_);
    }
    if (!peek().is("[")) {
      fail(fmt::format("expected '[' after '{}': a shared array needs at least one dimension",
                       d_.name_),
           peek().column);
    }
    d_.extents_column_ = peek().column;
    while (peek().is("[")) {
      const token& open = next();
      const std::size_t d = d_.extents_.size();
      if (d == layout::max_rank) {
        fail(fmt::format("more than {} dimensions: at most {} are supported", layout::max_rank,
                         layout::max_rank),
             open.column);
      }
      if (peek().is("]")) {
        fail(fmt::format("extent of dimension {} is missing (every extent must be given)", d),
             peek().column);
      }
      d_.extents_.push_back(parse_expression());
      expect("]", fmt::format("expected ']' to close the extent of dimension {}", d));
    }
  }

  declaration::expression parse_expression() {
    declaration::expression e;
    e.start = peek().column;
    e.first = static_cast<int>(d_.nodes_.size());
    saw_threads_ = false;
    e.root = parse_sum();
    e.threads = saw_threads_;
    d_.uses_threads_ = d_.uses_threads_ || e.threads;
    return e;
  }

  int add_node(declaration::node::op what, std::size_t column, int lhs = -1, int rhs = -1,
               std::int64_t value = 0) {
    d_.nodes_.push_back({what, value, column, lhs, rhs});
    return static_cast<int>(d_.nodes_.size() - 1);
  }

  void check_depth(int depth, std::size_t column) const {
    if (depth > declaration::max_depth) {
      fail(fmt::format("the expression nests more than {} deep", declaration::max_depth), column);
    }
  }

  int parse_sum() {
    int lhs = parse_product();
    while (peek().is("+") || peek().is("-")) {
      const token& op = next();
      const int rhs = parse_product();
      lhs = add_node(op.is("+") ? declaration::node::op::add : declaration::node::op::subtract,
                     op.column, lhs, rhs);
    }
    return lhs;
  }

  int parse_product() {
    int lhs = parse_unary();
    while (peek().is("*") || peek().is("/") || peek().is("%")) {
      const token& op = next();
      const int rhs = parse_unary();
      const auto what = op.is("*")   ? declaration::node::op::multiply
                        : op.is("/") ? declaration::node::op::divide
                                     : declaration::node::op::remainder;
      lhs = add_node(what, op.column, lhs, rhs);
    }
    return lhs;
  }

  int parse_unary() {
    const token& t = peek();
    if (t.is("+") || t.is("-") || t.is("(")) {
      // Unary signs and parentheses recurse: count them so that the stack stays bounded.
      const nesting guard(*this, t.column);
      next();
      if (t.is("+")) return parse_unary();
      if (t.is("-")) return add_node(declaration::node::op::negate, t.column, parse_unary());
      const int inner = parse_sum();
      expect(")", "expected ')' to close the parenthesis");
      return inner;
    }
    if (t.what == token::kind::number) {
      std::int64_t value = 0;
      switch (parse_literal(t.text, value)) {
        case literal::ok:
          break;
        case literal::malformed:
          fail(fmt::format("'{}' is not an integer literal", t.text), t.column);
        case literal::too_large:
          fail(fmt::format("{} does not fit in 64-bit arithmetic", t.text), t.column);
      }
      next();
      return add_node(declaration::node::op::literal, t.column, -1, -1, value);
    }
    if (t.what == token::kind::word && t.text == "THREADS") {
      saw_threads_ = true;
      next();
      return add_node(declaration::node::op::threads, t.column);
    }
    if (t.what == token::kind::word && t.text == "MYTHREAD") {
      fail("MYTHREAD differs between threads and cannot size a shared array", t.column);
    }
    if (t.what == token::kind::word) {
      fail(fmt::format("unknown name '{}' in a size (only THREADS is known)", t.text), t.column);
    }
    fail(fmt::format("expected a size (a number, THREADS or an expression), not {}", describe(t)),
         t.column);
  }

  // One level of recursion through parse_unary (a unary sign or a parenthesis), refused beyond
  // declaration::max_depth: the only recursion of the parser and the evaluation.
  struct nesting {
    nesting(declaration_parser& p, std::size_t column) : p_(p) {
      p_.check_depth(++p_.nesting_, column);
    }
    ~nesting() { --p_.nesting_; }
    nesting(const nesting&) = delete;
    nesting& operator=(const nesting&) = delete;
    declaration_parser& p_;
  };

  std::vector<token> tokens_;
  std::size_t pos_ = 0;
  int nesting_ = 0;  // parse_unary recursion depth
  declaration d_;
  type_words type_;
  bool saw_threads_ = false;  // in the expression being parsed
};

declaration declaration::parse(std::string_view text) {
  return declaration_parser(text).run();
}

void declaration::fail(const std::string& message, std::size_t column) const {
  throw declaration_error(message, text_, column);
}

std::int64_t declaration::evaluate(const expression& e, int threads) const {
  if (threads < 1) {
    throw std::invalid_argument(fmt::format("THREADS must be at least 1, not {}", threads));
  }
  // The parser adds a node after its operands, and an expression's nodes one after another: so
  // evaluating them in order is the post-order walk, without recursion however long a chain of
  // operators is (`1+1+…+1` is as deep as it is long).
  std::vector<std::int64_t> values(static_cast<std::size_t>(e.root - e.first + 1));
  const auto value_of = [&](int n) { return values[static_cast<std::size_t>(n - e.first)]; };
  for (int n = e.first; n <= e.root; ++n)
    values[static_cast<std::size_t>(n - e.first)] = evaluate_node(n, threads, e.threads, value_of);
  return values.back();
}

template <class Value>
std::int64_t declaration::evaluate_node(int n, int threads, bool mentions_threads,
                                        const Value& value_of) const {
  const node& x = nodes_[static_cast<std::size_t>(n)];
  using op = node::op;
  if (x.what == op::literal) return x.value;
  if (x.what == op::threads) return threads;
  const auto fail_here = [&](const char* what) {
    fail(mentions_threads ? fmt::format("{} with THREADS = {}", what, threads) : what, x.column);
  };
  std::int64_t r = 0;
  if (x.what == op::negate) {
    if (__builtin_sub_overflow(std::int64_t{0}, value_of(x.lhs), &r)) {
      fail_here("this size overflows 64-bit arithmetic");
    }
    return r;
  }
  const std::int64_t a = value_of(x.lhs);
  const std::int64_t b = value_of(x.rhs);
  bool overflow = false;
  switch (x.what) {
    case op::add:
      overflow = __builtin_add_overflow(a, b, &r);
      break;
    case op::subtract:
      overflow = __builtin_sub_overflow(a, b, &r);
      break;
    case op::multiply:
      overflow = __builtin_mul_overflow(a, b, &r);
      break;
    case op::divide:
    case op::remainder:
      if (b == 0) fail_here("division by zero");
      overflow = a == std::numeric_limits<std::int64_t>::min() && b == -1;
      if (!overflow) r = x.what == op::divide ? a / b : a % b;
      break;
    default:
      break;
  }
  if (overflow) fail_here("this size overflows 64-bit arithmetic");
  return r;
}

std::vector<std::size_t> declaration::extents_for(int threads) const {
  std::vector<std::size_t> out;
  for (std::size_t d = 0; d < extents_.size(); ++d) {
    const std::int64_t v = evaluate(extents_[d], threads);
    if (v < 1) {
      fail(fmt::format("extent of dimension {} is {}{}; it must be at least 1", d, v,
                       extents_[d].threads ? fmt::format(" with THREADS = {}", threads) : ""),
           extents_[d].start);
    }
    out.push_back(static_cast<std::size_t>(v));
  }
  return out;
}

block_spec declaration::block_for(int threads) const {
  if (threads < 1) {
    throw std::invalid_argument(fmt::format("THREADS must be at least 1, not {}", threads));
  }
  const auto with = [&](const expression& e) {
    return e.threads ? fmt::format(" with THREADS = {}", threads) : std::string();
  };
  switch (block_kind_) {
    case block_spec::kind::indefinite:
      return block_spec::indefinite();
    case block_spec::kind::star:
      return block_spec::star();
    case block_spec::kind::cyclic: {
      if (block_.empty()) return block_spec::cyclic(1);
      const std::int64_t v = evaluate(block_[0], threads);
      if (v < 0) {
        fail(fmt::format("block size is {}{}; it must be 0 (indefinite) or more", v,
                         with(block_[0])),
             block_[0].start);
      }
      const auto b = static_cast<std::size_t>(v);
      if (std::string problem = block_spec::cyclic_problem(b); !problem.empty()) {
        fail(problem, block_[0].start);
      }
      return block_spec::cyclic(b);
    }
    case block_spec::kind::tiles:
      break;
  }
  std::vector<std::size_t> tile;
  for (std::size_t d = 0; d < block_.size(); ++d) {
    const std::int64_t v = evaluate(block_[d], threads);
    if (v < 1) {
      fail(fmt::format("tile extent of dimension {} is {}{}; it must be at least 1", d, v,
                       with(block_[d])),
           block_[d].start);
    }
    tile.push_back(static_cast<std::size_t>(v));
  }
  if (std::string problem = block_spec::tiles_problem(tile); !problem.empty()) {
    fail(problem, layout_column_);
  }
  return block_spec::tiles(std::move(tile));
}

pgas::layout declaration::layout_for(int threads) const {
  std::vector<std::size_t> extents = extents_for(threads);
  block_spec spec = block_for(threads);
  // Which part of the declaration is at fault: the array itself when even UPC's default
  // blocking of it is invalid, otherwise its layout qualifier.
  try {
    (void)pgas::layout(extents, block_spec::cyclic(1), threads);
  } catch (const std::invalid_argument& e) {
    fail(e.what(), extents_column_);
  }
  pgas::layout l;
  try {
    l = pgas::layout(std::move(extents), std::move(spec), threads);
  } catch (const std::invalid_argument& e) {
    fail(e.what(), layout_column_);
  }
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(l.part_elements(), static_cast<std::size_t>(threads), &bytes) ||
      __builtin_mul_overflow(bytes, type_.size, &bytes)) {
    fail(fmt::format("{} parts of {} elements of {} bytes overflow 64 bits", threads,
                     l.part_elements(), type_.size),
         name_column_);
  }
  return l;
}

}  // namespace pgas::tools
