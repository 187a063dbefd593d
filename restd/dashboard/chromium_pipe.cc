#include "restd/dashboard/chromium_pipe.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace skiff::restd {

using Json = nlohmann::json;

absl::StatusOr<std::unique_ptr<ChromiumPipe>> ChromiumPipe::Start(const Options& options) {
  int in[2], out[2];  // in: we write, Chromium reads on 3; out: Chromium writes on 4
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", strerror(errno)));
  }
  const std::string user_data = "--user-data-dir=" + options.user_data_dir;
  const std::vector<std::string> args = {options.binary,
                                         "--headless",
                                         "--no-sandbox",  // tests run as root
                                         "--disable-gpu",
                                         "--remote-debugging-pipe",
                                         user_data,
                                         "--no-first-run",
                                         "--no-default-browser-check",
                                         "--disable-extensions",
                                         "--disable-dev-shm-usage",
                                         "--hide-scrollbars",
                                         "--mute-audio",
                                         "--disable-background-networking",
                                         "--disable-component-update",
                                         "--disable-sync",
                                         "--password-store=basic",
                                         "about:blank"};
  const pid_t pid = fork();
  if (pid < 0) return absl::InternalError(absl::StrCat("fork: ", strerror(errno)));
  if (pid == 0) {
    // dup2 clears close-on-exec on the copies Chromium needs, but not when a
    // pipe end already is fd 3 or 4 (a process with few files open), nor may
    // one end land on the other's number: move both above them first.
    const int commands = fcntl(in[0], F_DUPFD, 10);
    const int replies = fcntl(out[1], F_DUPFD, 10);
    if (commands < 0 || replies < 0 || dup2(commands, 3) < 0 || dup2(replies, 4) < 0) _exit(126);
    const std::string log = options.log_path.empty() ? "/dev/null" : options.log_path;
    const int log_fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (log_fd >= 0) {
      dup2(log_fd, 1);
      dup2(log_fd, 2);
    }
    std::vector<char*> argv;
    for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  std::unique_ptr<ChromiumPipe> browser(new ChromiumPipe());
  browser->pid_ = pid;
  browser->to_browser_ = in[1];
  browser->from_browser_ = out[0];

  absl::StatusOr<Json> target = browser->Call("Target.createTarget", {{"url", "about:blank"}},
                                              /*browser=*/true, absl::Seconds(60));
  if (!target.ok()) return target.status();
  absl::StatusOr<Json> attached = browser->Call(
      "Target.attachToTarget", {{"targetId", (*target)["targetId"]}, {"flatten", true}}, true);
  if (!attached.ok()) return attached.status();
  browser->session_id_ = (*attached)["sessionId"].get<std::string>();
  for (const char* domain : {"Runtime.enable", "Log.enable", "Page.enable"}) {
    if (absl::StatusOr<Json> r = browser->Call(domain); !r.ok()) return r.status();
  }
  return browser;
}

ChromiumPipe::~ChromiumPipe() {
  if (to_browser_ >= 0 && pid_ > 0) {
    // Browser.close ends it cleanly; a browser that does not answer is killed.
    (void)Call("Browser.close", {}, /*browser=*/true, absl::Seconds(5));
  }
  if (to_browser_ >= 0) close(to_browser_);
  if (pid_ > 0) {
    for (int i = 0; i < 50; ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      usleep(100 * 1000);
    }
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  if (from_browser_ >= 0) close(from_browser_);
}

absl::Status ChromiumPipe::Send(const Json& message) {
  std::string bytes = message.dump();
  bytes.push_back('\0');
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(to_browser_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return absl::UnavailableError(absl::StrCat("to Chromium: ", strerror(errno)));
    done += n;
  }
  return absl::OkStatus();
}

void ChromiumPipe::Note(const Json& message) {
  if (message.contains("id")) {
    replies_.push_back(message);
    return;
  }
  const std::string method = message.value("method", "");
  const Json& params = message.contains("params") ? message["params"] : Json::object();
  if (method == "Runtime.consoleAPICalled" && params.value("type", "") == "error") {
    std::string text = "console.error:";
    for (const Json& arg : params.value("args", Json::array())) {
      absl::StrAppend(&text, " ",
                      arg.contains("value") ? arg["value"].dump() : arg.value("description", ""));
    }
    errors_.push_back(text);
  } else if (method == "Runtime.exceptionThrown") {
    const Json& details = params["exceptionDetails"];
    std::string text = details.value("text", "");
    if (details.contains("exception")) {
      absl::StrAppend(&text, " ", details["exception"].value("description", ""));
    }
    errors_.push_back("exception: " + text);
  } else if (method == "Log.entryAdded" && params["entry"].value("level", "") == "error") {
    errors_.push_back(absl::StrCat("log (", params["entry"].value("source", ""),
                                   "): ", params["entry"].value("text", ""), " ",
                                   params["entry"].value("url", "")));
  } else if (method == "Page.loadEventFired") {
    ++loads_;
  }
}

absl::Status ChromiumPipe::Pump(absl::Duration timeout) {
  struct pollfd fd = {from_browser_, POLLIN, 0};
  const int ms = static_cast<int>(absl::ToInt64Milliseconds(timeout));
  const int ready = poll(&fd, 1, ms);
  if (ready < 0 && errno != EINTR) return absl::InternalError(strerror(errno));
  if (ready <= 0) return absl::OkStatus();
  char chunk[1 << 16];
  const ssize_t n = read(from_browser_, chunk, sizeof(chunk));
  if (n == 0) return absl::UnavailableError("Chromium closed its end of the pipe");
  if (n < 0) {
    if (errno == EINTR) return absl::OkStatus();
    return absl::UnavailableError(absl::StrCat("from Chromium: ", strerror(errno)));
  }
  buffer_.append(chunk, n);
  size_t end;
  while ((end = buffer_.find('\0')) != std::string::npos) {
    const Json message = Json::parse(buffer_.substr(0, end), nullptr, false);
    buffer_.erase(0, end + 1);
    if (message.is_object()) Note(message);
  }
  return absl::OkStatus();
}

absl::StatusOr<Json> ChromiumPipe::Call(const std::string& method, Json params, bool browser,
                                        absl::Duration timeout) {
  const int id = next_id_++;
  Json message = {
      {"id", id}, {"method", method}, {"params", params.is_null() ? Json::object() : params}};
  if (!browser) message["sessionId"] = session_id_;
  if (absl::Status s = Send(message); !s.ok()) return s;
  const absl::Time deadline = absl::Now() + timeout;
  for (;;) {
    for (auto it = replies_.begin(); it != replies_.end(); ++it) {
      if ((*it)["id"] != id) continue;
      const Json reply = std::move(*it);
      replies_.erase(it);
      if (reply.contains("error")) {
        return absl::InternalError(absl::StrCat(method, ": ", reply["error"].dump()));
      }
      return reply.value("result", Json::object());
    }
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      return absl::DeadlineExceededError(absl::StrCat(method, ": no answer from Chromium"));
    }
    if (absl::Status s = Pump(std::min(left, absl::Milliseconds(200))); !s.ok()) return s;
  }
}

