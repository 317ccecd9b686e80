// Text kept compressed in memory: what the API server's watch cache holds for each object.
// Objects of one kind share most of their bytes (keys, structure, the same container spec
// over thousands of pods), so each is compressed with LZ4 against a dictionary made of other
// texts of its kind: a 4.8 kB running pod packs into ~340 bytes, reads back in ~0.5 µs and
// packs in ~2 µs (doc/benchmarks.md, "session 18: the watch cache packed").
//
// PackedText is one text, packed against a shared, immutable dictionary or held as it is
// (short or incompressible texts, and texts nobody packed). TextPacker packs texts of one
// family (one resource) and chooses the dictionary from the texts it sees: the first text
// becomes the dictionary; when texts stop packing well (a new shape: running pods after
// pending ones), the bytes lost to poor packing pay for a new dictionary made of that text
// and the tail of the old one. A dictionary lives as long as some text refers to it.
//
// Thread-safety: a PackedText is immutable and any thread may read it (the dictionaries it
// refers to are immutable too). A TextPacker belongs to one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace k3c {

class PackDictionary;

class PackedText {
 public:
  PackedText() = default;
  // Holds `text` as it is, unpacked.
  explicit PackedText(std::string text);

  // The text's length.
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  bool packed() const { return dictionary_ != nullptr; }
  // The bytes it holds: the packed form, or the text when it is not packed.
  size_t held_bytes() const { return bytes_.size(); }

  // The text. On an rvalue that holds its text unpacked, the text is moved out.
  std::string text() const&;
  std::string text() &&;
  // Appends the text to `out`.
  void append_to(std::string& out) const;
  // The text's first `n` bytes (all of it when shorter), unpacking no further than needed.
  std::string prefix(size_t n) const;
  // The text itself when it is held unpacked (no copy), else nullptr.
  const std::string* plain() const { return dictionary_ ? nullptr : &bytes_; }

 private:
  friend class TextPacker;
  std::string bytes_;
  size_t size_ = 0;
  std::shared_ptr<const PackDictionary> dictionary_;  // null: bytes_ is the text
};

class TextPacker {
 public:
  TextPacker();
  ~TextPacker();
  TextPacker(TextPacker&&) noexcept;
  TextPacker& operator=(TextPacker&&) noexcept;

  // `text` packed against this family's dictionary (a packed one is returned as it is).
  PackedText pack(PackedText text);

  // How many dictionaries this packer has made (for tests and benchmarks).
  size_t dictionaries_made() const { return dictionaries_made_; }

 private:
  std::shared_ptr<PackDictionary> dictionary_;  // the current one; null before the first text
  size_t waste_ = 0;  // bytes lost to poor packing since the current dictionary was made
  size_t dictionaries_made_ = 0;
};

}  // namespace k3c
