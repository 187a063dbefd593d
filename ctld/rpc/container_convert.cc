#include "ctld/rpc/container_convert.h"

namespace skiff::ctld {

ContainerSpec ContainerFromProto(const v1::ContainerRequest& request) {
  ContainerSpec spec;
  spec.bundle = request.bundle();
  spec.image = request.image();
  spec.mounts.assign(request.mounts().begin(), request.mounts().end());
  spec.workdir = request.workdir();
  spec.env.assign(request.env().begin(), request.env().end());
  spec.name = request.name();
  spec.remap_root = request.remap_root();
  spec.no_mount_home = request.no_mount_home();
  return spec;
}

void ContainerToProto(const ContainerSpec& spec, v1::ContainerRequest* out) {
  out->Clear();
  out->set_bundle(spec.bundle);
  out->set_image(spec.image);
  for (const std::string& mount : spec.mounts) out->add_mounts(mount);
  out->set_workdir(spec.workdir);
  for (const std::string& name : spec.env) out->add_env(name);
  out->set_name(spec.name);
  out->set_remap_root(spec.remap_root);
  out->set_no_mount_home(spec.no_mount_home);
}

}  // namespace skiff::ctld
