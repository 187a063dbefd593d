// An exclusive flock held for a scope: how noded's threads and the shepherds
// take turns at the image cache, a job's containers and the node's container
// namespaces (image_container.h, container_namespace.h).
//
// I/O: opens (creating) the lock file. Blocks until the lock is free.
#ifndef SKIFF_NODED_CONTAINER_FILE_LOCK_H_
#define SKIFF_NODED_CONTAINER_FILE_LOCK_H_

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace skiff::noded {

class FileLock {
 public:
  explicit FileLock(const std::string& path)
      : fd_(open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600)) {
    if (fd_ >= 0) {
      while (flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
      }
    }
  }
  ~FileLock() {
    if (fd_ >= 0) close(fd_);
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  bool ok() const { return fd_ >= 0; }

 private:
  int fd_;
};

}  // namespace skiff::noded

#endif  // SKIFF_NODED_CONTAINER_FILE_LOCK_H_
