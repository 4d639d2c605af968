// tests/unit/tools/declaration_test.cpp — the UPC declaration reader (tools/declaration.hpp):
// every accepted form, the element types and their sizes, THREADS expressions, and every error
// with the column its caret points at.

#include <catch2/catch.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <pgas/config.hpp>
#include <pgas/error.hpp>
#include <pgas/layout.hpp>

#include "declaration.hpp"

using pgas::block_spec;
using pgas::tools::declaration;
using pgas::tools::declaration_error;
using sizes = std::vector<std::size_t>;

namespace {

// The error parsing `text` (and, with a thread count, building its layout) throws.
std::optional<declaration_error> error_of(const std::string& text, int threads = 0) {
  try {
    const declaration d = declaration::parse(text);
    if (threads > 0) (void)d.layout_for(threads);
  } catch (const declaration_error& e) {
    return e;
  }
  return std::nullopt;
}

// The column of the first occurrence of `token` in `text`, to state where a caret belongs.
std::size_t at(const std::string& text, const std::string& token) {
  const std::size_t column = text.find(token);
  REQUIRE(column != std::string::npos);
  return column;
}

}  // namespace

TEST_CASE("the layout qualifier gives the block specification", "[declaration]") {
  struct form {
    const char* text;
    block_spec spec;
  };
  const std::vector<form> forms = {
      {"shared int A[10]", block_spec::cyclic(1)},
      {"shared [1] int A[10]", block_spec::cyclic(1)},
      {"shared [3] int A[10]", block_spec::cyclic(3)},
      {"shared [0] int A[10]", block_spec::indefinite()},
      {"shared [] int A[10]", block_spec::indefinite()},
      {"shared [ ] int A[10]", block_spec::indefinite()},
      {"shared [*] int A[10]", block_spec::star()},
      {"shared [ * ] int A[10]", block_spec::star()},
      {"shared [2][3] int A[8][9]", block_spec::tiles({2, 3})},
      {"shared [2] [3] int A[8][9]", block_spec::tiles({2, 3})},
      {"shared [1][2][3] int A[4][5][6]", block_spec::tiles({1, 2, 3})},
  };
  for (const auto& f : forms) {
    INFO(f.text);
    const declaration d = declaration::parse(f.text);
    CHECK(d.block_for(4) == f.spec);
    CHECK(d.layout_for(4).spec() == f.spec);
  }
}

TEST_CASE("name, extents, rank and the text as given", "[declaration]") {
  const declaration d = declaration::parse("  shared [2][3] int A[8][9];  ");
  CHECK(d.text() == "  shared [2][3] int A[8][9];  ");
  CHECK(d.name() == "A");
  CHECK(d.rank() == 2);
  CHECK(d.extents_for(1) == sizes{8, 9});
  CHECK(d.type().name == "int");
  CHECK(d.type().size == 4);
  CHECK_FALSE(d.uses_threads());
  CHECK(d.qualifiers().empty());

  const declaration e = declaration::parse("shared\tdouble\nmatrix_2 [ 4 ] [ 5 ] ;");
  CHECK(e.name() == "matrix_2");
  CHECK(e.extents_for(3) == sizes{4, 5});
}

TEST_CASE("specifiers come in any order, qualifiers are recorded once", "[declaration]") {
  const declaration a = declaration::parse("strict shared [4] unsigned long int A[8]");
  CHECK(a.qualifiers() == std::vector<std::string>{"strict"});
  CHECK(a.type().name == "unsigned long");
  CHECK(a.block_for(2) == block_spec::cyclic(4));

  const declaration b = declaration::parse("int shared A[8]");
  CHECK(b.type().name == "int");
  CHECK(b.block_for(2) == block_spec::cyclic(1));

  const declaration c =
      declaration::parse("const volatile shared [2] relaxed const long double v[6]");
  CHECK(c.qualifiers() == std::vector<std::string>{"const", "volatile", "relaxed"});
  CHECK(c.type().name == "long double");
  CHECK(c.block_for(1) == block_spec::cyclic(2));

  CHECK(declaration::parse("shared unsigned strict A[2]").type().name == "unsigned int");
}

