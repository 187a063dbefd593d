// The lifecycle core's tables and their undo journal: the jobs, the nodes, the
// burst-buffer pools, the fair-share usage and service-unit books, sacctmgr's
// QOS and accounts tables, the running job steps, strigger's event triggers
// and the bookkeeping sets, each changed through a method that keeps its
// before-image the first time it changes in a transaction. The rules that
// decide what changes are Lifecycle's (lifecycle.h); this class only keeps the tables and knows how
// to put them back.
//
// Transactions. A mutating event opens a transaction (Begin): every job, node,
// pool, usage record and bookkeeping set it touches is journaled (its
// before-image kept) the first time it changes. When the event ends (Close),
// every touched job gets exactly one version bump and appears once in
// Effects::rows. The caller then stores the rows and calls Confirm(), or calls
// Rollback() when they could not be stored, which puts back every before-image:
// the tables are as if the event never happened, and none of its intents may be
// carried out. Only one transaction may be open at a time (REQUIRES, checked:
// a violation aborts, since a rollback could no longer be exact).
//
// Frames. A closed transaction stays in the journal as a frame (Effects::frame)
// until it is confirmed or rolled back, so the next event may be decided while
// the rows of earlier ones are being stored (the store writes them in event
// order, several in one commit). Frames end in order of their numbers:
// Confirm(frame) keeps a frame's before-images until every earlier frame has
// ended too, and RollbackFrom(frame) puts back that frame and every later one,
// newest first, since later events were decided on top of it. The caller must
// never roll back a frame it confirmed: a store that writes in order and fails
// every write after a failed one guarantees it.
//
// Not journaled: derived fields (Derived(), the unfinished-job index), the
// admission reservations made outside a transaction (Reserve), and the changes
// the Controller makes outside events (UnjournaledNodes(), recovery): the
// Controller waits until no frame is pending before making those.
//
// Thread-safety: none. Owned by one Lifecycle, under the Controller's mutex.
#ifndef SKIFF_CTLD_CORE_LIFECYCLE_JOURNALED_STATE_H_
#define SKIFF_CTLD_CORE_LIFECYCLE_JOURNALED_STATE_H_

#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "absl/container/btree_map.h"
#include "common/config/config.h"
#include "ctld/core/accounting/accounts.h"
#include "ctld/core/accounting/qos.h"
#include "ctld/core/accounting/step_book.h"
#include "ctld/core/budget.h"
#include "ctld/core/burst_buffer/pools.h"
#include "ctld/core/job.h"
#include "ctld/core/lifecycle/effects.h"
#include "ctld/core/node_table.h"
#include "ctld/core/reservations/reservation.h"
#include "ctld/core/scheduler/from_ctld.h"
#include "ctld/core/triggers/trigger_table.h"

namespace skiff::ctld {

// Admitted jobs not yet inserted: they count toward MaxJobCount, the submit
// limits and the service units held, from Admit until Insert or release.
struct AdmissionReservation {
  uid_t uid = 0;
  std::string qos;
  std::string partition;
  size_t count = 0;
  std::string account;  // for the association limits
  std::string user_name;
  TresMinutes cost;  // the tasks' most, in TRES-minutes (GrpTRESMins budgets)
};

// Every stored record a restart reads back besides the jobs and the
// Controller's own (ctld/state/records.h reads them; Lifecycle::Load installs them).
struct StoredRecords {
  QosTable qos;
  AccountsTable accounts;
  std::map<std::string, UserUsageRecord> usage;        // by user
  std::map<std::string, UserUsageRecord> assoc_usage;  // by "account|user"
  std::map<std::string, TresMinutes> bank;             // by "account|user"
  std::map<std::string, NodeAdminState> node_admin;    // by node
  std::vector<Trigger> triggers;
  ResvTable advance_reservations;  // by name
};

class JournaledState {
 public:
  JournaledState(const SkiffConfig& config, int64_t started_at) : nodes_(config, started_at) {}
  // unfinished_ points into jobs_.
  JournaledState(const JournaledState&) = delete;
  JournaledState& operator=(const JournaledState&) = delete;

