#include "proto/schema.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "google/protobuf/descriptor.pb.h"
#include "gtest/gtest.h"

namespace skiff::proto_schema {
namespace {

const google::protobuf::DescriptorPool& Pool() {
  static const auto* const pool = [] {
    auto* built = new google::protobuf::DescriptorPool;
    const char* srcdir = std::getenv("TEST_SRCDIR");
    const char* workspace = std::getenv("TEST_WORKSPACE");
    const std::string path = std::string(srcdir ? srcdir : ".") + "/" +
                             (workspace ? workspace : "skiff") + "/proto/skiff_schema.pb";
    std::ifstream in(path, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    google::protobuf::FileDescriptorSet files;
    if (!in || !files.ParseFromString(bytes.str())) {
      ADD_FAILURE() << "cannot read the proto schema " << path;
      return built;
    }
    // --include_imports writes each file after the files it imports.
    for (const google::protobuf::FileDescriptorProto& file : files.file()) {
      if (built->BuildFile(file) == nullptr) ADD_FAILURE() << "bad schema file " << file.name();
    }
    return built;
  }();
  return *pool;
}

}  // namespace

const google::protobuf::Descriptor* Message(const std::string& full_name) {
  const google::protobuf::Descriptor* message = Pool().FindMessageTypeByName(full_name);
  if (message == nullptr) ADD_FAILURE() << "no message " << full_name << " in the proto schema";
  return message;
}

const google::protobuf::ServiceDescriptor* Service(const std::string& full_name) {
  const google::protobuf::ServiceDescriptor* service = Pool().FindServiceByName(full_name);
  if (service == nullptr) ADD_FAILURE() << "no service " << full_name << " in the proto schema";
  return service;
}

std::vector<std::string> FieldNames(const std::string& full_name) {
  std::vector<std::string> names;
  if (const google::protobuf::Descriptor* message = Message(full_name)) {
    for (int i = 0; i < message->field_count(); ++i) names.push_back(message->field(i)->name());
  }
  return names;
}

int FieldCount(const std::string& full_name) {
  const google::protobuf::Descriptor* message = Message(full_name);
  return message == nullptr ? -1 : message->field_count();
}

}  // namespace skiff::proto_schema
