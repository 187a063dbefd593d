#include "ctld/core/lifecycle/journaled_state.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

namespace skiff::ctld {
namespace {

void Place(std::set<uint64_t>& set, uint64_t id, bool member) {
  if (member) {
    set.insert(id);
  } else {
    set.erase(id);
  }
}

// Sets `id`'s membership, journaling what it was the first time in a transaction.
void SetMember(std::set<uint64_t>& set, std::map<uint64_t, bool>& journal, uint64_t id,
               bool member) {
  journal.try_emplace(id, set.count(id) > 0);
  Place(set, id, member);
}

// `table[key]`, journaling what it was (nothing: nullopt) the first time in a
// transaction.
template <typename Value>
Value& MutEntry(std::map<std::string, Value>& table,
                std::map<std::string, std::optional<Value>>& journal, const std::string& key) {
  auto found = table.find(key);
  journal.try_emplace(key,
                      found == table.end() ? std::nullopt : std::optional<Value>(found->second));
  return table[key];
}

template <typename Value>
void RestoreEntries(std::map<std::string, Value>& table,
                    const std::map<std::string, std::optional<Value>>& journal) {
  for (const auto& [key, before] : journal) {
    if (before) {
      table[key] = *before;
    } else {
      table.erase(key);
    }
  }
}

}  // namespace

const Job* JournaledState::Find(uint64_t id) const {
  auto it = jobs_.find(id);
  return it == jobs_.end() ? nullptr : &it->second;
}

// ---------------------------------------------------------------- transactions

void JournaledState::Begin() {
  if (in_transaction()) {
    // Two events interleaved: the Controller's serialization of decisions is
    // broken, and a rollback could no longer be exact.
    std::abort();
  }
  journal_.emplace_back();
  journal_.back().frame = next_frame_++;
  journal_.back().open = true;
}

JournaledState::Journal& JournaledState::Open() {
  if (!in_transaction()) std::abort();  // REQUIRES violated
  return journal_.back();
}

Effects JournaledState::Close(Effects effects) {
  Journal& frame = Open();
  for (const auto& [id, before] : frame.jobs) {
    auto it = jobs_.find(id);
    if (it == jobs_.end()) continue;
    Job& job = it->second;
    job.version = before ? before->version + 1 : std::max<uint64_t>(job.version, 1);
    effects.rows.push_back(job);
  }
  // Drains, admin DOWNs and their reasons are stored with the event that set
  // or cleared them (an empty blob deletes the record).
  if (frame.nodes) {
    for (const Node& node : nodes_.nodes()) {
      const Node* before = frame.nodes->Find(node.config.name);
      const NodeAdminState now = nodes_.AdminStateOf(node);
      const NodeAdminState was =
          before != nullptr ? frame.nodes->AdminStateOf(*before) : NodeAdminState{};
      if (now != was) {
        effects.records.push_back(NodeAdminChange{node.config.name, now});
      }
    }
  }
  if (frame.Empty()) {
    // Nothing to put back: no frame to wait for (a pass that changed nothing).
    journal_.pop_back();
    effects.frame = 0;
  } else {
    frame.open = false;
    effects.frame = frame.frame;
  }
  return effects;
}

bool JournaledState::Journal::Empty() const {
  return jobs.empty() && !nodes && !bb_pools && usage.empty() && bank_used.empty() &&
         assoc_usage.empty() && bb_busy.empty() && terminate_sent.empty() &&
         reservations_taken.empty() && !qos && !accounts && !advance_resv && steps.empty() &&
         !triggers;
}

void JournaledState::Confirm(uint64_t frame) {
  ConfirmWhere([frame](uint64_t f) { return f == frame; });
}

void JournaledState::Confirm() {
  ConfirmWhere([](uint64_t) { return true; });
}

void JournaledState::ConfirmWhere(const std::function<bool(uint64_t frame)>& chosen) {
  for (Journal& pending : journal_) {
    if (!pending.open && chosen(pending.frame)) pending.confirmed = true;
  }
  // Before-images go only once every earlier frame has ended too.
  while (!journal_.empty() && journal_.front().confirmed) journal_.pop_front();
}

void JournaledState::RollbackFrom(uint64_t frame) {
  while (!journal_.empty() && journal_.back().frame >= frame) {
    Restore(journal_.back());
    journal_.pop_back();
  }
}

void JournaledState::Rollback() {
  if (journal_.empty()) return;
  Restore(journal_.back());
  journal_.pop_back();
}

void JournaledState::Restore(Journal& frame) {
  for (auto& [id, before] : frame.jobs) {
    if (before) {
      Job& job = jobs_[id];
      job = std::move(*before);
      TrackUnfinished(job);
    } else {
      unfinished_.erase(id);
      jobs_.erase(id);
    }
  }
  if (frame.nodes) nodes_ = std::move(*frame.nodes);
  if (frame.bb_pools) bb_pools_ = std::move(*frame.bb_pools);
  RestoreEntries(usage_, frame.usage);
  RestoreEntries(assoc_usage_, frame.assoc_usage);
  RestoreEntries(bank_used_, frame.bank_used);
  for (const auto& [id, was] : frame.bb_busy) Place(bb_busy_, id, was);
  for (const auto& [id, was] : frame.terminate_sent) Place(terminate_sent_, id, was);
  for (auto& [first, reservation] : frame.reservations_taken) {
    reservations_[first] = std::move(reservation);
  }
  if (frame.qos || frame.accounts) ++accounting_generation_;
  if (frame.qos) qos_ = std::move(*frame.qos);
  if (frame.accounts) accounts_ = std::move(*frame.accounts);
  if (frame.advance_resv) advance_resv_ = std::move(*frame.advance_resv);
  for (auto& [key, before] : frame.steps) steps_.Restore(key, std::move(before));
  if (frame.triggers) triggers_ = std::move(*frame.triggers);
}

// ---------------------------------------------------------------- journaled changes

Job& JournaledState::Mut(uint64_t id) {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) std::abort();  // REQUIRES violated
  // The first change in a frame keeps the before-image; an insertion in the
  // same frame keeps its null.
  auto [image, first] = Open().jobs.try_emplace(id);
  if (first) image->second = std::make_unique<Job>(it->second);
  return it->second;
}