  // ---- reads
  const std::map<uint64_t, Job>& jobs() const { return jobs_; }
  const Job* Find(uint64_t id) const;
  const NodeTable& nodes() const { return nodes_; }
  const BbPoolTable& bb_pools() const { return bb_pools_; }
  // Fair-share usage by user (sshare's RawUsage, priority/multifactor).
  const std::map<std::string, UserUsageRecord>& usage() const { return usage_; }
  // What ended runs used of the GrpTRESMins budgets, by the stored key
  // (BankKey::RecordKey) -> TRES-minutes (billing-minutes are the service units).
  const std::map<std::string, TresMinutes>& bank_used() const { return bank_used_; }
  // Fair-share usage per association, by the stored key
  // (AssocKey::UsageRecordKey) -> billing-seconds.
  const std::map<std::string, UserUsageRecord>& assoc_usage() const { return assoc_usage_; }
  // Jobs with a burst-buffer stage in flight.
  bool bb_busy(uint64_t id) const { return bb_busy_.count(id) > 0; }
  // Jobs told to stop (not persisted: resent after a restart).
  bool terminate_sent(uint64_t id) const { return terminate_sent_.count(id) > 0; }
  // First id -> admitted, not yet inserted.
  const std::map<uint64_t, AdmissionReservation>& reservations() const { return reservations_; }
  const QosTable& qos() const { return qos_; }
  const AccountsTable& accounts() const { return accounts_; }
  // The running steps as their step managers reported them.
  const StepBook& steps() const { return steps_; }
  const TriggerTable& triggers() const { return triggers_; }
  // scontrol's advance reservations (ctld/core/reservations), by name.
  const ResvTable& advance_reservations() const { return advance_resv_; }
  // Changes whenever the QOS or accounts tables change, rollbacks included:
  // the views derived from them are stale when it moved.
  uint64_t accounting_generation() const { return accounting_generation_; }

  // ---- transactions
  void Begin();
  // Ends the open transaction: one version bump per touched job, the touched
  // jobs and the node admin records into `effects`, and its frame number (0
  // when nothing was changed: no frame to wait for).
  Effects Close(Effects effects);
  // The frame's rows are stored.
  void Confirm(uint64_t frame);
  // Every closed frame (single-threaded callers: tests, tools).
  void Confirm();
  // `frame` and every later frame, newest first; frames already ended are
  // skipped (a no-op when `frame` and all after it have ended).
  void RollbackFrom(uint64_t frame);
  // The newest frame, open or closed.
  void Rollback();
  bool in_transaction() const { return !journal_.empty() && journal_.back().open; }
  // Frames not yet confirmed or rolled back (the open one included).
  size_t pending_frames() const { return journal_.size(); }

  // ---- journaled changes; REQUIRES: a transaction is open
  // The job, journaled for change. REQUIRES: the job exists.
  Job& Mut(uint64_t id);
  Job& Mut(const Job& job) { return Mut(job.id); }
  // A new job (its before-image: none). REQUIRES: no job has its id.
  Job& Insert(Job job);
  NodeTable& MutNodes();
  BbPoolTable& MutPools();
  void SetBusy(uint64_t id, bool busy);
  void SetTerminateSent(uint64_t id, bool sent);
  // The record, created empty when missing.
  UserUsageRecord& MutUsage(const std::string& user);
  UserUsageRecord& MutAssocUsage(const std::string& key);
  TresMinutes& MutBankUsed(const std::string& key);
  // The whole table, journaled (both are small: sacctmgr's rows).
  QosTable& MutQos();
  AccountsTable& MutAccounts();
  // The whole table, journaled (a few triggers; its last observation included).
  TriggerTable& MutTriggers();
  ResvTable& MutAdvanceReservations();
  // A step report, journaled by its key.
  void ApplyStep(uint64_t job_id, const StepRecord& step);
  // Removes the reservation of admitted jobs being inserted (a rollback puts
  // it back, so the ids stay reserved for a retry).
  void TakeReservation(uint64_t first_id);

