#!/usr/bin/env bash
# Installs, idempotently, everything the build needs; with --browser also what the browser
# tests need. Safe to run again: each step checks first and only installs what is missing
# or at the wrong version. Runs without stdin (CI).
#
#   tools/setup.sh             Rust targets/components, trunk, wasm-bindgen-cli, wasm-opt, crates
#   tools/setup.sh --browser   the above plus chromium and the e2e test's node packages
#   tools/setup.sh --torch     the above plus tools/.venv: PyTorch, torchvision and timm at the
#                              versions tools/requirements-torch.txt pins (the exporter's and
#                              measure.py's tests; PyPI's torch wheel brings CUDA libraries,
#                              several GB, whose wheels stay in ~/.cache/hsi-gpu-planner for the next fresh clone)
# The options combine (tools/test.sh passes both).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

readonly trunk_version="0.21.14"

with_browser=false
with_torch=false
for option in "$@"; do
  case "$option" in
    --browser) with_browser=true ;;
    --torch) with_torch=true ;;
    *) echo "usage: tools/setup.sh [--browser] [--torch]" >&2; exit 2 ;;
  esac
done

say() { printf '\n==> %s\n' "$*"; }
die() { printf 'setup: %s\n' "$*" >&2; exit 1; }

# Root on CI; elsewhere use sudo for the apt steps when it is there.
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

apt_install() {
  command -v apt-get >/dev/null || die "apt-get not found: install $* with your package manager"
  say "apt-get install $*"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"
}

# Prints the version of package $1 recorded in Cargo.lock.
locked_crate_version() {
  awk -v name="$1" '
    $0 == "name = \"" name "\"" { found = 1; next }
    found && /^version = / { gsub(/"/, "", $3); print $3; exit }
  ' Cargo.lock
}

command -v cargo >/dev/null || die "cargo not found: install Rust with rustup (https://rustup.rs) first"
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

say "Rust: wasm32 target, rustfmt, clippy"
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi
cargo fmt --version >/dev/null 2>&1 || rustup component add rustfmt
cargo clippy --version >/dev/null 2>&1 || rustup component add clippy

say "trunk $trunk_version"
if [ "$(trunk --version 2>/dev/null || true)" != "trunk $trunk_version" ]; then
  cargo install --force --locked trunk --version "=$trunk_version"
fi

bindgen_version="$(locked_crate_version wasm-bindgen)"
[ -n "$bindgen_version" ] || die "wasm-bindgen not found in Cargo.lock"
say "wasm-bindgen-cli $bindgen_version (the version Cargo.lock pins; Trunk insists they match)"
if [ "$(wasm-bindgen --version 2>/dev/null || true)" != "wasm-bindgen $bindgen_version" ]; then
  cargo install --force wasm-bindgen-cli --version "=$bindgen_version"
fi

command -v npm >/dev/null || die "node/npm not found: install Node.js >= 20 with npm first"
# playwright-core needs node >= 20 (Debian 12's own nodejs is 18: use NodeSource or nvm).
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[ "$node_major" -ge 20 ] || die "node $(node --version) is too old: the tools and tests need node >= 20"

# Trunk.toml pins the wasm-opt version Trunk accepts; tools/package.json pins the npm
# binaryen that provides it. Check they agree rather than trusting either.
wasm_opt_wanted="$(sed -n 's/^wasm_opt = "\(.*\)"/\1/p' Trunk.toml)"
say "wasm-opt $wasm_opt_wanted and terser (npm binaryen and terser in tools/node_modules)"
wasm_opt_found() { tools/node_modules/.bin/wasm-opt --version 2>/dev/null | awk '{print "version_" $3}'; }
# terser minifies the release build's JavaScript glue (Trunk.toml's post-build hook).
terser_wanted="$(node -p 'require("./tools/package.json").dependencies.terser')"
terser_found() { node -p 'require("./tools/node_modules/terser/package.json").version' 2>/dev/null; }
if [ "$(wasm_opt_found)" != "$wasm_opt_wanted" ] || [ "$(terser_found)" != "$terser_wanted" ]; then
  npm ci --prefix tools --no-audit --no-fund
fi
[ "$(wasm_opt_found)" = "$wasm_opt_wanted" ] ||
  die "tools/package.json installs wasm-opt $(wasm_opt_found) but Trunk.toml asks for $wasm_opt_wanted"

say "crates (cargo fetch --locked; the build itself then runs offline)"
cargo fetch --locked

if $with_browser; then
  say "chromium (Debian package; Playwright never downloads a browser here)"
  command -v chromium >/dev/null || apt_install chromium
  # A CJK font, so the Chinese page lays out (and its screenshots read) as users see it.
  fc-list :lang=zh 2>/dev/null | grep -q . || apt_install fonts-wqy-microhei
  say "e2e node packages (tests/e2e)"
  # playwright-core has no browser download step; the variable guards against a future one.
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix tests/e2e --no-audit --no-fund
fi

if $with_torch; then
  venv="$repo/tools/.venv"
  requirements="$repo/tools/requirements-torch.txt"
  say "PyTorch, torchvision, timm in tools/.venv (versions: tools/requirements-torch.txt)"
  command -v python3 >/dev/null || die "python3 not found: install Python >= 3.10 first"
  if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv" ||
      die "python3 -m venv failed: install the venv module (Debian: apt-get install python3-venv)"
  fi
  # Installed already at the pinned versions? (pip's own check, no network.)
  if ! "$venv/bin/python" - "$requirements" <<'PY'
import sys
from importlib.metadata import PackageNotFoundError, version

pins = [line.split("#")[0].strip() for line in open(sys.argv[1])]
pins = [p.split("==") for p in pins if p]
try:
    sys.exit(any(version(name) != wanted for name, wanted in pins))
except PackageNotFoundError:
    sys.exit(1)
PY
  then
    # PyPI's answers here are not kept by pip's HTTP cache, so the wheels are kept in a
    # folder of their own: a second fresh clone installs them without downloading.
    wheels="${XDG_CACHE_HOME:-$HOME/.cache}/hsi-gpu-planner/wheels"
    "$venv/bin/python" -m pip download -q -d "$wheels" -r "$requirements"
    "$venv/bin/python" -m pip install -q --no-index --find-links "$wheels" -r "$requirements"
  fi
fi

say "setup done"
