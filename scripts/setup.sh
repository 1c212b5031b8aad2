#!/usr/bin/env bash
# setup.sh: installs what benchdb needs to build, test and demo on Debian 12. Idempotent;
# run as root (or with sudo). Packages already present are left as they are.
set -eu
pkgs=(
  build-essential cmake pkg-config
  libsqlite3-dev libcjson-dev libxlsxwriter-dev libcmark-gfm-dev libcmark-gfm-extensions-dev
  libcsv-dev libzstd-dev
  # tests: independent readers and the real tools that made the fixtures
  python3 python3-scipy python3-openpyxl jq sqlite3 fio iperf iperf3 bonnie++ busybox
  # tests: sanitizers and fuzzing with clang, and looking at reports as a user would
  clang clang-format libclang-rt-14-dev chromium libreoffice-calc-nogui unzip
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "setup: installing ${missing[*]}" >&2
$SUDO apt-get -o DPkg::Lock::Timeout=900 update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=900 install -y -qq "${missing[@]}" >/dev/null