  // ---- not journaled
  // Derived fields only (recomputed by every pass, persisted only along with a
  // real change). Null when the job is not in the table.
  Job* Derived(uint64_t id);
  // Every job not in a final state, and maybe some that reached one since (the
  // scheduling pass drops those as it meets them: VisitUnfinished): what a
  // pass walks, so that MinJobAge's finished jobs cost it nothing. A B-tree:
  // walked on every pass, in id order, faster than a red-black tree.
  const absl::btree_map<uint64_t, Job*>& unfinished() const { return unfinished_; }
  // `job` (a job of the table) is back in the index unless it is final.
  void TrackUnfinished(Job& job);
  // Drops from the index the jobs that reached a final state, and calls
  // `visit(Job&)` on the others, in id order. Through `visit` only derived
  // fields may be written; a real change goes through Mut.
  template <typename Visit>
  void VisitUnfinished(Visit&& visit) {
    for (auto it = unfinished_.begin(); it != unfinished_.end();) {
      Job& job = *it->second;
      if (IsFinal(job.state)) {
        it = unfinished_.erase(it);
        continue;
      }
      ++it;
      visit(job);
    }
  }
  // Admission outside a transaction: memory only until Insert.
  void Reserve(uint64_t first_id, AdmissionReservation reservation) {
    reservations_[first_id] = std::move(reservation);
  }
  void ReleaseReservation(uint64_t first_id) { reservations_.erase(first_id); }
  // Node liveness, configuration and recovery: the Controller changes these
  // only with no frame pending (a rollback must not put them back).
  NodeTable& UnjournaledNodes() { return nodes_; }
  BbPoolTable& UnjournaledPools() { return bb_pools_; }
  // Recovery, before any event.
  Job& Install(Job job);
  void LoadUsage(std::map<std::string, UserUsageRecord> usage) { usage_ = std::move(usage); }
  void LoadBank(std::map<std::string, TresMinutes> used) { bank_used_ = std::move(used); }
  void LoadAssocUsage(std::map<std::string, UserUsageRecord> usage) {
    assoc_usage_ = std::move(usage);
  }
  void LoadAccounting(QosTable qos, AccountsTable accounts);
  void LoadTriggers(std::vector<Trigger> triggers) { triggers_.Load(std::move(triggers)); }
  void LoadAdvanceReservations(ResvTable table) { advance_resv_ = std::move(table); }
  // Forgets the steps of jobs not in `running_jobs` (their step manager's end
  // report never came): housekeeping, outside events.
  void RetainSteps(const std::set<uint64_t>& running_jobs) { steps_.Retain(running_jobs); }
  // Forgets a finished job (purged: it stays in the store for accounting).
  void Forget(uint64_t id);

 private:
  // Before-images of what one event changed: a frame.
  struct Journal {
    uint64_t frame = 0;
    bool open = false;       // the event is still deciding
    bool confirmed = false;  // stored; kept until every earlier frame has ended
    // Null: the job did not exist (an insertion's image costs a pointer, not a
    // Job: a 10,000-task array journals 10,000 of them).
    std::map<uint64_t, std::unique_ptr<Job>> jobs;
    std::optional<NodeTable> nodes;
    std::optional<BbPoolTable> bb_pools;
    std::map<std::string, std::optional<UserUsageRecord>> usage;
    std::map<std::string, std::optional<TresMinutes>> bank_used;
    std::map<std::string, std::optional<UserUsageRecord>> assoc_usage;
    std::map<uint64_t, bool> bb_busy;         // membership before
    std::map<uint64_t, bool> terminate_sent;  // membership before
    std::map<uint64_t, AdmissionReservation> reservations_taken;
    std::optional<QosTable> qos;
    std::optional<AccountsTable> accounts;
    std::optional<ResvTable> advance_resv;
    std::map<std::string, std::optional<StepBook::Entry>> steps;  // by StepRecordKey
    std::optional<TriggerTable> triggers;
    bool Empty() const;  // nothing to put back
  };

  // The open frame. REQUIRES: a transaction is open.
  Journal& Open();
  // Puts back `frame`'s before-images.
  void Restore(Journal& frame);
  // Marks the closed frames `chosen` confirmed and drops the confirmed ones
  // that no unended frame precedes.
  void ConfirmWhere(const std::function<bool(uint64_t frame)>& chosen);

  std::map<uint64_t, Job> jobs_;
  // Pointers into jobs_'s nodes, which stay put until erased.
  absl::btree_map<uint64_t, Job*> unfinished_;
  NodeTable nodes_;
  BbPoolTable bb_pools_;
  std::map<std::string, UserUsageRecord> usage_;
  std::map<std::string, TresMinutes> bank_used_;
  std::map<std::string, UserUsageRecord> assoc_usage_;
  std::set<uint64_t> bb_busy_;
  std::set<uint64_t> terminate_sent_;
  std::map<uint64_t, AdmissionReservation> reservations_;
  QosTable qos_;
  AccountsTable accounts_;
  ResvTable advance_resv_;
  StepBook steps_;
  TriggerTable triggers_;
  uint64_t accounting_generation_ = 0;
  // Frames in event order, oldest first; the newest may be open.
  std::deque<Journal> journal_;
  uint64_t next_frame_ = 1;
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_LIFECYCLE_JOURNALED_STATE_H_
