// NodedService::AttachStep: sattach on a job's step manager. See noded.proto.
//
// Threads of one call: the gRPC thread sends the step's layout, then drains
// this call's watcher (StepWatchers) into the stream until the step ends or
// sattach goes away; a reader thread forwards sattach's stdin to the step's
// tasks through its handle in the StepManager, which keeps the handle valid
// for the call (RunStep ends the step there before its StepRun goes).
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "common/rpc/auth_metadata.h"
#include "common/rpc/status.h"
#include "noded/noded_service.h"

namespace skiff::noded {
namespace {

// How long a call waits, once the step ended and sattach was told, for
// sattach to close its side (it does at once) before cancelling the call.
constexpr std::chrono::seconds kSattachHearsTheEnd{10};

}  // namespace

grpc::Status NodedService::AttachStep(
    grpc::ServerContext* context,
    grpc::ServerReaderWriter<v1::StepOutput, v1::AttachInput>* stream) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  std::optional<StreamSlot> slot;
  if (absl::Status s = TakeStreamSlot(caller->uid, &slot); !s.ok()) return ToGrpcStatus(s);
  v1::AttachInput first;
  if (!stream->Read(&first) || !first.has_request()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "the first message of an attach must name the step");
  }
  const v1::AttachRequest& request = first.request();
  absl::StatusOr<LaunchSpec> job = JobOfCaller(*caller, request.job_id());
  if (!job.ok()) return ToGrpcStatus(job.status());

  std::optional<LiveStep> live = steps_.FindLive(request.job_id(), request.step_id());
  if (!live) return grpc::Status(grpc::StatusCode::NOT_FOUND, "Invalid job id specified");
  v1::StepOutput layout;
  layout.set_created(true);
  layout.set_step_id(request.step_id());
  for (const StepNodeShare& share : live->grant.share.nodes) {
    v1::StepTaskPlacement* place = layout.add_placement();
    place->set_node(live->grant.nodes[share.node].name);
    for (int t : share.task_ids) place->add_task_ids(t);
  }
  const std::shared_ptr<StepWatchers>& watchers = live->watchers;
  // Attached before the layout is sent, so that nothing after it is missed.
  std::shared_ptr<StepWatchers::Watcher> watcher =
      request.layout_only() ? nullptr : watchers->Attach();
  stream->Write(layout);
  if (request.layout_only()) return grpc::Status::OK;
  if (watcher == nullptr) {  // ended meanwhile
    v1::StepOutput last;
    last.set_finished(true);
    stream->Write(last);
    return grpc::Status::OK;
  }

  std::mutex closed_mu;
  std::condition_variable closed_cv;
  bool sattach_closed = false;  // under closed_mu
  std::thread reader([&] {
    v1::AttachInput input;
    while (stream->Read(&input)) {
      v1::TaskInput forward;
      if (input.what_case() == v1::AttachInput::kStdin) {
        forward.set_stdin(input.stdin());
      } else if (input.what_case() == v1::AttachInput::kTaskStdin) {
        *forward.mutable_task_stdin() = input.task_stdin();
      } else {
        continue;
      }
      steps_.ActOnLive(request.job_id(), request.step_id(),
                       [&](StepHandle& step) { step.Input(forward); });
    }
    std::lock_guard<std::mutex> lock(closed_mu);
    sattach_closed = true;
    closed_cv.notify_all();
  });

  bool overflowed = false;
  for (bool more = true; more;) {
    v1::StepOutput out;
    switch (watcher->Next(std::chrono::milliseconds(200), &out)) {
      case WatchEvent::kMessage:
        more = stream->Write(out);
        break;
      case WatchEvent::kEnded:
        more = false;
        break;
      case WatchEvent::kOverflowed:
        out.Clear();
        out.set_error("sattach fell too far behind the step's output and was detached");
        stream->Write(out);
        overflowed = true;
        more = false;
        break;
      case WatchEvent::kTimeout:
        more = !context->IsCancelled();
        break;
    }
  }
  watchers->Detach(watcher);
  {
    std::unique_lock<std::mutex> lock(closed_mu);
    if (overflowed ||
        !closed_cv.wait_for(lock, kSattachHearsTheEnd, [&] { return sattach_closed; })) {
      context->TryCancel();  // ends the reader's Read
    }
  }
  reader.join();
  return grpc::Status::OK;
}

}  // namespace skiff::noded
