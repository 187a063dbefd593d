// RunJournal: what scriptd must remember across its own death (kill -9, OOM),
// kept in one append-only file under ctld's StateSaveLocation.
//
// - The process groups it started and has not seen end. The next scriptd kills
//   what is left of them before it serves (process_groups.h), so a script that
//   scriptd's death cut off never runs on beside its re-run.
// - The results of requests ctld marked run_once (PrologSlurmctld,
//   EpilogSlurmctld, mail). ctld issues such a request again with the same
//   request_id when it did not get the answer (scriptd died after the script
//   ended, or ctld restarted before it stored the outcome); scriptd then answers
//   the recorded result instead of running the script a second time. A script
//   that was cut off has no result and runs again, once per request.
//
// Lines: "S <id> <pgid> <start_ticks>", "E <id>", "D <id> <unix_time> <base64>".
// A torn last line (scriptd died mid-write) is ignored. Each line is one write(2)
// on an O_APPEND descriptor, without fsync: the file must survive scriptd's
// death, not the machine's (a machine that goes down takes the scripts with it).
// Results are kept for kKeepResults and at most kMaxResults of them; the file is
// rewritten with what is kept at Open() and whenever it has grown by kCompactBytes.
//
// Threads: any; one mutex guards the maps and the file. The ScriptRunner calls
// ChildStarted/ChildEnded on its Run() threads.
#ifndef SKIFF_SCRIPTD_RUN_JOURNAL_H_
#define SKIFF_SCRIPTD_RUN_JOURNAL_H_

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "scriptd/script_runner.h"
#include "spdlog/spdlog.h"

namespace skiff::scriptd {

class RunJournal final : public ChildObserver {
 public:
  static constexpr int64_t kKeepResults = 2 * 24 * 3600;  // seconds
  static constexpr size_t kMaxResults = 20000;
  static constexpr size_t kCompactBytes = 8 << 20;

  struct Leftover {
    std::string request_id;
    pid_t pgid = 0;
    uint64_t start_ticks = 0;
  };

  // Opens (creating, mode 0600) and reads `path`. The logger must outlive the journal.
  static absl::StatusOr<std::unique_ptr<RunJournal>> Open(const std::string& path, int64_t now_unix,
                                                          spdlog::logger& logger);
  ~RunJournal() override;

  // Groups the previous scriptd started and did not see end.
  const std::vector<Leftover>& leftovers() const { return leftovers_; }

  // Rewrites the file with the kept results alone; call once the leftovers are
  // dead (until then a crash must leave them in the file for the next scriptd).
  absl::Status Compact();

  void ChildStarted(const std::string& request_id, pid_t pgid) override;
  void ChildEnded(const std::string& request_id) override;

  // Records the answer to a run_once request (opaque bytes: a serialized reply).
  void RecordResult(const std::string& request_id, const std::string& reply, int64_t now_unix);
  // The recorded answer, if the request already ran to its end.
  std::optional<std::string> Result(const std::string& request_id) const;

  // A request id the journal can hold: non-empty, printable, no spaces.
  static bool Journalable(const std::string& request_id);

 private:
  struct Running {
    pid_t pgid = 0;
    uint64_t start_ticks = 0;
  };
  struct Recorded {
    int64_t at = 0;
    std::string reply;
  };

  RunJournal(std::string path, int fd, spdlog::logger& logger)
      : path_(std::move(path)), logger_(logger), fd_(fd) {}
  void AppendLocked(const std::string& line) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status CompactLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void PruneLocked(int64_t now_unix) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string path_;
  std::vector<Leftover> leftovers_;  // set by Open(), read-only after
  spdlog::logger& logger_;
  mutable absl::Mutex mu_;
  int fd_ ABSL_GUARDED_BY(mu_);
  size_t appended_ ABSL_GUARDED_BY(mu_) = 0;
  bool write_failed_ ABSL_GUARDED_BY(mu_) = false;  // logged once
  std::map<std::string, Running> running_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Recorded> results_ ABSL_GUARDED_BY(mu_);
};

}  // namespace skiff::scriptd

#endif  // SKIFF_SCRIPTD_RUN_JOURNAL_H_
