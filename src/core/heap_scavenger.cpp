#include "core/heap_scavenger.h"

#include <malloc.h>

namespace k3c {

HeapScavenger::Heap HeapScavenger::glibc_heap() {
  return {[] {
            struct mallinfo2 m = mallinfo2();
            return HeapFree{m.fordblks, m.arena};
          },
          [] { malloc_trim(0); }};
}

bool HeapScavenger::over(const HeapFree& f) const {
  return f.free_bytes >= options_.min_free_bytes &&
         static_cast<double>(f.free_bytes) >= options_.min_free_share * f.heap_bytes;
}

bool HeapScavenger::tick() {
  const bool now = over(heap_.measure());
  const bool trim = now && over_before_;
  if (trim) heap_.trim();
  // After a trim the free bytes are mostly given back pages, still counted free by malloc:
  // the next trim waits for two more ticks over the threshold.
  over_before_ = now && !trim;
  return trim;
}

}  // namespace k3c
