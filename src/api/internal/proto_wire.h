// The protobuf wire format, by hand: varints, fixed32/64 and length-delimited fields, read
// from an untrusted buffer with every length checked, plus a small writer for tests and
// tools. Groups (wire types 3 and 4) are refused: Kubernetes never uses them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace k3c::api::internal {

enum class WireType : uint8_t { kVarint = 0, kFixed64 = 1, kLen = 2, kFixed32 = 5 };

std::string_view wire_type_name(WireType type);

struct WireField {
  uint64_t number = 0;
  WireType type = WireType::kVarint;
  uint64_t value = 0;      // kVarint, kFixed64, kFixed32
  std::string_view bytes;  // kLen: a view into the reader's buffer
};

// Reads one field after another. Every error is kBadRequest.
class WireReader {
 public:
  explicit WireReader(std::string_view data) : data_(data) {}
  bool done() const { return pos_ >= data_.size(); }
  Result<WireField> next();
  Result<uint64_t> varint();  // one varint at the current position (packed lists)
  size_t position() const { return pos_; }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

// Builds a message; each add_* appends one field.
class WireWriter {
 public:
  WireWriter& add_varint(uint64_t number, uint64_t value);
  WireWriter& add_bytes(uint64_t number, std::string_view bytes);  // strings and messages too
  WireWriter& add_fixed64(uint64_t number, uint64_t value);
  WireWriter& add_fixed32(uint64_t number, uint32_t value);
  const std::string& data() const { return out_; }

 private:
  void varint(uint64_t value);
  void fixed(uint64_t value, int bytes);
  std::string out_;
};

}  // namespace k3c::api::internal
