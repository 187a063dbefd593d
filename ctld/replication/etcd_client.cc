#include "ctld/replication/etcd_client.h"

#include <grpcpp/grpcpp.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/rpc/channel.h"
#include "common/rpc/status.h"

namespace skiff::ctld::replication {

std::string PrefixEnd(const std::string& prefix) {
  std::string end = prefix;
  while (!end.empty()) {
    if (static_cast<unsigned char>(end.back()) < 0xff) {
      end.back() = static_cast<char>(static_cast<unsigned char>(end.back()) + 1);
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');  // every key
}

EtcdClient::EtcdClient(const std::string& target, std::chrono::milliseconds deadline)
    : EtcdClient(std::vector<std::string>{target}, deadline) {}

EtcdClient::EtcdClient(std::vector<std::string> targets, std::chrono::milliseconds deadline,
                       EtcdTls tls)
    : targets_(std::move(targets)), deadline_(deadline), tls_(std::move(tls)) {}

std::shared_ptr<const EtcdClient::Stubs> EtcdClient::Current() {
  std::lock_guard<std::mutex> lock(mu_);
  if (stubs_ == nullptr) {
    auto stubs = std::make_shared<Stubs>();
    std::shared_ptr<grpc::Channel> channel;
    if (tls_.enabled()) {
      grpc::SslCredentialsOptions options;
      options.pem_root_certs = tls_.ca_pem;
      options.pem_cert_chain = tls_.cert_pem;
      options.pem_private_key = tls_.key_pem;
      channel = MakeChannel(targets_[next_target_], grpc::SslCredentials(options));
    } else {
      channel = MakeChannel(targets_[next_target_]);
    }
    stubs->kv = etcdserverpb::KV::NewStub(channel);
    stubs->lease = etcdserverpb::Lease::NewStub(channel);
    stubs_ = std::move(stubs);
  }
  return stubs_;
}

absl::Status EtcdClient::Checked(const grpc::Status& status,
                                 const std::shared_ptr<const Stubs>& used) {
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE) {
    std::lock_guard<std::mutex> lock(mu_);
    if (stubs_ == used) {  // the next call makes a new channel, to the next member
      stubs_.reset();
      next_target_ = (next_target_ + 1) % targets_.size();
    }
  }
  return FromGrpcStatus(status);
}

std::unique_ptr<grpc::ClientContext> EtcdClient::Context() const {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + deadline_);
  return context;
}

absl::StatusOr<etcdserverpb::TxnResponse> EtcdClient::Txn(const etcdserverpb::TxnRequest& request) {
  const std::shared_ptr<const Stubs> stubs = Current();
  etcdserverpb::TxnResponse response;
  const grpc::Status status = stubs->kv->Txn(Context().get(), request, &response);
  if (!status.ok()) return Checked(status, stubs);
  return response;
}

absl::StatusOr<std::optional<etcdserverpb::KeyValue>> EtcdClient::Get(const std::string& key) {
  etcdserverpb::RangeRequest request;
  request.set_key(key);
  const std::shared_ptr<const Stubs> stubs = Current();
  etcdserverpb::RangeResponse response;
  const grpc::Status status = stubs->kv->Range(Context().get(), request, &response);
  if (!status.ok()) return Checked(status, stubs);
  if (response.kvs_size() == 0) return std::optional<etcdserverpb::KeyValue>();
  return std::optional<etcdserverpb::KeyValue>(response.kvs(0));
}

absl::StatusOr<etcdserverpb::RangeResponse> EtcdClient::GetPrefix(const std::string& prefix) {
  return Range(prefix, PrefixEnd(prefix), 0);
}

absl::StatusOr<etcdserverpb::RangeResponse> EtcdClient::Range(const std::string& from,
                                                              const std::string& end,
                                                              int64_t limit) {
  etcdserverpb::RangeRequest request;
  request.set_key(from);
  request.set_range_end(end);
  request.set_limit(limit);
  const std::shared_ptr<const Stubs> stubs = Current();
  etcdserverpb::RangeResponse response;
  const grpc::Status status = stubs->kv->Range(Context().get(), request, &response);
  if (!status.ok()) return Checked(status, stubs);
  return response;
}

absl::Status EtcdClient::Put(const std::string& key, const std::string& value) {
  etcdserverpb::PutRequest request;
  request.set_key(key);
  request.set_value(value);
  const std::shared_ptr<const Stubs> stubs = Current();
  etcdserverpb::PutResponse response;
  return Checked(stubs->kv->Put(Context().get(), request, &response), stubs);
}

absl::StatusOr<int64_t> EtcdClient::GrantLease(int64_t ttl_seconds) {
  etcdserverpb::LeaseGrantRequest request;
  request.set_ttl(ttl_seconds);
  const std::shared_ptr<const Stubs> stubs = Current();
  etcdserverpb::LeaseGrantResponse response;
  const grpc::Status status = stubs->lease->LeaseGrant(Context().get(), request, &response);
  if (!status.ok()) return Checked(status, stubs);
  if (!response.error().empty()) {
    return absl::UnavailableError(absl::StrCat("etcd refused a lease: ", response.error()));
  }
  return response.id();
}

absl::StatusOr<int64_t> EtcdClient::KeepAlive(int64_t lease) {
  // etcd renews leases over a stream; one request and its answer renew once.
  const std::shared_ptr<const Stubs> stubs = Current();
  std::unique_ptr<grpc::ClientContext> context = Context();
  auto stream = stubs->lease->LeaseKeepAlive(context.get());
  etcdserverpb::LeaseKeepAliveRequest request;
  request.set_id(lease);
  etcdserverpb::LeaseKeepAliveResponse response;
  const bool answered = stream->Write(request) && stream->Read(&response);
  stream->WritesDone();
  if (!answered) {
    const grpc::Status status = stream->Finish();
    return status.ok() ? absl::UnavailableError("etcd closed the keep-alive stream")
                       : Checked(status, stubs);
  }
  context->TryCancel();  // the stream stays open otherwise; its end is not waited for
  (void)stream->Finish();
  if (response.ttl() <= 0) {
    return absl::NotFoundError(absl::StrCat("etcd lease ", lease, " has expired"));
  }
  return response.ttl();
}

absl::Status EtcdClient::RevokeLease(int64_t lease) {
  etcdserverpb::LeaseRevokeRequest request;
  request.set_id(lease);
  const std::shared_ptr<const Stubs> stubs = Current();
  etcdserverpb::LeaseRevokeResponse response;
  return Checked(stubs->lease->LeaseRevoke(Context().get(), request, &response), stubs);
}

}  // namespace skiff::ctld::replication
