// Time as an injected dependency: daemons use SystemClock, tests a FakeClock, and
// the pure cores take `now` as an argument instead.
#ifndef SKIFF_COMMON_CLOCK_H_
#define SKIFF_COMMON_CLOCK_H_

#include <atomic>
#include <cstdint>
#include <ctime>

namespace skiff {

class Clock {
 public:
  virtual ~Clock() = default;
  // Wall-clock seconds since the epoch.
  virtual int64_t Now() const = 0;
};

class SystemClock : public Clock {
 public:
  int64_t Now() const override { return static_cast<int64_t>(::time(nullptr)); }
};

// Thread-safe; starts at `start` and moves only when told.
class FakeClock : public Clock {
 public:
  explicit FakeClock(int64_t start = 1'700'000'000) : now_(start) {}
  int64_t Now() const override { return now_.load(); }
  void Advance(int64_t seconds) { now_ += seconds; }
  void Set(int64_t now) { now_ = now; }

 private:
  std::atomic<int64_t> now_;
};

}  // namespace skiff

#endif  // SKIFF_COMMON_CLOCK_H_
