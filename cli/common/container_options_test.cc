#include "cli/common/container_options.h"

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

#include "cli/common/getopt_args.h"

namespace skiff::cli {
namespace {

absl::StatusOr<ContainerBuild> Build(const ContainerOptions& options) {
  return BuildContainerRequest(options, "/home/ada/work");
}

std::string Error(const ContainerOptions& options) {
  absl::StatusOr<ContainerBuild> built = Build(options);
  return built.ok() ? "ok" : std::string(built.status().message());
}

TEST(BuildContainerRequest, NothingGivenIsNoContainer) {
  absl::StatusOr<ContainerBuild> built = Build({});
  ASSERT_TRUE(built.ok()) << built.status();
  EXPECT_FALSE(HasContainer(built->request));
  EXPECT_EQ(built->request.ByteSizeLong(), 0u);
  EXPECT_TRUE(built->warnings.empty());
}

TEST(BuildContainerRequest, ABundleIsMadeAbsoluteAgainstTheCurrentDirectory) {
  ContainerOptions options;
  options.bundle = "/srv/bundles/alpine";
  EXPECT_EQ(Build(options)->request.bundle(), "/srv/bundles/alpine");
  options.bundle = "bundles/alpine";
  EXPECT_EQ(Build(options)->request.bundle(), "/home/ada/work/bundles/alpine");
  options.bundle = "./alpine";
  EXPECT_EQ(Build(options)->request.bundle(), "/home/ada/work/alpine");
  options.bundle = ".";
  EXPECT_EQ(Build(options)->request.bundle(), "/home/ada/work");
  EXPECT_TRUE(HasContainer(Build(options)->request));
  options.bundle = "";
  EXPECT_EQ(Error(options),
            "Invalid --container specification: the path of an OCI bundle is required");
}

TEST(BuildContainerRequest, AnImageWithEveryPyxisOption) {
  ContainerOptions options;
  options.image = "nvcr.io#nvidia/pytorch:24.01-py3";
  options.mounts = "/data:/data:ro+rprivate,./out:/out,/scratch,tmpfs:/tmp:x-create=dir";
  options.workdir = "/workspace";
  options.env = "NCCL_DEBUG,HOME";
  options.name = "torch:exec";
  options.remap_root = true;
  options.mount_home = false;
  absl::StatusOr<ContainerBuild> built = Build(options);
  ASSERT_TRUE(built.ok()) << built.status();
  const v1::ContainerRequest& r = built->request;
  EXPECT_TRUE(r.bundle().empty());
  EXPECT_EQ(r.image(), "nvcr.io#nvidia/pytorch:24.01-py3");
  ASSERT_EQ(r.mounts_size(), 4);
  EXPECT_EQ(r.mounts(0), "/data:/data:ro+rprivate");
  EXPECT_EQ(r.mounts(1), "./out:/out");
  EXPECT_EQ(r.mounts(2), "/scratch");
  EXPECT_EQ(r.mounts(3), "tmpfs:/tmp:x-create=dir");
  EXPECT_EQ(r.workdir(), "/workspace");
  ASSERT_EQ(r.env_size(), 2);
  EXPECT_EQ(r.env(0), "NCCL_DEBUG");
  EXPECT_EQ(r.env(1), "HOME");
  EXPECT_EQ(r.name(), "torch:exec");
  EXPECT_TRUE(r.remap_root());
  EXPECT_TRUE(r.no_mount_home());
  EXPECT_TRUE(built->warnings.empty());
  options.mount_home = true;  // --container-mount-home: pyxis's default anyway
  options.remap_root = false;
  EXPECT_FALSE(Build(options)->request.no_mount_home());
  EXPECT_FALSE(Build(options)->request.remap_root());
}

TEST(BuildContainerRequest, AContainerNameAloneIsAContainer) {
  ContainerOptions options;
  options.name = "saved";
  options.mounts = "/data";
  absl::StatusOr<ContainerBuild> built = Build(options);
  ASSERT_TRUE(built.ok()) << built.status();
  EXPECT_TRUE(HasContainer(built->request));
  EXPECT_EQ(built->request.mounts_size(), 1);
  EXPECT_TRUE(built->warnings.empty());
}

TEST(BuildContainerRequest, ABundleAndAnImageOrANameAreRefused) {
  ContainerOptions options;
  options.bundle = "/b";
  options.image = "ubuntu";
  absl::StatusOr<ContainerBuild> built = Build(options);
  ASSERT_FALSE(built.ok());
  EXPECT_EQ(built.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(built.status().message(),
            "--container and --container-image options are mutually exclusive");
  options.image.reset();
  options.name = "n";
  EXPECT_EQ(Error(options), "--container and --container-name options are mutually exclusive");
}

TEST(BuildContainerRequest, PyxisOptionsWithoutAnImageAreIgnoredWithAWarning) {
  ContainerOptions options;
  options.bundle = "/b";
  options.mounts = "/data";
  options.workdir = "/w";
  options.env = "A";
  options.remap_root = false;
  options.mount_home = false;
  absl::StatusOr<ContainerBuild> built = Build(options);
  ASSERT_TRUE(built.ok()) << built.status();
  EXPECT_EQ(built->request.bundle(), "/b");
  EXPECT_EQ(built->request.mounts_size(), 0);
  EXPECT_TRUE(built->request.workdir().empty());
  EXPECT_EQ(built->request.env_size(), 0);
  EXPECT_FALSE(built->request.no_mount_home());
  EXPECT_EQ(built->warnings,
            (std::vector<std::string>{
                "ignoring --container-mounts because neither --container-image nor "
                "--container-name is set",
                "ignoring --container-workdir because neither --container-image nor "
                "--container-name is set",
                "ignoring --container-env because neither --container-image nor "
                "--container-name is set",
                "ignoring --[no-]container-mount-home because neither --container-image nor "
                "--container-name is set",
                "ignoring --[no-]container-remap-root because neither --container-image nor "
                "--container-name is set"}));
  options.bundle.reset();
  built = Build(options);
  ASSERT_TRUE(built.ok());
  EXPECT_FALSE(HasContainer(built->request));
  EXPECT_EQ(built->request.ByteSizeLong(), 0u) << "nothing travels";
}

TEST(BuildContainerRequest, BadMountsNameTheOptionAndTheEntry) {
  ContainerOptions options;
  options.image = "ubuntu";
  const std::pair<const char*, const char*> cases[] = {
      {"", "--container-mounts: argument required"},
      {"/a:/a,,/b", "--container-mounts: empty entry in /a:/a,,/b"},
      {"/a:/a,", "--container-mounts: empty entry in /a:/a,"},
      {"/a::ro", "--container-mounts: invalid format: /a::ro"},
      {":/a", "--container-mounts: invalid format: :/a"},
      {"data:/data",
       "--container-mounts: mount source must be a relative path, an absolute path, \"tmpfs\" "
       "or \"umount\": data:/data"},
      {"/data:data",
       "--container-mounts: mount target must be a relative path or an absolute path: "
       "/data:data"},
      {"/data:/data:ro+bogus",
       "--container-mounts: unknown mount flag \"bogus\" in /data:/data:ro+bogus (flags are "
       "separated by \"+\")"},
      {"/data:/data:ro,rprivate",
       "--container-mounts: mount source must be a relative path, an absolute path, \"tmpfs\" "
       "or \"umount\": rprivate"},
      {"/data:/data:ro:x",
       "--container-mounts: unknown mount flag \"ro:x\" in /data:/data:ro:x (flags are "
       "separated by \"+\")"},
  };
  for (const auto& [mounts, message] : cases) {
    options.mounts = mounts;
    EXPECT_EQ(Error(options), message) << mounts;
  }
  options.mounts = "/data:/data:";  // an empty FLAGS is none, as pyxis reads it
  EXPECT_EQ(Error(options), "ok");
  options.mounts = "umount:/etc/hosts";
  EXPECT_EQ(Error(options), "ok");
}

TEST(BuildContainerRequest, BadValuesOfTheOtherOptions) {
  ContainerOptions options;
  options.image = "";
  EXPECT_EQ(Error(options), "--container-image: argument required");
  options.image = "ubuntu";
  options.workdir = "";
  EXPECT_EQ(Error(options), "--container-workdir: argument required");
  options.workdir.reset();
  options.env = "A,,B";
  EXPECT_EQ(Error(options), "--container-env: invalid format: A,,B");
  options.env = "A=1";
  EXPECT_EQ(Error(options), "--container-env: invalid variable name: A=1");
  options.env.reset();
  for (const char* good : {"n", "n:", "n:auto", "n:create", "n:exec", "n:no_exec"}) {
    options.name = good;
    EXPECT_EQ(Error(options), "ok") << good;
  }
  options.name = "n:reuse";
  EXPECT_EQ(Error(options),
            "--container-name: flag must be \"auto\", \"create\", \"exec\" or \"no_exec\"");
  options.name = ":exec";
  EXPECT_EQ(Error(options), "--container-name: empty name");
  options.name = "caf\xe9";
  EXPECT_EQ(Error(options), "--container-name: not valid UTF-8");
  options.name.reset();
  options.image = "caf\xe9";
  EXPECT_EQ(Error(options), "--container-image: not valid UTF-8");
}

// salloc's and srun's command lines: the options through getopt's reading,
// and the last of two opposing flags winning.
ContainerOptions Parse(std::vector<std::string> args) {
  CLI::App app{"test"};
  app.set_help_flag();
  ContainerOptions options;
  ContainerFlags flags;
  AddContainerOptions(app, &options, &flags);
  std::vector<const char*> argv = {"test"};
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  std::vector<std::string> operands;
  EXPECT_EQ(ParseGetoptCommandLine(app, "test", static_cast<int>(argv.size()), argv.data(),
                                   &operands, GetoptOrder::kStopAtOperand),
            -1);
  ApplyContainerFlags(app, flags, &options);
  return options;
}

TEST(AddContainerOptions, ReadAsGetoptReadsThemAndTheLastFlagWins) {
  ContainerOptions o =
      Parse({"--container=/b", "--container-image", "ubuntu", "--container-mounts=/a:/a",
             "--container-workdir=/w", "--container-env=A,B", "--container-name=n:create"});
  EXPECT_EQ(o.bundle, "/b");
  EXPECT_EQ(o.image, "ubuntu");
  EXPECT_EQ(o.mounts, "/a:/a");
  EXPECT_EQ(o.workdir, "/w");
  EXPECT_EQ(o.env, "A,B");
  EXPECT_EQ(o.name, "n:create");
  EXPECT_FALSE(o.remap_root.has_value());
  EXPECT_FALSE(o.mount_home.has_value());
  o = Parse({"--container-remap-root", "--no-container-remap-root", "--no-container-mount-home",
             "--container-mount-home"});
  EXPECT_EQ(o.remap_root, false);
  EXPECT_EQ(o.mount_home, true);
  o = Parse({"--no-container-remap-root", "--container-remap-root", "--no-container-mount-home"});
  EXPECT_EQ(o.remap_root, true);
  EXPECT_EQ(o.mount_home, false);
  // --container is an option of its own, not an abbreviation of the others.
  EXPECT_EQ(Parse({"--container", "/x"}).bundle, "/x");
}

}  // namespace
}  // namespace skiff::cli