TEST_CASE("element types and their sizes on x86-64", "[declaration]") {
  struct type {
    const char* written;
    const char* name;
    std::size_t size;
  };
  const std::vector<type> types = {
      {"char", "char", 1},
      {"signed char", "signed char", 1},
      {"char signed", "signed char", 1},
      {"unsigned char", "unsigned char", 1},
      {"short", "short", 2},
      {"short int", "short", 2},
      {"signed short int", "short", 2},
      {"unsigned short", "unsigned short", 2},
      {"unsigned short int", "unsigned short", 2},
      {"int", "int", 4},
      {"signed", "int", 4},
      {"signed int", "int", 4},
      {"unsigned", "unsigned int", 4},
      {"unsigned int", "unsigned int", 4},
      {"long", "long", 8},
      {"long int", "long", 8},
      {"int long", "long", 8},
      {"unsigned long", "unsigned long", 8},
      {"unsigned long int", "unsigned long", 8},
      {"long long", "long long", 8},
      {"long long int", "long long", 8},
      {"long int long", "long long", 8},
      {"unsigned long long", "unsigned long long", 8},
      {"unsigned long long int", "unsigned long long", 8},
      {"float", "float", 4},
      {"double", "double", 8},
      {"long double", "long double", 16},
      {"double long", "long double", 16},
      {"int8_t", "int8_t", 1},
      {"int16_t", "int16_t", 2},
      {"int32_t", "int32_t", 4},
      {"int64_t", "int64_t", 8},
      {"uint8_t", "uint8_t", 1},
      {"uint16_t", "uint16_t", 2},
      {"uint32_t", "uint32_t", 4},
      {"uint64_t", "uint64_t", 8},
  };
  for (const auto& t : types) {
    const std::string text = std::string("shared [2] ") + t.written + " A[4]";
    INFO(text);
    const declaration d = declaration::parse(text);
    CHECK(d.type().name == t.name);
    CHECK(d.type().size == t.size);
    CHECK(d.name() == "A");
  }
  // The sizes are this target's own.
  CHECK(declaration::parse("shared long double A[1]").type().size == sizeof(long double));
  CHECK(declaration::parse("shared long A[1]").type().size == sizeof(long));
}

TEST_CASE("sizes are expressions of THREADS, evaluated per thread count", "[declaration]") {
  struct expression {
    const char* text;
    int threads;
    std::size_t value;
  };
  const std::vector<expression> cases = {
      {"10*THREADS", 4, 40},  {"THREADS*10", 3, 30},
      {"2+3*THREADS", 4, 14}, {"(2+3)*THREADS", 4, 20},
      {"THREADS/2", 7, 3},    {"(THREADS+1)/2", 7, 4},
      {"7%THREADS", 4, 3},    {"10-THREADS-1", 4, 5},
      {"-(-3)", 1, 3},        {"+5", 1, 5},
      {"--5", 1, 5},          {"2*-(-THREADS)", 8, 16},
      {"0x10", 1, 16},        {"0X1f", 1, 31},
      {"010", 1, 8},          {"0", 1, 0},
      {"16u", 1, 16},         {"16UL", 1, 16},
      {"16llu", 1, 16},       {"4096 * THREADS", 65536, 4096ull * 65536},
  };
  for (const auto& c : cases) {
    INFO(c.text << " with THREADS = " << c.threads);
    if (c.value > 0) {
      const declaration d = declaration::parse(std::string("shared int A[") + c.text + "]");
      CHECK(d.extents_for(c.threads) == sizes{c.value});
    }
    if (c.value <= pgas::config::max_runtime_block) {
      const declaration b = declaration::parse(std::string("shared [") + c.text + "] int A[4]");
      CHECK(b.block_for(c.threads) == block_spec::cyclic(c.value));
    }
  }
  const declaration d = declaration::parse("shared [THREADS] int A[THREADS][2*THREADS]");
  CHECK(d.uses_threads());
  CHECK(d.extents_for(2) == sizes{2, 4});
  CHECK(d.extents_for(5) == sizes{5, 10});
  CHECK(d.block_for(5) == block_spec::cyclic(5));
  CHECK(declaration::parse("shared [THREADS][1] int A[4][4]").block_for(3) ==
        block_spec::tiles({3, 1}));
  // A block size that evaluates to 0 is indefinite, as in UPC.
  CHECK(declaration::parse("shared [THREADS-1] int A[4]").block_for(1) == block_spec::indefinite());
}

