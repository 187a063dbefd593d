// How a step manager talks to one node's tasks of a step (noded.proto's
// RunTasks messages), whichever side of the wire they are on:
//
// - TaskStream is the step manager's end: a RunTasks call to the node's noded
//   (RemoteTaskStream), or, for the step manager's own node, the same service
//   run in this process (LocalTaskStream), which saves a gRPC stream and two
//   munge credentials on every step that runs where its job's first task does.
// - TaskPeer is the tasks' end, as NodedService::ServeTasks sees it: the gRPC
//   server stream, or the local stream's other side.
//
// Threads: a TaskStream is written by any thread (callers serialize writes) and
// read by one; Cancel may come from any thread. LocalTaskStream runs the tasks'
// side on a thread of its own, joined by Finish.
#ifndef SKIFF_NODED_TASK_STREAMS_H_
#define SKIFF_NODED_TASK_STREAMS_H_

#include <grpcpp/grpcpp.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "proto/noded.grpc.pb.h"

namespace skiff::noded {

class TaskStream {
 public:
  virtual ~TaskStream() = default;
  virtual bool Write(const v1::TaskInput& input) = 0;
  virtual bool Read(v1::TaskOutput* output) = 0;
  virtual void WritesDone() = 0;
  // After Read returned false: how the call ended.
  virtual grpc::Status Finish() = 0;
  virtual void Cancel() = 0;
};

class TaskPeer {
 public:
  virtual ~TaskPeer() = default;
  virtual bool Read(v1::TaskInput* input) = 0;
  virtual bool Write(const v1::TaskOutput& output) = 0;
  virtual bool Cancelled() = 0;
};

class RemoteTaskStream final : public TaskStream {
 public:
  // Owns the call's context; `start` opens the call on it (null: no call, every
  // operation fails).
  explicit RemoteTaskStream(
      const std::function<std::unique_ptr<grpc::ClientReaderWriter<v1::TaskInput, v1::TaskOutput>>(
          grpc::ClientContext*)>& start);
  bool Write(const v1::TaskInput& input) override;
  bool Read(v1::TaskOutput* output) override;
  void WritesDone() override;
  grpc::Status Finish() override;
  void Cancel() override { context_.TryCancel(); }

 private:
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<v1::TaskInput, v1::TaskOutput>> stream_;
};

class LocalTaskStream final : public TaskStream, private TaskPeer {
 public:
  // Starts `serve` on its own thread with this stream's other side.
  explicit LocalTaskStream(std::function<void(TaskPeer&)> serve);
  ~LocalTaskStream() override;
  bool Write(const v1::TaskInput& input) override;
  bool Read(v1::TaskOutput* output) override;
  void WritesDone() override;
  grpc::Status Finish() override;
  void Cancel() override;

 private:
  // TaskPeer: the tasks' side.
  bool Read(v1::TaskInput* input) override;
  bool Write(const v1::TaskOutput& output) override;
  bool Cancelled() override;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<v1::TaskInput> inputs_;    // under mu_
  std::deque<v1::TaskOutput> outputs_;  // under mu_
  bool writes_done_ = false;            // under mu_
  bool cancelled_ = false;              // under mu_
  bool served_ = false;                 // under mu_: serve returned
  std::thread thread_;
};

}  // namespace skiff::noded

#endif  // SKIFF_NODED_TASK_STREAMS_H_
