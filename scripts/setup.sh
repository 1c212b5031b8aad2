#!/usr/bin/env bash
# setup.sh [--test]: installs what building and running benchdb need on Debian 12; with --test
# also the test toolchain (the real tools that made the fixtures, independent readers, clang
# for sanitizers and fuzzing, Chromium and LibreOffice to look at reports as a user would).
# Idempotent; run as root (or with sudo). Packages already present are left as they are.
set -eu
pkgs=(
  build-essential cmake pkg-config
  libsqlite3-dev libcjson-dev libxlsxwriter-dev libcmark-gfm-dev libcmark-gfm-extensions-dev
  libcsv-dev libzstd-dev libminizip-dev libpq-dev
  # Debian's xlsxwriter.pc links -lz, but libxlsxwriter-dev does not pull in zlib1g-dev:
  # without it a fresh Debian 12 fails to link ("cannot find -lz")
  zlib1g-dev
  # cpack -G DEB: CPack's shlibdeps step runs file(1) on the binary
  file
)
if [ "${1:-}" = --test ]; then
  pkgs+=(
    # independent readers and the real tools that made the fixtures
    python3 python3-scipy python3-openpyxl jq sqlite3 fio iperf iperf3 bonnie++ busybox sysbench
    # the runs a t-test needs, as statsmodels computes them (tests/e2e/check_gate.py)
    python3-statsmodels
    # the zstd CLI decodes stored bytes independently; git builds the previous release for
    # the migration tests (a fresh Debian 12 has neither)
    zstd git
    # the JSON outputs against their schemas in docs/ (tests/e2e/json_schema.py)
    python3-jsonschema
    # check's CI outputs read by the readers CI systems use: JUnit XML against its XSD,
    # junitparser, OpenMetrics by prometheus_client's parser (tests/e2e/check_outputs.py)
    python3-lxml python3-junitparser python3-prometheus-client
    # sanitizers and fuzzing with clang; looking at reports as a user would
    clang clang-format libclang-rt-14-dev chromium libreoffice-calc-nogui unzip
    # the installed tree and the .deb, linted (tests/e2e/install.py)
    man-db bash-completion zsh lintian
    # a throwaway PostgreSQL server for the fleet tests (tests/tools/pg.py)
    postgresql
  )
elif [ $# -gt 0 ]; then
  echo "usage: scripts/setup.sh [--test]" >&2
  exit 2
fi
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
