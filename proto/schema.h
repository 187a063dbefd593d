// Skiff's .proto schema for tests (testonly). The programs' messages are lite
// (no descriptors: see proto/*.proto), so a test that must see every field of
// a message or every method of a service reads them here, from the descriptor
// set protoc writes at build time (proto:skiff_schema).
#ifndef SKIFF_PROTO_SCHEMA_H_
#define SKIFF_PROTO_SCHEMA_H_

#include <string>
#include <vector>

#include "google/protobuf/descriptor.h"

namespace skiff::proto_schema {

// The message `full_name` ("skiff.v1.JobSpec"); a test failure names it when
// the schema has no such message, and the result is then nullptr.
const google::protobuf::Descriptor* Message(const std::string& full_name);
// The service `full_name` ("skiff.v1.Ctld"), or nullptr as above.
const google::protobuf::ServiceDescriptor* Service(const std::string& full_name);

// Field names of `full_name`, in declaration order; empty when unknown.
std::vector<std::string> FieldNames(const std::string& full_name);
// How many fields it has (-1 when unknown).
int FieldCount(const std::string& full_name);

}  // namespace skiff::proto_schema

#endif  // SKIFF_PROTO_SCHEMA_H_
