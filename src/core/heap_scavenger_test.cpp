#include "core/heap_scavenger.h"

#include <catch2/catch.hpp>
#include <vector>

namespace k3c {

TEST_CASE("the heap is trimmed once its free memory has lingered over the threshold") {
  std::vector<HeapFree> readings;
  size_t at = 0, trims = 0;
  HeapScavenger scavenger({.min_free_bytes = 100, .min_free_share = 0.1},
                          {[&] { return readings.at(at++); }, [&] { ++trims; }});
  auto mb = [](size_t free, size_t heap) { return HeapFree{free, heap}; };
  readings = {mb(150, 1000),   // over: wait for the next tick
              mb(50, 1000),    // under: freed memory was reused
              mb(150, 1000),   // over again
              mb(200, 1000),   // still over: trim
              mb(200, 1000),   // over, just after a trim: wait
              mb(200, 1000),   // still over: trim again
              mb(150, 10000),  // under the share of a large heap
              mb(150, 10000)};
  std::vector<bool> trimmed;
  for (size_t i = 0; i < readings.size(); ++i) trimmed.push_back(scavenger.tick());
  CHECK(trimmed == std::vector<bool>{false, false, false, true, false, true, false, false});
  CHECK(trims == 2);
}

TEST_CASE("glibc's heap can be measured and trimmed") {
  HeapScavenger::Heap heap = HeapScavenger::glibc_heap();
  HeapFree f = heap.measure();
  CHECK(f.heap_bytes >= f.free_bytes);
  heap.trim();  // never fails; what it gives back is the kernel's business
}

}  // namespace k3c
