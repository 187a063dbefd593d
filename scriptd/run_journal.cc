#include "scriptd/run_journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "scriptd/process_groups.h"

namespace skiff::scriptd {
namespace {

std::string ErrnoText(int err) { return strerror(err); }

bool WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

bool RunJournal::Journalable(const std::string& request_id) {
  if (request_id.empty() || request_id.size() > 256) return false;
  return std::all_of(request_id.begin(), request_id.end(),
                     [](char c) { return c > ' ' && c < 0x7f; });
}

absl::StatusOr<std::unique_ptr<RunJournal>> RunJournal::Open(const std::string& path,
                                                             int64_t now_unix,
                                                             spdlog::logger& logger) {
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::UnavailableError(absl::StrCat("cannot open ", path, ": ", ErrnoText(errno)));
  }
  std::unique_ptr<RunJournal> journal(new RunJournal(path, fd, logger));
  std::ifstream in(path);
  std::string line;
  std::map<std::string, Running> started;
  absl::MutexLock lock(&journal->mu_);
  // A line is complete only with its newline: getline() at EOF without one is a
  // torn write, skipped.
  std::stringstream text;
  text << in.rdbuf();
  const std::string all = text.str();
  size_t start = 0;
  while (start < all.size()) {
    const size_t end = all.find('\n', start);
    if (end == std::string::npos) break;
    line = all.substr(start, end - start);
    start = end + 1;
    std::vector<std::string> fields = absl::StrSplit(line, ' ');
    if (fields.size() == 4 && fields[0] == "S") {
      Running running;
      int pgid = 0;
      if (absl::SimpleAtoi(fields[2], &pgid) && absl::SimpleAtoi(fields[3], &running.start_ticks)) {
        running.pgid = pgid;
        started[fields[1]] = running;
      }
    } else if (fields.size() == 2 && fields[0] == "E") {
      started.erase(fields[1]);
    } else if (fields.size() == 4 && fields[0] == "D") {
      Recorded recorded;
      if (absl::SimpleAtoi(fields[2], &recorded.at) &&
          absl::Base64Unescape(fields[3], &recorded.reply)) {
        journal->results_[fields[1]] = std::move(recorded);
      }
    }
  }
  for (const auto& [id, running] : started) {
    journal->leftovers_.push_back(Leftover{id, running.pgid, running.start_ticks});
  }
  journal->PruneLocked(now_unix);
  return journal;
}

RunJournal::~RunJournal() {
  absl::MutexLock lock(&mu_);
  if (fd_ >= 0) close(fd_);
}

void RunJournal::PruneLocked(int64_t now_unix) {
  for (auto it = results_.begin(); it != results_.end();) {
    it = now_unix - it->second.at > kKeepResults ? results_.erase(it) : std::next(it);
  }
  if (results_.size() <= kMaxResults) return;
  std::vector<std::pair<int64_t, std::string>> by_age;
  for (const auto& [id, recorded] : results_) by_age.emplace_back(recorded.at, id);
  std::sort(by_age.begin(), by_age.end());
  for (size_t i = 0; i + kMaxResults < by_age.size(); ++i) results_.erase(by_age[i].second);
}

absl::Status RunJournal::Compact() {
  absl::MutexLock lock(&mu_);
  return CompactLocked();
}

absl::Status RunJournal::CompactLocked() {
  std::string text;
  for (const auto& [id, running] : running_) {
    absl::StrAppend(&text, "S ", id, " ", running.pgid, " ", running.start_ticks, "\n");
  }
  for (const auto& [id, recorded] : results_) {
    absl::StrAppend(&text, "D ", id, " ", recorded.at, " ", absl::Base64Escape(recorded.reply),
                    "\n");
  }
  // Written beside the journal and renamed over it: a crash leaves one or the other.
  const std::string temp = path_ + ".new";
  const int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return absl::UnavailableError(absl::StrCat(temp, ": ", ErrnoText(errno)));
  const bool written = WriteAll(fd, text);
  const int err = errno;
  close(fd);
  if (!written) {
    unlink(temp.c_str());
    return absl::UnavailableError(absl::StrCat(temp, ": ", ErrnoText(err)));
  }
  if (rename(temp.c_str(), path_.c_str()) != 0) {
    const int rename_err = errno;
    unlink(temp.c_str());
    return absl::UnavailableError(absl::StrCat(path_, ": ", ErrnoText(rename_err)));
  }
  const int reopened = open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (reopened < 0) return absl::UnavailableError(absl::StrCat(path_, ": ", ErrnoText(errno)));
  close(fd_);
  fd_ = reopened;
  appended_ = 0;
  return absl::OkStatus();
}

void RunJournal::AppendLocked(const std::string& line) {
  if (!WriteAll(fd_, line)) {
    if (!write_failed_) {
      logger_.error("cannot write {}: {}: after a scriptd crash, scripts may run twice", path_,
                    ErrnoText(errno));
    }
    write_failed_ = true;
    return;
  }
  write_failed_ = false;
  appended_ += line.size();
  if (appended_ < kCompactBytes) return;
  PruneLocked(time(nullptr));
  if (absl::Status compacted = CompactLocked(); !compacted.ok()) {
    logger_.warn("cannot compact the run journal: {}", std::string(compacted.message()));
    appended_ = 0;  // try again after as many bytes more
  }
}

void RunJournal::ChildStarted(const std::string& request_id, pid_t pgid) {
  if (!Journalable(request_id)) return;
  // Read while the child cannot have been reaped (Run() reaps it later), so its
  // /proc entry exists even if it has already exited.
  const uint64_t start_ticks = ProcessStartTicks(pgid).value_or(0);
  absl::MutexLock lock(&mu_);
  running_[request_id] = Running{pgid, start_ticks};
  AppendLocked(absl::StrCat("S ", request_id, " ", pgid, " ", start_ticks, "\n"));
}

void RunJournal::ChildEnded(const std::string& request_id) {
  if (!Journalable(request_id)) return;
  absl::MutexLock lock(&mu_);
  running_.erase(request_id);
  AppendLocked(absl::StrCat("E ", request_id, "\n"));
}

void RunJournal::RecordResult(const std::string& request_id, const std::string& reply,
                              int64_t now_unix) {
  if (!Journalable(request_id)) return;
  absl::MutexLock lock(&mu_);
  results_[request_id] = Recorded{now_unix, reply};
  AppendLocked(absl::StrCat("D ", request_id, " ", now_unix, " ", absl::Base64Escape(reply), "\n"));
}

std::optional<std::string> RunJournal::Result(const std::string& request_id) const {
  absl::MutexLock lock(&mu_);
  auto it = results_.find(request_id);
  if (it == results_.end()) return std::nullopt;
  return it->second.reply;
}

}  // namespace skiff::scriptd
