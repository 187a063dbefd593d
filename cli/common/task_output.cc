#include "cli/common/task_output.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "absl/strings/str_cat.h"

namespace skiff::cli {

std::string TaskLabel(int task_id, int ntasks) {
  const int width = static_cast<int>(absl::StrCat(std::max(0, ntasks - 1)).size());
  std::string id = absl::StrCat(task_id);
  if (static_cast<int>(id.size()) < width) id.insert(0, width - id.size(), ' ');
  return absl::StrCat(id, ": ");
}

void LabeledOutput::Add(int task, bool is_stderr, const std::string& data) {
  const int fd = is_stderr ? 2 : 1;
  if (!label_) {
    write_(fd, data);
    return;
  }
  std::string& pending = pending_[{task, is_stderr}];
  pending += data;
  std::string out;
  size_t start = 0;
  for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
    out += TaskLabel(task, ntasks_) + pending.substr(start, nl + 1 - start);
  }
  pending.erase(0, start);
  if (!out.empty()) write_(fd, out);
}

void LabeledOutput::Flush(int task) {
  for (bool is_stderr : {false, true}) {
    auto it = pending_.find({task, is_stderr});
    if (it == pending_.end() || it->second.empty()) continue;
    write_(is_stderr ? 2 : 1, TaskLabel(task, ntasks_) + it->second + "\n");
    it->second.clear();
  }
}

void WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

}  // namespace skiff::cli
