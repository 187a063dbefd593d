// Prometheus's text exposition format 0.0.4 (what Prometheus 2.x scrapes as
// "text/plain; version=0.0.4"), written family by family: "# HELP", "# TYPE",
// then the family's samples, each family once however its samples were
// added. Label values are escaped (backslash, double quote, newline) and made
// valid UTF-8, since Prometheus refuses a whole scrape over one bad value.
//
// Pure; thread-compatible (one Exposition per answer).
#ifndef SKIFF_RESTD_METRICS_EXPOSITION_H_
#define SKIFF_RESTD_METRICS_EXPOSITION_H_

#include <cstddef>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"

namespace skiff::restd {

// The Content-Type of the format.
inline constexpr char kExpositionContentType[] = "text/plain; version=0.0.4; charset=utf-8";

enum class MetricType { kGauge, kCounter };

struct MetricLabel {
  absl::string_view name;  // [a-zA-Z_][a-zA-Z0-9_]*; the callers' own constants
  absl::string_view value;
};

class Exposition {
 public:
  // Declares family `name` (HELP and TYPE) if it is new, so that a family
  // with no samples (no GPU in use by anyone) still tells a scraper it exists.
  // A family's first declaration fixes its HELP and TYPE.
  void Declare(absl::string_view name, absl::string_view help, MetricType type);
  // One sample of family `name`, declared with `help` and `type` if new.
  void Add(absl::string_view name, absl::string_view help, MetricType type, double value,
           std::initializer_list<MetricLabel> labels = {});
  // Gauge shorthand.
  void Gauge(absl::string_view name, absl::string_view help, double value,
             std::initializer_list<MetricLabel> labels = {}) {
    Add(name, help, MetricType::kGauge, value, labels);
  }

  // The families in the order each was first declared, each followed by its
  // samples in the order added.
  std::string Text() const;

 private:
  struct Family {
    std::string head;     // "# HELP ...\n# TYPE ...\n"
    std::string samples;  // "name{labels} value\n" ...
  };
  Family& FamilyOf(absl::string_view name, absl::string_view help, MetricType type);

  std::vector<Family> families_;
  absl::flat_hash_map<std::string, size_t> index_;  // name -> families_ index
};

// A sample value as the format writes it: integers without a fraction
// ("42"), others in their shortest exact digits ("0.25", "0.0005"; "1e-12" when
// tiny or huge), "NaN", "+Inf", "-Inf".
std::string FormatSampleValue(double value);

// A label value between its double quotes: \ " and newline escaped, bytes
// that are not UTF-8 replaced by U+FFFD.
std::string EscapeLabelValue(absl::string_view value);

// HELP text: \ and newline escaped.
std::string EscapeHelp(absl::string_view help);

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_METRICS_EXPOSITION_H_