Job& JournaledState::Insert(Job job) {
  const uint64_t id = job.id;
  if (jobs_.count(id) > 0) std::abort();  // REQUIRES violated
  Open().jobs.try_emplace(id, nullptr);
  // Ids only grow: the hint makes a large array's insertion linear.
  Job& inserted = jobs_.insert_or_assign(jobs_.end(), id, std::move(job))->second;
  TrackUnfinished(inserted);
  return inserted;
}

NodeTable& JournaledState::MutNodes() {
  Journal& frame = Open();
  if (!frame.nodes) frame.nodes.emplace(nodes_);
  return nodes_;
}

BbPoolTable& JournaledState::MutPools() {
  Journal& frame = Open();
  if (!frame.bb_pools) frame.bb_pools.emplace(bb_pools_);
  return bb_pools_;
}

void JournaledState::SetBusy(uint64_t id, bool busy) {
  SetMember(bb_busy_, Open().bb_busy, id, busy);
}

void JournaledState::SetTerminateSent(uint64_t id, bool sent) {
  SetMember(terminate_sent_, Open().terminate_sent, id, sent);
}

UserUsageRecord& JournaledState::MutUsage(const std::string& user) {
  return MutEntry(usage_, Open().usage, user);
}

UserUsageRecord& JournaledState::MutAssocUsage(const std::string& key) {
  return MutEntry(assoc_usage_, Open().assoc_usage, key);
}

TresMinutes& JournaledState::MutBankUsed(const std::string& key) {
  return MutEntry(bank_used_, Open().bank_used, key);
}

QosTable& JournaledState::MutQos() {
  Journal& frame = Open();
  if (!frame.qos) frame.qos.emplace(qos_);
  ++accounting_generation_;
  return qos_;
}

ResvTable& JournaledState::MutAdvanceReservations() {
  Journal& frame = Open();
  if (!frame.advance_resv) frame.advance_resv.emplace(advance_resv_);
  return advance_resv_;
}

AccountsTable& JournaledState::MutAccounts() {
  Journal& frame = Open();
  if (!frame.accounts) frame.accounts.emplace(accounts_);
  ++accounting_generation_;
  return accounts_;
}

TriggerTable& JournaledState::MutTriggers() {
  Journal& frame = Open();
  if (!frame.triggers) frame.triggers.emplace(triggers_);
  return triggers_;
}

void JournaledState::ApplyStep(uint64_t job_id, const StepRecord& step) {
  const std::string key = StepRecordKey(job_id, step.step_id);
  Open().steps.try_emplace(key, steps_.Find(key));
  steps_.Apply(job_id, step);
}

void JournaledState::TakeReservation(uint64_t first_id) {
  auto it = reservations_.find(first_id);
  if (it == reservations_.end()) return;
  Open().reservations_taken.emplace(it->first, it->second);
  reservations_.erase(it);
}

// ---------------------------------------------------------------- not journaled

Job* JournaledState::Derived(uint64_t id) {
  auto it = jobs_.find(id);
  return it == jobs_.end() ? nullptr : &it->second;
}

void JournaledState::TrackUnfinished(Job& job) {
  if (IsFinal(job.state)) return;
  auto it = jobs_.find(job.id);
  if (it != jobs_.end() && &it->second == &job) unfinished_[job.id] = &job;
}

Job& JournaledState::Install(Job job) {
  const uint64_t id = job.id;
  Job& installed = jobs_.insert_or_assign(id, std::move(job)).first->second;
  TrackUnfinished(installed);
  return installed;
}

void JournaledState::LoadAccounting(QosTable qos, AccountsTable accounts) {
  qos_ = std::move(qos);
  accounts_ = std::move(accounts);
  ++accounting_generation_;
}

void JournaledState::Forget(uint64_t id) {
  unfinished_.erase(id);
  jobs_.erase(id);
}

}  // namespace skiff::ctld
