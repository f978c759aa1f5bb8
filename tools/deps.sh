#!/usr/bin/env bash
# Installs what walltime needs to build and test on Debian 12, as root (or with sudo).
# Skips apt entirely when everything is already there, so it is cheap to run every time.
set -euo pipefail
pkgs=(build-essential cmake pkg-config libzstd-dev zstd libxxhash-dev libprotobuf-c-dev
      protobuf-c-compiler libcmocka-dev protobuf-compiler python3 python3-dev g++)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "walltime: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
