// SPDY/3.1 framing: header compression round trips across blocks, every frame type through
// the parser at arbitrary read boundaries, malformed input, and the connection's own
// answers (PING, GOAWAY).
#include "streaming/spdy.h"

#include <catch2/catch.hpp>

#include "streaming/testing/protocol_clients.h"

namespace k3c::streaming::spdy {
namespace {

using namespace std::chrono_literals;

TEST_CASE("the SPDY/3 dictionary is the draft's 1423 bytes") {
  std::string_view d = dictionary();
  CHECK(d.size() == 1423);
  CHECK(d.substr(0, 11) == std::string_view("\0\0\0\x07options", 11));
  CHECK(d.substr(d.size() - 7) == ",enq=0.");
}

TEST_CASE("header blocks round-trip through one compression context per direction") {
  HeaderCompressor out;
  HeaderDecompressor in;
  std::vector<Headers> blocks = {
      {{"streamtype", "error"}, {"port", "80"}, {"requestid", "0"}},
      {{"streamtype", "data"}, {"port", "80"}, {"requestid", "0"}},
      {},
      {{"x-multi", std::string("a\0b", 3)}, {"big", std::string(10000, 'z')}},
  };
  for (const Headers& h : blocks) {
    auto z = out.compress(h);
    REQUIRE(z.is_ok());
    auto back = in.decompress(*z);
    REQUIRE(back.is_ok());
    CHECK(*back == h);
  }
  // Names arrive lower-cased whatever the peer sent.
  HeaderCompressor upper;
  HeaderDecompressor fresh;
  auto z = upper.compress({{"StreamType", "stdin"}});
  REQUIRE(z.is_ok());
  CHECK(fresh.decompress(*z).value() == Headers{{"streamtype", "stdin"}});
}

TEST_CASE("a corrupt or oversized header block is an error, not a crash") {
  HeaderDecompressor in;
  CHECK(in.decompress("garbage!").status().code() == Code::kBadRequest);
  HeaderCompressor out;
  HeaderDecompressor small(100);
  auto z = out.compress({{"a", std::string(1000, 'b')}});
  REQUIRE(z.is_ok());
  CHECK(small.decompress(*z).status().code() == Code::kBadRequest);
}

TEST_CASE("every frame type survives encode and parse, fed a byte at a time") {
  HeaderCompressor out;
  std::vector<Frame> frames;
  Frame syn;
  syn.type = FrameType::kSynStream;
  syn.stream_id = 1;
  syn.priority = 3;
  syn.flags = kFlagFin;
  syn.headers = {{"streamtype", "error"}};
  frames.push_back(syn);
  Frame reply;
  reply.type = FrameType::kSynReply;
  reply.stream_id = 1;
  frames.push_back(reply);
  Frame data;
  data.stream_id = 3;
  data.flags = kFlagFin;
  data.data = std::string(70000, 'd');
  frames.push_back(data);
  for (FrameType t : {FrameType::kRstStream, FrameType::kWindowUpdate, FrameType::kGoAway}) {
    Frame f;
    f.type = t;
    f.stream_id = 5;
    f.value = 7;
    frames.push_back(f);
  }
  Frame ping;
  ping.type = FrameType::kPing;
  ping.value = 9;
  frames.push_back(ping);
  std::string wire;
  for (const Frame& f : frames) wire += encode(f, out).value();

  FrameParser parser;
  HeaderDecompressor in;
  std::vector<Frame> got;
  for (char c : wire) {
    parser.feed(std::string_view(&c, 1));
    auto f = parser.next(in);
    REQUIRE(f.is_ok());
    if (*f) got.push_back(std::move(**f));
  }
  REQUIRE(got.size() == frames.size());
  for (size_t i = 0; i < frames.size(); ++i) {
    INFO("frame " << i);
    CHECK(got[i].type == frames[i].type);
    CHECK(got[i].stream_id == frames[i].stream_id);
    CHECK(got[i].flags == frames[i].flags);
    CHECK(got[i].value == frames[i].value);
    CHECK(got[i].headers == frames[i].headers);
    CHECK(got[i].data == frames[i].data);
  }
  CHECK(got[0].priority == 3);
}

TEST_CASE("malformed frames are errors") {
  HeaderDecompressor in;
  {
    FrameParser p;
    p.feed(std::string("\x80\x02\x00\x06\x00\x00\x00\x04\x00\x00\x00\x01", 12));  // version 2
    CHECK(p.next(in).status().code() == Code::kBadRequest);
  }
  {
    FrameParser p;
    p.feed(std::string("\x80\x03\x00\x03\x00\x00\x00\x02\x00\x01", 10));  // short RST_STREAM
    CHECK(p.next(in).status().code() == Code::kBadRequest);
  }
  {
    FrameParser p(1024);
    p.feed(std::string("\x00\x00\x00\x01\x00\x01\x00\x00", 8));  // 64 KiB data frame
    CHECK(p.next(in).status().code() == Code::kBadRequest);
  }
  {
    FrameParser p;
    p.feed(
        std::string("\x80\x03\x00\x01\x00\x00\x00\x0e\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00"
                    "junk",
                    22));  // SYN_STREAM with a header block that is not zlib
    CHECK(p.next(in).status().code() == Code::kBadRequest);
  }
}

TEST_CASE("the connection echoes client pings, and a bad stream id ends it with GOAWAY") {
  auto [server_end, client_end] = http::make_pipe();
  SpdyConnection conn(*server_end);
  testing::SpdyClient client(*client_end);
  Frame ping;
  ping.type = FrameType::kPing;
  ping.value = 1;
  client.send(ping);
  client.open({{"streamtype", "error"}});  // id 1
  auto f = conn.read_frame(1s);
  REQUIRE(f.is_ok());
  REQUIRE(f->has_value());
  CHECK((*f)->type == FrameType::kSynStream);
  auto echoed = client.next();
  REQUIRE(echoed);
  CHECK(echoed->type == FrameType::kPing);
  CHECK(echoed->value == 1);
  // Stream id 1 again: not a new stream.
  Frame again;
  again.type = FrameType::kSynStream;
  again.stream_id = 1;
  client.send(again);
  CHECK(conn.read_frame(1s).status().code() == Code::kBadRequest);
  auto goaway = client.next();
  REQUIRE(goaway);
  CHECK(goaway->type == FrameType::kGoAway);
  CHECK(goaway->value == kProtocolError);
  // EOF ends the reading cleanly.
  client_end->close();
  auto end = conn.read_frame(1s);
  REQUIRE(end.is_ok());
  CHECK_FALSE(end->has_value());
}

}  // namespace
}  // namespace k3c::streaming::spdy
