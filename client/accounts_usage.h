// ctld's figures per association and per QOS in a GetAccountsReply (the bank,
// usage, NormShares and the jobs in use), found by their typed keys, so no
// front end spells or parses "account|user".
//
// Threads: none. An AccountsUsage points into the reply it was made from,
// which must outlive it.
#ifndef SKIFF_CLIENT_ACCOUNTS_USAGE_H_
#define SKIFF_CLIENT_ACCOUNTS_USAGE_H_

#include <map>

#include "common/assoc_key.h"
#include "proto/ctld.pb.h"

namespace skiff::client {

AssocKey AssocKeyOf(const v1::AssocKey& key);
AssocKey AssocKeyOf(const v1::AssocInfo& assoc);

class AccountsUsage {
 public:
  explicit AccountsUsage(const v1::GetAccountsReply& reply);

  // The figures under `key`; an empty message when ctld sent none (no usage,
  // or hidden by PrivateData).
  const v1::AssocUsage& Of(const AssocKey& key) const;
  const v1::QosUsage& OfQos(const QosKey& key) const;

 private:
  std::map<AssocKey, const v1::AssocUsage*> assocs_;
  std::map<QosKey, const v1::QosUsage*> qos_;
};

}  // namespace skiff::client

#endif  // SKIFF_CLIENT_ACCOUNTS_USAGE_H_
