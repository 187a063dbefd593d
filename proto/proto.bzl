"""Protobuf + gRPC C++ code generation with Debian's protoc and grpc_cpp_plugin.

skiff_grpc_library(name = "ctld", srcs = ["ctld.proto"], deps = [":common"])
gives, for proto/ctld.proto:
  :ctld_proto    a filegroup of the .proto files (for other protos to import)
  :ctld_cc_grpc  a cc_library with ctld.pb.h and ctld.grpc.pb.h
Imports are written from the workspace root: import "proto/common.proto";
"""

_PROTOC = "/usr/bin/protoc"
_GRPC_PLUGIN = "/usr/bin/grpc_cpp_plugin"

def skiff_grpc_library(name, srcs, deps = [], visibility = None):
    """Generates C++ messages and gRPC stubs for srcs; deps are other skiff_grpc_library names."""
    proto_deps = [d + "_proto" for d in deps]
    native.filegroup(
        name = name + "_proto",
        srcs = srcs + proto_deps,
        visibility = visibility,
    )

    base = [s[:-len(".proto")] for s in srcs]
    outs = []
    for b in base:
        outs += [b + ".pb.h", b + ".pb.cc", b + ".grpc.pb.h", b + ".grpc.pb.cc"]

    native.genrule(
        name = name + "_codegen",
        srcs = srcs + proto_deps,
        outs = outs,
        cmd = " ".join([
            _PROTOC,
            "-I.",
            "--cpp_out=$(GENDIR)",
            "--grpc_out=$(GENDIR)",
            "--plugin=protoc-gen-grpc=" + _GRPC_PLUGIN,
        ] + ["$(location %s)" % s for s in srcs]),
    )

    native.cc_library(
        name = name + "_cc_grpc",
        srcs = [o for o in outs if o.endswith(".cc")],
        hdrs = [o for o in outs if o.endswith(".h")],
        deps = [d + "_cc_grpc" for d in deps] + [
            "//third_party:grpc",
            "//third_party:protobuf",
        ],
        visibility = visibility,
    )
