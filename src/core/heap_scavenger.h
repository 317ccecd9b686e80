// Gives free heap memory back to the system once it has stayed unused, as Go's runtime does
// with its background scavenger. glibc returns only the top of a heap by itself: after a burst
// (10,000 pods created and started), the pages freed inside the heap stay resident although
// nothing reuses them (10-13 MB in bench/hollow_nodes.py), and they count in the server's RSS.
//
// tick() is called every few seconds by an otherwise idle thread (k3c server's main thread).
// It trims when the heap's free bytes were over the threshold at this tick and the one
// before: memory freed and soon reused during a burst is left alone, so the trim costs
// neither the page faults of giving back what is about to be taken again nor the burst's CPU.
//
// Thread-safety: one thread calls tick().
#pragma once

#include <cstddef>
#include <functional>

namespace k3c {

struct HeapFree {
  size_t free_bytes = 0;  // free in the heap's arenas (malloc's fordblks)
  size_t heap_bytes = 0;  // the arenas' size (malloc's arena)
};

// When free memory is worth a trim.
struct HeapScavengerOptions {
  size_t min_free_bytes = 8u << 20;  // below this, nothing is worth a trim
  double min_free_share = 0.05;      // ... nor below this share of the heap
};

class HeapScavenger {
 public:
  using Options = HeapScavengerOptions;
  // The OS seam: what malloc holds free, and the trim (malloc_trim). Defaults to glibc's.
  struct Heap {
    std::function<HeapFree()> measure;
    std::function<void()> trim;
  };
  static Heap glibc_heap();

  explicit HeapScavenger(Options options = {}, Heap heap = glibc_heap())
      : options_(options), heap_(std::move(heap)) {}

  // Trims when the free bytes stayed over the threshold since the previous tick; true when it
  // trimmed.
  bool tick();

 private:
  bool over(const HeapFree& f) const;

  Options options_;
  Heap heap_;
  bool over_before_ = false;
};

}  // namespace k3c
