// Text kept compressed in memory (see packed_text.h).
#include "core/packed_text.h"

#include <lz4.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace k3c {

// An LZ4 compression state (outside the anonymous namespace: PackDictionary holds one).
struct Lz4StreamDeleter {
  void operator()(LZ4_stream_t* s) const { LZ4_freeStream(s); }
};
using Lz4Stream = std::unique_ptr<LZ4_stream_t, Lz4StreamDeleter>;

namespace {

constexpr size_t kMinPacked = 64;  // shorter texts are held as they are
constexpr size_t kKeptScratch = 256 * 1024;  // output room a thread keeps between packs
// A few objects' worth (a running pod is 4.8 kB). It also bounds what a dictionary costs when
// a text that outlives the rest of its generation keeps it alive alone.
constexpr size_t kMaxDictionary = 16 * 1024;

// Packed to over a sixth of its size, a text has a shape the dictionary lacks (a pod of the
// same Deployment packs to ~7%, a node to ~11%, a Lease to ~19% against another).
bool packs_poorly(size_t packed, size_t size) { return packed * 6 > size; }

// This thread's working state for one compression, and room for its output.
struct Scratch {
  Lz4Stream work{LZ4_createStream()};
  std::vector<char> out;
};
Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

[[noreturn]] void corrupt(const char* what) {
  // Packed texts are made and kept by this process only: a failure here is memory damage.
  std::fprintf(stderr, "k3c: packed text: %s\n", what);
  std::abort();
}

}  // namespace

// The bytes texts are packed against, and (once it has packed a few texts, while it is its
// packer's current one) the LZ4 state prepared from them, copied for each compression: that
// copy is LZ4's public way to reuse a loaded dictionary without hashing it again. The state
// is 16 KiB: the many resources that hold a handful of objects do without it.
class PackDictionary {
 public:
  explicit PackDictionary(std::string content) : content_(std::move(content)) {}

  const std::string& content() const { return content_; }

  // `text` packed against the content.
  std::string pack(std::string_view text) {
    Scratch& s = scratch();
    if (!s.work) corrupt("out of memory");
    const int bound = LZ4_compressBound(static_cast<int>(text.size()));
    s.out.resize(static_cast<size_t>(bound));
    if (!prepared_ && ++packed_ >= kPrepareAfter) {
      prepared_.reset(LZ4_createStream());
      if (!prepared_) corrupt("out of memory");
      load(prepared_.get());
    }
    if (prepared_) {
      std::memcpy(s.work.get(), prepared_.get(), sizeof(LZ4_stream_t));
    } else {
      load(s.work.get());
    }
    const int n = LZ4_compress_fast_continue(s.work.get(), text.data(), s.out.data(),
                                             static_cast<int>(text.size()), bound, 1);
    if (n <= 0) corrupt("compression failed");
    std::string packed(s.out.data(), static_cast<size_t>(n));
    // The room a rare large object needed (bodies go up to 3 MiB) is not kept for good.
    if (s.out.capacity() > kKeptScratch) std::vector<char>().swap(s.out);
    return packed;
  }

  // Once another dictionary is current, only the content is needed (to unpack).
  void retire() { prepared_.reset(); }

 private:
  static constexpr int kPrepareAfter = 16;
  void load(LZ4_stream_t* stream) const {
    LZ4_loadDict(stream, content_.data(), static_cast<int>(content_.size()));
  }

  const std::string content_;
  Lz4Stream prepared_;
  int packed_ = 0;  // texts packed before prepared_ was made
};

PackedText::PackedText(std::string text)
    : bytes_(std::move(text)), size_(bytes_.size()) {}

void PackedText::append_to(std::string& out) const {
  if (!dictionary_) {
    out += bytes_;
    return;
  }
  const size_t at = out.size();
  out.resize(at + size_);
  const std::string& dict = dictionary_->content();
  const int n = LZ4_decompress_safe_usingDict(bytes_.data(), out.data() + at,
                                              static_cast<int>(bytes_.size()),
                                              static_cast<int>(size_), dict.data(),
                                              static_cast<int>(dict.size()));
  if (n != static_cast<int>(size_)) corrupt("a packed text does not unpack");
}

std::string PackedText::prefix(size_t n) const {
  n = std::min<size_t>(n, size_);
  if (!dictionary_) return bytes_.substr(0, n);
  std::string out(n, '\0');
  const std::string& dict = dictionary_->content();
  const int got = LZ4_decompress_safe_partial_usingDict(
      bytes_.data(), out.data(), static_cast<int>(bytes_.size()), static_cast<int>(n),
      static_cast<int>(n), dict.data(), static_cast<int>(dict.size()));
  if (got != static_cast<int>(n)) corrupt("a packed text does not unpack");
  return out;
}

std::string PackedText::text() const& {
  if (!dictionary_) return bytes_;
  std::string out;
  append_to(out);
  return out;
}

std::string PackedText::text() && {
  if (!dictionary_) return std::move(bytes_);
  return static_cast<const PackedText&>(*this).text();
}

TextPacker::TextPacker() = default;
TextPacker::~TextPacker() = default;
TextPacker::TextPacker(TextPacker&&) noexcept = default;
TextPacker& TextPacker::operator=(TextPacker&&) noexcept = default;

PackedText TextPacker::pack(PackedText text) {
  if (text.packed()) return text;
  // A text kept as it is keeps no slack (nlohmann's dump() grows its string by doubling).
  // LZ4 takes at most LZ4_MAX_INPUT_SIZE (~2 GB) in one piece.
  if (text.size() < kMinPacked || text.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
    text.bytes_.shrink_to_fit();
    return text;
  }
  const std::string_view plain = text.bytes_;
  auto renew = [&] {
    // The new dictionary: the tail of the old one, then this text.
    std::string content;
    if (plain.size() < kMaxDictionary && dictionary_) {
      const std::string& old = dictionary_->content();
      const size_t keep = std::min(old.size(), kMaxDictionary - plain.size());
      content.assign(old, old.size() - keep, keep);
    }
    content.append(plain.substr(plain.size() - std::min(plain.size(), kMaxDictionary)));
    if (dictionary_) dictionary_->retire();
    dictionary_ = std::make_shared<PackDictionary>(std::move(content));
    waste_ = 0;
    ++dictionaries_made_;
  };
  if (!dictionary_) renew();
  std::string packed = dictionary_->pack(plain);
  if (packs_poorly(packed.size(), plain.size())) {
    // What this text costs beyond a good packing (an eighth of it) counts towards a new
    // dictionary, made once the waste would pay for it.
    waste_ += packed.size() - std::min(packed.size(), plain.size() / 8);
    if (waste_ >= std::min(kMaxDictionary, dictionary_->content().size() + plain.size())) {
      renew();
      packed = dictionary_->pack(plain);
    }
  }
  // A text that packs to more than 7/8 of itself is held as it is: it would keep a
  // dictionary alive for little.
  if (packed.size() * 8 > plain.size() * 7) {
    text.bytes_.shrink_to_fit();
    return text;
  }
  PackedText out;
  out.bytes_ = std::move(packed);
  out.size_ = text.size_;
  out.dictionary_ = dictionary_;
  return out;
}

}  // namespace k3c