TEST_CASE("layout_for is pgas::layout of the evaluated declaration", "[declaration]") {
  // Serres et al. figure 3: rows 0 and 2 on thread 0, rows 1 and 3 on thread 1.
  const pgas::layout p0 = declaration::parse("shared [3] int array[4][3]").layout_for(2);
  CHECK(p0.extents() == sizes{4, 3});
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t j = 0; j < 3; ++j)
      CHECK(p0.place({i, j}).thread == static_cast<int>(i % 2));
  }
  // Barton et al.: shared [2][3] int A[8][9] on 8 threads.
  const pgas::layout p4 = declaration::parse("shared [2][3] int A[8][9]").layout_for(8);
  const pgas::layout direct({8, 9}, block_spec::tiles({2, 3}), 8);
  CHECK(p4.blocks() == direct.blocks());
  CHECK(p4.part_elements() == direct.part_elements());
  for (std::size_t i = 0; i < 8; ++i) {
    for (std::size_t j = 0; j < 9; ++j)
      CHECK(p4.place({i, j}) == direct.place({i, j}));
  }
  CHECK(p4.place({4, 0}).thread == 6);
  CHECK(p4.place({4, 8}).thread == 0);
  CHECK(p4.place({6, 0}).thread == 1);

  const pgas::layout star = declaration::parse("shared [*] int A[10*THREADS]").layout_for(4);
  CHECK(star.size() == 40);
  CHECK(star.block_elements() == 10);
  CHECK(star.threads() == 4);
}

TEST_CASE("the excerpt echoes the declaration with a caret under the token", "[declaration]") {
  const auto e = error_of("shared [3 int A[4][3]");
  REQUIRE(e);
  CHECK(std::string(e->what()) == "expected ']' to close the block size");
  CHECK(e->column() == 10);
  CHECK(e->text() == "shared [3 int A[4][3]");
  CHECK(e->excerpt() ==
        "  shared [3 int A[4][3]\n"
        "            ^");
  CHECK(e->excerpt(0) ==
        "shared [3 int A[4][3]\n"
        "          ^");

  // Tabs and newlines are shown as spaces so the caret stays under its token.
  const auto tab = error_of("shared\tint\nA[4] x");
  REQUIRE(tab);
  CHECK(tab->excerpt() ==
        "  shared int A[4] x\n"
        "                  ^");
  // The caret counts characters, not bytes, after UTF-8 text.
  const auto utf8 = error_of("shared int \xC3\xA9[3] x");
  REQUIRE(utf8);
  CHECK(utf8->column() == 11);
  CHECK(utf8->excerpt() ==
        "  shared int \xC3\xA9[3] x\n"
        "             ^");
}

