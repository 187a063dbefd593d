#include "cli/common/getopt_args.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <map>
#include <optional>
#include <string_view>

#include "absl/strings/str_cat.h"

namespace skiff::cli {
namespace {

enum class Arity { kFlag, kRequired, kOptional };

struct Spec {
  size_t index = 0;       // the option's place in its table
  std::string canonical;  // what CLI11 is given: "--long" or "-s" when there is no long name
  Arity arity;
  // A CLI11 flag with a default value ("--exclusive{exclusive}"): getopt's
  // optional_argument, whose value CLI11 takes only as "--name=value".
  bool flag_with_value = false;
};

Arity ArityOf(const CLI::Option& option) {
  if (option.get_expected_max() == 0) {
    return option.get_fnames().empty() ? Arity::kFlag : Arity::kOptional;
  }
  if (option.get_expected_min() == 0) return Arity::kOptional;
  return Arity::kRequired;
}

struct Table {
  // Long names without "--", in declaration order: getopt_long lists the
  // candidates of an ambiguous prefix in its table's order.
  std::vector<std::pair<std::string, Spec>> longs;
  std::map<char, Spec> shorts;
};

bool SameOption(const Spec& a, const Spec& b) { return a.index == b.index; }

Table BuildTable(const CLI::App& app) {
  Table table;
  size_t index = 0;
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_positional()) continue;
    const std::vector<std::string>& longs = option->get_lnames();
    const std::vector<std::string>& shorts = option->get_snames();
    Spec spec;
    spec.index = index++;
    spec.arity = ArityOf(*option);
    spec.flag_with_value = option->get_expected_max() == 0 && spec.arity == Arity::kOptional;
    spec.canonical = !longs.empty() ? "--" + longs.front() : "-" + shorts.front();
    for (const std::string& name : longs) table.longs.emplace_back(name, spec);
    for (const std::string& name : shorts) {
      if (name.size() == 1) table.shorts[name[0]] = spec;
    }
  }
  return table;
}

Table BuildTable(const std::vector<GetoptOption>& options) {
  Table table;
  for (size_t index = 0; index < options.size(); ++index) {
    Spec spec;
    spec.index = index;
    switch (options[index].argument) {
      case GetoptArgument::kNone:
        spec.arity = Arity::kFlag;
        break;
      case GetoptArgument::kRequired:
        spec.arity = Arity::kRequired;
        break;
      case GetoptArgument::kOptional:
        spec.arity = Arity::kOptional;
        break;
    }
    std::string_view names = options[index].names;
    while (!names.empty()) {
      const size_t comma = names.find(',');
      const std::string_view name = names.substr(0, comma);
      names = comma == std::string_view::npos ? std::string_view() : names.substr(comma + 1);
      if (name.size() > 2 && name[1] == '-') {
        table.longs.emplace_back(std::string(name.substr(2)), spec);
      } else if (name.size() == 2) {
        table.shorts[name[1]] = spec;
      }
    }
  }
  return table;
}

absl::Status Refuse(const std::string& message) { return absl::InvalidArgumentError(message); }

// getopt_long's lookup: an exact name, else the one option `prefix` abbreviates.
// `as_typed` is the argument as given, "=value" included, which glibc quotes.
// Returns the table entry: glibc's messages name the option as its entry
// spells it ("--cluster" typed, or abbreviated to "--clu", is "--cluster" even
// when "--clusters" is the option's first name).
absl::StatusOr<const std::pair<std::string, Spec>*> LookUpLong(const Table& table,
                                                               const std::string& prefix,
                                                               const std::string& as_typed) {
  for (const auto& entry : table.longs) {
    if (entry.first == prefix) return &entry;
  }
  // As glibc: the first name `prefix` starts is the candidate; a later one is
  // ambiguous only when it is another option (two names of one option, say
  // --noheader and --no-header, are not). The candidates are listed in table
  // order, the first one included.
  const std::pair<std::string, Spec>* first = nullptr;
  std::vector<const std::string*> listed;
  for (const auto& entry : table.longs) {
    if (entry.first.compare(0, prefix.size(), prefix) != 0) continue;
    if (first == nullptr) {
      first = &entry;
      listed.push_back(&entry.first);
    } else if (!SameOption(entry.second, first->second)) {
      listed.push_back(&entry.first);
    }
  }
  if (first == nullptr) return Refuse(absl::StrCat("unrecognized option '", as_typed, "'"));
  if (listed.size() == 1) return first;
  std::string text = absl::StrCat("option '", as_typed, "' is ambiguous; possibilities:");
  for (const std::string* name : listed) absl::StrAppend(&text, " '--", *name, "'");
  return Refuse(text);
}

