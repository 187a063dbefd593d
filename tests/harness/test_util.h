// Small helpers shared by the integration tests.
#ifndef SKIFF_TESTS_HARNESS_TEST_UTIL_H_
#define SKIFF_TESTS_HARNESS_TEST_UTIL_H_

#include <signal.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace skiff::testing {

// The whole file, or "" when it cannot be read.
inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Polls `predicate` every 200 ms for up to `seconds`; true as soon as it holds.
// For waiting on daemons, never for timing: a loaded machine only makes it slower.
template <typename Predicate>
bool Eventually(int seconds, Predicate predicate) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (predicate()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return predicate();
}

inline bool Alive(pid_t pid) { return pid > 0 && kill(pid, 0) == 0; }

// Every id in "Submitted batch job N" lines, in order.
inline std::vector<uint64_t> SubmittedJobIds(const std::string& text) {
  std::vector<uint64_t> ids;
  static const std::regex kSubmitted("Submitted batch job ([0-9]+)");
  for (std::sregex_iterator it(text.begin(), text.end(), kSubmitted), end; it != end; ++it) {
    ids.push_back(std::stoull((*it)[1]));
  }
  return ids;
}

}  // namespace skiff::testing

#endif  // SKIFF_TESTS_HARNESS_TEST_UTIL_H_
