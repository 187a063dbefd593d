// What the tests of the config loaders share: a fresh directory for a test's
// files, and files written into it.
#ifndef SKIFF_COMMON_CONFIG_CONFIG_TEST_FILES_H_
#define SKIFF_COMMON_CONFIG_CONFIG_TEST_FILES_H_

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace skiff::testing {

// A fresh, empty directory `name` under $TEST_TMPDIR (/tmp outside Bazel).
inline std::string MakeDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::filesystem::path dir = std::filesystem::path(tmp != nullptr ? tmp : "/tmp") / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

// Writes `text` to `path`, making its directory; a fatal failure when it cannot.
inline void WriteFile(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

}  // namespace skiff::testing

#endif  // SKIFF_COMMON_CONFIG_CONFIG_TEST_FILES_H_
