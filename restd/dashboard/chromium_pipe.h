// A headless Chromium driven through the DevTools protocol over
// --remote-debugging-pipe (fd 3: commands in, fd 4: replies and events out,
// each message a JSON object ending in '\0'), for the dashboard's browser
// test (issue 36). A pipe needs no port, no websocket and no HTTP client,
// and ends when Chromium does.
//
// One page (tab) is opened and attached with a flat session; Runtime, Log
// and Page events are collected, so a test can ask for every console error,
// uncaught exception and failed resource load the page produced.
//
// Test-only. Not thread-safe: one test thread drives it.
#ifndef SKIFF_RESTD_DASHBOARD_CHROMIUM_PIPE_H_
#define SKIFF_RESTD_DASHBOARD_CHROMIUM_PIPE_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace skiff::restd {

class ChromiumPipe {
 public:
  struct Options {
    std::string binary = "/usr/bin/chromium";
    std::string user_data_dir;  // required: a fresh directory
    std::string log_path;       // Chromium's own stdout/stderr ("" : /dev/null)
  };

  // Starts Chromium and opens one blank page.
  static absl::StatusOr<std::unique_ptr<ChromiumPipe>> Start(const Options& options);
  ~ChromiumPipe();  // closes the browser and reaps it
  ChromiumPipe(const ChromiumPipe&) = delete;
  ChromiumPipe& operator=(const ChromiumPipe&) = delete;

  // A protocol command on the page's session (or the browser's, with
  // `browser`); its "result", or the protocol's error as an error.
  absl::StatusOr<nlohmann::json> Call(const std::string& method, nlohmann::json params = {},
                                      bool browser = false,
                                      absl::Duration timeout = absl::Seconds(30));

  // Sets the viewport (CSS pixels) and whether it is a phone's.
  absl::Status SetViewport(int width, int height, bool mobile);
  // Navigates and waits for the load event.
  absl::Status Navigate(const std::string& url);
  // `expression`'s value (awaited if a promise), or the exception it threw.
  absl::StatusOr<nlohmann::json> Evaluate(const std::string& expression);
  // Polls `expression` until it is true, up to `timeout`.
  absl::Status WaitFor(const std::string& expression, absl::Duration timeout);
  // A real mouse click (press and release) at the centre of the first
  // element matching `selector`, after scrolling it into view.
  absl::Status Click(const std::string& selector);
  // A PNG of the whole page at the current viewport's width.
  absl::StatusOr<std::string> Screenshot();

  // Console errors, uncaught exceptions and error log entries (failed loads
  // included) seen since the last call, as text.
  std::vector<std::string> TakeErrors();

 private:
  ChromiumPipe() = default;
  absl::Status Send(const nlohmann::json& message);
  // Reads what is there (waiting up to `timeout` for something), storing
  // events and replies.
  absl::Status Pump(absl::Duration timeout);
  void Note(const nlohmann::json& message);

  pid_t pid_ = -1;
  int to_browser_ = -1;
  int from_browser_ = -1;
  std::string buffer_;
  int next_id_ = 1;
  std::string session_id_;
  std::vector<nlohmann::json> replies_;
  std::vector<std::string> errors_;
  int loads_ = 0;  // Page.loadEventFired seen
};

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_DASHBOARD_CHROMIUM_PIPE_H_
