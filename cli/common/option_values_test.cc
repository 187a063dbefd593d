#include "cli/common/option_values.h"

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <array>
#include <string>
#include <vector>

#include "cli/common/getopt_args.h"
#include "cli/common/sbatch_options.h"

namespace skiff::cli {
namespace {

// Each as Slurm 22.05's srun and salloc said it on the anchor
// (../shared/slurm-anchor), with their exit codes.
TEST(CheckOptionValue, CountsAreParseIntsAndExitOne) {
  struct Case {
    std::string name, value, message;
  };
  for (const Case& c : std::vector<Case>{
           {"cpus-per-task", "x", "Invalid numeric value \"x\" for --cpus-per-task."},
           {"cpus-per-task", "0", "Invalid numeric value \"0\" for --cpus-per-task."},
           {"ntasks", "x", "Invalid numeric value \"x\" for --ntasks."},
           {"ntasks", "-1", "Invalid numeric value \"-1\" for --ntasks."},
           {"ntasks", "4294967296", "Invalid numeric value \"4294967296\" for --ntasks."},
           {"ntasks-per-node", "x", "Invalid numeric value \"x\" for --ntasks-per-node."},
           {"mincpus", "x", "Invalid numeric value \"x\" for --mincpus."},
           {"cpus-per-gpu", "x", "Invalid numeric value \"x\" for --cpus-per-gpu."},
           {"threads", "x", "Invalid numeric value \"x\" for --threads."},
           {"wait", "x", "Invalid numeric value \"x\" for --wait."},
           {"kill-on-bad-exit", "x", "Invalid numeric value \"x\" for --kill-on-bad-exit."},
           {"immediate", "x", "Invalid numeric value \"x\" for immediate."},
       }) {
    std::optional<OptionValueError> bad = CheckOptionValue(c.name, c.value);
    ASSERT_TRUE(bad.has_value()) << c.name << "=" << c.value;
    EXPECT_EQ(bad->message, c.message);
    EXPECT_EQ(bad->exit_code, 1) << c.message;
  }
  // Zero is a count for -W, -K and -I.
  for (const char* name : {"wait", "kill-on-bad-exit", "immediate"}) {
    EXPECT_FALSE(CheckOptionValue(name, "0").has_value()) << name;
  }
  EXPECT_FALSE(CheckOptionValue("ntasks", "12").has_value());
}

TEST(CheckOptionValue, WhatSlurmsOptionParserRefusesExits255) {
  struct Case {
    std::string name, value, message;
  };
  for (const Case& c : std::vector<Case>{
           {"mem", "abc", "Invalid --mem specification"},
           {"mem-per-cpu", "x", "Invalid --mem-per-cpu specification"},
           {"mem-per-gpu", "x", "Invalid --mem-per-gpu specification"},
           {"nodes", "x", "\"x\" is not a valid node count"},
           {"nodes", "2-y", "\"y\" is not a valid node count"},
           {"nodes", "3-1", "Maximum node count 1 is less than minimum node count 3"},
           {"nodes", "1-", "Maximum node count -1 is less than minimum node count 1"},
           {"time", "bad", "Invalid --time specification"},
           {"time", "4294967294", "Invalid --time specification"},
           {"begin", "soonish", "Invalid --begin specification: 'soonish'"},
           {"exclusive", "everyone", "Invalid --exclusive specification"},
           {"gpu-bind", "bad", "Invalid --gpu-bind argument: gpu:bad"},
           {"gpu-bind", "map_gpu:x", "Invalid --gpu-bind argument: gpu:map_gpu:x"},
           {"gpu-bind", "none;x", "Invalid --gpu-bind argument: gpu:none;x"},
       }) {
    std::optional<OptionValueError> bad = CheckOptionValue(c.name, c.value);
    ASSERT_TRUE(bad.has_value()) << c.name << "=" << c.value;
    EXPECT_EQ(bad->message, c.message);
    EXPECT_EQ(bad->exit_code, 255) << c.message;
  }
  // What Slurm takes as it reads it.
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"mem", "4G"},
           {"nodes", "0"},  // refused later, by the controller
           {"nodes", "2k"},
           {"nodes", "-3"},
           {"time", "1-00:00:00"},
           {"exclusive", "USER"},
           {"gpu-bind", "verbose,per_task:1"},
           {"gpu-bind", "closest"},
           {"gpu-bind", "mask_gpu:0x3,0x3"},
           {"gpu-bind", "map_gpu:0*2,1"},
           {"gpus", "x"},  // the controller's to refuse
       }) {
    EXPECT_FALSE(CheckOptionValue(name, value).has_value()) << name << "=" << value;
  }
}

