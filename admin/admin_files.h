// Files the admin tool writes (skiff init, skiff join): whole files replaced
// through a temporary and a rename, with their mode and owner set before the
// rename, so no reader ever sees a half-written key or one with loose modes.
#ifndef SKIFF_ADMIN_ADMIN_FILES_H_
#define SKIFF_ADMIN_ADMIN_FILES_H_

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace skiff::cli {

// The uid and gid of user `name`, nullopt when there is none.
std::optional<std::pair<uid_t, gid_t>> UserIds(const std::string& name);

// Writes `text` to `path` (parent directories made 0755) with `mode`, owned by
// `owner` when given. FailedPrecondition names the path.
absl::Status WriteFileAtomic(const std::string& path, const std::string& text, mode_t mode,
                             std::optional<std::pair<uid_t, gid_t>> owner = std::nullopt);

// The whole file; NotFound when it does not exist.
absl::StatusOr<std::string> ReadWholeFile(const std::string& path);

bool PathExists(const std::string& path);

// What is wrong with the secret file open on `fd` (a join token, a node key),
// or "" when nothing is: it must be a regular file of at most `max_bytes`,
// the caller's, closed to group and others. The text follows the file's
// name: "is not a regular file", "is 5000 bytes long", "may be read or
// replaced by other users (owner uid 1000, mode 0644)".
std::string SecretFileProblem(int fd, off_t max_bytes);

// `path` under the tests' --root prefix ("" leaves it as is).
std::string Under(const std::string& root, const std::string& path);

// A new munge key: 1024 bytes from the kernel's CSPRNG, as munge's own
// create-munge-key makes. Internal when there are none.
absl::StatusOr<std::string> NewMungeKey();

// The short host name (up to the first '.').
std::string ShortHostname();

// Runs a program (argv[0] looked up in PATH) and waits: OK on exit status 0,
// else Internal "<command> failed (exit N)". Injected so tests run none.
using CommandRunner = std::function<absl::Status(const std::vector<std::string>& argv)>;
CommandRunner SystemCommandRunner();

}  // namespace skiff::cli

#endif  // SKIFF_ADMIN_ADMIN_FILES_H_
