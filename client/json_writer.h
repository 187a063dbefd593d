// Skiff's one JSON writer: the commands' --json output and every answer restd
// writes. A small value tree that keeps the order in which object keys were
// set (Slurm's output lists them in a fixed order, and a reader comparing
// against Slurm's should see the same), and a printer, indented or compact,
// that can stream a long list without holding it as a tree.
//
// Writing only: JSON that Skiff reads (restd's request bodies, the OpenAPI
// documents, JWT claims) is read with nlohmann::json. common/json.h is the
// burst-buffer Lua API's own reader and writer of Lua values, not a client
// model. See docs/json.md.
//
// Pure; a value is not thread-safe, distinct values are.
#ifndef SKIFF_CLIENT_JSON_WRITER_H_
#define SKIFF_CLIENT_JSON_WRITER_H_

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace skiff::client {

// How Json::Text() lays a value out.
struct JsonStyle {
  // Two spaces a level, one member or element a line, "key": value; false:
  // no space or newline at all (restd's job lists, tens of MB for a big
  // queue).
  bool indented = true;
  // A double with no fraction keeps a point ("1.0"), so that a reader that
  // types numbers takes it as a real, as nlohmann::json and json-c print it
  // (restd); false: "1", as the commands' --json has always printed it.
  bool point_in_whole_doubles = false;
};

class JsonSink;  // the printer's text buffer (json_writer.cc)

class Json {
 public:
  enum class Kind { kNull, kBool, kInt, kDouble, kString, kArray, kObject };

  Json() = default;  // null
  Json(std::nullptr_t) {}
  Json(bool value) : kind_(Kind::kBool), value_(int64_t{value ? 1 : 0}) {}
  Json(int value) : kind_(Kind::kInt), value_(int64_t{value}) {}
  Json(long value) : kind_(Kind::kInt), value_(int64_t{value}) {}
  Json(long long value) : kind_(Kind::kInt), value_(static_cast<int64_t>(value)) {}
  Json(unsigned value) : kind_(Kind::kInt), value_(int64_t{value}) {}
  Json(unsigned long value) : kind_(Kind::kInt), value_(static_cast<int64_t>(value)) {}
  Json(unsigned long long value) : kind_(Kind::kInt), value_(static_cast<int64_t>(value)) {}
  Json(double value) : kind_(Kind::kDouble), value_(std::in_place_type<double>, value) {}
  Json(std::string value)
      : kind_(Kind::kString), value_(std::in_place_type<std::string>, std::move(value)) {}
  Json(const char* value) : kind_(Kind::kString), value_(std::in_place_type<std::string>, value) {}
  // An object with these members, in this order: {{"name", "x"}, {"count",
  // 2}}, nested the same way. Each key once (REQUIRES). The values are
  // copied: a builder of many records (a job list) uses Add.
  Json(std::initializer_list<std::pair<std::string, Json>> members);

  static Json Array() { return Json(Kind::kArray); }
  // An array of these values: Json::Array({"RUNNING"}), Json::Array({{{"a",
  // 1}}}) for an array of one object.
  static Json Array(std::initializer_list<Json> values);
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
  // The same for a key spelt in the code, copied once into place.
  Json& Add(const char* key, Json value);
  // Object: the value at `key`, created as null when absent. REQUIRES: an object.
  // The reference is good until the next key is added to this object.
  Json& operator[](const std::string& key);
  // Object: the value at `key`, or nullptr when absent (or not an object).
  const Json* Find(std::string_view key) const;
  bool Has(std::string_view key) const { return Find(key) != nullptr; }
  // Array: appends. REQUIRES: an array.
  Json& Push(Json value);
  // Room for `count` members (an object) or elements (an array) in all, for
  // a builder that knows how many it adds. Returns *this.
  Json& Reserve(size_t count);
  // Array: its elements; object: its members; else 0.
  size_t size() const;

  // The value as text, with no newline after it; strings escaped as RFC 8259
  // requires (control characters as \u00XX; bytes that are not UTF-8 replaced
  // by U+FFFD, byte by byte, so that any reader accepts the output).
  std::string Text(JsonStyle style = JsonStyle()) const;
  // Text() and a newline: what the commands print.
  std::string Dump() const;

  // The text Text(style) gives for `document`, an object whose member `key`
  // is an empty array, once that array holds `count` elements, element(i) the
  // i-th, handed to `write` a piece at a time: the elements are made and
  // printed one after another, never all held at once (squeue --json of
  // 100,000 jobs is ~300 MB of text). When `document` has no such member it
  // is written as it is.
  static void WriteWithElements(const Json& document, std::string_view key, size_t count,
                                const std::function<Json(size_t)>& element,
                                const std::function<void(std::string_view)>& write,
                                JsonStyle style = JsonStyle());
  // What Dump() gives for `document` (an object whose last member is an empty
  // array) once that array holds `count` elements: WriteWithElements of the
  // last member, and the newline.
  static void DumpWithElements(const Json& document, size_t count,
                               const std::function<Json(size_t)>& element,
                               const std::function<void(std::string_view)>& write);

 private:
  using Elements = std::vector<Json>;
  using Members = std::vector<std::pair<std::string, Json>>;

  explicit Json(Kind kind);
  // The array's elements, the object's members. REQUIRES: an array, an object
  // (a null becomes an empty one first).
  Elements& elements() {
    if (kind_ != Kind::kArray) BecomeArray();
    return *std::get_if<Elements>(&value_);
  }
  Members& members() {
    if (kind_ != Kind::kObject) BecomeObject();
    return *std::get_if<Members>(&value_);
  }
  // A null becomes an empty array, object. REQUIRES: a null (asserted in
  // debug builds).
  void BecomeArray();
  void BecomeObject();
  const Members* members_if() const { return std::get_if<Members>(&value_); }
  void WriteTo(JsonSink& out, const JsonStyle& style, int indent) const;

  Kind kind_ = Kind::kNull;
  // kNull, kBool (0 or 1) and kInt: int64_t; kDouble: double; kString:
  // std::string; kArray: Elements; kObject: Members. One of them, not all: a
  // job list's tree is ~200 values a job.
  std::variant<int64_t, double, std::string, Elements, Members> value_;
};

// Slurm 22.05's envelope for `--json`: {"meta": {"plugin": ..., "Slurm":
// {"version": ..., "release": ...}}, "errors": []}, to which the command adds
// its own top-level key ("jobs", "nodes", ...).
Json SlurmJsonEnvelope();

}  // namespace skiff::client

#endif  // SKIFF_CLIENT_JSON_WRITER_H_
