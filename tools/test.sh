#!/usr/bin/env bash
# Runs every test: formatting, clippy, native tests (core, CLI, SSR components), the release
# build, then the browser tests against the release dist/. Installs what it needs first.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

# Each stage with the time since the start, so a slow CI log shows where the time went.
say() { printf '\n==> [%dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }

"$repo/tools/setup.sh" --browser

say "cargo fmt --check"
cargo fmt --all --check

say "cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

say "cargo test"
cargo test --workspace --locked

say "CLI (the browser tests compare the page against it)"
cargo build --locked -p hsi-gpu-cli

say "release build"
"$repo/tools/build.sh"

say "browser tests (tests/e2e)"
cd tests/e2e
HSI_CLI="$repo/target/debug/hsi-gpu" HSI_DIST="$repo/dist" \
  node --test --test-reporter=spec ./*.test.mjs

say "all tests passed"
