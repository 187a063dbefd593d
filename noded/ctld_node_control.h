// The health checker's view of ctld (health_check.h NodeControl) over gRPC:
// Ctld.GetNodes for this node, Ctld.UpdateNode to drain or undrain it, with
// noded's credential (root: an administrator to ctld); Ctld.UpdateJob to
// requeue a job held (a step's Prolog failed here) and Ctld.UpdateJob to
// requeue one (the GPU it ran on broke: gpu/gpu_monitor.h). Thread-safe.
#ifndef SKIFF_NODED_CTLD_NODE_CONTROL_H_
#define SKIFF_NODED_CTLD_NODE_CONTROL_H_

#include <memory>
#include <string>
#include <vector>

#include "common/auth/authenticator.h"
#include "noded/health_check.h"

namespace skiff::noded {

// `auth` must outlive the result.
// `ctld_targets`: every controller in SlurmctldHost order; each call goes to
// the one that answered last, and on to the next while one is unreachable or
// stands by.
std::unique_ptr<NodeControl> MakeCtldNodeControl(const std::vector<std::string>& ctld_targets,
                                                 const std::string& node_name, Authenticator& auth);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_CTLD_NODE_CONTROL_H_
