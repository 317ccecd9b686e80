#include "core/packed_text.h"

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

namespace k3c {
namespace {

// A pod of one ReplicaSet, as the watch cache holds it: the same bytes but for its names,
// uid, resourceVersion and (once running) its node and IP.
std::string pod(int i, bool running) {
  std::string name = "web-6c8d9878b5-" + std::to_string(10000 + i);
  std::string text =
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"creationTimestamp":"2026-12-04T23:54:05Z",)"
      R"("generateName":"web-6c8d9878b5-","labels":{"app":"web","pod-template-hash":"6c8d9878b5"},)"
      R"("managedFields":[{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":)"
      R"({"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}}}},)"
      R"("manager":"k3c-controller-manager","operation":"Update","time":"2026-12-04T23:54:05Z"}],)"
      R"("name":")" +
      name + R"(","namespace":"web","resourceVersion":")" + std::to_string(5000 + 3 * i) +
      R"(","uid":"9e1c7f0a-2b3d-4e5f-8a9b-)" + std::to_string(100000000000 + i * 7919) +
      R"("},"spec":{"containers":[{"image":"registry.example/bench:1","name":"app",)"
      R"("resources":{"requests":{"cpu":"10m","memory":"16Mi"}}}],"restartPolicy":"Always",)"
      R"("schedulerName":"default-scheduler","serviceAccountName":"default"})";
  if (running) {
    text += R"(,"status":{"conditions":[{"lastTransitionTime":"2026-12-04T23:54:09Z",)"
            R"("status":"True","type":"Ready"},{"lastTransitionTime":"2026-12-04T23:54:09Z",)"
            R"("status":"True","type":"ContainersReady"}],"containerStatuses":[{"image":)"
            R"("registry.example/bench:1","name":"app","ready":true,"restartCount":0,)"
            R"("state":{"running":{"startedAt":"2026-12-04T23:54:09Z"}}}],"hostIP":"172.16.0.)" +
            std::to_string(i % 250) + R"(","phase":"Running","podIP":"10.42.)" +
            std::to_string(i % 250) + "." + std::to_string(i % 200 + 2) + R"("})";
  }
  return text + "}";
}

TEST_CASE("texts of one kind pack small and read back as they were", "[packed_text]") {
  TextPacker packer;
  std::vector<std::string> texts;
  std::vector<PackedText> packed;
  size_t plain = 0, held = 0;
  for (int i = 0; i < 500; ++i) {
    texts.push_back(pod(i, false));
    packed.push_back(packer.pack(PackedText(texts.back())));
    plain += texts.back().size();
    held += packed.back().held_bytes();
  }
  CHECK(packer.dictionaries_made() == 1);
  CHECK(held * 8 < plain);
  for (size_t i = 0; i < texts.size(); ++i) {
    REQUIRE(packed[i].packed());
    CHECK(packed[i].size() == texts[i].size());
    CHECK(packed[i].text() == texts[i]);
    CHECK(packed[i].plain() == nullptr);
  }
  std::string out = "[";
  packed[7].append_to(out);
  CHECK(out == "[" + texts[7]);
}

TEST_CASE("a new shape of text gets a dictionary of its own", "[packed_text]") {
  TextPacker packer;
  for (int i = 0; i < 100; ++i) (void)packer.pack(PackedText(pod(i, false)));
  REQUIRE(packer.dictionaries_made() == 1);
  std::vector<std::pair<std::string, PackedText>> running;
  for (int i = 0; i < 200; ++i) {
    std::string text = pod(i, true);
    running.emplace_back(text, packer.pack(PackedText(text)));
  }
  // Running pods pack poorly against pending ones only until their waste pays for one.
  CHECK(packer.dictionaries_made() >= 2);
  CHECK(packer.dictionaries_made() <= 4);
  size_t late = 0;
  for (size_t i = 100; i < running.size(); ++i) late += running[i].second.held_bytes();
  CHECK(late * 8 < 100 * running[150].first.size());
  for (const auto& [text, packed] : running) CHECK(packed.text() == text);
}

TEST_CASE("short and incompressible texts are held as they are", "[packed_text]") {
  TextPacker packer;
  PackedText small = packer.pack(PackedText(R"({"kind":"Lease"})"));
  CHECK_FALSE(small.packed());
  REQUIRE(small.plain() != nullptr);
  CHECK(*small.plain() == R"({"kind":"Lease"})");

  std::mt19937 random(7);
  std::vector<std::pair<std::string, PackedText>> noise;
  for (int i = 0; i < 50; ++i) {
    std::string text(3000, '\0');
    for (char& c : text) c = static_cast<char>(random());
    noise.emplace_back(text, packer.pack(PackedText(text)));
  }
  for (const auto& [text, packed] : noise) {
    CHECK(packed.text() == text);
    CHECK(packed.held_bytes() <= text.size());
  }
}

TEST_CASE("a large text packs and reads back, and the next small one still does",
          "[packed_text]") {
  TextPacker packer;
  std::string large;
  for (int i = 0; large.size() < 2 * 1024 * 1024; ++i) large += pod(i, i % 2 == 0);
  PackedText big = packer.pack(PackedText(large));
  CHECK(big.held_bytes() * 4 < large.size());
  CHECK(big.text() == large);
  std::string prefix = big.prefix(100);
  CHECK(prefix == large.substr(0, 100));
  PackedText small = packer.pack(PackedText(pod(7, true)));
  CHECK(small.text() == pod(7, true));
}

TEST_CASE("packed texts outlive their packer; an unpacked one moves its text out",
          "[packed_text]") {
  PackedText kept;
  {
    TextPacker packer;
    (void)packer.pack(PackedText(pod(0, false)));
    kept = packer.pack(PackedText(pod(1, false)));
  }
  REQUIRE(kept.packed());
  CHECK(kept.text() == pod(1, false));
  CHECK(PackedText().text().empty());
  CHECK(PackedText().empty());

  PackedText plain(std::string(100, 'x'));
  std::string moved = std::move(plain).text();
  CHECK(moved == std::string(100, 'x'));
  // A packed one is copied out (it stays as it was).
  CHECK(std::move(kept).text() == pod(1, false));
  CHECK(kept.text() == pod(1, false));
}

}  // namespace
}  // namespace k3c