TEST_CASE("syntax errors name the problem and point at the token", "[declaration]") {
  struct bad {
    std::string text;
    std::string message;  // a fragment of what()
    std::string token;    // where the caret goes: the first occurrence of this in text,
    std::size_t column;   // or, when token is empty, this column
  };
  const std::vector<bad> cases = {
      {"", "empty declaration", "", 0},
      {"   ", "empty declaration", "", 0},
      {"int A[4]", "expected 'shared'", "int", 0},
      {"A[4]", "expected 'shared'", "A", 0},
      {"foo shared int A[4]", "expected 'shared'", "foo", 0},
      {"shared foo A[3]", "unknown element type 'foo'", "foo", 0},
      {"shared long doubel A[4]", "unknown element type 'long doubel'", "doubel", 0},
      {"shared A[3]", "expected an element type", "A", 0},
      {"shared [3] [4]", "expected an element type", "", 14},
      {"shared", "expected an element type", "", 6},
      {"shared unsigned double A[4]", "invalid element type 'unsigned double'", "double", 0},
      {"shared long long long A[4]", "invalid element type 'long long long'", "", 17},
      {"shared signed unsigned A[4]", "invalid element type", "unsigned", 0},
      {"shared int int A[4]", "invalid element type 'int int'", "", 11},
      {"shared short long A[4]", "invalid element type", "long", 0},
      {"shared char int A[4]", "invalid element type", "int", 0},
      {"shared float double A[4]", "invalid element type", "double", 0},
      {"shared long long double A[4]", "invalid element type", "double", 0},
      {"shared unsigned int8_t A[4]", "invalid element type", "int8_t", 0},
      {"shared int8_t int A[4]", "invalid element type 'int8_t int'", " int ", 1},
      {"shared int32_t uint8_t A[4]", "invalid element type", "uint8_t", 0},
      {"shared shared int A[3]", "'shared' is given twice", "", 7},
      {"shared int shared A[3]", "'shared' is given twice", "", 11},
      {"strict relaxed shared int A[3]", "'relaxed' contradicts 'strict'", "relaxed", 0},
      {"shared int [4]", "expected the array's name", "[4]", 0},
      {"shared int *p", "pointer-to-shared is not an array", "*", 0},
      {"shared int THREADS[3]", "reserved by UPC", "THREADS", 0},
      {"shared int MYTHREAD[3]", "reserved by UPC", "MYTHREAD", 0},
      {"shared int A", "expected '[' after 'A'", "", 12},
      {"shared int A;", "expected '[' after 'A'", ";", 0},
      {"shared int A[]", "extent of dimension 0 is missing", "]", 0},
      {"shared int A[4][]", "extent of dimension 1 is missing", "", 16},
      {"shared int A[4", "expected ']' to close the extent of dimension 0", "", 14},
      {"shared int A[4 5]", "expected ']' to close the extent of dimension 0", "5", 0},
      {"shared int A[x]", "unknown name 'x'", "x", 0},
      {"shared int A[N*THREADS]", "unknown name 'N'", "N", 0},
      {"shared int A[MYTHREAD]", "MYTHREAD differs between threads", "MYTHREAD", 0},
      {"shared int A[3+]", "expected a size", "]", 0},
      {"shared int A[(3]", "expected ')'", "]", 0},
      {"shared int A[*]", "expected a size", "*", 0},
      {"shared int A[12abc]", "'12abc' is not an integer literal", "12abc", 0},
      {"shared int A[08]", "'08' is not an integer literal", "08", 0},
      {"shared int A[0x]", "'0x' is not an integer literal", "0x", 0},
      {"shared int A[4uuu]", "not an integer literal", "4uuu", 0},
      {"shared int A[99999999999999999999]", "does not fit in 64-bit", "9", 0},
      {"shared int A[9223372036854775808]", "does not fit in 64-bit", "9", 0},
      {"shared int A[4]]", "unexpected ']' after the declaration", "", 15},
      {"shared int A[4] x", "unexpected 'x' after the declaration", "x", 0},
      {"shared int A[4];;", "unexpected ';' after the declaration", "", 16},
      {"shared int A[4] = {1}", "unexpected '=' after the declaration", "=", 0},
      {"shared int A[4], B[4]", "one array per declaration", ",", 0},
      {"shared int A[4] @", "unexpected '@'", "@", 0},
      {"shared [3 int A[4][3]", "expected ']' to close the block size", "int", 0},
      {"shared [* int A[3]", "expected ']' to close '[*'", "int", 0},
      {"shared [*][3] int A[4][4]", "'[*]' cannot be combined with tile extents", "[3]", 0},
      {"shared [3][*] int A[4][4]", "'[*]' cannot be combined with tile extents", "*", 0},
      {"shared [][3] int A[4][4]", "'[]' cannot be combined with tile extents", "[3]", 0},
      {"shared [2][] int A[4][4]", "tile extent 1 is missing", "", 11},
      {"shared [2][3 int A[4][4]", "expected ']' to close tile extent 1", "int", 0},
      {"shared [2][3] int A[4]", "2 tile extents for an array of 1 dimension", "[2]", 0},
      {"shared [1][1] int A[3][3][3]", "2 tile extents for an array of 3 dimensions", "[1]", 0},
      {"shared int A[1][1][1][1][1][1][1][1][1]", "more than 8 dimensions", "", 36},
  };
  for (const auto& c : cases) {
    INFO("declaration: \"" << c.text << "\"");
    const auto e = error_of(c.text);
    REQUIRE(e);
    CHECK_THAT(e->what(), Catch::Contains(c.message));
    const std::size_t column = c.token.empty() ? c.column : at(c.text, c.token) + c.column;
    CHECK(e->column() == column);
  }
}

