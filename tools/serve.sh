#!/usr/bin/env bash
# Installs what is missing, builds the release page and serves dist/ on localhost.
#   tools/serve.sh [PORT]     (default 8080), then open http://127.0.0.1:PORT/
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
port="${1:-8080}"

"$repo/tools/setup.sh"
"$repo/tools/build.sh"
exec node "$repo/tools/static-server.mjs" "$repo/dist" "$port"
