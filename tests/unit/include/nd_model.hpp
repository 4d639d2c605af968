// tests/unit/include/nd_model.hpp — what the tests of the N-D headers (point, rectdomain,
// domain) share: the text of a misuse outside a job, and the points a domain iterates.
#pragma once

#include <pgas/error.hpp>

#include <string>
#include <vector>

#include <catch2/catch.hpp>

// The what() of the usage_error f throws (a test failure when it throws none).
template <class F>
std::string misuse_text(F f) {
  try {
    f();
  } catch (const pgas::usage_error& e) {
    return e.what();
  }
  FAIL("no usage_error");
  return "";
}

// The points of a domain, in its iteration order.
template <class D>
auto points_of(const D& d) {
  return std::vector(d.begin(), d.end());
}
