// The machine probe's parsers, and one probe of this machine.
#include "roles/kubelet/machine_probe.h"

#include <catch2/catch.hpp>

namespace k3c::kubelet {
namespace {

TEST_CASE("uname machines are spelled as Go's GOARCH") {
  CHECK(goarch("x86_64") == "amd64");
  CHECK(goarch("aarch64") == "arm64");
  CHECK(goarch("armv7l") == "arm");
  CHECK(goarch("armv6l") == "arm");
  CHECK(goarch("i686") == "386");
  CHECK(goarch("riscv64") == "riscv64");
}

TEST_CASE("MemTotal is read in KiB and given in bytes") {
  CHECK(mem_total_bytes("MemTotal:       16393076 kB\nMemFree:  1 kB\n") == 16393076LL * 1024);
  CHECK(mem_total_bytes("MemFree:  1 kB\nMemTotal: 2048 kB") == 2048 * 1024);
  CHECK(mem_total_bytes("MemFree:  1 kB\n") == 0);
  CHECK(mem_total_bytes("MemTotal: lots kB\n") == 0);
  CHECK(mem_total_bytes("MemTotal: 99999999999999999999 kB\n") == 0);
}

TEST_CASE("os-release's PRETTY_NAME, unquoted; Linux without one") {
  CHECK(os_pretty_name("NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 "
                       "(bookworm)\"\nID=debian\n") == "Debian GNU/Linux 12 (bookworm)");
  CHECK(os_pretty_name("PRETTY_NAME='Alpine Linux v3.20'") == "Alpine Linux v3.20");
  CHECK(os_pretty_name("PRETTY_NAME=Plain") == "Plain");
  CHECK(os_pretty_name("PRETTY_NAME=\"say \\\"hi\\\"\"") == "say \"hi\"");
  CHECK(os_pretty_name("ID=debian\n") == "Linux");
  CHECK(os_pretty_name("") == "Linux");
}

TEST_CASE("the default route's interface comes from /proc/net/route") {
  const std::string header =
      "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n";
  CHECK(default_route_interface(
            header + "eth0\t0000A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n"
                     "eth0\t00000000\t0100A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0\n"
                     "wlan0\t00000000\t0101A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0\n") == "eth0");
  CHECK(default_route_interface(
            header + "wlan0\t00000000\t0101A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0\n"
                     "eth1\t00000000\t0101A8C0\t0003\t0\t0\t50\t00000000\t0\t0\t0\n") == "eth1");
  CHECK(default_route_interface(header) == "");
  CHECK(default_route_interface("") == "");
}

TEST_CASE("the Linux probe reads this machine") {
  MachineInfo m = LinuxMachineProbe("/").probe();
  CHECK(m.cpus >= 1);
  CHECK(m.memory_bytes > 0);
  CHECK(m.ephemeral_storage_bytes > 0);
  CHECK_FALSE(m.hostname.empty());
  CHECK_FALSE(m.kernel_version.empty());
  CHECK_FALSE(m.architecture.empty());
  CHECK(m.boot_id.size() == 36);
}

}  // namespace
}  // namespace k3c::kubelet
