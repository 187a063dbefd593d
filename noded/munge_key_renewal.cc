#include "noded/munge_key_renewal.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "admin/node_key.h"
#include "noded/run_captured.h"

namespace skiff::noded {
namespace {

constexpr int kFetchTimeoutSeconds = 10;
constexpr std::chrono::seconds kRestartTimeout{60};

double SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The node key file's munge_restart, run as noded runs its helpers (a fresh
// process group, a timeout).
absl::Status RunRestart(const std::vector<std::string>& argv) {
  CapturedRun run = RunCaptured(argv, kRestartTimeout, "munge restart");
  if (run.ok) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(
      absl::StrJoin(argv, " "), " failed (",
      run.timed_out ? "timed out" : absl::StrCat("exit ", run.exit_code), "): ", run.output));
}

}  // namespace

bool RenewalPacer::Due(double now) {
  if (tried_ && now - last_ < interval_) return false;
  tried_ = true;
  last_ = now;
  return true;
}

MungeKeyRenewer::MungeKeyRenewer(std::string node_key_path, spdlog::logger& logger)
    : node_key_path_(std::move(node_key_path)), logger_(logger) {}

void MungeKeyRenewer::OnCredentialRefused() {
  if (!pacer_.Due(SteadySeconds())) return;
  absl::StatusOr<cli::NodeKeyFile> file = cli::ReadNodeKeyFile(node_key_path_);
  if (!file.ok()) {
    logger_.error("ctld refuses this node's credential, and the munge key cannot be fetched: {}",
                  std::string(file.status().message()));
    return;
  }
  absl::StatusOr<cli::MungeKeyRenewal> renewed =
      cli::RenewMungeKey(*file, RunRestart, kFetchTimeoutSeconds);
  if (!renewed.ok()) {
    logger_.error("ctld refuses this node's credential; fetching the munge key from {} failed: {}",
                  file->controller, std::string(renewed.status().message()));
  } else if (*renewed == cli::MungeKeyRenewal::kUnchanged) {
    logger_.warn(
        "ctld refuses this node's credential, but this node has the cluster's munge key already "
        "(munged not restarted with it yet, or clocks apart?)");
  } else {
    logger_.info(
        "ctld refused this node's credential: installed the cluster's new munge key in "
        "{}{}",
        file->munge_key,
        file->munge_restart.empty() ? " (munged is restarted by whoever started it)"
                                    : " and restarted munged");
  }
}

}  // namespace skiff::noded
