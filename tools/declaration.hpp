// tools/declaration.hpp — reading a UPC shared array declaration, as the tools take it on their
// command line: `pgas-layout 'shared [2][3] int A[8][9]'`, `pgas-tables DECL...`.
//
// declaration::parse() checks the syntax once; sizes that mention THREADS stay expressions until
// a thread count is given, so one parsed declaration serves every thread count a tool plans for.
// What the array looks like for a thread count comes from the library's own model,
// pgas::layout (layout_for()); nothing here computes a placement.
//
// The grammar (whitespace between tokens is free; keywords are case-sensitive, as in C):
//
//   declaration := specifier+ NAME extent+ [';']
//   specifier   := 'shared' [layout] | qualifier | type-word
//   qualifier   := 'strict' | 'relaxed' | 'const' | 'volatile'
//   layout      := '[' ']' | '[' '*' ']' | '[' expr ']' | '[' expr ']' ('[' expr ']')+
//   extent      := '[' expr ']'
//   expr        := term (('+' | '-') term)*
//   term        := unary (('*' | '/' | '%') unary)*
//   unary       := ('+' | '-') unary | INTEGER | 'THREADS' | '(' expr ')'
//
// `shared` appears exactly once and the layout qualifier, if any, right after it:
//   (none) or [1]    blocks of one element, UPC's default   → pgas::block_spec::cyclic(1)
//   [B], B >= 1      blocks of B elements                   → pgas::block_spec::cyclic(B)
//   [] or [0]        indefinite: all on thread 0            → pgas::block_spec::indefinite()
//   [*]              one block per thread                   → pgas::block_spec::star()
//   [b0][b1]…        tiles (Barton et al.), one per dim     → pgas::block_spec::tiles({b0, …})
// Qualifiers and type words may come in any order among the specifiers, as in C
// (`strict shared [4] unsigned long int A[8]`, `int shared A[8]`). Element types, with their
// sizes on x86-64: char, signed char, unsigned char (1); short, unsigned short (2); int,
// unsigned (4); long, unsigned long, long long, unsigned long long (8); float (4), double (8),
// long double (16); each with the optional words C allows (`signed`, `int` after short/long);
// and int8_t … int64_t, uint8_t … uint64_t. INTEGER is a C integer literal (decimal, octal
// with a leading 0, hexadecimal with 0x; suffixes u, l, ll accepted and ignored). Expressions
// are evaluated in 64-bit signed arithmetic, `/` and `%` truncating as in C.
//
// Limits: a declaration is at most declaration::max_length bytes, and an expression nests at
// most declaration::max_depth unary signs and parentheses deep (`-(-(-1))` is 5; a chain of
// binary operators such as `1+1+…+1` does not nest and is bounded by the length); beyond either
// the parse fails with a declaration_error like any other syntax error, so hostile input costs
// bounded time and stack.
//
// Errors: every error is a declaration_error that names the problem and the position of the
// offending token, so a tool can echo the declaration with a caret under it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <pgas/layout.hpp>

namespace pgas::tools {

/// A malformed declaration, or one that makes no valid array for the thread count asked for.
/// what() is the one-line message; column() is the byte offset of the offending token in the
/// declaration (just past its last visible character when the declaration ends too early).
class declaration_error : public std::invalid_argument {
 public:
  declaration_error(const std::string& message, std::string text, std::size_t column);

  /// The declaration as given to parse().
  const std::string& text() const noexcept { return text_; }
  /// Byte offset in text() of the token the message is about.
  std::size_t column() const noexcept { return column_; }
  /// Two lines, without a final newline: the declaration indented by `indent` spaces (tabs and
  /// newlines shown as spaces), and a caret under the offending token:
  ///     shared [3 int A[4][3]
  ///               ^
  std::string excerpt(std::size_t indent = 2) const;

 private:
  std::string text_;
  std::size_t column_;
};

/// The element type of a declaration.
struct element_type {
  /// Canonical C spelling: "int", "unsigned long long", "long double", "uint16_t", …
  std::string name;
  /// sizeof on x86-64 (the target this library builds for).
  std::size_t size = 0;
};

/// One parsed UPC shared array declaration (see the top of this header). A value: once parsed
/// it never changes, and its const functions may be called from several threads at once.
class declaration {
 public:
  /// The longest declaration text parse() reads, in bytes.
  static constexpr std::size_t max_length = 64 * 1024;
  /// How deep an expression may nest (unary signs and parentheses around a leaf).
  static constexpr int max_depth = 200;