absl::Status ChromiumPipe::SetViewport(int width, int height, bool mobile) {
  absl::StatusOr<Json> r =
      Call("Emulation.setDeviceMetricsOverride",
           {{"width", width}, {"height", height}, {"deviceScaleFactor", 1}, {"mobile", mobile}});
  return r.status();
}

absl::Status ChromiumPipe::Navigate(const std::string& url) {
  const int loads_before = loads_;
  absl::StatusOr<Json> r = Call("Page.navigate", {{"url", url}});
  if (!r.ok()) return r.status();
  if (r->contains("errorText")) {
    return absl::UnavailableError(absl::StrCat(url, ": ", (*r)["errorText"].dump()));
  }
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (loads_ == loads_before) {
    if (absl::Now() > deadline) return absl::DeadlineExceededError(url + " did not load");
    if (absl::Status s = Pump(absl::Milliseconds(200)); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::StatusOr<Json> ChromiumPipe::Evaluate(const std::string& expression) {
  absl::StatusOr<Json> r =
      Call("Runtime.evaluate",
           {{"expression", expression}, {"returnByValue", true}, {"awaitPromise", true}});
  if (!r.ok()) return r.status();
  if (r->contains("exceptionDetails")) {
    return absl::InternalError(
        absl::StrCat(expression, " threw: ", (*r)["exceptionDetails"].dump()));
  }
  return (*r)["result"].value("value", Json());
}

absl::Status ChromiumPipe::WaitFor(const std::string& expression, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  for (;;) {
    absl::StatusOr<Json> value = Evaluate(absl::StrCat("!!(", expression, ")"));
    if (value.ok() && value->is_boolean() && value->get<bool>()) return absl::OkStatus();
    if (absl::Now() > deadline) {
      return absl::DeadlineExceededError(absl::StrCat(
          "still false: ", expression, value.ok() ? "" : " (" + value.status().ToString() + ")"));
    }
    // Keeps events flowing while waiting.
    if (absl::Status s = Pump(absl::Milliseconds(100)); !s.ok()) return s;
  }
}

absl::Status ChromiumPipe::Click(const std::string& selector) {
  const std::string where =
      absl::StrCat("(() => { const e = document.querySelector(", Json(selector).dump(),
                   "); if (!e) return null; e.scrollIntoView({block: 'center'});"
                   " const r = e.getBoundingClientRect();"
                   " return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()");
  absl::StatusOr<Json> point = Evaluate(where);
  if (!point.ok()) return point.status();
  if (!point->is_object()) return absl::NotFoundError(absl::StrCat("no element ", selector));
  for (const char* type : {"mousePressed", "mouseReleased"}) {
    absl::StatusOr<Json> r = Call("Input.dispatchMouseEvent", {{"type", type},
                                                               {"x", (*point)["x"]},
                                                               {"y", (*point)["y"]},
                                                               {"button", "left"},
                                                               {"clickCount", 1}});
    if (!r.ok()) return r.status();
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ChromiumPipe::Screenshot() {
  absl::StatusOr<Json> r =
      Call("Page.captureScreenshot", {{"format", "png"}, {"captureBeyondViewport", true}});
  if (!r.ok()) return r.status();
  std::string png;
  if (!absl::Base64Unescape((*r)["data"].get<std::string>(), &png)) {
    return absl::InternalError("the screenshot is not base64");
  }
  return png;
}

std::vector<std::string> ChromiumPipe::TakeErrors() {
  (void)Pump(absl::ZeroDuration());
  std::vector<std::string> errors;
  errors.swap(errors_);
  return errors;
}

}  // namespace skiff::restd
