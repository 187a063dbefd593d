#include "common/rpc/http2/hpack.h"

#include <array>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace skiff::http2 {
namespace {

struct StaticEntry {
  const char* name;
  const char* value;
};

// RFC 7541 Appendix A: index 1 is the first entry.
constexpr StaticEntry kStaticTable[] = {
    {":authority", ""},
    {":method", "GET"},
    {":method", "POST"},
    {":path", "/"},
    {":path", "/index.html"},
    {":scheme", "http"},
    {":scheme", "https"},
    {":status", "200"},
    {":status", "204"},
    {":status", "206"},
    {":status", "304"},
    {":status", "400"},
    {":status", "404"},
    {":status", "500"},
    {"accept-charset", ""},
    {"accept-encoding", "gzip, deflate"},
    {"accept-language", ""},
    {"accept-ranges", ""},
    {"accept", ""},
    {"access-control-allow-origin", ""},
    {"age", ""},
    {"allow", ""},
    {"authorization", ""},
    {"cache-control", ""},
    {"content-disposition", ""},
    {"content-encoding", ""},
    {"content-language", ""},
    {"content-length", ""},
    {"content-location", ""},
    {"content-range", ""},
    {"content-type", ""},
    {"cookie", ""},
    {"date", ""},
    {"etag", ""},
    {"expect", ""},
    {"expires", ""},
    {"from", ""},
    {"host", ""},
    {"if-match", ""},
    {"if-modified-since", ""},
    {"if-none-match", ""},
    {"if-range", ""},
    {"if-unmodified-since", ""},
    {"last-modified", ""},
    {"link", ""},
    {"location", ""},
    {"max-forwards", ""},
    {"proxy-authenticate", ""},
    {"proxy-authorization", ""},
    {"range", ""},
    {"referer", ""},
    {"refresh", ""},
    {"retry-after", ""},
    {"server", ""},
    {"set-cookie", ""},
    {"strict-transport-security", ""},
    {"transfer-encoding", ""},
    {"user-agent", ""},
    {"vary", ""},
    {"via", ""},
    {"www-authenticate", ""},
};
constexpr size_t kStaticCount = sizeof(kStaticTable) / sizeof(kStaticTable[0]);
static_assert(kStaticCount == 61);

// RFC 7541 Appendix B, the code length of each symbol (256 is EOS). The code
// is canonical (codes of one length are consecutive, in symbol order, and
// shorter codes come first), so the lengths alone define it; the codes the RFC
// lists were checked against this when the table was written.
constexpr uint8_t kHuffmanLengths[257] = {
    13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28,  //
    28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28,  //
    6,  10, 10, 12, 13, 6,  8,  11, 10, 10, 8,  11, 8,  6,  6,  6,   //
    5,  5,  5,  6,  6,  6,  6,  6,  6,  6,  7,  8,  15, 6,  12, 10,  //
    13, 6,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,   //
    7,  7,  7,  7,  7,  7,  7,  7,  8,  7,  8,  13, 19, 13, 14, 6,   //
    15, 5,  6,  5,  6,  5,  6,  6,  6,  5,  7,  7,  6,  6,  6,  5,   //
    6,  7,  6,  5,  5,  6,  7,  7,  7,  7,  7,  15, 11, 14, 13, 28,  //
    20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23,  //
    24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24,  //
    22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23,  //
    21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23,  //
    26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25,  //
    19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27,  //
    20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23,  //
    26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26,  //
    30,
};
constexpr int kMaxCodeLength = 30;
constexpr int kEos = 256;

// The canonical decoding tables: for each length, its first code and how
// many symbols have it, and the symbols in code order.
struct HuffmanTables {
  std::array<uint32_t, kMaxCodeLength + 1> first_code{};
  std::array<uint16_t, kMaxCodeLength + 1> count{};
  std::array<uint16_t, kMaxCodeLength + 1> first_index{};
  std::array<uint16_t, 257> symbols{};
};

constexpr HuffmanTables BuildHuffmanTables() {
  HuffmanTables t;
  for (int s = 0; s < 257; ++s) ++t.count[kHuffmanLengths[s]];
  uint32_t code = 0;
  uint16_t index = 0;
  for (int len = 1; len <= kMaxCodeLength; ++len) {
    code = (code + (len > 1 ? t.count[len - 1] : 0)) << (len > 1 ? 1 : 0);
    t.first_code[len] = code;
    t.first_index[len] = index;
    for (int s = 0; s < 257; ++s) {
      if (kHuffmanLengths[s] == len) t.symbols[index++] = static_cast<uint16_t>(s);
    }
  }
  return t;
}
constexpr HuffmanTables kHuffman = BuildHuffmanTables();

absl::Status Malformed(const std::string& what) {
  return absl::InternalError(absl::StrCat("malformed HTTP/2 header block: ", what));
}

// Reads an integer with an N-bit prefix (RFC 7541 5.1) at `*pos`.
absl::StatusOr<uint64_t> ReadInteger(std::string_view in, size_t* pos, int prefix_bits) {
  if (*pos >= in.size()) return Malformed("integer past the end");
  const uint64_t mask = (1u << prefix_bits) - 1;
  uint64_t value = static_cast<uint8_t>(in[(*pos)++]) & mask;
  if (value < mask) return value;
  for (int shift = 0;; shift += 7) {
    if (*pos >= in.size()) return Malformed("integer past the end");
    if (shift > 28) return Malformed("integer too large");
    const uint8_t byte = static_cast<uint8_t>(in[(*pos)++]);
    value += static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return value;
  }
}

absl::StatusOr<std::string> ReadString(std::string_view in, size_t* pos) {
  if (*pos >= in.size()) return Malformed("string past the end");
  const bool huffman = (static_cast<uint8_t>(in[*pos]) & 0x80) != 0;
  absl::StatusOr<uint64_t> length = ReadInteger(in, pos, 7);
  if (!length.ok()) return length.status();
  if (*length > in.size() - *pos) return Malformed("string longer than its block");
  std::string_view raw = in.substr(*pos, *length);
  *pos += *length;
  if (huffman) return HuffmanDecode(raw);
  return std::string(raw);
}

void AppendInteger(uint64_t value, int prefix_bits, uint8_t first_byte_flags, std::string* out) {
  const uint64_t mask = (1u << prefix_bits) - 1;
  if (value < mask) {
    out->push_back(static_cast<char>(first_byte_flags | value));
    return;
  }
  out->push_back(static_cast<char>(first_byte_flags | mask));
  value -= mask;
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

void AppendString(std::string_view s, std::string* out) {
  AppendInteger(s.size(), 7, 0x00, out);
  out->append(s);
}

}  // namespace

absl::StatusOr<std::string> HuffmanDecode(std::string_view coded) {
  std::string out;
  uint32_t code = 0;
  int length = 0;
  for (char c : coded) {
    for (int bit = 7; bit >= 0; --bit) {
      code = (code << 1) | ((static_cast<uint8_t>(c) >> bit) & 1);
      ++length;
      if (code - kHuffman.first_code[length] < kHuffman.count[length]) {
        const uint16_t symbol =
            kHuffman.symbols[kHuffman.first_index[length] + (code - kHuffman.first_code[length])];
        if (symbol == kEos) return Malformed("Huffman string holds EOS");
        out.push_back(static_cast<char>(symbol));
        code = 0;
        length = 0;
      } else if (length == kMaxCodeLength) {
        return Malformed("invalid Huffman code");
      }
    }
  }
  // What is left is padding: at most 7 bits, all ones (the start of EOS).
  if (length > 7 || code != (1u << length) - 1) return Malformed("invalid Huffman padding");
  return out;
}

absl::StatusOr<HeaderList> HpackDecoder::Decode(std::string_view block) {
  HeaderList headers;
  size_t pos = 0;
  while (pos < block.size()) {
    const uint8_t first = static_cast<uint8_t>(block[pos]);
    if (first & 0x80) {  // indexed field
      absl::StatusOr<uint64_t> index = ReadInteger(block, &pos, 7);
      if (!index.ok()) return index.status();
      if (*index == 0) return Malformed("index 0");
      if (*index <= kStaticCount) {
        headers.emplace_back(kStaticTable[*index - 1].name, kStaticTable[*index - 1].value);
      } else if (*index - kStaticCount <= table_.size()) {
        headers.push_back(table_[*index - kStaticCount - 1]);
      } else {
        return Malformed(absl::StrCat("index ", *index, " past the tables"));
      }
      continue;
    }
    if ((first & 0xe0) == 0x20) {  // dynamic table size update
      if (!headers.empty()) return Malformed("table size update after a field");
      absl::StatusOr<uint64_t> size = ReadInteger(block, &pos, 5);
      if (!size.ok()) return size.status();
      if (*size > max_table_size_) return Malformed("table size beyond SETTINGS_HEADER_TABLE_SIZE");
      table_limit_ = *size;
      EvictTo(table_limit_);
      continue;
    }
    // A literal: with incremental indexing (01), without (0000), never indexed (0001).
    const bool index_it = (first & 0xc0) == 0x40;
    absl::StatusOr<uint64_t> name_index = ReadInteger(block, &pos, index_it ? 6 : 4);
    if (!name_index.ok()) return name_index.status();
    std::string name;
    if (*name_index == 0) {
      absl::StatusOr<std::string> literal = ReadString(block, &pos);
      if (!literal.ok()) return literal.status();
      name = std::move(*literal);
    } else if (*name_index <= kStaticCount) {
      name = kStaticTable[*name_index - 1].name;
    } else if (*name_index - kStaticCount <= table_.size()) {
      name = table_[*name_index - kStaticCount - 1].first;
    } else {
      return Malformed(absl::StrCat("name index ", *name_index, " past the tables"));
    }
    absl::StatusOr<std::string> value = ReadString(block, &pos);
    if (!value.ok()) return value.status();
    if (index_it) Insert(name, *value);
    headers.emplace_back(std::move(name), std::move(*value));
  }
  return headers;
}

void HpackDecoder::Insert(std::string name, std::string value) {
  const size_t size = name.size() + value.size() + 32;
  if (size > table_limit_) {  // RFC 7541 4.4: the table empties, nothing is added
    EvictTo(0);
    return;
  }
  EvictTo(table_limit_ - size);
  table_size_ += size;
  table_.emplace_front(std::move(name), std::move(value));
}

void HpackDecoder::EvictTo(size_t limit) {
  while (table_size_ > limit) {
    table_size_ -= table_.back().first.size() + table_.back().second.size() + 32;
    table_.pop_back();
  }
}

void AppendLiteralHeader(std::string_view name, std::string_view value, std::string* out) {
  out->push_back(0x00);
  AppendString(name, out);
  AppendString(value, out);
}

void AppendIndexedHeader(uint8_t static_index, std::string* out) {
  AppendInteger(static_index, 7, 0x80, out);
}

void AppendLiteralHeaderIndexedName(uint8_t name_index, std::string_view value, std::string* out) {
  AppendInteger(name_index, 4, 0x00, out);
  AppendString(value, out);
}

}  // namespace skiff::http2
