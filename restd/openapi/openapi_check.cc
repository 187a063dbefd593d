#include "restd/openapi/openapi_check.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace skiff::restd {
namespace {

using Json = nlohmann::json;

class Checker {
 public:
  explicit Checker(const Json& document) : document_(document) {}

  void Check(const Json& schema, const Json& value, const std::string& where, int depth = 0) {
    if (depth > 64) return;  // a self-referring schema (none is, today)
    if (schema.contains("$ref")) {
      const Json* target = Resolve(schema["$ref"].get<std::string>());
      if (!target) return Problem(where, "unknown $ref " + schema["$ref"].get<std::string>());
      return Check(*target, value, where, depth + 1);
    }
    const std::string type = schema.value("type", "");
    if (type == "object") {
      if (!value.is_object()) return Problem(where, "not an object: " + value.dump());
      const Json& properties =
          schema.contains("properties") ? schema["properties"] : Json::object();
      for (const auto& [name, field] : value.items()) {
        if (!properties.contains(name)) {
          Problem(where, "field \"" + name + "\" is not in the schema");
          continue;
        }
        Check(properties[name], field, absl::StrCat(where, ".", name), depth + 1);
      }
      if (schema.contains("required")) {
        // Slurm writes a required nested field as "outer/inner".
        for (const Json& name : schema["required"]) {
          const Json* at = &value;
          for (absl::string_view part : absl::StrSplit(name.get<std::string>(), '/')) {
            auto it = at->is_object() ? at->find(std::string(part)) : at->end();
            if (it == at->end()) {
              at = nullptr;
              break;
            }
            at = &*it;
          }
          if (!at) Problem(where, "required field \"" + name.get<std::string>() + "\" is missing");
        }
      }
    } else if (type == "array") {
      if (!value.is_array()) return Problem(where, "not an array: " + value.dump());
      if (!schema.contains("items")) return;
      for (size_t i = 0; i < value.size(); ++i) {
        Check(schema["items"], value[i], absl::StrCat(where, "[", i, "]"), depth + 1);
      }
    } else if (type == "string") {
      if (!value.is_string()) return Problem(where, "not a string: " + value.dump());
    } else if (type == "integer") {
      if (!value.is_number_integer()) return Problem(where, "not an integer: " + value.dump());
    } else if (type == "number") {
      if (!value.is_number()) return Problem(where, "not a number: " + value.dump());
    } else if (type == "boolean") {
      if (!value.is_boolean()) return Problem(where, "not a boolean: " + value.dump());
    }
    if (schema.contains("enum")) {
      bool listed = false;
      for (const Json& allowed : schema["enum"]) listed = listed || allowed == value;
      if (!listed) Problem(where, value.dump() + " is not one of " + schema["enum"].dump());
    }
  }

  std::vector<std::string> problems;

 private:
  const Json* Resolve(const std::string& ref) {
    if (!absl::StartsWith(ref, "#/")) return nullptr;
    const Json* at = &document_;
    for (absl::string_view part : absl::StrSplit(ref.substr(2), '/')) {
      auto it = at->find(std::string(part));
      if (it == at->end()) return nullptr;
      at = &*it;
    }
    return at;
  }
  void Problem(const std::string& where, const std::string& what) {
    problems.push_back(absl::StrCat(where, ": ", what));
  }

  const Json& document_;
};

// The document's path entry for a concrete path: segments equal, or the
// document's "{name}" against any segment; a trailing "/" does not count.
const Json* PathEntry(const Json& document, const std::string& path) {
  const std::vector<std::string> want = absl::StrSplit(path, '/', absl::SkipEmpty());
  for (const auto& [pattern, entry] : document["paths"].items()) {
    const std::vector<std::string> have = absl::StrSplit(pattern, '/', absl::SkipEmpty());
    if (have.size() != want.size()) continue;
    bool same = true;
    for (size_t i = 0; i < have.size() && same; ++i) {
      same = have[i] == want[i] || (absl::StartsWith(have[i], "{") && absl::EndsWith(have[i], "}"));
    }
    if (same) return &entry;
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> SchemaProblems(const Json& document, const Json& schema,
                                        const Json& value) {
  Checker checker(document);
  checker.Check(schema, value, "$");
  return checker.problems;
}

std::vector<std::string> ResponseProblems(const Json& document, const std::string& method,
                                          const std::string& path, int status, const Json& body) {
  const Json* entry = PathEntry(document, path);
  if (!entry) return {"the document has no path " + path};
  const std::string operation = absl::AsciiStrToLower(method);
  if (!entry->contains(operation)) return {"the document has no " + method + " " + path};
  const Json& responses = (*entry)[operation]["responses"];
  const std::string code = absl::StrCat(status);
  const Json& response = responses.contains(code) ? responses[code] : responses["default"];
  return SchemaProblems(document, response["content"]["application/json"]["schema"], body);
}

}  // namespace skiff::restd
