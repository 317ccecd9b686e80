// The streaming protocols' parsers on untrusted bytes: a SPDY byte stream through the frame
// parser and header decompression, and a WebSocket byte stream through the server's frame
// reader (over an in-memory pipe), each until it ends or reports an error.
#include <chrono>

#include "http/duplex.h"
#include "streaming/spdy.h"
#include "streaming/websocket.h"

using namespace k3c;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  {
    streaming::spdy::FrameParser parser(1 << 16);
    streaming::spdy::HeaderDecompressor headers(1 << 16);
    // Fed in two pieces, to cross a read boundary somewhere inside.
    parser.feed(bytes.substr(0, size / 3));
    for (int pass = 0; pass < 2; ++pass) {
      for (;;) {
        auto f = parser.next(headers);
        if (!f.is_ok() || !*f) break;
      }
      if (pass == 0) parser.feed(bytes.substr(size / 3));
    }
  }
  {
    auto [server, client] = http::make_pipe(1 << 20);
    (void)client->write_all(bytes);
    client->close();
    streaming::WebSocket ws(*server, {.max_message = 1 << 14, .allow_text = false});
    for (int i = 0; i < 1000; ++i) {
      auto m = ws.read_message(std::chrono::milliseconds(100));
      if (!m.is_ok() || !*m) break;
    }
  }
  return 0;
}
