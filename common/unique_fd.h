// UniqueFd: owns one file descriptor and closes it when destroyed, reset or
// closed. Movable, not copyable; not thread-safe.
#ifndef SKIFF_COMMON_UNIQUE_FD_H_
#define SKIFF_COMMON_UNIQUE_FD_H_

#include <unistd.h>

namespace skiff {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.Release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) Reset(other.Release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { Close(); }

  // The descriptor, still owned here; -1 when none.
  int get() const { return fd_; }

  // Closes the descriptor held, if any, and holds `fd` (-1: none).
  void Reset(int fd) {
    Close();
    fd_ = fd;
  }

  // Closes the descriptor held, if any; none is held afterwards.
  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

  // Gives up the descriptor without closing it: the caller's now.
  int Release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

}  // namespace skiff

#endif  // SKIFF_COMMON_UNIQUE_FD_H_
