#include "client/accounts_usage.h"

namespace skiff::client {

AssocKey AssocKeyOf(const v1::AssocKey& key) {
  return AssocKey{key.account(), key.user(), key.partition()};
}

AssocKey AssocKeyOf(const v1::AssocInfo& assoc) {
  return AssocKey{assoc.account(), assoc.user(), assoc.partition()};
}

AccountsUsage::AccountsUsage(const v1::GetAccountsReply& reply) {
  for (const v1::AssocUsage& usage : reply.assoc_usage()) {
    assocs_.emplace(AssocKeyOf(usage.key()), &usage);
  }
  for (const v1::QosUsage& usage : reply.qos_usage()) {
    qos_.emplace(QosKey{usage.qos(), usage.user()}, &usage);
  }
}

const v1::AssocUsage& AccountsUsage::Of(const AssocKey& key) const {
  auto it = assocs_.find(key);
  return it == assocs_.end() ? v1::AssocUsage::default_instance() : *it->second;
}

const v1::QosUsage& AccountsUsage::OfQos(const QosKey& key) const {
  auto it = qos_.find(key);
  return it == qos_.end() ? v1::QosUsage::default_instance() : *it->second;
}

}  // namespace skiff::client
