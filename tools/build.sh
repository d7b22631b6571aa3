#!/usr/bin/env bash
# Release build of the web app into dist/ (wasm-opt -Oz, relative asset URLs), and the
# one-file page dist-single/hsi-gpu-planner.html.
# Expects tools/setup.sh to have run; prints the files and their sizes.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

# npm's wasm-opt first: Trunk picks tools from PATH and must not find an older system one.
export PATH="$repo/tools/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

# Crates' sources named without this machine's cargo home (panic messages keep file names):
# the same bytes on every machine, and ~90 B less gzip.
for src in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/; do
  RUSTFLAGS="${RUSTFLAGS:-} --remap-path-prefix=$src="
done
export RUSTFLAGS
trunk build --release
# The one-file page (wasm and styles inlined) for file:// use, mail and wiki attachments.
node tools/single_file.mjs
ls -l dist dist-single
