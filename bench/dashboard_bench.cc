// Dashboard benchmark (issue 36): loads restd's lab dashboard in headless
// Chromium, signed in with a token, and prints when the page first painted
// and when each of its sections was drawn (the page's own marks,
// window.skiffDashboard.timings), best of three loads. Run by
// bench/restd_bench.sh against the cluster ./skiff bench starts.
//
//   dashboard_bench URL TOKEN
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "restd/dashboard/chromium_pipe.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: dashboard_bench URL TOKEN\n");
    return 2;
  }
  const std::string url = argv[1];
  const std::string token = argv[2];
  char profile[] = "/tmp/dashboard-bench-XXXXXX";
  if (mkdtemp(profile) == nullptr) {
    perror("mkdtemp");
    return 1;
  }
  // A browser that dies mid-command is an error here, not SIGPIPE.
  signal(SIGPIPE, SIG_IGN);
  skiff::restd::ChromiumPipe::Options options;
  options.user_data_dir = profile;
  options.log_path = std::string(profile) + ".log";
  auto browser = skiff::restd::ChromiumPipe::Start(options);
  if (!browser.ok()) {
    fprintf(stderr, "dashboard_bench: %s\n", std::string(browser.status().message()).c_str());
    return 1;
  }
  if (!(*browser)->SetViewport(1440, 900, false).ok()) return 1;
  double best_paint = -1, best_ready = -1;
  std::string timings;
  for (int run = 0; run < 3; ++run) {
    if (!(*browser)->Navigate("about:blank").ok() ||
        !(*browser)->Navigate(absl::StrCat(url, "#token=", token)).ok() ||
        !(*browser)->WaitFor("document.body.dataset.state === 'ready'", absl::Seconds(120)).ok()) {
      fprintf(stderr, "dashboard_bench: the page did not get ready (Chromium's log: %s)\n",
              options.log_path.c_str());
      return 1;
    }
    auto paint = (*browser)->Evaluate(
        "(performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime || -1");
    auto ready = (*browser)->Evaluate("window.skiffDashboard.timings.ready");
    auto marks = (*browser)->Evaluate("window.skiffDashboard.timings");
    if (!paint.ok() || !ready.ok() || !marks.ok()) return 1;
    const double p = paint->get<double>();
    const double r = ready->get<double>();
    if (best_paint < 0 || p < best_paint) best_paint = p;
    if (best_ready < 0 || r < best_ready) {
      best_ready = r;
      timings = marks->dump();
    }
  }
  printf("dashboard: first contentful paint %.0f ms, every section drawn by %.0f ms (best of 3)\n",
         best_paint, best_ready);
  printf("dashboard: the page's marks (ms since navigation): %s\n", timings.c_str());
  browser->reset();
  std::error_code ignored;
  std::filesystem::remove_all(profile, ignored);
  return 0;
}
