// /slurmdb/{version}/qos, qos/{qos} (ctld's QOS, what sacctmgr show qos
// reads) and tres (the cluster's TRES, what sreport -T resolves against).
#include <ctime>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "restd/slurmdb/accounts_json.h"
#include "restd/slurmdb/slurmdb_paths.h"

namespace skiff::restd {
namespace {

HttpResponse QosList(RestCall& call) {
  v1::GetQosReply reply;
  if (absl::Status s = call.Call(&v1::Ctld::Stub::GetQos, v1::GetQosRequest(), &reply); !s.ok()) {
    return SlurmdbFailure(call, s, "qos");
  }
  return SlurmdbAnswer(call, {{"qos", QosListJson(reply, call.request.query)}});
}

HttpResponse OneQos(RestCall& call) {
  // QOS names are kept in lower case, as Slurm's database keeps them.
  const std::string name = absl::AsciiStrToLower(call.args.at(0));
  v1::GetQosRequest request;
  request.add_names(name);
  v1::GetQosReply reply;
  if (absl::Status s = call.Call(&v1::Ctld::Stub::GetQos, request, &reply); !s.ok()) {
    return SlurmdbFailure(call, s, "qos");
  }
  for (const v1::QosInfo& qos : reply.qos()) {
    if (qos.name() == name) return SlurmdbAnswer(call, {{"qos", Json::Array({QosJson(qos)})}});
  }
  return SlurmdbFoundNothing(call, "qos", "slurmdb_qos_get");
}

HttpResponse Tres(RestCall& call) {
  // The cluster's TRES come with a usage report (sreport's); the shortest
  // window keeps the report's sums small.
  const int64_t now = time(nullptr);
  v1::GetUsageReportRequest request;
  request.set_start(now - 1);
  request.set_end(now);
  v1::GetUsageReportReply report;
  if (absl::Status s = call.Call(&v1::Ctld::Stub::GetUsageReport, request, &report); !s.ok()) {
    return SlurmdbFailure(call, s, "TRES");
  }
  return SlurmdbAnswer(call, {{"TRES", ClusterTresJson(report)}});
}

}  // namespace

void AddQosAndTresPaths(Router& router) {
  router.Add("GET", "/slurmdb/{version}/qos", QosList);
  router.Add("GET", "/slurmdb/{version}/qos/{qos}", OneQos);
  router.Add("GET", "/slurmdb/{version}/tres", Tres);
}

}  // namespace skiff::restd
