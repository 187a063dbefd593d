// Tasks' output as srun and sattach print it: with -l every line starts with
// its task's label, and a partial line waits for its rest (or the task's end)
// so that two tasks' lines never mix. Pure: the caller supplies the writer.
#ifndef SKIFF_CLI_COMMON_TASK_OUTPUT_H_
#define SKIFF_CLI_COMMON_TASK_OUTPUT_H_

#include <functional>
#include <map>
#include <string>
#include <utility>

namespace skiff::cli {

// "%d" width of the largest task id, for -l labels: "0: " with fewer than 10
// tasks, " 0: " with 10 to 100.
std::string TaskLabel(int task_id, int ntasks);

class LabeledOutput {
 public:
  // `write(fd, bytes)`: 1 for stdout, 2 for stderr.
  using Writer = std::function<void(int fd, const std::string& bytes)>;
  LabeledOutput(bool label, int ntasks, Writer write)
      : label_(label), ntasks_(ntasks), write_(std::move(write)) {}

  void Add(int task, bool is_stderr, const std::string& data);
  // The task ended: its partial lines, if any, end with a newline.
  void Flush(int task);

 private:
  const bool label_;
  const int ntasks_;
  const Writer write_;
  std::map<std::pair<int, bool>, std::string> pending_;  // (task, is_stderr) -> partial line
};

// Writes all of `data` to `fd` (retrying short writes; gives up on an error).
void WriteAll(int fd, const std::string& data);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_COMMON_TASK_OUTPUT_H_
