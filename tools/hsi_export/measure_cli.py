"""Measures real training steps of a Scenario on a CUDA card and writes the measurement
JSON that `hsi-gpu compare` and `hsi-gpu calibrate` read (core/src/measurement.rs).

    hsi-gpu scenario > scenario.json        # every field; edit model, batch, precision...
    python3 tools/measure.py scenario.json --output measured.json
    python3 tools/measure.py scenario.json --sweep --output measured.json   # + true max batch
    python3 tools/measure.py scenario.json --dry-run --output dry.json      # CPU, no CUDA figures
    python3 tools/measure.py --self-test                                    # quick check, CPU
    hsi-gpu compare scenario.json measured.json
    hsi-gpu calibrate scenario.json measured.json [more.json ...] > calibrated.json

The model is the scenario's: a zoo preset is built from its PyTorch version in
tools/torch_zoo/ (bands, patch, classes, model.width, model.size as in the scenario); a
custom layer list (`{"kind": "custom", "spec": ...}`, e.g. from tools/export_model.py)
is built into a generic nn.Module layer by layer (attention as tools/torch_zoo writes
it). A preset runs the scenario's `attention` and `finetune` (tools/torch_zoo/options.py;
frozen and LoRA on the ViT presets). Data are synthetic: a random float32 batch and random integer labels (one per
sample, or one per pixel for whole-scene models), already on the card.

One step = `grad_accum_steps` x (forward, cross-entropy, backward) + optimizer step
(SGD lr 0.01, SGD momentum 0.9, Adam, AdamW; PyTorch defaults otherwise) +
zero_grad(set_to_none=True). Precision: torch_default as PyTorch leaves it (TF32 for cuDNN
convolutions only), fp32 with TF32 off, tf32 with TF32 on, amp_fp16
(autocast float16 + GradScaler), amp_bf16 (autocast bfloat16), bf16 (model and data cast
to bfloat16). Gradient checkpointing is not run (the estimate's sqrt(L) segments need a
sequential model): such a scenario is refused.

Recorded: GPU name, total memory, driver, CUDA and PyTorch versions; the step time, as
the median of `--steps` timed steps after `--warmup` steps, each between
torch.cuda.synchronize() calls; torch.cuda.max_memory_allocated and max_memory_reserved
over the timed steps; device memory in use (total - free from torch.cuda.mem_get_info)
right after CUDA starts and after the timed steps, and the context = in use after -
torch.cuda.memory_reserved(), i.e. everything outside PyTorch's allocator (run on an
otherwise idle card: other processes' memory counts as context). `--sweep` then tries
larger batches (doubling, then bisecting) until CUDA runs out of memory and records the
largest batch that ran a full step. The host's own time to issue a step is recorded too
(`host_step_s`, tools/measure_host.py; `--no-host` skips it), and `--num-workers N` times
a DataLoader loop over a synthetic cube (`loader_wait_s`, `loader_step_s`), so
`hsi-gpu compare` puts the host time beside the estimate's and `calibrate` scales the
host's costs with the device's.

`--dry-run` runs the same path on the CPU (fewer steps by default): the structure and
the timing loop are exercised, every CUDA figure is null and the step time is the CPU's
(`compare` does not compare it).
"""

import argparse
import json
import os
import sys

from .env import require_torch


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("scenario", nargs="?", help="Scenario JSON (`hsi-gpu scenario` writes one)")
    parser.add_argument("--output", default="-", help="measurement JSON file (default: stdout)")
    parser.add_argument("--dry-run", action="store_true", help="run on the CPU: no CUDA figures")
    parser.add_argument("--warmup", type=int, help="untimed steps first (default 5, dry run 1)")
    parser.add_argument("--steps", type=int, help="timed steps (default 20, dry run 3)")
    parser.add_argument("--sweep", action="store_true", help="also find the largest batch before OOM")
    parser.add_argument("--sweep-limit", type=int, default=1 << 16, help="largest batch tried (default %(default)s)")
    parser.add_argument("--note", default="", help="free text stored with the measurement")
    parser.add_argument("--no-host", action="store_true", help="skip the host time per step (host_step_s)")
    parser.add_argument("--num-workers", type=int,
                        help="also time a DataLoader loop over a synthetic cube with this many workers (loader_wait_s, loader_step_s)")
    parser.add_argument("--cudnn-benchmark", action="store_true",
                        help="torch.backends.cudnn.benchmark = True (cuDNN times its algorithms on the warm-up steps), as the scenario's cudnn_benchmark: true does")
    parser.add_argument("--self-test", action="store_true", help="check this script on the CPU and exit")
    args = parser.parse_args()
    require_torch("hsi-gpu-measure")
    import torch

    from .measure import measure, self_test
    from .measure_model import ScenarioError

    torch.set_num_threads(min(2, os.cpu_count() or 1))
    if args.self_test:
        self_test()
        return 0
    if not args.scenario:
        parser.error("a scenario file is required")
    if args.sweep and args.dry_run:
        parser.error("--sweep needs CUDA (a CPU does not run out of memory the same way)")
    warmup = args.warmup if args.warmup is not None else (1 if args.dry_run else 5)
    steps = args.steps if args.steps is not None else (3 if args.dry_run else 20)
    if warmup < 0 or steps < 1:
        parser.error("--warmup must be >= 0 and --steps >= 1")
    try:
        with open(args.scenario) as f:
            scenario = json.load(f)
        benchmark = args.cudnn_benchmark or (isinstance(scenario, dict) and scenario.get("cudnn_benchmark") is True)
        note = args.note + (" [cudnn.benchmark = True]" if benchmark else "")
        m = measure(scenario, args.dry_run, warmup, steps, args.sweep, args.sweep_limit, note.strip(),
                    host=not args.no_host, num_workers=args.num_workers, cudnn_benchmark=benchmark)
    except (OSError, json.JSONDecodeError, ScenarioError) as e:
        print(f"measure: {args.scenario}: {e}", file=sys.stderr)
        return 2
    text = json.dumps(m, indent=1) + "\n"
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
