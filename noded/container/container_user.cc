// skiff-container-user UID GID -- COMMAND ARGS...
//
// Inside an image container, where the runtime made the job's user root of
// the container's user namespace (rootless runc maps one id, to 0): enters a
// nested user namespace in which that same host user is UID:GID again, as
// pyxis leaves a user without --container-remap-root, and runs COMMAND there.
// Files the user owns on the host (home, the job's directory, the container's
// own root, which noded maps to them) are theirs inside too; root's
// capabilities go with the exec.
//
// Linked statically: it runs inside any image, whatever C library it has.
// Single-threaded; no allocation after the checks.
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

namespace {

int Fail(const char* what) {
  fprintf(stderr, "slurmstepd: error: container: %s: %s\n", what, strerror(errno));
  return 1;
}

bool WriteFile(const char* path, const char* text) {
  const int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const ssize_t length = static_cast<ssize_t>(strlen(text));
  const bool ok = write(fd, text, static_cast<size_t>(length)) == length;
  close(fd);
  return ok;
}

bool ParseId(const char* text, unsigned long* id) {
  char* end = nullptr;
  errno = 0;
  *id = strtoul(text, &end, 10);
  return errno == 0 && end != text && *end == '\0' && *id < 0xffffffffUL;
}

}  // namespace

int main(int argc, char** argv) {
  unsigned long uid = 0;
  unsigned long gid = 0;
  if (argc < 5 || !ParseId(argv[1], &uid) || !ParseId(argv[2], &gid) ||
      strcmp(argv[3], "--") != 0) {
    fprintf(stderr, "usage: %s UID GID -- COMMAND [ARGS...]\n", argv[0]);
    return 2;
  }
  if (uid != 0 || gid != 0) {
    // The mapping is our own id (0 here) only: allowed without privilege.
    const uid_t outer_uid = geteuid();
    const gid_t outer_gid = getegid();
    if (unshare(CLONE_NEWUSER) != 0) return Fail("cannot enter a user namespace");
    char map[64];
    snprintf(map, sizeof(map), "%lu %u 1\n", uid, static_cast<unsigned>(outer_uid));
    if (!WriteFile("/proc/self/uid_map", map)) return Fail("cannot write uid_map");
    if (!WriteFile("/proc/self/setgroups", "deny")) return Fail("cannot write setgroups");
    snprintf(map, sizeof(map), "%lu %u 1\n", gid, static_cast<unsigned>(outer_gid));
    if (!WriteFile("/proc/self/gid_map", map)) return Fail("cannot write gid_map");
  }
  execvp(argv[4], argv + 4);
  fprintf(stderr, "slurmstepd: error: container: cannot execute %s: %s\n", argv[4],
          strerror(errno));
  return errno == ENOENT ? 127 : 126;
}
