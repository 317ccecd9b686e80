// Protobuf wire primitives (see proto_wire.h).
#include "api/internal/proto_wire.h"

namespace k3c::api::internal {
namespace {

Status malformed(size_t offset, const std::string& what) {
  return error(Code::kBadRequest, "protobuf: " + what + " at byte " + std::to_string(offset));
}

}  // namespace

std::string_view wire_type_name(WireType type) {
  switch (type) {
    case WireType::kVarint:
      return "varint";
    case WireType::kFixed64:
      return "fixed64";
    case WireType::kLen:
      return "length-delimited";
    case WireType::kFixed32:
      return "fixed32";
  }
  return "?";
}

Result<uint64_t> WireReader::varint() {
  uint64_t value = 0;
  const size_t start = pos_;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos_ >= data_.size()) return malformed(start, "truncated varint");
    const auto byte = static_cast<uint8_t>(data_[pos_++]);
    // The tenth byte may only carry the top bit of a 64-bit value.
    if (shift == 63 && byte > 1) return malformed(start, "varint longer than 64 bits");
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return value;
  }
  return malformed(start, "varint longer than 10 bytes");
}

Result<WireField> WireReader::next() {
  const size_t start = pos_;
  ASSIGN_OR_RETURN(uint64_t key, varint());
  WireField f;
  f.number = key >> 3;
  if (f.number == 0 || f.number > 0x1fffffff) return malformed(start, "invalid field number");
  const auto type = static_cast<uint8_t>(key & 7);
  auto fixed = [&](size_t n) -> Result<WireField> {
    if (data_.size() - pos_ < n) return malformed(pos_, "truncated fixed" + std::to_string(n * 8));
    for (size_t i = 0; i < n; ++i) {
      f.value |= static_cast<uint64_t>(static_cast<uint8_t>(data_[pos_ + i])) << (8 * i);
    }
    pos_ += n;
    return f;
  };
  switch (type) {
    case 0: {
      f.type = WireType::kVarint;
      ASSIGN_OR_RETURN(f.value, varint());
      return f;
    }
    case 1:
      f.type = WireType::kFixed64;
      return fixed(8);
    case 5:
      f.type = WireType::kFixed32;
      return fixed(4);
    case 2: {
      f.type = WireType::kLen;
      ASSIGN_OR_RETURN(uint64_t length, varint());
      if (length > data_.size() - pos_) {
        return malformed(start, "field " + std::to_string(f.number) + " length " +
                                    std::to_string(length) + " runs past the end");
      }
      f.bytes = data_.substr(pos_, length);
      pos_ += length;
      return f;
    }
    default:
      return malformed(start, "unsupported wire type " + std::to_string(type) + " for field " +
                                  std::to_string(f.number));
  }
}

void WireWriter::varint(uint64_t value) {
  while (value >= 0x80) {
    out_.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out_.push_back(static_cast<char>(value));
}

void WireWriter::fixed(uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out_.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

WireWriter& WireWriter::add_varint(uint64_t number, uint64_t value) {
  varint(number << 3 | 0);
  varint(value);
  return *this;
}

WireWriter& WireWriter::add_bytes(uint64_t number, std::string_view bytes) {
  varint(number << 3 | 2);
  varint(bytes.size());
  out_.append(bytes);
  return *this;
}

WireWriter& WireWriter::add_fixed64(uint64_t number, uint64_t value) {
  varint(number << 3 | 1);
  fixed(value, 8);
  return *this;
}

WireWriter& WireWriter::add_fixed32(uint64_t number, uint32_t value) {
  varint(number << 3 | 5);
  fixed(value, 4);
  return *this;
}

}  // namespace k3c::api::internal
