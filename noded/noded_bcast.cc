// NodedService::BroadcastFile: sbcast's file to every node of a job (or of
// one of its steps). See noded.proto and noded/file_broadcast.h.
//
// On the job's step manager (its first node), the call's one gRPC thread does
// everything in turn: it reads a chunk from sbcast, writes it to this node's
// copy, and writes it on to one BroadcastFile call per other node (forwarded),
// whose flow control bounds what is held: one chunk at a time, never the whole
// file. On another node a forwarded call writes that node's copy the same way.
// A node whose copy failed is dropped from the rest of the transfer; the
// others go on, and the reply says which failed and why.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/status.h"
#include "common/users.h"
#include "noded/file_broadcast.h"
#include "noded/noded_service.h"

namespace skiff::noded {
namespace {

void SetError(const CopyError& error, v1::BroadcastNodeResult* result) {
  result->set_error_number(error.error_number);
  result->set_error(error.text);
}

// The end of sbcast's stream without the whole file: sbcast went away or sent
// more or less than it announced.
std::string ShortTransfer(uint64_t got, uint64_t announced) {
  return absl::StrCat("the transfer ended after ", got, " of ", announced, " bytes");
}

// A forwarded call: this node's copy only, for the step manager.
grpc::Status ServeCopyHere(const std::string& node_name, const v1::BroadcastHeader& header,
                           grpc::ServerContext* context, grpc::ServerReader<v1::FileChunk>* reader,
                           v1::BroadcastFileReply* reply) {
  v1::BroadcastNodeResult* result = reply->add_results();
  result->set_node(node_name);
  const FileOwner owner{header.uid(), header.gid(), GroupsOfUser(header.user_name(), header.gid())};
  CopyError error;
  std::unique_ptr<BroadcastCopy> copy =
      BroadcastCopy::Open(owner, header.path(), header.force(), header.make_libs_dir(), &error);
  if (!copy) {
    SetError(error, result);
    return grpc::Status::OK;  // the step manager's next write fails; it reads this
  }
  v1::FileChunk chunk;
  while (reader->Read(&chunk)) {
    if (!copy->Write(chunk.data(), &error)) {
      SetError(error, result);
      return grpc::Status::OK;
    }
  }
  if (context->IsCancelled() || copy->written() != header.size()) {
    SetError({-1, ShortTransfer(copy->written(), header.size())}, result);
    return grpc::Status::OK;
  }
  std::optional<FileTimes> times;
  if (header.preserve()) times = FileTimes{header.atime(), header.mtime()};
  if (!copy->Finish(header.mode(), times, &error)) SetError(error, result);
  return grpc::Status::OK;
}

// One node of the transfer, as the step manager drives it.
struct Target {
  std::string name;
  v1::BroadcastNodeResult result;
  bool failed = false;
  std::unique_ptr<BroadcastCopy> local;  // this node's copy
  // Another node's: its forwarded call.
  std::unique_ptr<grpc::ClientContext> context;
  std::unique_ptr<grpc::ClientWriter<v1::FileChunk>> writer;
  v1::BroadcastFileReply reply;
  bool writer_broken = false;  // a write failed: its call's end says why
};

}  // namespace

grpc::Status NodedService::BroadcastFile(grpc::ServerContext* context,
                                         grpc::ServerReader<v1::FileChunk>* reader,
                                         v1::BroadcastFileReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  const bool privileged = caller->uid == 0 || caller->uid == slurm_user_uid_;
  // Refused before this thread waits for the header, as RunStep's streams.
  std::optional<StreamSlot> slot;
  if (absl::Status s = TakeStreamSlot(caller->uid, &slot); !s.ok()) return ToGrpcStatus(s);
  v1::FileChunk first;
  if (!reader->Read(&first) || !first.has_header()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "the first message of a broadcast must be its header");
  }
  const v1::BroadcastHeader& header = first.header();
  if (std::string bad = BadDestination(header.path()); !bad.empty()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, bad);
  }
  if (header.forwarded()) {
    // The step manager of a job with a node here vouches for the job and its
    // user, as it does for RunTasks.
    if (!privileged) {
      return grpc::Status(grpc::StatusCode::PERMISSION_DENIED, "Access/permission denied");
    }
    return ServeCopyHere(node_name_, header, context, reader, reply);
  }

  const uint64_t job_id = header.job_id();
  absl::StatusOr<LaunchSpec> job = JobOfCaller(*caller, job_id);
  if (!job.ok()) return ToGrpcStatus(job.status());
  // Which nodes: the job's, its batch host's, or a running step's.
  std::vector<std::pair<std::string, std::string>> nodes;  // (name, noded address)
  if (header.has_step() && header.batch_step()) {
    nodes.emplace_back(node_name_, "");
  } else if (header.has_step()) {
    std::optional<LiveStep> live = steps_.FindLive(job_id, header.step_id());
    if (!live) return grpc::Status(grpc::StatusCode::NOT_FOUND, "Invalid job id specified");
    nodes = StepNodeAddresses(live->grant);
  } else {
    for (const AllocatedNode& n : job->allocation) nodes.emplace_back(n.name, n.address);
    if (nodes.empty()) nodes.emplace_back(node_name_, "");  // launched by an older ctld
  }
  if (logger_ != nullptr) {
    logger_->info("sbcast JobId={} uid={} fname={} size={} to {} node(s)", job_id, caller->uid,
                  header.path(), header.size(), nodes.size());
  }

  // Every copy is the job's user's, whoever sent it (root included).
  const FileOwner owner{job->uid, job->gid, GroupsOfUser(job->user_name, job->gid)};
  v1::FileChunk forward_header = first;
  v1::BroadcastHeader* forwarded = forward_header.mutable_header();
  forwarded->set_forwarded(true);
  forwarded->set_uid(job->uid);
  forwarded->set_gid(job->gid);
  forwarded->set_user_name(job->user_name);

  std::vector<Target> targets(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    Target& target = targets[i];
    target.name = nodes[i].first;
    target.result.set_node(target.name);
    if (target.name == node_name_) {
      CopyError error;
      target.local =
          BroadcastCopy::Open(owner, header.path(), header.force(), header.make_libs_dir(), &error);
      if (!target.local) {
        SetError(error, &target.result);
        target.failed = true;
      }
      continue;
    }
    target.context = std::make_unique<grpc::ClientContext>();
    // sbcast's deadline (-t) bounds the forwards too; a node that cannot be
    // reached fails at once (no wait_for_ready).
    target.context->set_deadline(context->deadline());
    if (header.compress()) target.context->set_compression_algorithm(GRPC_COMPRESS_GZIP);
    if (absl::Status s = AttachCredential(auth_, target.context.get()); !s.ok()) {
      SetError({-1, std::string(s.message())}, &target.result);
      target.failed = true;
      continue;
    }
    target.writer = StubFor(nodes[i].second).BroadcastFile(target.context.get(), &target.reply);
    if (!target.writer->Write(forward_header)) target.writer_broken = true;
  }
  auto live = [](const Target& t) { return !t.failed && !t.writer_broken; };

  uint64_t received = 0;
  v1::FileChunk chunk;
  bool any_live = true;
  while (any_live && reader->Read(&chunk)) {
    if (!chunk.has_header()) received += chunk.data().size();
    any_live = false;
    for (Target& target : targets) {
      if (!live(target)) continue;
      if (chunk.has_header()) {
        SetError({EINVAL, "a second header in the file's data"}, &target.result);
        target.failed = true;
      } else if (target.local) {
        CopyError error;
        if (!target.local->Write(chunk.data(), &error)) {
          SetError(error, &target.result);
          target.failed = true;
        }
      } else if (!target.writer->Write(chunk)) {
        target.writer_broken = true;
      }
      any_live = any_live || live(target);
    }
  }
  // Every node failed (the file exists everywhere, say): the reply goes now,
  // and sbcast stops sending.
  const bool whole = any_live && !context->IsCancelled() && received == header.size();
  std::optional<FileTimes> times;
  if (header.preserve()) times = FileTimes{header.atime(), header.mtime()};
  for (Target& target : targets) {
    if (target.local && !target.failed) {
      CopyError error;
      if (!whole) {
        SetError({-1, ShortTransfer(received, header.size())}, &target.result);
      } else if (!target.local->Finish(header.mode(), times, &error)) {
        SetError(error, &target.result);
      }
      target.local.reset();
    } else if (target.writer) {
      if (!whole && !target.writer_broken) target.context->TryCancel();
      if (!target.writer_broken) target.writer->WritesDone();
      const grpc::Status status = target.writer->Finish();
      if (status.ok() && target.reply.results_size() == 1) {
        target.result = target.reply.results(0);
        target.result.set_node(target.name);
      } else if (!whole && (status.ok() || status.error_code() == grpc::StatusCode::CANCELLED)) {
        SetError({-1, ShortTransfer(received, header.size())}, &target.result);
      } else {
        SetError(
            {-1, absl::StrCat("Communication connection failure (", status.error_message(), ")")},
            &target.result);
      }
    }
    *reply->add_results() = target.result;
  }
  return grpc::Status::OK;
}

}  // namespace skiff::noded
