# Writes proto/ctld_method_paths.h from ctld.proto: each method of service
# Ctld with its request and reply types and gRPC path. A request type that
# two methods share fails (the commands find a method by its request type).
/^package / { pkg = $2; sub(";", "", pkg) }
/^service Ctld / { inside = 1; next }
inside && /^}/ { inside = 0 }
inside && $1 == "rpc" {
  line = $0
  if (line !~ /returns/) {
    print "ctld.proto: write each rpc on one line: " line > "/dev/stderr"
    failed = 1
    exit 1
  }
  gsub(/[();]/, " ", line)
  split(line, f, " ")
  if (f[3] in seen) {
    print "ctld.proto: " f[3] " is the request of two methods" > "/dev/stderr"
    failed = 1
    exit 1
  }
  seen[f[3]] = 1
  rows = rows sprintf("    {\"%s.%s\", \"%s.%s\", \"/%s.Ctld/%s\"},\n", pkg, f[3], pkg, f[5], pkg, f[2])
}
END {
  if (failed) exit 1
  print "// Generated from proto/ctld.proto by //proto:ctld_method_paths_h."
  print "#ifndef SKIFF_PROTO_CTLD_METHOD_PATHS_H_"
  print "#define SKIFF_PROTO_CTLD_METHOD_PATHS_H_"
  print "#include <string_view>"
  print "namespace skiff::v1 {"
  print "struct CtldMethodPath {"
  print "  const char* request;  // the full type name of the request message"
  print "  const char* reply;"
  print "  const char* path;  // /package.Ctld/Method"
  print "};"
  print "inline constexpr CtldMethodPath kCtldMethodPaths[] = {"
  printf "%s", rows
  print "};"
  print "// The gRPC path of the method with these request and reply types (full"
  print "// names, as MessageLite::GetTypeName gives them), or nullptr."
  print "inline const char* CtldMethodPathFor(std::string_view request, std::string_view reply) {"
  print "  for (const CtldMethodPath& method : kCtldMethodPaths) {"
  print "    if (request == method.request) return reply == method.reply ? method.path : nullptr;"
  print "  }"
  print "  return nullptr;"
  print "}"
  print "}  // namespace skiff::v1"
  print "#endif  // SKIFF_PROTO_CTLD_METHOD_PATHS_H_"
}