TEST_CASE("value errors depend on THREADS and point at the expression", "[declaration]") {
  struct bad {
    std::string text;
    int threads;
    std::string message;
    std::string token;
    std::size_t nth = 0;  // which occurrence of token (0: the first)
  };
  const std::vector<bad> cases = {
      {"shared int A[0]", 1, "extent of dimension 0 is 0; it must be at least 1", "0"},
      {"shared int A[4][2-3]", 1, "extent of dimension 1 is -1", "2-3"},
      {"shared int A[THREADS-2]", 2,
       "extent of dimension 0 is 0 with THREADS = 2; it must be at least 1", "THREADS"},
      {"shared int A[10/(THREADS-2)]", 2, "division by zero with THREADS = 2", "/"},
      {"shared int A[10%(THREADS-2)]", 2, "division by zero with THREADS = 2", "%"},
      {"shared int A[10/0]", 1, "division by zero", "/"},
      {"shared int A[9223372036854775807*2]", 1, "overflows 64-bit arithmetic", "*"},
      {"shared int A[9223372036854775807+THREADS]", 1,
       "overflows 64-bit arithmetic with THREADS = 1", "+"},
      {"shared int A[-9223372036854775807-1-1]", 1, "overflows", "-", 2},
      {"shared [-1] int A[3]", 1, "block size is -1; it must be 0 (indefinite) or more", "-1"},
      {"shared [1-THREADS*2] int A[3]", 2, "block size is -3 with THREADS = 2", "1-"},
      {"shared [0][2] int A[3][3]", 1, "tile extent of dimension 0 is 0", "0"},
      {"shared [2][THREADS-4] int A[3][3]", 4, "tile extent of dimension 1 is 0 with THREADS = 4",
       "THREADS"},
      {"shared [300000000000] int A[4]", 1, "block size 300000000000 exceeds", "300000000000"},
      {"shared [*] int A[1000000000000]", 2, "[*] gives blocks of 500000000000 elements", "[*]"},
      {"shared [1048576][524288] int A[4096][4096]", 1, "tiles of 549755813888 elements exceed",
       "[1048576]"},
      {"shared int A[4294967296][4294967296]", 1, "the number of elements overflows",
       "[4294967296]"},
      {"shared [] double A[1152921504606846976]", 16, "overflow 64 bits", "A["},
  };
  for (const auto& c : cases) {
    INFO("declaration: \"" << c.text << "\" with THREADS = " << c.threads);
    const auto e = error_of(c.text, c.threads);
    REQUIRE(e);
    CHECK_THAT(e->what(), Catch::Contains(c.message));
    std::size_t column = at(c.text, c.token);
    for (std::size_t k = 0; k < c.nth; ++k)
      column = c.text.find(c.token, column + 1);
    CHECK(e->column() == column);
  }
  // The same declaration is fine for another thread count.
  CHECK(declaration::parse("shared int A[THREADS-2]").extents_for(3) == sizes{1});
  CHECK(declaration::parse("shared [*] int A[10000000000]").layout_for(16384).block_elements() ==
        610352);
}

