#include "common/rpc/http2/hpack.h"

#include <string>

#include "gtest/gtest.h"

namespace skiff::http2 {
namespace {

// "8286 8441" -> the bytes (spaces and newlines ignored), as RFC 7541 prints them.
std::string Hex(const std::string& text) {
  std::string out;
  int high = -1;
  for (char c : text) {
    int v;
    if (c >= '0' && c <= '9') {
      v = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      v = c - 'a' + 10;
    } else {
      continue;
    }
    if (high < 0) {
      high = v;
    } else {
      out.push_back(static_cast<char>(high * 16 + v));
      high = -1;
    }
  }
  return out;
}

using Pair = std::pair<std::string, std::string>;

// RFC 7541 C.4: three requests on one connection, Huffman-coded, table 4096.
TEST(HpackDecoder, DecodesRfcRequestsWithHuffman) {
  HpackDecoder decoder;
  absl::StatusOr<HeaderList> first =
      decoder.Decode(Hex("8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff"));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(*first, (HeaderList{{":method", "GET"},
                                {":scheme", "http"},
                                {":path", "/"},
                                {":authority", "www.example.com"}}));
  EXPECT_EQ(decoder.table_size(), 57u);

  absl::StatusOr<HeaderList> second = decoder.Decode(Hex("8286 84be 5886 a8eb 1064 9cbf"));
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->back(), Pair("cache-control", "no-cache"));
  EXPECT_EQ((*second)[3], Pair(":authority", "www.example.com"));  // from the dynamic table
  EXPECT_EQ(decoder.table_size(), 110u);

  absl::StatusOr<HeaderList> third =
      decoder.Decode(Hex("8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf"));
  ASSERT_TRUE(third.ok()) << third.status();
  EXPECT_EQ(*third, (HeaderList{{":method", "GET"},
                                {":scheme", "https"},
                                {":path", "/index.html"},
                                {":authority", "www.example.com"},
                                {"custom-key", "custom-value"}}));
  ASSERT_EQ(decoder.table().size(), 3u);
  EXPECT_EQ(decoder.table()[0], Pair("custom-key", "custom-value"));
  EXPECT_EQ(decoder.table()[2], Pair(":authority", "www.example.com"));
  EXPECT_EQ(decoder.table_size(), 164u);
}

// RFC 7541 C.6: three responses, Huffman-coded, a 256-byte table, so
// entries are evicted.
TEST(HpackDecoder, DecodesRfcResponsesEvictingFromASmallTable) {
  HpackDecoder decoder(256);
  absl::StatusOr<HeaderList> first = decoder.Decode(
      Hex("4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6"
          "2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3"));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(*first, (HeaderList{{":status", "302"},
                                {"cache-control", "private"},
                                {"date", "Mon, 21 Oct 2013 20:13:21 GMT"},
                                {"location", "https://www.example.com"}}));
  EXPECT_EQ(decoder.table_size(), 222u);

  absl::StatusOr<HeaderList> second = decoder.Decode(Hex("4883 640e ffc1 c0bf"));
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ((*second)[0], Pair(":status", "307"));
  EXPECT_EQ((*second)[3], Pair("location", "https://www.example.com"));
  EXPECT_EQ(decoder.table()[0], Pair(":status", "307"));  // ":status: 302" evicted
  EXPECT_EQ(decoder.table().size(), 4u);
  EXPECT_EQ(decoder.table_size(), 222u);

  absl::StatusOr<HeaderList> third = decoder.Decode(
      Hex("88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab"
          "77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f"
          "9587 3160 65c0 03ed 4ee5 b106 3d50 07"));
  ASSERT_TRUE(third.ok()) << third.status();
  EXPECT_EQ((*third)[0], Pair(":status", "200"));
  EXPECT_EQ((*third)[2], Pair("date", "Mon, 21 Oct 2013 20:13:22 GMT"));
  EXPECT_EQ((*third)[4], Pair("content-encoding", "gzip"));
  EXPECT_EQ((*third)[5],
            Pair("set-cookie", "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"));
  ASSERT_EQ(decoder.table().size(), 3u);
  EXPECT_EQ(decoder.table()[2], Pair("date", "Mon, 21 Oct 2013 20:13:22 GMT"));
  EXPECT_EQ(decoder.table_size(), 215u);
}

TEST(HpackDecoder, ReadsMultiByteIntegers) {
  // RFC 7541 C.1.2: 1337 with a 5-bit prefix is 1f 9a 0a. As a table size
  // update (001 prefix) that is 3f 9a 0a, within a table of 4096.
  HpackDecoder decoder;
  ASSERT_TRUE(decoder.Decode(Hex("3f9a0a")).ok());
  HpackDecoder small(1000);
  EXPECT_FALSE(small.Decode(Hex("3f9a0a")).ok());  // beyond what this side allowed
}

TEST(HpackDecoder, RefusesBrokenBlocks) {
  HpackDecoder decoder;
  EXPECT_FALSE(decoder.Decode(Hex("80")).ok());         // index 0
  EXPECT_FALSE(decoder.Decode(Hex("be")).ok());         // index 62, the empty dynamic table
  EXPECT_FALSE(decoder.Decode(Hex("0003 6162")).ok());  // a name longer than the block
  EXPECT_FALSE(decoder.Decode(Hex("82 20")).ok());      // a size update after a field
  EXPECT_FALSE(decoder.Decode(Hex("1f")).ok());         // an integer cut short
}

TEST(Huffman, RefusesBadPaddingAndEos) {
  // RFC 7541 5.2: padding over 7 bits, padding that is not ones, EOS.
  EXPECT_FALSE(HuffmanDecode(std::string("\xff", 1)).ok());
  EXPECT_FALSE(HuffmanDecode(std::string("\x1f\xff", 2)).ok());
  EXPECT_FALSE(HuffmanDecode(std::string("\xff\xff\xff\xff\xfc", 5)).ok());
  EXPECT_FALSE(HuffmanDecode(std::string("\x00", 1)).ok());               // "0" then 3 zero bits
  absl::StatusOr<std::string> a = HuffmanDecode(std::string("\x1f", 1));  // "a" + 3 ones
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, "a");
  EXPECT_EQ(*HuffmanDecode(""), "");
}

TEST(HpackEncoder, LiteralsDecodeBackUnchanged) {
  std::string block;
  AppendIndexedHeader(3, &block);
  AppendLiteralHeaderIndexedName(4, "/skiff.v1.Ctld/SubmitJob", &block);
  AppendLiteralHeader("x-skiff-munge", std::string(300, 'c'), &block);  // a multi-byte length
  HpackDecoder decoder;
  absl::StatusOr<HeaderList> headers = decoder.Decode(block);
  ASSERT_TRUE(headers.ok()) << headers.status();
  EXPECT_EQ(*headers, (HeaderList{{":method", "POST"},
                                  {":path", "/skiff.v1.Ctld/SubmitJob"},
                                  {"x-skiff-munge", std::string(300, 'c')}}));
  EXPECT_EQ(decoder.table_size(), 0u);  // literals without indexing add nothing
}

}  // namespace
}  // namespace skiff::http2
