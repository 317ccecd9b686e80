// What the kubelet reports about the machine it runs on (CPUs, memory, disk, identity, OS),
// read through a seam: MachineProbe is the interface, LinuxMachineProbe reads /proc, /sys,
// /etc and statfs(2). Node status building (node_status.h) takes the MachineInfo value, so
// unit tests hand it a made-up machine.
//
// The small parsers the Linux probe uses are pure and exposed for tests.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace k3c::kubelet {

struct MachineInfo {
  std::string hostname;      // as gethostname(2) gives it (the node name is its lower-case form)
  int64_t cpus = 0;          // online CPUs
  int64_t memory_bytes = 0;  // MemTotal
  int64_t ephemeral_storage_bytes = 0;  // size of the filesystem holding the data dir
  std::string machine_id;               // /etc/machine-id
  std::string system_uuid;              // /sys/class/dmi/id/product_uuid ("" when unreadable)
  std::string boot_id;                  // /proc/sys/kernel/random/boot_id
  std::string kernel_version;           // uname -r
  std::string os_image;                 // PRETTY_NAME of /etc/os-release
  std::string architecture;             // Go's spelling: amd64, arm64, arm, ...
  // The first IPv4 address of the interface holding the default route, if any.
  std::optional<std::string> default_ipv4;
};

// Thread-safety: probe() may be called from any thread.
class MachineProbe {
 public:
  virtual ~MachineProbe() = default;
  // Reads the machine now. Missing pieces stay empty or zero; never fails.
  virtual MachineInfo probe() const = 0;
};

class LinuxMachineProbe final : public MachineProbe {
 public:
  // `data_dir`: the filesystem whose size is the node's ephemeral storage.
  explicit LinuxMachineProbe(std::string data_dir) : data_dir_(std::move(data_dir)) {}
  MachineInfo probe() const override;

 private:
  const std::string data_dir_;
};

// uname's machine ("x86_64", "aarch64", "armv7l") in Go's GOARCH spelling ("amd64", "arm64",
// "arm"); unknown names pass through.
std::string goarch(std::string_view machine);
// MemTotal of /proc/meminfo, in bytes; 0 when absent.
int64_t mem_total_bytes(std::string_view meminfo);
// PRETTY_NAME of an os-release file (quotes and escapes removed); "Linux" when absent, as
// upstream's cadvisor reports then.
std::string os_pretty_name(std::string_view os_release);
// The interface of /proc/net/route's default route (destination 0, lowest metric); "" when
// there is none.
std::string default_route_interface(std::string_view proc_net_route);

}  // namespace k3c::kubelet