TEST_CASE("the block limit is the library's", "[declaration]") {
  const std::size_t max = pgas::config::max_runtime_block;
  const declaration ok = declaration::parse("shared [" + std::to_string(max) + "] char A[4]");
  CHECK(ok.block_for(1) == block_spec::cyclic(max));
  // Blocks beyond the compile-time limit are fine at run time.
  CHECK(declaration::parse("shared [2000000] int A[4]").block_for(1) ==
        block_spec::cyclic(2000000));
  const auto e = error_of("shared [" + std::to_string(max + 1) + "] char A[4]", 1);
  REQUIRE(e);
  CHECK(e->column() == 8);
  CHECK(std::string(e->what()) == block_spec::cyclic_problem(max + 1));
  try {
    (void)block_spec::cyclic(max + 1);
    FAIL("block_spec::cyclic accepted a block beyond config::max_runtime_block");
  } catch (const pgas::usage_error& library) {
    CHECK(std::string(library.what()).find(block_spec::cyclic_problem(max + 1)) !=
          std::string::npos);
  }
}

TEST_CASE("a thread count below 1 is the caller's mistake, not the declaration's",
          "[declaration]") {
  const declaration d = declaration::parse("shared int A[THREADS]");
  CHECK_THROWS_AS(d.extents_for(0), std::invalid_argument);
  CHECK_THROWS_AS(d.block_for(-1), std::invalid_argument);
  CHECK_THROWS_AS(d.layout_for(0), std::invalid_argument);
  try {
    (void)d.layout_for(0);
  } catch (const declaration_error&) {
    FAIL("threads < 1 reported as a declaration error");
  } catch (const std::invalid_argument& e) {
    CHECK_THAT(e.what(), Catch::Contains("THREADS must be at least 1"));
  }
}

TEST_CASE("hostile input is refused within bounded stack and time", "[declaration]") {
  const std::string deep_unary = "shared int A[" + std::string(50'000, '-') + "1]";
  const std::string deep_parens =
      "shared int A[" + std::string(30'000, '(') + "1" + std::string(30'000, ')') + "]";
  for (const std::string& text : {deep_unary, deep_parens}) {
    const auto e = error_of(text);
    REQUIRE(e);
    CHECK_THAT(e->what(), Catch::Matchers::Contains("nests more than 200 deep"));
  }
  const auto huge = error_of("shared int A[" + std::string(declaration::max_length, '1') + "]");
  REQUIRE(huge);
  CHECK_THAT(huge->what(), Catch::Matchers::Contains("at most 65536 are read"));

  // Right at the limits it still parses and evaluates.
  const std::string signs = std::string(declaration::max_depth, '-');  // an even count: +8
  const declaration d = declaration::parse("shared int A[" + signs + "8]");
  CHECK(d.layout_for(1).extents()[0] == 8);
  const auto one_more = error_of("shared int A[" + signs + "-8]");
  REQUIRE(one_more);
  CHECK_THAT(one_more->what(), Catch::Matchers::Contains("nests more than 200 deep"));
}

TEST_CASE("a long chain of binary operators does not nest: only its length is bounded",
          "[declaration]") {
  // 1+1+…+1 and 2*1*…*1 are as deep as they are long, but nothing nests: thousands of terms
  // parse and evaluate (without recursion), up to the length limit.
  std::string sum = "shared int A[1", product = "shared int A[2";
  for (int i = 0; i < 30'000; ++i) {
    sum += "+1";
    product += "*1";
  }
  const declaration s = declaration::parse(sum + "]");
  CHECK(s.layout_for(1).extents()[0] == 30'001);
  const declaration p = declaration::parse(product + "][THREADS-1+1]");
  CHECK(p.layout_for(3).extents() == std::vector<std::size_t>{2, 3});
  // Errors inside such a chain still name their own operator.
  const std::string text = "shared int A[4+4+4/(THREADS-2)+4]";
  CHECK_FALSE(error_of(text, 3));
  const auto zero = error_of(text, 2);
  REQUIRE(zero);
  CHECK_THAT(zero->what(), Catch::Matchers::Contains("division by zero with THREADS = 2"));
  CHECK(zero->column() == at(text, "/"));
}
