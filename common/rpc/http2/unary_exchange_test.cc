#include "common/rpc/http2/unary_exchange.h"

#include <string>

#include "gtest/gtest.h"

namespace skiff::http2 {
namespace {

std::string Frame(uint8_t type, uint8_t flags, uint32_t stream, const std::string& payload) {
  std::string out;
  const size_t n = payload.size();
  out += {static_cast<char>(n >> 16),
          static_cast<char>(n >> 8),
          static_cast<char>(n),
          static_cast<char>(type),
          static_cast<char>(flags),
          static_cast<char>(stream >> 24),
          static_cast<char>(stream >> 16),
          static_cast<char>(stream >> 8),
          static_cast<char>(stream)};
  return out + payload;
}

std::string Headers(const HeaderList& fields) {
  std::string block;
  for (const auto& [name, value] : fields) AppendLiteralHeader(name, value, &block);
  return block;
}

std::string Message(const std::string& bytes) {
  const size_t n = bytes.size();
  return std::string{0, static_cast<char>(n >> 24), static_cast<char>(n >> 16),
                     static_cast<char>(n >> 8), static_cast<char>(n)} +
         bytes;
}

struct ParsedFrame {
  uint8_t type;
  uint8_t flags;
  uint32_t stream;
  std::string payload;
};

// Splits what a client sends after its preface into frames.
std::vector<ParsedFrame> ParseFrames(std::string_view bytes) {
  std::vector<ParsedFrame> frames;
  while (bytes.size() >= 9) {
    const size_t n = (static_cast<uint8_t>(bytes[0]) << 16) |
                     (static_cast<uint8_t>(bytes[1]) << 8) | static_cast<uint8_t>(bytes[2]);
    ParsedFrame f{static_cast<uint8_t>(bytes[3]), static_cast<uint8_t>(bytes[4]),
                  (static_cast<uint32_t>(static_cast<uint8_t>(bytes[5])) << 24 |
                   static_cast<uint32_t>(static_cast<uint8_t>(bytes[6])) << 16 |
                   static_cast<uint32_t>(static_cast<uint8_t>(bytes[7])) << 8 |
                   static_cast<uint8_t>(bytes[8])),
                  std::string(bytes.substr(9, n))};
    frames.push_back(f);
    bytes.remove_prefix(9 + n);
  }
  EXPECT_TRUE(bytes.empty());
  return frames;
}

TEST(EncodeUnaryRequest, PrefaceSettingsHeadersAndOneMessage) {
  UnaryRequest request{
      "ctld:6817", "/skiff.v1.Ctld/SubmitJob", {{"x-skiff-munge", "MUNGE:abc"}}, "payload", 10000};
  absl::StatusOr<std::string> bytes = EncodeUnaryRequest(request);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  const std::string preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
  ASSERT_EQ(bytes->substr(0, preface.size()), preface);
  std::vector<ParsedFrame> frames = ParseFrames(std::string_view(*bytes).substr(preface.size()));
  ASSERT_EQ(frames.size(), 4u);
  EXPECT_EQ(frames[0].type, 0x4);  // SETTINGS: ENABLE_PUSH 0, INITIAL_WINDOW_SIZE 2^31-1
  EXPECT_EQ(frames[0].payload, std::string("\x00\x02\x00\x00\x00\x00\x00\x04\x7f\xff\xff\xff", 12));
  EXPECT_EQ(frames[1].type, 0x8);  // the connection's WINDOW_UPDATE
  EXPECT_EQ(frames[1].stream, 0u);
  EXPECT_EQ(frames[2].type, 0x1);
  EXPECT_EQ(frames[2].flags, 0x4);  // END_HEADERS
  EXPECT_EQ(frames[2].stream, 1u);
  HpackDecoder decoder;
  absl::StatusOr<HeaderList> headers = decoder.Decode(frames[2].payload);
  ASSERT_TRUE(headers.ok());
  EXPECT_EQ(*headers, (HeaderList{{":method", "POST"},
                                  {":scheme", "http"},
                                  {":path", "/skiff.v1.Ctld/SubmitJob"},
                                  {":authority", "ctld:6817"},
                                  {"content-type", "application/grpc"},
                                  {"te", "trailers"},
                                  {"grpc-timeout", "10000m"},
                                  {"x-skiff-munge", "MUNGE:abc"}}));
  EXPECT_EQ(frames[3].type, 0x0);
  EXPECT_EQ(frames[3].flags, 0x1);  // END_STREAM
  EXPECT_EQ(frames[3].payload, Message("payload"));
}

TEST(EncodeUnaryRequest, SplitsTheMessageIntoFramesAndRefusesMoreThanAWindow) {
  UnaryRequest request{"h:1", "/s/M", {}, std::string(40000, 'x'), 0};
  absl::StatusOr<std::string> bytes = EncodeUnaryRequest(request);
  ASSERT_TRUE(bytes.ok());
  std::vector<ParsedFrame> frames = ParseFrames(std::string_view(*bytes).substr(24));
  ASSERT_EQ(frames.size(), 6u);  // SETTINGS, WINDOW_UPDATE, HEADERS, 3 DATA
  EXPECT_EQ(frames[3].payload.size(), 16384u);
  EXPECT_EQ(frames[3].flags, 0);
  EXPECT_EQ(frames[5].payload.size(), 40005u - 2 * 16384u);
  EXPECT_EQ(frames[5].flags, 0x1);
  EXPECT_EQ(frames[3].payload + frames[4].payload + frames[5].payload,
            Message(std::string(40000, 'x')));

  request.message.assign(kMaxUnaryRequestBytes + 1, 'x');
  EXPECT_EQ(EncodeUnaryRequest(request).status().code(), absl::StatusCode::kInvalidArgument);
}

// What a gRPC server sends for a successful call.
std::string OkReply(const std::string& reply) {
  return Frame(0x4, 0, 0, std::string("\x00\x04\x00\x01\x00\x00", 6)) +  // SETTINGS
         Frame(0x6, 0, 0, "pingpong") +                                  // a BDP ping
         Frame(0x1, 0x4, 1, Headers({{":status", "200"}, {"content-type", "application/grpc"}})) +
         Frame(0x0, 0, 1, Message(reply)) + Frame(0x1, 0x5, 1, Headers({{"grpc-status", "0"}}));
}

TEST(UnaryReplyReader, ReadsAReplyFedInAnyPieces) {
  const std::string server = OkReply("the reply");
  for (size_t piece = 1; piece <= server.size(); ++piece) {
    UnaryReplyReader reader(1 << 20);
    for (size_t at = 0; at < server.size() && !reader.done(); at += piece) {
      reader.Feed(std::string_view(server).substr(at, piece));
    }
    ASSERT_TRUE(reader.done()) << piece;
    EXPECT_TRUE(reader.outcome().status.ok()) << reader.outcome().status;
    EXPECT_EQ(reader.outcome().reply, "the reply");
    // The SETTINGS and the PING are acknowledged.
    EXPECT_EQ(reader.TakeOutbound(), Frame(0x4, 0x1, 0, "") + Frame(0x6, 0x1, 0, "pingpong"));
  }
}

TEST(UnaryReplyReader, ReadsAMessageAcrossDataFramesAndContinuations) {
  const std::string body = Message(std::string(30000, 'r'));
  const std::string trailers = Headers({{"grpc-status", "0"}, {"grpc-message", ""}});
  UnaryReplyReader reader(1 << 20);
  reader.Feed(Frame(0x1, 0x4, 1, Headers({{":status", "200"}})) +
              Frame(0x0, 0, 1, body.substr(0, 16384)) +
              Frame(0x0, 0x8, 1, std::string(1, '\x03') + body.substr(16384) + "pad") +  // PADDED
              Frame(0x1, 0x1, 1, trailers.substr(0, 5)) +  // END_STREAM, not END_HEADERS
              Frame(0x9, 0x4, 1, trailers.substr(5)));
  ASSERT_TRUE(reader.done());
  ASSERT_TRUE(reader.outcome().status.ok()) << reader.outcome().status;
  EXPECT_EQ(reader.outcome().reply, std::string(30000, 'r'));
}

TEST(UnaryReplyReader, TrailersOnlyErrorsKeepTheirCodeAndMessage) {
  UnaryReplyReader reader(1 << 20);
  reader.Feed(Frame(
      0x1, 0x5, 1,
      Headers({{":status", "200"},
               {"grpc-status", "3"},
               {"grpc-message", "Invalid partition name specified%0Asecond line %25 100%C3%A9"}})));
  ASSERT_TRUE(reader.done());
  EXPECT_EQ(reader.outcome().status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(reader.outcome().status.message(),
            "Invalid partition name specified\nsecond line % 100\xC3\xA9");
  EXPECT_FALSE(reader.outcome().unprocessed);
}

TEST(UnaryReplyReader, TellsAnUnstartedCallFromAStartedOne) {
  UnaryReplyReader refused(1 << 20);
  refused.Feed(Frame(0x7, 0, 0, std::string("\x00\x00\x00\x00\x00\x00\x00\x00", 8)));  // GOAWAY 0
  ASSERT_TRUE(refused.done());
  EXPECT_EQ(refused.outcome().status.code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(refused.outcome().unprocessed);

  UnaryReplyReader refused_stream(1 << 20);
  refused_stream.Feed(Frame(0x3, 0, 1, std::string("\x00\x00\x00\x07", 4)));
  EXPECT_TRUE(refused_stream.outcome().unprocessed);

  UnaryReplyReader reset(1 << 20);  // CANCEL: the call may have run
  reset.Feed(Frame(0x3, 0, 1, std::string("\x00\x00\x00\x08", 4)));
  ASSERT_TRUE(reset.done());
  EXPECT_FALSE(reset.outcome().unprocessed);

  // A GOAWAY that still covers stream 1 lets the call finish.
  UnaryReplyReader draining(1 << 20);
  draining.Feed(Frame(0x7, 0, 0, std::string("\x00\x00\x00\x01\x00\x00\x00\x00", 8)));
  EXPECT_FALSE(draining.done());
  draining.Feed(OkReply("late"));
  ASSERT_TRUE(draining.done());
  EXPECT_EQ(draining.outcome().reply, "late");
}

TEST(UnaryReplyReader, RefusesWhatIsNotOneCallsAnswer) {
  {
    UnaryReplyReader reader(10);  // beyond the reply limit
    reader.Feed(Frame(0x1, 0x4, 1, Headers({{":status", "200"}})) +
                Frame(0x0, 0, 1, Message(std::string(11, 'x'))));
    ASSERT_TRUE(reader.done());
    EXPECT_EQ(reader.outcome().status.code(), absl::StatusCode::kResourceExhausted);
  }
  {
    UnaryReplyReader reader(1 << 20);  // a compressed message nobody asked for
    reader.Feed(Frame(0x1, 0x4, 1, Headers({{":status", "200"}})) +
                Frame(0x0, 0, 1, std::string("\x01\x00\x00\x00\x01x", 6)) +
                Frame(0x1, 0x5, 1, Headers({{"grpc-status", "0"}})));
    EXPECT_EQ(reader.outcome().status.code(), absl::StatusCode::kInternal);
  }
  {
    UnaryReplyReader reader(1 << 20);  // DATA that ends the stream without trailers
    reader.Feed(Frame(0x1, 0x4, 1, Headers({{":status", "200"}})) +
                Frame(0x0, 0x1, 1, Message("x")));
    EXPECT_EQ(reader.outcome().status.code(), absl::StatusCode::kInternal);
  }
  {
    UnaryReplyReader reader(1 << 20);  // an HTTP error without grpc-status
    reader.Feed(Frame(0x1, 0x5, 1, Headers({{":status", "503"}})));
    EXPECT_EQ(reader.outcome().status.code(), absl::StatusCode::kUnavailable);
  }
  {
    UnaryReplyReader reader(1 << 20);  // a frame beyond SETTINGS_MAX_FRAME_SIZE
    reader.Feed(Frame(0x0, 0, 1, std::string(16385, 'x')));
    EXPECT_EQ(reader.outcome().status.code(), absl::StatusCode::kInternal);
  }
  {
    UnaryReplyReader reader(1 << 20);  // headers the decoder cannot read
    reader.Feed(Frame(0x1, 0x4, 1, std::string("\xbe", 1)));
    EXPECT_EQ(reader.outcome().status.code(), absl::StatusCode::kInternal);
  }
}

TEST(DecodeGrpcMessage, KeepsWhatIsNotAnEscape) {
  EXPECT_EQ(DecodeGrpcMessage("100%"), "100%");
  EXPECT_EQ(DecodeGrpcMessage("%zz%4"), "%zz%4");
  EXPECT_EQ(DecodeGrpcMessage("a%20b"), "a b");
}

}  // namespace
}  // namespace skiff::http2