void Emit(std::vector<std::string>* out, const Spec& spec,
          const std::optional<std::string>& value) {
  if (!value.has_value()) {
    out->push_back(spec.canonical);
  } else if (spec.flag_with_value) {
    out->push_back(absl::StrCat(spec.canonical, "=", *value));
  } else if (value->empty()) {
    out->push_back(spec.canonical);
    out->push_back("");  // CLI11 takes a separate empty argument as the value
  } else if (spec.canonical.size() > 2 && spec.canonical[1] == '-') {
    out->push_back(absl::StrCat(spec.canonical, "=", *value));
  } else {
    out->push_back(spec.canonical);
    out->push_back(*value);
  }
}

// Puts `table`'s long names in `table_order` (see NormalizeGetoptArgs).
void SortLongs(const std::vector<std::string>& table_order, Table* table) {
  // Each name's rank looked up once (a search per comparison was most of
  // sbatch's parsing: ~150 names).
  std::map<std::string_view, size_t> rank_of;
  for (size_t k = 0; k < table_order.size(); ++k) rank_of.emplace(table_order[k], k);
  std::vector<std::pair<size_t, size_t>> ranked;  // (rank, declaration index)
  ranked.reserve(table->longs.size());
  for (size_t k = 0; k < table->longs.size(); ++k) {
    auto found = rank_of.find(table->longs[k].first);
    ranked.emplace_back(found != rank_of.end() ? found->second : table_order.size(), k);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<std::string, Spec>> sorted;
  sorted.reserve(ranked.size());
  for (const auto& [rank, k] : ranked) sorted.push_back(std::move(table->longs[k]));
  table->longs = std::move(sorted);
}

// getopt_long's reading of `args` with `table`: the options found, in order,
// and the operands.
struct Found {
  const Spec* spec;
  std::optional<std::string> value;
};

absl::Status ReadArgs(const std::vector<std::string>& args, const Table& table, GetoptOrder order,
                      std::vector<Found>* options, std::vector<std::string>* operands_out) {
  std::vector<std::string>& operands = *operands_out;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      if (order == GetoptOrder::kStopAtOperand) break;
      operands.push_back(arg);
      continue;
    }
    if (arg[1] == '-') {
      const size_t eq = arg.find('=');
      const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      absl::StatusOr<const std::pair<std::string, Spec>*> entry = LookUpLong(table, name, arg);
      if (!entry.ok()) return entry.status();
      const Spec& spec = (*entry)->second;
      const std::string full = "--" + (*entry)->first;
      switch (spec.arity) {
        case Arity::kFlag:
          if (eq != std::string::npos) {
            return Refuse(absl::StrCat("option '", full, "' doesn't allow an argument"));
          }
          options->push_back({&spec, std::nullopt});
          break;
        case Arity::kOptional:
          options->push_back({&spec, eq == std::string::npos
                                         ? std::nullopt
                                         : std::optional<std::string>(arg.substr(eq + 1))});
          break;
        case Arity::kRequired:
          if (eq != std::string::npos) {
            options->push_back({&spec, arg.substr(eq + 1)});
          } else if (i + 1 < args.size()) {
            options->push_back({&spec, args[++i]});
          } else {
            return Refuse(absl::StrCat("option '", full, "' requires an argument"));
          }
          break;
      }
      continue;
    }
    // A group of short options: "-lN", "-ofmt", "-o" "fmt".
    for (size_t k = 1; k < arg.size(); ++k) {
      const char letter = arg[k];
      auto found = table.shorts.find(letter);
      if (found == table.shorts.end()) {
        return Refuse(absl::StrCat("invalid option -- '", std::string(1, letter), "'"));
      }
      const Spec& spec = found->second;
      if (spec.arity == Arity::kFlag) {
        options->push_back({&spec, std::nullopt});
        continue;
      }
      if (k + 1 < arg.size()) {
        options->push_back({&spec, arg.substr(k + 1)});
      } else if (spec.arity == Arity::kOptional) {
        options->push_back({&spec, std::nullopt});
      } else if (i + 1 < args.size()) {
        options->push_back({&spec, args[++i]});
      } else {
        return Refuse(
            absl::StrCat("option requires an argument -- '", std::string(1, letter), "'"));
      }
      break;
    }
  }
  operands.insert(operands.end(), args.begin() + i, args.end());
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<std::string>> NormalizeGetoptArgs(
    const std::vector<std::string>& args, const CLI::App& app, GetoptOrder order,
    const std::vector<std::string>& table_order) {
  Table table = BuildTable(app);
  if (!table_order.empty()) SortLongs(table_order, &table);
  std::vector<Found> found;
  std::vector<std::string> operands;
  if (absl::Status s = ReadArgs(args, table, order, &found, &operands); !s.ok()) return s;
  std::vector<std::string> options;
  for (const Found& option : found) Emit(&options, *option.spec, option.value);
  if (!operands.empty()) {
    options.push_back("--");
    options.insert(options.end(), operands.begin(), operands.end());
  }
  return options;
}

