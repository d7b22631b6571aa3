#!/usr/bin/env python3
"""Measures a fixed set of scenarios (the zoo's HSI models at their usual sizes, ViT-B with
the foundation-model options) on one CUDA card in one process, for a short GPU session:
one JSON line per case, {"scenario": ..., "measurement": ...} (tools/measure.py's record)
or {"scenario": ..., "error": ...}, written as each case finishes, so a run cut short
keeps what it measured. The first lines describe the machine and the card's ceilings
(matrix products, a device copy, the host's time to issue one op).

    python3 tools/measure_suite.py --gpu h200_sxm --output measured.jsonl
    python3 tools/measure_suite.py --set followup --gpu h200_sxm --output followup.jsonl
    python3 tools/measure_suite.py --dry-run --output dry.jsonl    # CPU, batch 2, 1 step, small
    python3 tools/measure_suite.py --check      # every case's scenario is valid and builds (CPU, s)

`--budget-s` stops starting new cases past that many seconds (largest-batch sweeps run
last and are the first dropped).
"""

import argparse
import json
import os
import platform
import sys
import time

import torch

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)
import measure  # noqa: E402


def case(model, bands, patch, classes, batch, precision, sweep=False, size=None, **options):
    scenario = {"model": {"kind": "preset", "id": model}, "bands": bands, "patch": patch, "classes": classes,
                "batch_per_gpu": batch, "precision": precision, "optimizer": "adam", "checkpointing": False,
                "attention": options.pop("attention", "math")}
    if size:
        scenario["model"]["size"] = size
    scenario.update(options)
    return {"scenario": scenario, "sweep": sweep}


def cases():
    """HSI models at Indian Pines-like sizes (PCA bands where the paper uses them), two
    batches each in PyTorch's default precision and AMP bf16; HybridSN in every precision;
    ViT-B/16 at 224 px with math and SDPA attention, LoRA and a frozen backbone; sweeps last."""
    out = []
    hsi = [("hu1d", 200, 1, (64, 1024)), ("hamida3d", 200, 5, (64, 512)), ("hybridsn", 30, 25, (64, 256)),
           ("ssrn", 200, 7, (64, 256)), ("dbda", 200, 9, (64, 256)), ("ssftt", 30, 13, (64, 512)),
           ("spectralformer", 200, 7, (64, 256)), ("mou_rnn", 200, 1, (64, 512)), ("unmixing_ae", 198, 1, (256, 2048)),
           ("unet", 103, 64, (16, 64)), ("segformer", 30, 64, (16, 64))]
    for model, bands, patch, batches in hsi:
        for batch in batches:
            for precision in ("torch_default", "amp_bf16"):
                out.append(case(model, bands, patch, 16, batch, precision))
    out += [case("hybridsn", 30, 25, 16, 256, p) for p in ("fp32", "tf32", "amp_fp16", "bf16")]
    out += [case("ssftt", 30, 13, 16, 512, p, attention="sdpa") for p in ("torch_default", "amp_bf16")]
    vit = dict(size="base")
    out += [case("vit", 3, 224, 1000, 64, p, attention=a, **vit)
            for a in ("math", "sdpa") for p in ("tf32", "amp_bf16")]
    out += [case("vit", 3, 224, 1000, 128, "amp_bf16", attention="sdpa", finetune=ft, **vit)
            for ft in ({"mode": "full"}, {"mode": "lora", "rank": 8, "targets": ["qkv", "proj"]},
                       {"mode": "frozen", "trainable": ["block11", "head"]})]
    out += [case("mae_vit", 32, 64, 1, 64, "amp_bf16", attention="sdpa", size="base")]
    out += [case("hybridsn", 30, 25, 16, 64, "torch_default", sweep=True),
            case("vit", 3, 224, 1000, 64, "amp_bf16", sweep=True, attention="sdpa", **vit)]
    return out


def published(name, batch, precision, optimizer="sgd_momentum", cudnn_benchmark=True):
    """A model of core/tests/fixtures/published_models (a layer list) as the published
    benchmarks ran it: timm's and Lambda's scripts set cudnn.benchmark."""
    with open(os.path.join(os.path.dirname(TOOLS), "core", "tests", "fixtures", "published_models", f"{name}.json")) as f:
        spec = json.load(f)
    scenario = {"model": {"kind": "custom", "spec": spec}, "bands": spec["input"][0], "patch": spec["input"][-1],
                "classes": 1000, "batch_per_gpu": batch, "precision": precision, "optimizer": optimizer,
                "checkpointing": False, "attention": "math"}
    return {"scenario": scenario, "sweep": False, "cudnn_benchmark": cudnn_benchmark}


def followup_cases():
    """The second session: SegFormer and the MAE (device fixes), the 3-D CNNs again with
    cudnn.benchmark on, and published benchmark models at their published settings."""
    out = [c for c in cases() if c["scenario"]["model"]["id"] in ("segformer", "mae_vit")]
    bench = [case("hybridsn", 30, 25, 16, 256, p) for p in ("fp32", "torch_default", "amp_bf16")]
    bench += [case("ssrn", 200, 7, 16, 256, "torch_default"), case("hamida3d", 200, 5, 16, 512, "torch_default"),
              case("dbda", 200, 9, 16, 256, "torch_default"), case("hybridsn", 30, 25, 16, 64, "torch_default")]
    out += [{**c, "cudnn_benchmark": True} for c in bench]
    out += [published("resnet50", 640, "torch_default"), published("resnet50", 1280, "amp_fp16"),
            published("convnext_tiny", 256, "amp_fp16"), published("vit_base_patch16_224", 192, "amp_fp16"),
            published("nnunet_3d_brats", 2, "amp_fp16", "adam"), published("nnunet_3d_brats", 2, "tf32", "adam"),
            published("resnet50", 256, "torch_default", cudnn_benchmark=False)]
    return out


