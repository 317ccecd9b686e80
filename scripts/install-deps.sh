#!/usr/bin/env bash
# Installs the Debian packages k3c needs to build and test. Idempotent: when everything is
# present it only runs dpkg-query and exits.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  libboost-dev libboost-system-dev
  libsqlite3-dev sqlite3
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libspdlog-dev libfmt-dev
  catch2 libssl-dev openssl zlib1g-dev
  libarchive-dev busybox-static
  libzstd-dev liblz4-dev libacl1-dev  # the .a archives libarchive links with (cmake/K3cStaticDeps.cmake); LZ4 also packs the watch cache
  libnghttp2-dev  # HTTP/2 framing: the kubelet's grpc probes
  libre2-dev  # Go-syntax regular expressions in linear time (registries.yaml rewrites, CRD patterns)
  libseccomp-dev  # the containers' seccomp profiles (RuntimeDefault, Localhost)
  util-linux procps curl
  clang-14 libclang-rt-14-dev  # the libFuzzer targets under test/fuzz (doc/fuzzing.md)
  docker-registry apache2-utils  # integration.registry: a real registry on loopback, htpasswd
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages: ${missing[*]}; run this script as root" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
# The registry package enables a service on :5000 of every interface; the tests start their
# own instances on loopback, so the system one is switched off where systemd runs.
if [[ " ${missing[*]} " == *" docker-registry "* ]] && command -v systemctl >/dev/null &&
  [ -d /run/systemd/system ]; then
  systemctl disable --now docker-registry >/dev/null 2>&1 || true
fi
