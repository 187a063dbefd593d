// The garbage test the text parsers share (ParseSize, ParseDuration,
// ExpandHostlist): random strings, mostly of the characters a parser's grammar
// uses, that it must either accept or refuse with InvalidArgument and a
// message, never crash on.
#ifndef SKIFF_COMMON_GARBAGE_FUZZ_H_
#define SKIFF_COMMON_GARBAGE_FUZZ_H_

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace skiff::testing {

// Feeds `parse` (string -> StatusOr<T>) 20000 strings of up to `max_length`
// characters, 9 in 10 of them drawn from `charset` and the rest any byte, from
// a fixed seed. An accepted string's value goes to `check_parsed(text, value)`;
// a refused one must be InvalidArgument with a message. Returns how many were
// accepted, for the caller to check that the success path was reached.
template <typename Parse, typename CheckParsed>
int ParseGarbage(const std::string& charset, int max_length, Parse parse,
                 CheckParsed check_parsed) {
  std::mt19937 rng(20240611);
  std::uniform_int_distribution<int> length(0, max_length);
  std::uniform_int_distribution<size_t> pick(0, charset.size() - 1);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> percent(0, 99);
  int valid = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    int n = length(rng);
    for (int j = 0; j < n; ++j) {
      text.push_back(percent(rng) < 90 ? charset[pick(rng)] : static_cast<char>(byte(rng)));
    }
    const auto got = parse(text);
    if (got.ok()) {
      ++valid;
      check_parsed(text, *got);
      if (::testing::Test::HasFatalFailure()) return valid;
    } else {
      EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument) << text;
      EXPECT_FALSE(got.status().message().empty()) << text;
    }
  }
  return valid;
}

}  // namespace skiff::testing

#endif  // SKIFF_COMMON_GARBAGE_FUZZ_H_
