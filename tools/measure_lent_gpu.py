#!/usr/bin/env python3
"""The one script to run when a session is lent a CUDA card (at most 8 minutes on an H200):
it records what the planner still guesses (issue 22), one JSON line per item, written as
each finishes, so a run cut short keeps what it measured:

- memory: for one HybridSN, SSFTT and Hamida step (PyTorch's defaults: cudnn.benchmark
  off) and a 1-D CNN and DBDA step in AMP bf16, every allocation and free of the first
  two steps with the op that made it and the allocator's running allocated and reserved
  totals (torch.profiler's memory events:
  cuDNN workspaces show up inside `aten::cudnn_convolution`) and the convolution passes'
  kernels, then `torch.cuda.memory_stats()` and the caching allocator's segments and
  blocks (`torch.cuda.memory._snapshot()`); the same for HybridSN at a batch sized to the
  card (its memory over 7.5 MB a sample) where its first-choice plans' workspaces no
  longer fit beside its tensors: which passes fell back, to which kernels and workspaces
  (cuDNN's next engine config, `try_configs` in ATen's Conv_v8.cpp);
- kernels: the CUDA kernels every convolution pass ran (forward `aten::convolution`,
  backward `aten::convolution_backward`), with their times, for the 3-D CNNs and SSFTT
  with cudnn.benchmark off and on (HybridSN also in FP32 and AMP bf16, off);
- ops: single ops the device model's classes guess at: depthwise 7x7/5x5/3x3 and
  grouped convolutions at ConvNeXt-T, MobileNetV2, EfficientNet-B0, ResNeXt-50 and
  RegNetY-016 shapes (FP32 and FP16, grouped ones TF32 too; NCHW and channels_last; forward and forward +
  backward), ConvNeXt's LayerNorm over a permuted tensor, and SDPA per backend (math,
  memory-efficient, flash, cuDNN, and PyTorch's own choice with its kernel names) in
  fp32, TF32, bf16 and fp16 at ViT-B/8 and ViT-B/16 shapes;
- rnn: cuDNN's reserve space for nn.GRU and nn.LSTM (one layer, two, bidirectional;
  FP32 and bf16) over a grid of hidden sizes, steps, batches and input widths: every
  tensor autograd saves (the reserve is the uint8 one) and the peaks of forward and
  backward above what was allocated before (the workspaces), so a per-step count can be
  derived and the GRU preset checked against it, held out; and each point's forward and
  backward time (hidden 64: cuDNN's persistent kernel, whose rate the estimate fitted on
  one GRU step; 256: its per-step kernels) and the host's time to issue them, FP32 also
  under autocast (cuDNN's weight queries, fitted on one GRU step);
- zoo: the HSI zoo at two batches each in PyTorch's default precision, with
  cudnn.benchmark off and on (tools/measure.py records, as tools/measure_suite.py
  writes them, readable by core/tests/common/h200.rs);
- layer lists: ResNet-50 (batch 256, default precision) and ViT-B/16 (batch 192, AMP
  fp16) as published layer lists, again: the committed runs' forward kept every layer
  output (docs/validation.md), so their memory peaks are not yet checked;
- sweeps: the largest batch of HybridSN, SSFTT and Hamida in default precision and AMP
  bf16 (doubling, then bisecting to 2 %, each sweep capped in time), with each batch's
  reserved peak, the allocator's retries at the card's limit and the out-of-memory
  message of a batch that failed (`sweep_details`). HybridSN's in default precision
  starts at 20,480, where the committed sweep failed right after two failures, when
  its tool still kept a failed step's activations (docs/validation.md): first, on a
  clean card, whether that batch runs.
- pipeline: while the sweeps run (they leave the host's other cores idle and record no
  host times), `tools/bench_pipeline.py` in a process of its own with 0-8 DataLoader
  workers: the input pipeline's constants and a worker count's effect on a host with
  spare cores, which the development machine (2 cores) could not show (docs/validation.md,
  "A worker's hand-over"). Started only with the first sweep; its JSON is the last line.

    python3 tools/measure_lent_gpu.py --output lent.jsonl     # on the lent card
    python3 tools/measure_lent_gpu.py --plan                  # the plan and its time
    python3 tools/measure_lent_gpu.py --dry-run --output d.jsonl   # CPU: one item per section

The plan's time per item comes from the committed H200 runs
(core/tests/fixtures/measured_h200/*.jsonl wall_s); items start only while
`--budget-s` has not passed, sections in the order above (the sweeps are the first dropped).
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import torch

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)
import measure  # noqa: E402
import measure_suite  # noqa: E402
import profile_trace  # noqa: E402
from lent_ops import conv_ops, layer_norm_ops, run_op, sdpa_ops, seconds_per_call, sync  # noqa: E402
from profile_trace import conv_kernels, memory_events, trace_events  # noqa: E402

FIXTURES = os.path.join(TOOLS, "..", "core", "tests", "fixtures", "measured_h200")
HSI = {"hybridsn": (30, 25, 256), "ssftt": (30, 13, 512), "hamida3d": (200, 5, 512),
       "ssrn": (200, 7, 256), "dbda": (200, 9, 256), "hu1d": (200, 1, 64)}
SNAPSHOT_MODELS = ("hybridsn", "ssftt", "hamida3d")
# AMP steps whose reserved peak the estimate puts ~20 % low with the allocated peak right
# (the 1-D CNN at batch 64 reserved 21 MB over its allocated peak, 2 MB in FP32): which
# request takes the extra segment.
AMP_SNAPSHOTS = (("hu1d", 64), ("dbda", 64))
SWEEP_CAP_S = 25.0
# HybridSN's batch for the memory item at cuDNN's fallback: the card's memory over this,
# 7.5 MB a sample (its tensors alone 3.55, with the first-choice plans' workspaces 8.5 on
# the H200: 20,000 samples there, where the committed sweep's peak had fallen to the
# tensors), and the item's rough seconds (two steps of 2-3 s at that batch, profiled).
FALLBACK_BYTES_PER_SAMPLE, FALLBACK_S = 7.5e6, 10.0
# (model, precision) -> the batch its sweep starts from, where not the step's own batch.
SWEEP_STARTS = {("hybridsn", "torch_default"): 20_480}
# The two cheapest committed layer-list steps (5-6 s each on the H200).
LAYER_LISTS = (("resnet50", 256, "torch_default", False), ("vit_base_patch16_224", 192, "amp_fp16", True))
# Rough seconds per item where the committed runs hold no timing (named so the plan says
# what it assumes): a profiled step's trace export and parse, one op timing, one
# recurrent layer's grid (RNN_GRID: 16 forward and backward passes, each then timed).
PROFILE_S, OP_TIMING_S, RNN_S = 2.0, 0.4, 2.0
# (hidden, steps, batch, input width) of each recurrent layer measured: the GRU preset's
# own (64 hidden, 200 steps of 1 feature) among them.
RNN_GRID = [(h, t, b, i) for h in (64, 256) for t in (50, 200) for b in (64, 512) for i in (1, 64)]


def hsi_case(model, precision, batch=None):
    bands, patch, default_batch = HSI[model]
    return measure_suite.case(model, bands, patch, 16, batch or default_batch, precision)["scenario"]


# --- items --------------------------------------------------------------------------------


def items():
    """(section, label, item) in run order; an item is a dict the runners read."""
    out = []
    for model in SNAPSHOT_MODELS:
        out.append(("memory", model, {"scenario": hsi_case(model, "torch_default")}))
    for model, batch in AMP_SNAPSHOTS:
        out.append(("memory", f"{model} b{batch} amp_bf16", {"scenario": hsi_case(model, "amp_bf16", batch)}))
    # HybridSN where its first-choice plans' workspaces no longer fit beside its tensors,
    # sized to the card: which passes fell back, to which kernels and workspaces.
    out.append(("memory", "hybridsn at cuDNN's fallback", {"scenario": hsi_case("hybridsn", "torch_default"),
                                                           "bytes_per_sample": FALLBACK_BYTES_PER_SAMPLE,
                                                           "seconds": FALLBACK_S}))
    for model in ("hybridsn", "ssrn", "dbda", "hamida3d", "ssftt"):
        for bench in (False, True):
            out.append(("kernels", f"{model} bench={bench}", {"scenario": hsi_case(model, "torch_default"), "bench": bench}))
    for precision in ("fp32", "amp_bf16"):
        out.append(("kernels", f"hybridsn {precision} bench=False", {"scenario": hsi_case("hybridsn", precision), "bench": False}))
    for op in conv_ops() + layer_norm_ops() + sdpa_ops():
        out.append(("ops", op["case"], op))
    for cell in ("gru", "lstm"):
        for dtype in ("fp32", "bf16"):
            for layers, bidirectional in ((1, False), (2, False), (1, True)):
                out.append(("rnn", f"{cell} {dtype} layers={layers} bidirectional={bidirectional}",
                            {"cell": cell, "dtype": dtype, "layers": layers, "bidirectional": bidirectional}))
    zoo = [c for c in measure_suite.cases() if not c["sweep"] and c["scenario"]["attention"] == "math"
           and c["scenario"]["precision"] == "torch_default" and "size" not in c["scenario"]["model"]]
    for bench in (False, True):
        for c in zoo:
            s = c["scenario"]
            out.append(("zoo", f"{s['model']['id']} b{s['batch_per_gpu']} {s['precision']} bench={bench}",
                        {"scenario": s, "bench": bench}))
    for name, batch, precision, bench in LAYER_LISTS:
        c = measure_suite.published(name, batch, precision, cudnn_benchmark=bench)
        out.append(("layer lists", f"{name} b{batch} {precision} bench={bench}",
                    {"scenario": c["scenario"], "bench": bench}))
    for model in SNAPSHOT_MODELS:
        for precision in ("torch_default", "amp_bf16"):
            start = SWEEP_STARTS.get((model, precision), 64)
            out.append(("sweeps", f"{model} {precision} from {start}",
                        {"scenario": hsi_case(model, precision, 64), "start": start}))
    return out


# --- runners ------------------------------------------------------------------------------


def trainer_for(scenario, device, bench):
    measure.check_scenario(scenario)
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = bench
    trainer = measure.Trainer(scenario, device)
    trainer.set_batch(scenario["batch_per_gpu"])
    return trainer


def run_memory(item, device):
    cuda = device.type == "cuda"
    scenario = item["scenario"]
    if cuda:
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(device)
        if "bytes_per_sample" in item:
            total = torch.cuda.get_device_properties(device).total_memory
            scenario = {**scenario, "batch_per_gpu": int(total / item["bytes_per_sample"])}
    trainer = trainer_for(scenario, device, False)

    def two_steps():
        trainer.step()
        trainer.step()
        trainer.synchronize()

    trace = trace_events(two_steps, cuda, memory=True)
    events = memory_events(trace, 1 if cuda else 0)
    with_totals = [i for i, e in enumerate(events) if e[3] is not None]
    peak_at = max(with_totals, key=lambda i: events[i][3]) if with_totals else None
    # The convolution passes' kernels too: which plan ran where a workspace was allocated.
    record = {"batch": scenario["batch_per_gpu"], "events": events, "peak_event": peak_at,
              "columns": ["op", "address", "bytes (+ alloc, - free)", "total allocated", "total reserved"],
              "kernels": conv_kernels(trace)}
    if cuda:
        record["memory_stats"] = torch.cuda.memory_stats(device)
        record["segments"] = [{key: s.get(key) for key in ("address", "total_size", "allocated_size", "segment_type", "stream")}
                              | {"blocks": [[b.get("size"), b.get("requested_size"), b.get("state")] for b in s.get("blocks", [])]}
                              for s in torch.cuda.memory._snapshot()["segments"]]
    return {"memory": record}


def run_kernels(item, device):
    trainer = trainer_for(item["scenario"], device, item["bench"])
    for _ in range(3):  # past cudnn.benchmark's trials and the optimizer's first step
        trainer.step()
    trainer.synchronize()

    def one_step():
        trainer.step()
        trainer.synchronize()

    passes = conv_kernels(trace_events(one_step, device.type == "cuda"))
    return {"kernels": {"cudnn_benchmark": item["bench"], "passes": passes}}


def run_rnn(item, device):
    """Per grid point: the tensors autograd saves for the layer (cuDNN's reserve is the
    uint8 one; on a CPU the native cells' tensors) and the peaks of its forward and its
    backward above what was allocated before it."""
    cuda = device.type == "cuda"
    dtype = torch.bfloat16 if item["dtype"] == "bf16" else torch.float32
    module = {"gru": torch.nn.GRU, "lstm": torch.nn.LSTM}[item["cell"]]
    runs = []
    for hidden, steps, batch, width in RNN_GRID if cuda else [(8, 5, 2, 3)]:
        rnn = module(width, hidden, item["layers"], bidirectional=item["bidirectional"]).to(device, dtype)
        rnn.flatten_parameters()
        x = torch.randn(steps, batch, width, device=device, dtype=dtype, requires_grad=True)
        saved = []

        def pack(t):
            saved.append([list(t.shape), str(t.dtype).removeprefix("torch."), t.element_size() * t.numel()])
            return t

        sync(device)
        before = torch.cuda.memory_allocated(device) if cuda else 0
        if cuda:
            torch.cuda.reset_peak_memory_stats(device)
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            output = rnn(x)[0]
        sync(device)
        point = {"hidden": hidden, "steps": steps, "batch": batch, "input": width, "saved": saved,
                 "output_bytes": output.element_size() * output.numel()}
        if cuda:
            point["forward_peak_bytes"] = torch.cuda.max_memory_allocated(device) - before
            point["after_forward_bytes"] = torch.cuda.memory_allocated(device) - before
            torch.cuda.reset_peak_memory_stats(device)
        output.sum().backward()
        sync(device)
        if cuda:
            point["backward_peak_bytes"] = torch.cuda.max_memory_allocated(device) - before
        # A forward and backward's time: PyTorch runs hidden 64 as cuDNN's persistent
        # kernel (its steps at a rate the estimate fitted on one GRU), 256 as per-step
        # kernels (`use_rnn_persist_small_h`).
        point["forward_backward_s"] = seconds_per_call(lambda: rnn(x)[0].sum().backward(), device, 3)
        # The host's share: the time to issue a forward and backward, the device synced
        # before each (cuDNN's weight queries, `perf.host.rnn_weight_query_s`: in each
        # backward and, under autocast, each forward too).
        point["issue_s"] = issue_seconds(lambda: rnn(x)[0].sum().backward(), device)
        if dtype == torch.float32:
            def autocast_pass():
                with torch.autocast(device.type, dtype=torch.bfloat16):
                    output = rnn(x)[0].sum()
                output.backward()
            point["autocast_issue_s"] = issue_seconds(autocast_pass, device)
        runs.append(point)
        del rnn, x, output
        free_memory(device)
    return {"rnn": {**item, "runs": runs}}


def issue_seconds(fn, device, reps=5):
    """Median seconds the host takes to issue `fn`, the device idle at each start."""
    fn()
    times = []
    for _ in range(reps):
        sync(device)
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    sync(device)
    return statistics.median(times)


def run_zoo(item, device, dry_run):
    scenario = item["scenario"]
    note = "tools/measure_lent_gpu.py" + (" [cudnn.benchmark = True]" if item["bench"] else "")
    m = measure.measure(scenario, dry_run, 1 if dry_run else 5, 1 if dry_run else 20, False, 0, note,
                        host=True, cudnn_benchmark=item["bench"])
    return {"scenario": scenario, "measurement": m, "cudnn_benchmark": item["bench"]}


def capped_largest(trial, start, cap_s, tolerance=0.02, limit=1 << 20):
    """Largest batch for which `trial` holds: doubling from `start`, then bisecting until
    the bracket is within `tolerance` of the batch that fits; stops at `cap_s` seconds.
    Returns (largest batch found to fit, smallest found not to, converged)."""
    begin = time.perf_counter()
    good, bad, batch = 0, None, max(1, start)
    while bad is None and batch <= limit:
        if trial(batch):
            good, batch = batch, batch * 2
        else:
            bad = batch
        if time.perf_counter() - begin > cap_s:
            return good, bad, False
    while bad is not None and bad - good > max(1, tolerance * good):
        mid = (good + bad) // 2
        if trial(mid):
            good = mid
        else:
            bad = mid
        if time.perf_counter() - begin > cap_s:
            return good, bad, False
    return good, bad, bad is not None


def run_sweep(item, device, dry_run):
    scenario = item["scenario"]
    m = measure.measure(scenario, dry_run, 1 if dry_run else 3, 1 if dry_run else 5, False, 0,
                        "tools/measure_lent_gpu.py sweep", host=False)
    free_memory(device)  # measure()'s trainer is gone; its blocks go back before the sweep's
    trainer = trainer_for(scenario, device, False)
    # A CPU does not run out of memory: in a dry run batch 3 is the card's limit.
    fits = (lambda t, b, e: b <= 3 and measure.fits(t, b, e)) if dry_run else measure.fits
    cuda = device.type == "cuda"
    points, details = [], []

    def trial(batch):
        counters = ("num_alloc_retries", "num_ooms")
        if cuda:
            torch.cuda.reset_peak_memory_stats(device)
            before = torch.cuda.memory_stats(device)
        errors = []
        ok = fits(trainer, batch, errors)
        peak = torch.cuda.max_memory_allocated(device) if ok and cuda else None
        points.append({"batch": batch, "fits": ok, "peak_allocated_bytes": peak})
        # What decided the batch: the reserved peak (also of a step that failed), how often
        # the allocator gave its cache back and retried (it reached the card's limit), and
        # the out-of-memory message.
        detail = {"batch": batch}
        if cuda:
            after = torch.cuda.memory_stats(device)
            detail["peak_reserved_bytes"] = torch.cuda.max_memory_reserved(device)
            detail.update({k: after.get(k, 0) - before.get(k, 0) for k in counters})
        if errors:
            detail["out_of_memory"] = errors[0][:800]
        details.append(detail)
        return ok

    good, bad, converged = capped_largest(trial, item["start"], SWEEP_CAP_S)
    m["sweep"] = points
    if converged:
        m["max_batch"] = good
    return {"scenario": scenario, "measurement": m, "cudnn_benchmark": False,
            "sweep_bracket": {"fits": good, "fails": bad, "converged": converged, "tolerance": 0.02},
            "sweep_details": details}


class PipelineBench:
    """tools/bench_pipeline.py in a process of its own, beside the device's items: its JSON
    and its stderr in a folder of its own, removed once it is recorded."""

    FULL = ["--workers", "0,1,2,4,8"]
    DRY_RUN = ["--quick", "--batches", "3", "--workers", "0,1"]

    def __init__(self, arguments):
        self.folder = tempfile.mkdtemp(prefix="lent-pipeline-")
        self.path = os.path.join(self.folder, "pipeline.json")
        self.stderr = open(os.path.join(self.folder, "stderr.txt"), "w+")
        self.process = subprocess.Popen([sys.executable, os.path.join(TOOLS, "bench_pipeline.py"), *arguments,
                                         "--output", self.path], stderr=self.stderr)

    def record(self, timeout_s=120.0):
        """Its result as a line, once it has ended (or an error past `timeout_s`, with the
        end of what it wrote to stderr)."""
        try:
            try:
                self.process.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                return self.error(f"bench_pipeline.py ran past {timeout_s:.0f} s")
            if self.process.returncode != 0:
                return self.error(f"bench_pipeline.py exited {self.process.returncode}")
            with open(self.path) as f:
                return {"section": "pipeline", "bench": json.load(f)}
        finally:
            self.stderr.close()
            shutil.rmtree(self.folder, ignore_errors=True)

    def error(self, what):
        self.stderr.seek(0)
        return {"section": "pipeline", "error": what, "stderr_tail": self.stderr.read()[-2000:]}


def free_memory(device):
    import gc

    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()


def run(section, item, device, dry_run):
    if section == "memory":
        return run_memory(item, device)
    if section == "kernels":
        return run_kernels(item, device)
    if section == "ops":
        return run_op(item, device)
    if section == "rnn":
        return run_rnn(item, device)
    if section in ("zoo", "layer lists"):
        return run_zoo(item, device, dry_run)
    return run_sweep(item, device, dry_run)


def shrunk(section, item):
    """The item at dry-run size: batch 2 (a sweep starts at 2), patch at most 9, tiny ops."""
    item = json.loads(json.dumps(item))
    if "scenario" in item:
        item["scenario"]["batch_per_gpu"] = 2
        item["scenario"]["patch"] = min(item["scenario"]["patch"], 9)
    if "start" in item:
        item["start"] = 2
    if item.get("kind") == "conv":
        item.update(batch=2, side=min(item["side"], 8))
    return item


# --- the plan -----------------------------------------------------------------------------


def model_name(scenario):
    """A preset's id or a layer list's name."""
    return scenario["model"].get("id") or scenario["model"]["spec"]["name"]


def committed_wall_s():
    """wall_s of the committed H200 runs by (model, batch, precision, cudnn.benchmark)."""
    out = {}
    for name in ("zoo.jsonl", "followup.jsonl"):
        path = os.path.join(FIXTURES, name)
        if not os.path.exists(path):
            continue
        for line in open(path):
            r = json.loads(line)
            if "wall_s" in r and not r["measurement"].get("sweep"):
                s = r["scenario"]
                key = (model_name(s), s["batch_per_gpu"], s["precision"], bool(r.get("cudnn_benchmark")))
                out.setdefault(key, r["wall_s"])
    return out


def estimate_s(section, item, walls, bench_factor):
    if "seconds" in item:
        return item["seconds"]
    if section == "ops":
        return OP_TIMING_S
    if section == "rnn":
        return RNN_S
    if section == "sweeps":
        return SWEEP_CAP_S
    s = item["scenario"]
    bench = item.get("bench", False)
    key = (model_name(s), s["batch_per_gpu"], s["precision"])
    wall = walls.get(key + (bench,))
    if wall is None:
        wall = walls.get(key + (False,), 1.0) * (bench_factor if bench else 1.0)
    return wall + (PROFILE_S if section in ("memory", "kernels") else 0.0)


def plan(chosen):
    """Seconds per section, from the committed runs; cudnn.benchmark's extra cost where
    only the run without it was committed is the median ratio of the paired runs."""
    walls = committed_wall_s()
    pairs = [walls[k] / walls[k[:3] + (False,)] for k in walls if k[3] and k[:3] + (False,) in walls]
    bench_factor = statistics.median(pairs) if pairs else 3.0
    sections = {}
    for section, _, item in chosen:
        n, t = sections.get(section, (0, 0.0))
        sections[section] = (n + 1, t + estimate_s(section, item, walls, bench_factor))
    return sections, bench_factor


def print_plan(chosen, budget_s):
    sections, bench_factor = plan(chosen)
    total = sum(t for _, t in sections.values())
    print(f"plan (times from core/tests/fixtures/measured_h200 wall_s; cudnn.benchmark x{bench_factor:.1f} "
          f"where only the run without it is committed):")
    for section, (n, t) in sections.items():
        print(f"  {section:<11} {n:4} items  ~{t:6.0f} s")
    print("  pipeline    tools/bench_pipeline.py beside the sweeps (about a minute of CPU, no device time of its own)")
    print(f"  total ~{total:.0f} s (~{total / 60:.1f} min) + CUDA start; items start until {budget_s:.0f} s")
    return total


# --- self-checks (CPU, no torch calls on a device) ----------------------------------------


def self_check():
    """The trace parsers and the capped bisection on made-up inputs."""
    profile_trace.self_check()
    for edge in (1, 37, 1000, 5000):
        good, bad, done = capped_largest(lambda b: b <= edge, 4, 60.0)
        assert done and good <= edge < bad and bad - good <= max(1, 0.02 * good), (edge, good, bad)
    assert capped_largest(lambda b: True, 4, 60.0, limit=64)[1:] == (None, False)
    failed = PipelineBench(["--workers", "none"])
    line = failed.record()
    assert line["error"].startswith("bench_pipeline.py exited") and "--workers" in line["stderr_tail"], line
    assert not os.path.exists(failed.folder), failed.folder


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--output", help="JSON lines file")
    parser.add_argument("--plan", action="store_true", help="print the plan and its estimated time, then exit")
    parser.add_argument("--dry-run", action="store_true",
                        help="CPU, tiny sizes: the first item of each section, op kind and SDPA backend")
    parser.add_argument("--budget-s", type=float, default=420.0, help="start no item after this many seconds")
    parser.add_argument("--gpu", default="h200_sxm", help="the card's id in the planner's catalog, stored in each scenario")
    args = parser.parse_args()
    torch.set_num_threads(min(2, os.cpu_count() or 1))
    chosen = items()
    for _, _, item in chosen:
        if "scenario" in item:
            item["scenario"]["gpu"] = args.gpu
    total = print_plan(chosen, args.budget_s)
    if args.plan:
        return 0
    if not args.output:
        parser.error("--output is required")
    if args.dry_run:
        self_check()
        firsts = {}  # the first item of each section, of each op kind, of each SDPA backend
        for section, label, item in chosen:
            firsts.setdefault((section, item.get("kind"), item.get("backend")), (section, label, shrunk(section, item)))
        chosen = list(firsts.values())
    elif total > 480:
        print(f"warning: the plan (~{total:.0f} s) passes 8 minutes; --budget-s drops the last items", file=sys.stderr)
    device = torch.device("cpu" if args.dry_run else "cuda")
    start = time.perf_counter()
    bench = None
    with open(args.output, "w") as out:
        out.write(json.dumps({**measure_suite.machine(), "script": "tools/measure_lent_gpu.py"}) + "\n")
        for section, label, item in chosen:
            elapsed = time.perf_counter() - start
            if elapsed > args.budget_s:
                out.write(json.dumps({"section": section, "case": label, "error": f"not run: past the {args.budget_s:.0f} s budget"}) + "\n")
                continue
            if section == "sweeps" and bench is None:
                bench = PipelineBench(PipelineBench.DRY_RUN if args.dry_run else PipelineBench.FULL)
            try:
                record = run(section, item, device, args.dry_run)
            except Exception as e:  # noqa: BLE001 - one item's failure must not end the session's run
                record = {"error": f"{type(e).__name__}: {e}"}
                if "scenario" in item:
                    record["scenario"] = item["scenario"]
            record.update(section=section, case=label, wall_s=round(time.perf_counter() - start - elapsed, 2))
            out.write(json.dumps(record) + "\n")
            out.flush()
            free_memory(device)
            print(f"{time.perf_counter() - start:6.1f} s  {section:<11} {label}", flush=True)
        if bench is not None:
            out.write(json.dumps(bench.record()) + "\n")
            print(f"{time.perf_counter() - start:6.1f} s  pipeline", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
