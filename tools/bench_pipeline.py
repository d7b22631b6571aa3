#!/usr/bin/env python3
"""CPU benchmark of an HSI patch input pipeline, for the planner's input-pipeline model
(core/src/pipeline.rs). Runs on any machine: numpy only, torch's DataLoader when torch
is installed (then also with worker processes).

A synthetic H x W x B cube with labelled pixels is fed two ways:
- cut per sample, as DeepHyperX's `HyperX` dataset does: slice the s x s x B window
  around the pixel from the padded cube, optionally flip/rotate it (augmentation),
  transpose to channels first, copy to float32, wrap as a tensor;
- pre-cut, as the SSFTT and HybridSN scripts do: all patches cut once into one array,
  `__getitem__` indexes it.
Batches of `--batch` are drawn in random order and collated (torch's default_collate,
or np.stack without torch). Per (patch, bands) the seconds per sample are timed, then
fitted as `fixed + bytes x per_byte` by least squares.

With torch, a worker's hand-over is timed on both sides, as CPU time of the thread that
spends it (so a machine whose workers share the main process's cores still tells them
apart): the main process per batch it receives (unpickling the batch and the shared-memory
handles, its first touch of the pages, their unmapping once freed) as `batch_s + bytes x
worker_byte_s`, and in the worker what collating into shared memory costs beyond
collating in the main process, `shared_byte_s` per byte (fresh shared pages, faulted in
and zeroed, for every batch).

    python3 tools/bench_pipeline.py --output pipeline.json     # ~1 min
    python3 tools/bench_pipeline.py --quick                     # smaller grid

The JSON's "constants" carry the fitted values under PipelineAssumptions' names
(`precut_sample_s`, `cut_sample_s`, `byte_s` (the pre-cut line's slope), `cut_byte_s` (the cut
line's beyond it), `augment_sample_s`, `augment_byte_s`, and
with torch `batch_s`, `worker_byte_s`, `shared_byte_s`), measured on this CPU; "workers" lists
samples/s with 0, 1, 2, 4 DataLoader workers (`--workers`) over cut 13 x 13 x 200 patches.
"""

import argparse
import json
import os
import platform
import sys
import time

import numpy as np

try:
    import torch
    from torch.utils.data import DataLoader
except ImportError:  # numpy only
    torch = None

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hsi_export.patches import CutPatches, PrecutPatches, synthetic_cube  # noqa: E402


def batches(dataset, batch, workers, seed=0):
    """An iterator of collated batches in random order."""
    if torch is not None:
        g = torch.Generator().manual_seed(seed)
        return iter(DataLoader(dataset, batch_size=batch, shuffle=True, num_workers=workers, generator=g))
    order = np.random.default_rng(seed).permutation(len(dataset))

    def numpy_batches():
        for start in range(0, len(order), batch):
            items = [dataset[i] for i in order[start : start + batch]]
            yield np.stack([x for x, _ in items]), np.array([y for _, y in items])

    return numpy_batches()


def seconds_per_sample(dataset, batch, workers, count):
    it = batches(dataset, batch, workers)
    next(it)  # start-up (worker processes, first touch) is not a per-sample cost
    n, start = 0, time.perf_counter()
    for _ in range(count):
        try:
            x, _ = next(it)
        except StopIteration:
            break
        n += len(x)
    return (time.perf_counter() - start) / max(n, 1)


def timed_collate(items):
    """default_collate, with the CPU time it took in the thread that ran it."""
    start = time.thread_time()
    x, y = torch.utils.data.default_collate(items)
    return x, y, time.thread_time() - start


def handover(dataset, batch, workers, count):
    """Per batch, CPU seconds: collating it (in the worker, or in the main process without
    one), and the main process receiving it, first touching its pages (beyond a copy of
    pages already touched) and freeing it."""
    it = iter(DataLoader(dataset, batch_size=batch, shuffle=True, num_workers=workers, collate_fn=timed_collate))
    x, _, _ = next(it)
    staging, touched = torch.empty_like(x), x.clone()
    time.sleep(0.2)  # the worker gets ahead: the main process's time is its own
    collate = main = 0.0
    for _ in range(count):
        start = time.thread_time()
        x, y, spent = next(it)
        staging.copy_(x)
        del x, y
        main += time.thread_time() - start
        collate += spent
        start = time.thread_time()
        staging.copy_(touched)
        main -= time.thread_time() - start
    return collate / count, main / count


def fit_line(xs, ys):
    """Least-squares (intercept, slope)."""
    a = np.vstack([np.ones(len(xs)), np.array(xs, dtype=float)]).T
    (b0, b1), *_ = np.linalg.lstsq(a, np.array(ys, dtype=float), rcond=None)
    return float(b0), float(b1)


