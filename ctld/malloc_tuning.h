// How ctld sets up glibc's allocator, first thing in main.
//
// The job table is the bulk of ctld's memory and is freed job by job as
// finished jobs are purged; what decides whether that memory goes back to the
// system is what else sits on its pages. glibc's per-thread caches (tcache:
// up to 7 freed chunks of each small size in every thread, and ctld keeps ~40
// threads, 32 of them gRPC handlers) hold freed chunks that the heap still
// counts as in use: scattered over the pages the jobs used, they kept ~4 MB
// resident after a 10,000-task array was purged, which malloc_trim could not
// return (bench/memory_bench.sh). Without them ctld is back within ~0.6 MB of
// its idle size after the purge, for ~5-10% of peak submission throughput.
//
// glibc reads its tunables once, when a program starts, so ctld re-executes
// itself once with glibc.malloc.tcache_count=0 added to GLIBC_TUNABLES (an
// admin's own setting of it is kept), then puts the variable back as it was
// so that scriptd and the scripts it runs do not inherit it.
#ifndef SKIFF_CTLD_MALLOC_TUNING_H_
#define SKIFF_CTLD_MALLOC_TUNING_H_

#include <optional>
#include <string>

namespace skiff::ctld {

// The GLIBC_TUNABLES value to re-execute with, given the current one (null
// when unset); nullopt when it already sets glibc.malloc.tcache_count.
std::optional<std::string> TunablesWithoutThreadCaches(const char* current);

// Re-executes the program (/proc/self/exe, same argv) with the tunables above
// when it has not been yet; after that execution, restores GLIBC_TUNABLES and
// the process name it was started as (not "exe").
// Returns (without re-executing) when nothing needs to change or exec fails:
// ctld then runs with the caches.
void TuneAllocator(char** argv);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_MALLOC_TUNING_H_