  /// Parses `text`. Throws declaration_error for anything outside the grammar above: a missing
  /// `shared`, an unknown or invalid type (`unsigned double`), a missing name, a missing, empty
  /// or unclosed extent, a bad layout qualifier (`[*]` or `[]` with tiles, a tile count that
  /// differs from the number of dimensions), a name other than THREADS in an expression, a bad
  /// integer literal, more than pgas::layout::max_rank dimensions, a text longer than
  /// max_length or an expression deeper than max_depth, or anything after the declaration.
  /// Values are not checked here: they may depend on THREADS.
  static declaration parse(std::string_view text);

  /// The declaration as given to parse().
  const std::string& text() const noexcept { return text_; }
  const element_type& type() const noexcept { return type_; }
  /// The array's name.
  const std::string& name() const noexcept { return name_; }
  /// Number of dimensions.
  std::size_t rank() const noexcept { return extents_.size(); }
  /// The qualifiers other than `shared`, each once, in the order first written
  /// ("strict", "relaxed", "const", "volatile").
  const std::vector<std::string>& qualifiers() const noexcept { return qualifiers_; }
  /// True when a size or block size mentions THREADS (the layout then depends on it beyond
  /// the dealing of blocks).
  bool uses_threads() const noexcept { return uses_threads_; }

  /// The extents for `threads` threads, in declaration order. Throws declaration_error (at the
  /// extent's expression) for a value below 1, an overflow or a division by zero, and
  /// std::invalid_argument when threads < 1.
  std::vector<std::size_t> extents_for(int threads) const;
  /// The block specification for `threads` threads. Throws declaration_error (at the
  /// expression) for a negative block size, a zero tile extent, an overflow, a division by zero
  /// or a block larger than pgas::config::max_runtime_block (the library's message), and
  /// std::invalid_argument when threads < 1.
  pgas::block_spec block_for(int threads) const;
  /// The array's layout for `threads` threads, built by pgas::layout. Throws what extents_for()
  /// and block_for() throw, and declaration_error with pgas::layout's message when the layout is
  /// invalid: at the extents when the array itself is (its element count overflows), at the
  /// layout qualifier when the blocking is (a [*] or tile block beyond
  /// config::max_runtime_block), and
  /// at the name when THREADS parts of part_elements() elements of type().size bytes overflow
  /// 64 bits (so byte counts derived from the layout always fit a std::size_t).
  pgas::layout layout_for(int threads) const;

 private:
  // A parsed integer expression: nodes_[root] is its top operator, `start` the offset of its
  // first token (where "the extent is 0" points).
  struct expression {
    int root = -1;
    std::size_t start = 0;
    int first = 0;         // its first node (its nodes are first..root, operands before operators)
    bool threads = false;  // mentions THREADS
  };
  struct node {
    enum class op { literal, threads, negate, add, subtract, multiply, divide, remainder };
    op what = op::literal;
    std::int64_t value = 0;
    std::size_t column = 0;  // the operator or operand token
    int lhs = -1;
    int rhs = -1;
  };
  friend class declaration_parser;

  std::int64_t evaluate(const expression& e, int threads) const;
  template <class Value>
  std::int64_t evaluate_node(int n, int threads, bool mentions_threads,
                             const Value& value_of) const;
  [[noreturn]] void fail(const std::string& message, std::size_t column) const;

  std::string text_;
  element_type type_;
  std::string name_;
  std::size_t name_column_ = 0;
  std::vector<std::string> qualifiers_;
  bool uses_threads_ = false;
  pgas::block_spec::kind block_kind_ = pgas::block_spec::kind::cyclic;  // [B] may still be 0
  std::vector<expression> block_;  // one for [B], one per dimension for tiles, none otherwise
  std::size_t layout_column_ = 0;  // the layout qualifier's '[' (or `shared` when there is none)
  std::vector<expression> extents_;
  std::size_t extents_column_ = 0;  // the first extent's '['
  std::vector<node> nodes_;
};

}  // namespace pgas::tools