def run(args):
    grid = [(9, 30), (13, 30), (25, 30), (9, 103), (13, 200), (25, 200)]
    if args.quick:
        grid = [(9, 30), (25, 30), (13, 200)]
    points = []
    for patch, bands in grid:
        cube, labels = synthetic_cube(args.height, args.width, bands)
        sample_bytes = patch * patch * bands * 4
        row = {"patch": patch, "bands": bands, "sample_bytes": sample_bytes}
        row["cut_s"] = seconds_per_sample(CutPatches(cube, labels, patch, False), args.batch, 0, args.batches)
        row["cut_augmented_s"] = seconds_per_sample(CutPatches(cube, labels, patch, True), args.batch, 0, args.batches)
        row["precut_s"] = seconds_per_sample(PrecutPatches(cube, labels, patch), args.batch, 0, args.batches)
        points.append(row)
        print(f"s={patch:<3} B={bands:<4} cut {row['cut_s']*1e6:7.1f} us  augmented {row['cut_augmented_s']*1e6:7.1f} us  precut {row['precut_s']*1e6:6.1f} us per sample", file=sys.stderr)
    bytes_ = [p["sample_bytes"] for p in points]
    cut0, cut_byte = fit_line(bytes_, [p["cut_s"] for p in points])
    pre0, pre_byte = fit_line(bytes_, [p["precut_s"] for p in points])
    aug0, aug_byte = fit_line(bytes_, [p["cut_augmented_s"] - p["cut_s"] for p in points])
    constants = {
        # The per-batch collate share is inside the per-sample intercepts here.
        "precut_sample_s": max(pre0, 0.0),
        "cut_sample_s": max(cut0, 0.0),
        "byte_s": max(pre_byte, 0.0),
        "cut_byte_s": max(cut_byte - pre_byte, 0.0),
        "augment_sample_s": max(aug0, 0.0),
        "augment_byte_s": max(aug_byte, 0.0),
    }
    handovers, workers = [], []
    if torch is not None:
        for patch in (9, 25) if args.quick else (9, 13, 25, 41):
            cube, labels = synthetic_cube(args.height, args.width, 200)
            # Only the patches the timed batches draw: 41 px, 200 bands is 1.3 MB a patch.
            dataset = PrecutPatches(cube, labels, patch, samples=args.batch * (args.batches + 2))
            in_main, _ = handover(dataset, args.batch, 0, args.batches)
            in_worker, main = handover(dataset, args.batch, 1, args.batches)
            row = {"patch": patch, "bands": 200, "batch_bytes": args.batch * patch * patch * 200 * 4,
                   "collate_main_s": in_main, "collate_worker_s": in_worker, "main_receive_s": main}
            handovers.append(row)
            print(f"hand-over s={patch:<3} {row['batch_bytes'] / 1e6:6.1f} MB  collate {in_main * 1e3:6.2f} ms, in a worker {in_worker * 1e3:6.2f} ms  main {main * 1e3:6.2f} ms", file=sys.stderr)
        bytes_ = [h["batch_bytes"] for h in handovers]
        receive0, receive_byte = fit_line(bytes_, [h["main_receive_s"] for h in handovers])
        _, shared_byte = fit_line(bytes_, [h["collate_worker_s"] - h["collate_main_s"] for h in handovers])
        constants.update(batch_s=max(receive0, 0.0), worker_byte_s=max(receive_byte, 0.0),
                         shared_byte_s=max(shared_byte, 0.0))
        cube, labels = synthetic_cube(args.height, args.width, 200)
        dataset = CutPatches(cube, labels, 13, False)
        for n in args.workers:
            t = seconds_per_sample(dataset, args.batch, n, args.batches)
            workers.append({"num_workers": n, "patch": 13, "bands": 200, "samples_per_s": 1.0 / t})
            print(f"workers {n}: {1.0 / t:9.0f} samples/s", file=sys.stderr)
    return {
        "tool": "bench_pipeline",
        "date": time.strftime("%Y-%m-%d"),
        "cpu": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "torch": torch.__version__ if torch is not None else None,
        "batch": args.batch,
        "cube": [args.height, args.width],
        "constants": constants,
        "points": points,
        "handovers": handovers,
        "workers": workers,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--height", type=int, default=145)
    parser.add_argument("--width", type=int, default=145)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--batches", type=int, default=30, help="timed batches per point")
    parser.add_argument("--quick", action="store_true", help="three grid points")
    parser.add_argument("--workers", type=lambda text: [int(n) for n in text.split(",")], default=[0, 1, 2, 4],
                        help="DataLoader worker counts timed end to end (default 0,1,2,4)")
    parser.add_argument("--output", default="-", help="JSON result (default: stdout)")
    args = parser.parse_args()
    if torch is not None:
        torch.set_num_threads(1)
    result = run(args)
    text = json.dumps(result, indent=1)
    if args.output == "-":
        print(text)
    else:
        with open(args.output, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
