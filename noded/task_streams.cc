#include "noded/task_streams.h"

#include <utility>

namespace skiff::noded {

RemoteTaskStream::RemoteTaskStream(
    const std::function<std::unique_ptr<grpc::ClientReaderWriter<v1::TaskInput, v1::TaskOutput>>(
        grpc::ClientContext*)>& start)
    : stream_(start ? start(&context_) : nullptr) {}

bool RemoteTaskStream::Write(const v1::TaskInput& input) {
  return stream_ != nullptr && stream_->Write(input);
}

bool RemoteTaskStream::Read(v1::TaskOutput* output) {
  return stream_ != nullptr && stream_->Read(output);
}

void RemoteTaskStream::WritesDone() {
  if (stream_ != nullptr) stream_->WritesDone();
}

grpc::Status RemoteTaskStream::Finish() {
  if (stream_ == nullptr) return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "no credential");
  return stream_->Finish();
}

LocalTaskStream::LocalTaskStream(std::function<void(TaskPeer&)> serve) {
  thread_ = std::thread([this, serve = std::move(serve)] {
    serve(*this);
    {
      std::lock_guard<std::mutex> lock(mu_);
      served_ = true;
    }
    cv_.notify_all();
  });
}

LocalTaskStream::~LocalTaskStream() {
  Cancel();
  if (thread_.joinable()) thread_.join();
}

bool LocalTaskStream::Write(const v1::TaskInput& input) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (writes_done_ || cancelled_ || served_) return false;
    inputs_.push_back(input);
  }
  cv_.notify_all();
  return true;
}

bool LocalTaskStream::Read(v1::TaskOutput* output) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return !outputs_.empty() || served_; });
  if (outputs_.empty()) return false;
  *output = std::move(outputs_.front());
  outputs_.pop_front();
  return true;
}

void LocalTaskStream::WritesDone() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    writes_done_ = true;
  }
  cv_.notify_all();
}

grpc::Status LocalTaskStream::Finish() {
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  return cancelled_ ? grpc::Status(grpc::StatusCode::CANCELLED, "Cancelled") : grpc::Status::OK;
}

void LocalTaskStream::Cancel() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
  }
  cv_.notify_all();
}

bool LocalTaskStream::Read(v1::TaskInput* input) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return !inputs_.empty() || writes_done_ || cancelled_; });
  if (inputs_.empty()) return false;
  *input = std::move(inputs_.front());
  inputs_.pop_front();
  return true;
}

bool LocalTaskStream::Write(const v1::TaskOutput& output) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (cancelled_) return false;
    outputs_.push_back(output);
  }
  cv_.notify_all();
  return true;
}

bool LocalTaskStream::Cancelled() {
  std::lock_guard<std::mutex> lock(mu_);
  return cancelled_;
}

}  // namespace skiff::noded
