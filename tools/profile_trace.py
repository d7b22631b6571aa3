"""torch.profiler traces for tools/measure_lent_gpu.py: the Chrome-trace events around a
call, the kernels each convolution pass launched, and the allocator's memory events with
the op that made each."""

import json
import os
import tempfile


def trace_events(run, cuda, memory=False):
    """The Chrome-trace events of torch.profiler around `run()`."""
    from torch.profiler import ProfilerActivity, profile

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    with profile(activities=activities, record_shapes=True, profile_memory=memory) as prof:
        run()
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "trace.json")
        prof.export_chrome_trace(path)
        with open(path) as f:
            trace = json.load(f)
    return trace["traceEvents"] if isinstance(trace, dict) else trace


CONV_OPS = {"aten::convolution": "forward", "aten::convolution_backward": "backward"}


def enclosing(ops_by_tid, tid, ts, names):
    """The outermost op named in `names` on thread `tid` whose span holds `ts`."""
    for op in ops_by_tid.get(tid, []):
        if op["name"] in names and op["ts"] <= ts <= op["ts"] + op.get("dur", 0):
            return op
    return None


def ops_by_thread(events):
    ops = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") == "cpu_op":
            ops.setdefault(e.get("tid"), []).append(e)
    for v in ops.values():
        v.sort(key=lambda e: (e["ts"], -e.get("dur", 0)))
    return ops


def conv_kernels(events):
    """Per convolution pass (forward op or backward op): its input shapes and the kernels
    it launched, [name, microseconds], linked kernel -> launch (correlation id) -> the op
    whose span holds the launch on the launching thread."""
    ops = ops_by_thread(events)
    launches = {e["args"]["correlation"]: e for e in events
                if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
    passes = {}
    for e in events:
        if e.get("cat") != "kernel":
            continue
        launch = launches.get(e.get("args", {}).get("correlation"))
        op = launch and enclosing(ops, launch.get("tid"), launch["ts"], CONV_OPS)
        if op:
            key = (op["tid"], op["ts"])
            entry = passes.setdefault(key, {"pass": CONV_OPS[op["name"]], "input_dims": op.get("args", {}).get("Input Dims"),
                                            "kernels": []})
            entry["kernels"].append([e["name"], round(e.get("dur", 0.0), 2)])
    if not passes:  # a CPU trace: the passes without kernels, so the shape checks still run
        for tid_ops in ops.values():
            for op in tid_ops:
                if op["name"] in CONV_OPS:
                    passes[(op["tid"], op["ts"])] = {"pass": CONV_OPS[op["name"]],
                                                     "input_dims": op.get("args", {}).get("Input Dims"), "kernels": []}
    return [passes[k] for k in sorted(passes)]


def memory_events(events, device_type):
    """Every allocation (+bytes) and free (-bytes) on the device (profiler device type: 0
    CPU, 1 CUDA) with the innermost op around it and the allocator's totals after it:
    [op, address, bytes, total allocated, total reserved]."""
    ops = ops_by_thread(events)
    out = []
    memory = [e for e in events if e.get("name") == "[memory]" and e.get("args", {}).get("Device Type", 0) == device_type]
    for e in sorted(memory, key=lambda e: e["ts"]):
        a = e.get("args", {})
        inner = [op for op in ops.get(e.get("tid"), []) if op["ts"] <= e["ts"] <= op["ts"] + op.get("dur", 0)]
        op = inner[-1]["name"] if inner else None
        out.append([op, a.get("Addr"), a.get("Bytes"), a.get("Total Allocated"), a.get("Total Reserved")])
    return out


def self_check():
    """The parsers on a made-up trace: a forward and a backward convolution, each with one
    kernel launched from its thread, and one allocation inside cuDNN's convolution."""
    events = [
        {"ph": "X", "cat": "cpu_op", "name": "aten::convolution", "tid": 1, "ts": 0, "dur": 100,
         "args": {"Input Dims": [[2, 1, 8, 8, 8]]}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::cudnn_convolution", "tid": 1, "ts": 10, "dur": 80, "args": {}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "tid": 1, "ts": 20, "dur": 5, "args": {"correlation": 7}},
        {"ph": "X", "cat": "kernel", "name": "implicit_convolveNd_sgemm", "tid": 9, "ts": 30, "dur": 12.5, "args": {"correlation": 7}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::convolution_backward", "tid": 2, "ts": 200, "dur": 100, "args": {}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "tid": 2, "ts": 210, "dur": 5, "args": {"correlation": 8}},
        {"ph": "X", "cat": "kernel", "name": "dgrad_engine", "tid": 9, "ts": 230, "dur": 20, "args": {"correlation": 8}},
        {"ph": "i", "name": "[memory]", "tid": 1, "ts": 15, "args": {"Addr": 4096, "Bytes": 512, "Total Allocated": 512,
                                                                     "Total Reserved": 2 << 20}},
    ]
    passes = conv_kernels(events)
    assert [p["pass"] for p in passes] == ["forward", "backward"], passes
    assert passes[0]["kernels"] == [["implicit_convolveNd_sgemm", 12.5]] and passes[0]["input_dims"] == [[2, 1, 8, 8, 8]]
    assert memory_events(events, 0) == [["aten::cudnn_convolution", 4096, 512, 512, 2 << 20]]
    assert memory_events(events, 1) == []
