// HPACK (RFC 7541), the header compression of HTTP/2, as much as a client of
// one gRPC call needs: a decoder for whatever a server sends (static and
// dynamic tables, Huffman strings, table size updates) and an encoder that
// writes literals only (never indexed, never Huffman), which every decoder
// must accept. Pure: no I/O.
//
// Not thread-safe: one HpackDecoder per connection, fed its header blocks in
// the order they arrived (the dynamic table depends on that order).
#ifndef SKIFF_COMMON_RPC_HTTP2_HPACK_H_
#define SKIFF_COMMON_RPC_HTTP2_HPACK_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace skiff::http2 {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

class HpackDecoder {
 public:
  // `max_table_size` is SETTINGS_HEADER_TABLE_SIZE as this side announced it
  // (4096 unless it said otherwise): the server's size updates may not exceed it.
  explicit HpackDecoder(size_t max_table_size = 4096)
      : max_table_size_(max_table_size), table_limit_(max_table_size) {}

  // Decodes one complete header block (HEADERS plus its CONTINUATIONs).
  // An error (a bad index, a truncated field, invalid Huffman) is a
  // connection error: the decoder's table is no longer trustworthy.
  absl::StatusOr<HeaderList> Decode(std::string_view block);

  // The dynamic table, newest first, and its size as RFC 7541 counts it
  // (each entry's name and value plus 32). For tests.
  const std::deque<std::pair<std::string, std::string>>& table() const { return table_; }
  size_t table_size() const { return table_size_; }

 private:
  void Insert(std::string name, std::string value);
  void EvictTo(size_t limit);

  size_t max_table_size_;
  size_t table_limit_;  // the current size, set by the encoder's updates
  size_t table_size_ = 0;
  std::deque<std::pair<std::string, std::string>> table_;
};

// Decodes a Huffman-coded string (RFC 7541 5.2 and Appendix B). Fails on an
// EOS symbol, on padding longer than 7 bits, or on padding that is not EOS's
// leading 1 bits.
absl::StatusOr<std::string> HuffmanDecode(std::string_view coded);

// Appends a "literal header field without indexing, new name" (RFC 7541 6.2.2)
// with both strings as they are (no Huffman).
void AppendLiteralHeader(std::string_view name, std::string_view value, std::string* out);
// Appends a field the static table holds whole (":method: POST" is 3).
void AppendIndexedHeader(uint8_t static_index, std::string* out);
// Appends a literal without indexing whose name is static entry `name_index`.
void AppendLiteralHeaderIndexedName(uint8_t name_index, std::string_view value, std::string* out);

}  // namespace skiff::http2

#endif  // SKIFF_COMMON_RPC_HTTP2_HPACK_H_
