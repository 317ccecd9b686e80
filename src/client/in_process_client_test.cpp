// InProcessClient::watch: a handler's streamed pieces, whole lines or not, back as lines.
#include "client/in_process_client.h"

#include <catch2/catch.hpp>

namespace k3c::client {
namespace {

using namespace std::chrono_literals;

// Hands out its chunks one poll at a time, then ends.
class ScriptedStream final : public http::BodyStream {
 public:
  explicit ScriptedStream(std::vector<std::vector<std::string>> chunks)
      : chunks_(std::move(chunks)) {}
  void set_wake(std::function<void()> wake) override { wake(); }
  Chunk poll() override {
    Chunk c;
    if (next_ < chunks_.size()) {
      for (auto& piece : chunks_[next_++]) c.append(piece);
    }
    c.ended = next_ == chunks_.size();
    return c;
  }
  void cancel() override {}

 private:
  std::vector<std::vector<std::string>> chunks_;
  size_t next_ = 0;
};

}  // namespace

TEST_CASE("an in-process watch splits its pieces into lines, whole pieces or not") {
  InProcessClient client(
      [](http::Request&) {
        http::Response r;
        r.stream = std::make_shared<ScriptedStream>(std::vector<std::vector<std::string>>{
            {"{\"a\":1}\n", "{\"b\""},            // a whole line, then half of one
            {":2}\n{\"c\":3}\n", "{\"d\":4}\n"},  // its rest with another; a whole one
            {"{\"e\":5}"}});                      // a last line without its newline
        return r;
      },
      {});
  auto lines = client.watch("/api/v1/pods?watch=true");
  REQUIRE(lines.is_ok());
  std::vector<std::string> got;
  while (auto line = (*lines)->next(1s)) got.push_back(*line);
  CHECK(got ==
        std::vector<std::string>{"{\"a\":1}", "{\"b\":2}", "{\"c\":3}", "{\"d\":4}", "{\"e\":5}"});
  CHECK((*lines)->ended());
}

}  // namespace k3c::client