absl::StatusOr<GetoptParsed> ParseGetopt(const std::vector<std::string>& args,
                                         const std::vector<GetoptOption>& options,
                                         GetoptOrder order,
                                         const std::vector<std::string>& table_order) {
  Table table = BuildTable(options);
  if (!table_order.empty()) SortLongs(table_order, &table);
  std::vector<Found> found;
  GetoptParsed parsed;
  if (absl::Status s = ReadArgs(args, table, order, &found, &parsed.operands); !s.ok()) return s;
  parsed.found.reserve(found.size());
  for (Found& option : found) parsed.found.push_back({option.spec->index, std::move(option.value)});
  return parsed;
}

std::string GetoptErrorText(const std::string& program, const std::string& message) {
  return absl::StrCat(program, ": ", message, "\nTry \"", program,
                      " --help\" for more information\n");
}

int ParseGetoptCommandLine(CLI::App& app, const std::string& program, int argc,
                           const char* const* argv, std::vector<std::string>* operands,
                           GetoptOrder order, int error_exit) {
  // getopt takes the last of a repeated option; CLI11 would refuse the repeat.
  // (Flags keep their own policy: a counting flag such as -dd sums.)
  for (CLI::Option* option : app.get_options()) {
    if (!option->get_positional() && option->get_expected_max() == 1) {
      option->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    }
  }
  absl::StatusOr<std::vector<std::string>> normalized =
      NormalizeGetoptArgs(std::vector<std::string>(argv + 1, argv + argc), app, order);
  if (!normalized.ok()) {
    std::cerr << GetoptErrorText(program, std::string(normalized.status().message()));
    return error_exit;
  }
  if (operands != nullptr) {
    operands->clear();
    auto separator = std::find(normalized->begin(), normalized->end(), "--");
    if (separator != normalized->end()) {
      operands->assign(separator + 1, normalized->end());
      normalized->erase(separator, normalized->end());
    }
  }
  std::vector<std::string> reversed(normalized->rbegin(), normalized->rend());
  try {
    app.parse(std::move(reversed));
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    // What getopt cannot see: a value CLI11 could not convert (an option bound
    // to a number, a choice outside its set).
    std::cerr << GetoptErrorText(program, e.what());
    return error_exit;
  }
  return -1;
}

}  // namespace skiff::cli
