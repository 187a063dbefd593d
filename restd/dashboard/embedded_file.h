// The dashboard's static files compiled into restd: the table that
// embed_files generates (dashboard_embedded.cc). Constant data; thread-safe.
#ifndef SKIFF_RESTD_DASHBOARD_EMBEDDED_FILE_H_
#define SKIFF_RESTD_DASHBOARD_EMBEDDED_FILE_H_

#include <cstddef>

namespace skiff::restd {

struct EmbeddedFile {
  const char* name;  // "index.html", as served under /dashboard/
  const char* bytes;
  size_t size;
};

extern const EmbeddedFile kEmbeddedFiles[];
extern const size_t kEmbeddedFileCount;

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_DASHBOARD_EMBEDDED_FILE_H_
