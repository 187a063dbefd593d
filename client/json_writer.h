// JSON for the commands' --json output: a small value tree that keeps the order
// in which object keys were set (Slurm's output lists them in a fixed order, and
// a reader comparing against Slurm's should see the same), and a printer.
// Writing only; Skiff's commands never read JSON. Pure; a value is not
// thread-safe, distinct values are.
#ifndef SKIFF_CLIENT_JSON_WRITER_H_
#define SKIFF_CLIENT_JSON_WRITER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace skiff::client {

class Json {
 public:
  enum class Kind { kNull, kBool, kInt, kDouble, kString, kArray, kObject };

  Json() = default;  // null
  Json(std::nullptr_t) {}
  Json(bool value) : kind_(Kind::kBool), int_(value ? 1 : 0) {}
  Json(int value) : kind_(Kind::kInt), int_(value) {}
  Json(long value) : kind_(Kind::kInt), int_(value) {}
  Json(long long value) : kind_(Kind::kInt), int_(value) {}
  Json(unsigned value) : kind_(Kind::kInt), int_(value) {}
  Json(unsigned long value) : kind_(Kind::kInt), int_(static_cast<int64_t>(value)) {}
  Json(unsigned long long value) : kind_(Kind::kInt), int_(static_cast<int64_t>(value)) {}
  Json(double value) : kind_(Kind::kDouble), double_(value) {}
  Json(std::string value) : kind_(Kind::kString), string_(std::move(value)) {}
  Json(const char* value) : kind_(Kind::kString), string_(value) {}

  static Json Array() { return Json(Kind::kArray); }
  static Json Object() { return Json(Kind::kObject); }
  // An array of strings, as Slurm prints flag sets and name lists.
  static Json Strings(const std::vector<std::string>& values);

  Kind kind() const { return kind_; }

  // Object: sets `key` (replacing an earlier value in place, so the order is
  // that of the first Set). REQUIRES: an object.
  Json& Set(const std::string& key, Json value);
  // Object: appends `key`, which is not set yet (REQUIRES; asserted in debug
  // builds): for a builder that sets each key once, without Set's search
  // through the keys before it (squeue --json's ~100 per job).
  Json& Add(std::string key, Json value);
  // Object: the value at `key`, created as null when absent. REQUIRES: an object.
  // The reference is good until the next key is added to this object.
  Json& operator[](const std::string& key);
  // Array: appends. REQUIRES: an array.
  Json& Push(Json value);
  size_t size() const { return kind_ == Kind::kArray ? array_.size() : members_.size(); }

  // Two-space indented, one member per line, "key": value; strings escaped as
  // RFC 8259 requires (control characters as \u00XX; bytes that are not UTF-8
  // replaced by U+FFFD so that any reader accepts the output).
  std::string Dump() const;

  // The text Dump() gives for `document` (an object whose last member is an
  // empty array) once that array holds `count` elements, element(i) the i-th,
  // handed to `write` a piece at a time: the elements are made and printed one
  // after another, never all held at once (squeue --json of 100,000 jobs is
  // ~300 MB of text). REQUIRES: the last member of `document` is an empty array.
  static void DumpWithElements(const Json& document, size_t count,
                               const std::function<Json(size_t)>& element,
                               const std::function<void(std::string_view)>& write);

 private:
  explicit Json(Kind kind) : kind_(kind) {}
  void DumpTo(std::string* out, int indent) const;

  Kind kind_ = Kind::kNull;
  int64_t int_ = 0;
  double double_ = 0;
  std::string string_;
  std::vector<Json> array_;
  std::vector<std::pair<std::string, Json>> members_;
};

// Slurm 22.05's envelope for `--json`: {"meta": {"plugin": ..., "Slurm":
// {"version": ..., "release": ...}}, "errors": []}, to which the command adds
// its own top-level key ("jobs", "nodes", ...).
Json SlurmJsonEnvelope();

}  // namespace skiff::client

#endif  // SKIFF_CLIENT_JSON_WRITER_H_
