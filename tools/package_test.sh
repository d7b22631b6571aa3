#!/usr/bin/env bash
# `pip install ./tools` into a fresh virtual environment, as a user would: without torch,
# both commands' --help and `import hsi_export` work and exporting says how to get torch;
# with torch (tools/.venv's packages, seen through a .pth file rather than installed
# twice), the notebook API and both commands run on a small model, and the CLI estimates
# and compares what they wrote. Offline apart from `wheel` (setuptools 65 needs it to
# build; from PyPI or pip's cache): seconds.
#     tools/package_test.sh PYTHON HSI_GPU    (tools/test.sh runs it)
set -euo pipefail

python="$1"  # tools/.venv/bin/python: its base interpreter makes the fresh venv
cli="$2"
tools="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work" "$tools/build" "$tools"/*.egg-info' EXIT
cd "$work"  # so nothing imports from tools/ itself

"$python" -m venv venv
venv/bin/pip install -q --disable-pip-version-check wheel
venv/bin/pip install -q --disable-pip-version-check --no-deps --no-build-isolation "$tools"

venv/bin/hsi-gpu-export --help | grep -q "hsi-gpu-export --module"
venv/bin/hsi-gpu-measure --help | grep -q -- "--dry-run"
venv/bin/python -c 'import hsi_export; assert hsi_export.export.__doc__'
if venv/bin/hsi-gpu-export --zoo hu1d --bands 30 --patch 1 --classes 16 2> no_torch.txt; then
  echo "package_test: hsi-gpu-export exported without torch" >&2; exit 1
fi
grep -q "needs PyTorch" no_torch.txt

# With torch: the API on a small 3-D CNN, then both commands.
"$python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))' \
  > "$(venv/bin/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/tools-venv.pth"
venv/bin/python - <<'PY'
import json
import warnings

import torch
from torch import nn

import hsi_export

assert hsi_export.__file__.startswith(__import__("os").getcwd()), hsi_export.__file__  # the installed copy
model = nn.Sequential(nn.Conv3d(1, 8, (7, 3, 3)), nn.BatchNorm3d(8), nn.ReLU(), nn.Flatten(), nn.LazyLinear(16))
model(torch.zeros(2, 1, 30, 9, 9))  # sizes the lazy Linear
spec = hsi_export.export(model, (1, 30, 9, 9), name="cnn3d")
assert [layer["op"] for layer in spec["layers"]] == ["conv", "batch_norm", "act", "flatten", "linear"], spec
scenario = hsi_export.scenario(model, (1, 30, 9, 9), bands=30, patch=9, classes=16, batch_per_gpu=4,
                               precision="fp32", optimizer="adam")
assert scenario["model"] == {"kind": "custom", "spec": {**spec, "name": "Sequential"}} and scenario["batch_per_gpu"] == 4
hsi_export.save(scenario, "scenario.json")
try:
    hsi_export.export(nn.Sequential(nn.Linear(4, 4), nn.PReLU()), (4,))
    raise AssertionError("PReLU has no op: it must be refused")
except hsi_export.ExportError as e:
    assert "PReLU" in str(e) and "leaky_relu" in str(e), e
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    hsi_export.export(nn.Sequential(nn.Linear(4, 4), nn.ELU(), nn.PReLU()), (4,), allow_unsupported=True)
assert any("PReLU" in str(w.message) for w in caught), caught  # written as its nearest op, with a warning
PY
"$cli" estimate scenario.json > /dev/null
venv/bin/hsi-gpu-export --zoo hu1d --bands 30 --patch 1 --classes 16 --output hu1d.json --scenario hu1d-scenario.json
"$cli" estimate hu1d-scenario.json > /dev/null
venv/bin/hsi-gpu-measure scenario.json --dry-run --warmup 0 --steps 1 --no-host --output measured.json
"$cli" compare scenario.json measured.json > /dev/null
echo "package_test: ok"