// -B as Slurm's verify_socket_core_thread_count reads it (exit 1 on a bad part).
TEST(CheckOptionValue, ExtraNodeInfoPartsAreCountsRangesOrStars) {
  for (const char* good : {"2", "2:4", "2:4:1", "*:4", "2-4:*:2", ":2", "1k", "2:4:1:9"}) {
    EXPECT_FALSE(CheckOptionValue("extra-node-info", good).has_value()) << good;
  }
  EXPECT_EQ(CheckOptionValue("extra-node-info", "x")->message,
            "Invalid numeric value \"x\" for first arg of -B.");
  EXPECT_EQ(CheckOptionValue("extra-node-info", "2:4:y")->message,
            "Invalid numeric value \"y\" for third arg of -B.");
  EXPECT_EQ(CheckOptionValue("extra-node-info", "2:4:y")->exit_code, 1);
  EXPECT_EQ(CheckOptionValue("sockets-per-node", "0")->message,
            "Invalid numeric value \"0\" for --sockets-per-node.");
  EXPECT_EQ(CheckOptionValue("threads-per-core", "x")->exit_code, 1);
  EXPECT_EQ(*ExtraNodeInfoFloors("2-4:*"), (std::array<std::string, 3>{"2", "*", "*"}));
  EXPECT_EQ(*ExtraNodeInfoFloors("1:2:2"), (std::array<std::string, 3>{"1", "2", "2"}));
}

// -B sets all three floors, so the later of -B and --cores-per-socket wins
// for cores, as Slurm applies options in the command line's order.
TEST(ApplyTopologyOptions, TheLaterOptionWinsField) {
  auto apply = [](std::vector<const char*> argv) {
    CLI::App app{"salloc"};
    TopologyOptionValues given;
    app.add_option("-B,--extra-node-info", given.extra_node_info);
    app.add_option("--sockets-per-node", given.sockets_per_node);
    app.add_option("--cores-per-socket", given.cores_per_socket);
    app.add_option("--threads-per-core", given.threads_per_core);
    argv.insert(argv.begin(), "salloc");
    EXPECT_EQ(ParseGetoptCommandLine(app, "salloc", static_cast<int>(argv.size()), argv.data()),
              -1);
    std::optional<std::string> s, c, t;
    ApplyTopologyOptions(app, given, &s, &c, &t);
    return std::array<std::string, 3>{s.value_or("-"), c.value_or("-"), t.value_or("-")};
  };
  EXPECT_EQ(apply({"--cores-per-socket=4", "-B", "2"}),
            (std::array<std::string, 3>{"2", "*", "*"}));
  EXPECT_EQ(apply({"-B", "2", "--cores-per-socket=4"}),
            (std::array<std::string, 3>{"2", "4", "*"}));
  EXPECT_EQ(apply({"--threads-per-core=2"}), (std::array<std::string, 3>{"-", "-", "2"}));
}

// Slurm reads its options in the command line's order and stops at the
// first bad one: "-c x --mem=abc" exits 1, "--mem=abc -c x" 255.
TEST(CheckParsedOptionValues, TheFirstBadValueOnTheCommandLineWins) {
  auto check = [](std::vector<const char*> argv) {
    CLI::App app{"srun"};
    std::optional<std::string> cpus, mem, immediate;
    app.add_option("-c,--cpus-per-task", cpus);
    app.add_option("--mem", mem);
    app.add_option("-I,--immediate", immediate)->expected(0, 1);
    argv.insert(argv.begin(), "srun");
    EXPECT_EQ(ParseGetoptCommandLine(app, "srun", static_cast<int>(argv.size()), argv.data()), -1);
    return CheckParsedOptionValues(
        app, {{"cpus-per-task", &cpus}, {"mem", &mem}, {"immediate", &immediate}});
  };
  EXPECT_EQ(check({"-c", "x", "--mem=abc"})->exit_code, 1);
  EXPECT_EQ(check({"--mem=abc", "-c", "x"})->exit_code, 255);
  EXPECT_FALSE(check({"-I", "-c2", "--mem=1G"}).has_value()) << "a bare -I has nothing to check";
  EXPECT_EQ(check({"-Ix"})->message, "Invalid numeric value \"x\" for immediate.");
}

}  // namespace
}  // namespace skiff::cli