def machine():
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), None) \
        if os.path.exists("/proc/cpuinfo") else platform.processor()
    info = {"machine": True, "cpu": cpu, "cpu_count": os.cpu_count(), "torch": torch.__version__,
            "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version() if torch.cuda.is_available() else None}
    if torch.cuda.is_available():
        info["gpu"] = torch.cuda.get_device_name(0)
        info["driver"] = measure.driver_version()
    return info


def timed(fn, repeats):
    """Seconds per call of `fn`, the median of 5 rounds of `repeats` calls after a warm-up,
    each round between CUDA syncs."""
    fn()
    torch.cuda.synchronize()
    rounds = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(repeats):
            fn()
        torch.cuda.synchronize()
        rounds.append((time.perf_counter() - start) / repeats)
    return sorted(rounds)[2]


def microbench():
    """The card's ceilings as PyTorch reaches them: 8192^3 matrix products per precision,
    a 4 GiB device copy, and the host's time to issue one small elementwise op (the
    step model's per-op host cost)."""
    n = 8192
    out = {}
    for name, dtype, tf32 in (("fp32", torch.float32, False), ("tf32", torch.float32, True), ("bf16", torch.bfloat16, False)):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        a, b = (torch.randn(n, n, device="cuda", dtype=dtype) for _ in range(2))
        out[f"matmul_{name}_tflops"] = 2 * n**3 / timed(lambda: a @ b, 5 if name == "fp32" else 20) / 1e12
    torch.backends.cuda.matmul.allow_tf32 = False
    src = torch.empty(1 << 30, device="cuda", dtype=torch.float32)
    dst = torch.empty_like(src)
    out["copy_gb_s"] = 2 * src.numel() * 4 / timed(lambda: dst.copy_(src), 10) / 1e9  # bytes read + written
    del a, b, src, dst
    x = torch.zeros(1024, device="cuda")
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(5000):
        x.add_(1)
    out["op_issue_s"] = (time.perf_counter() - start) / 5000
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    return {"microbench": out}


def check():
    """Every case of both sets passes measure.py's checks and builds its model."""
    from measure_model import build_model

    for item in cases() + followup_cases():
        scenario = item["scenario"]
        measure.check_scenario(scenario)
        with torch.device("meta"):  # structure only: no memory, no initialisation
            build_model(scenario)
    print(f"measure_suite check: {len(cases())} + {len(followup_cases())} cases build")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gpu", default="h200_sxm", help="the card's id in the estimator's catalog, stored in each scenario")
    parser.add_argument("--output", help="JSON lines file")
    parser.add_argument("--check", action="store_true", help="check that every case builds, then exit")
    parser.add_argument("--dry-run", action="store_true", help="CPU, batch at most 2, patch at most 32, one step: checks the cases build and run")
    parser.add_argument("--budget-s", type=float, default=240.0, help="start no case after this many seconds")
    parser.add_argument("--set", choices=("zoo", "followup"), default="zoo", help="which cases: cases() or followup_cases()")
    args = parser.parse_args()
    if args.check:
        check()
        return 0
    if not args.output:
        parser.error("--output is required")
    start = time.perf_counter()
    with open(args.output, "w") as out:
        def write(record):
            out.write(json.dumps(record) + "\n")
            out.flush()

        write(machine())
        if not args.dry_run:
            try:
                write(microbench())
            except Exception as e:  # noqa: BLE001 - the cases still run
                write({"microbench_error": f"{type(e).__name__}: {e}"})
        for item in cases() if args.set == "zoo" else followup_cases():
            scenario = {**item["scenario"], "gpu": args.gpu}
            benchmark = item.get("cudnn_benchmark", False)
            if args.dry_run:
                scenario["batch_per_gpu"] = min(scenario["batch_per_gpu"], 2)
                scenario["patch"] = min(scenario["patch"], 32)
            elapsed = time.perf_counter() - start
            if elapsed > args.budget_s:
                write({"scenario": scenario, "error": f"not run: {elapsed:.0f} s past the {args.budget_s:.0f} s budget"})
                continue
            sweep = item["sweep"] and not args.dry_run
            try:
                note = "tools/measure_suite.py" + (" [cudnn.benchmark = True]" if benchmark else "")
                m = measure.measure(scenario, args.dry_run, 1 if args.dry_run else 5, 1 if args.dry_run else 20,
                                    sweep, 1 << 16, note, host=True, cudnn_benchmark=benchmark)
                write({"scenario": scenario, "measurement": m, "cudnn_benchmark": benchmark,
                       "wall_s": round(time.perf_counter() - start - elapsed, 2)})
            except Exception as e:  # noqa: BLE001 - one case's failure must not end the session's run
                write({"scenario": scenario, "error": f"{type(e).__name__}: {e}"})
            finally:
                if torch.cuda.is_available():
                    torch.cuda.empty_cache()
            name = scenario["model"].get("id") or scenario["model"]["spec"]["name"]
            print(f"{time.perf_counter() - start:6.1f} s  {name} b{scenario['batch_per_gpu']} "
                  f"{scenario['precision']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
