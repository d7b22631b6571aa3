#!/usr/bin/env bash
# Runs every test: formatting, clippy, native tests (core, CLI, SSR components), the PyTorch
# tools (self-tests, exporter coverage against PyTorch), the release build, then the browser
# tests against the release dist/. Installs what it needs first (tools/setup.sh).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

# Each stage with the time since the start, so a slow CI log shows where the time went.
say() { printf '\n==> [%dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }

"$repo/tools/setup.sh" --browser --torch
python="$repo/tools/.venv/bin/python"  # PyTorch, torchvision, timm (tools/requirements-torch.txt)

say "cargo fmt --check"
cargo fmt --all --check

say "cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

say "cargo test"
cargo test --workspace --locked

say "CLI (the browser tests compare the page against it)"
cargo build --locked -p hsi-gpu-cli

say "PyTorch tools (export_model.py, measure.py): self-tests and a dry run the CLI reads"
"$python" tools/export_model.py --self-test
"$python" tools/measure.py --self-test
"$python" tools/measure_suite.py --check
dry_run="$(mktemp)"
"$python" tools/measure.py tools/samples/scenario_hu1d.json --dry-run --steps 2 --output "$dry_run"
target/debug/hsi-gpu compare tools/samples/scenario_hu1d.json "$dry_run" > /dev/null
rm -f "$dry_run"

say "the lent-GPU script (tools/measure_lent_gpu.py): its plan, a CPU dry run, the CLI reads its zoo and sweep lines and the pipeline bench's constants"
lent="$(mktemp -d)"
"$python" tools/measure_lent_gpu.py --dry-run --gpu rtx_3090 --output "$lent/dry.jsonl"
"$python" - "$lent" <<'PY'
import json, sys
lines = [json.loads(line) for line in open(f"{sys.argv[1]}/dry.jsonl")]
assert not [r for r in lines if "error" in r and r.get("section") != "ops"], lines
sweep = next(r for r in lines if r.get("section") == "sweeps")
assert [d["batch"] for d in sweep["sweep_details"]] == [p["batch"] for p in sweep["measurement"]["sweep"]], sweep
for section in ("zoo", "sweeps"):
    line = next(r for r in lines if r.get("section") == section)
    json.dump(line["scenario"], open(f"{sys.argv[1]}/{section}-scenario.json", "w"))
    json.dump(line["measurement"], open(f"{sys.argv[1]}/{section}-measured.json", "w"))
constants = next(r for r in lines if r.get("section") == "pipeline")["bench"]["constants"]
assert {"byte_s", "cut_byte_s", "batch_s", "worker_byte_s", "shared_byte_s", "augment_sample_s"} <= constants.keys(), constants
json.dump({"perf": {"pipeline": constants}}, open(f"{sys.argv[1]}/pipeline-scenario.json", "w"))
PY
for section in zoo sweeps; do
  target/debug/hsi-gpu compare "$lent/$section-scenario.json" "$lent/$section-measured.json" > /dev/null
done
target/debug/hsi-gpu estimate "$lent/pipeline-scenario.json" > /dev/null
rm -rf "$lent"

say "the PyTorch tools as a package: pip install ./tools into a fresh venv, then its commands and API"
"$repo/tools/package_test.sh" "$python" "$repo/target/debug/hsi-gpu"

say "exporter coverage: one torchvision/timm model per family, estimated vs PyTorch"
"$python" tools/export_coverage.py

say "release build"
"$repo/tools/build.sh"

say "browser tests (tests/e2e)"
cd tests/e2e
HSI_CLI="$repo/target/debug/hsi-gpu" HSI_DIST="$repo/dist" \
  node --test --test-reporter=spec ./*.test.mjs

say "all tests passed"
