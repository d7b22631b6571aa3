"""Training steps of a Scenario on a CUDA card (or the CPU for a dry run): the work
behind `hsi-gpu-measure` and tools/measure.py, whose command line (measure_cli.py)
says what is measured and how."""

import gc
import json
import os
import statistics
import subprocess
import sys
import time
import weakref

import torch
import torch.nn.functional as F

from .env import repository_path
from .measure_model import ScenarioError, SpecModel, build_model

REQUIRED = ("model", "bands", "patch", "classes", "batch_per_gpu", "precision", "optimizer")
PRECISIONS = ("torch_default", "fp32", "tf32", "amp_fp16", "amp_bf16", "bf16")
OPTIMIZERS = {
    "sgd": lambda params: torch.optim.SGD(params, lr=0.01),
    "sgd_momentum": lambda params: torch.optim.SGD(params, lr=0.01, momentum=0.9),
    "adam": lambda params: torch.optim.Adam(params),
    "adamw": lambda params: torch.optim.AdamW(params),
}


# --- measuring ---------------------------------------------------------------------------


def driver_version():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=10, check=True)
        return out.stdout.strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        return None


def device_used(device):
    free, total = torch.cuda.mem_get_info(device)
    return total - free


class Trainer:
    """One scenario's model, optimizer and synthetic batch on a device."""

    def __init__(self, scenario, device):
        self.device = device
        self.precision = scenario["precision"]
        self.accum = scenario.get("workload", {}).get("grad_accum_steps", 1)
        model, self.input_shape, self.label_shape, self.classes, self.name = build_model(scenario)
        if self.precision == "bf16":
            model = model.to(torch.bfloat16)
        self.model = model.to(device).train()
        self.optimizer = OPTIMIZERS[scenario["optimizer"]](self.model.parameters())
        self.scaler = torch.amp.GradScaler(device.type) if self.precision == "amp_fp16" else None
        tf32 = self.precision == "tf32"
        torch.backends.cuda.matmul.allow_tf32 = tf32
        # PyTorch's default lets cuDNN convolutions (only) use TF32.
        torch.backends.cudnn.allow_tf32 = tf32 or self.precision == "torch_default"
        self.batch = None

    def set_batch(self, batch):
        self.batch = None  # frees the previous batch first
        self.batch_size = batch
        dtype = torch.bfloat16 if self.precision == "bf16" else torch.float32
        x = torch.randn(batch, *self.input_shape, device=self.device, dtype=dtype)
        y = torch.randint(0, self.classes, (batch, *self.label_shape), device=self.device)
        self.batch = (x, y)

    def set_loaded_batch(self, x, y):
        """A DataLoader's batch of [n, B, s, s] patches and labels, moved to the device
        and shaped as the model takes it."""
        dtype = torch.bfloat16 if self.precision == "bf16" else torch.float32
        x = x.to(self.device, non_blocking=True).to(dtype).reshape(x.shape[0], *self.input_shape)
        self.batch = (x, y.to(self.device, non_blocking=True) % self.classes)

    def loss_value(self):
        """The last micro-step's loss as a Python float: a sync, as `loss.item()` is."""
        return self.last_loss.item()

    def autocast(self):
        dtype = {"amp_fp16": torch.float16, "amp_bf16": torch.bfloat16}.get(self.precision)
        return torch.autocast(self.device.type, dtype=dtype, enabled=dtype is not None)

    def step(self):
        x, y = self.batch
        for _ in range(self.accum):
            with self.autocast():
                loss = F.cross_entropy(self.model(x).float(), y) / self.accum
            # Detached: a loss kept with its graph would keep, after a backward that ran
            # out of memory, the saved activations of the layers it had not reached.
            self.last_loss = loss.detach()
            (self.scaler.scale(loss) if self.scaler else loss).backward()
        if self.scaler:
            self.scaler.step(self.optimizer)
            self.scaler.update()
        else:
            self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)

    def timed_step(self):
        self.synchronize()
        start = time.perf_counter()
        self.step()
        self.synchronize()
        return time.perf_counter() - start

    def synchronize(self):
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)


# What PyTorch's cuDNN convolution raises when no engine config ran (Conv_v8.cpp,
# `run_single_conv`): with cudnn.benchmark off it tries the heuristics' configs, then the
# fallback list, skipping each whose workspace runs out of memory, and ends with a plain
# RuntimeError ("GET was unable to find an engine ..."), not an out-of-memory error.
NO_ENGINE = "unable to find an engine"


def fits(trainer, batch, errors=None):
    """True if two full steps at `batch` run without running out of memory (or cuDNN
    finding no convolution plan that runs); where given, `errors` gets the message (the
    request, and what was allocated and reserved when it failed)."""
    try:
        trainer.set_batch(batch)
        trainer.step()
        trainer.step()
        trainer.synchronize()
        return True
    except RuntimeError as e:  # torch.cuda.OutOfMemoryError is one
        if not isinstance(e, torch.cuda.OutOfMemoryError) and NO_ENGINE not in str(e):
            raise
        # Only the text: the exception and the frames it holds go before the clean-up.
        if errors is not None:
            errors.append(str(e))
    trainer.batch = None
    trainer.optimizer.zero_grad(set_to_none=True)
    if trainer.scaler:  # a step cut short leaves the scaler mid-update
        trainer.scaler = torch.amp.GradScaler(trainer.device.type)
    gc.collect()
    torch.cuda.empty_cache()
    return False


def largest_fitting(trial, start, limit):
    """Largest batch up to `limit` for which `trial(batch)` holds, given that it holds up
    to some batch and fails beyond: batch 1, then doubling from `start`, then bisecting.
    0 if batch 1 fails; None if `limit` itself holds (the sweep did not reach the edge)."""
    if not trial(1):
        return 0
    good, bad = 1, None
    batch = max(2, start)
    while bad is None:
        batch = min(batch, limit)
        if batch <= good:
            return None  # limit <= a batch that fits
        if not trial(batch):
            bad = batch
        elif batch == limit:
            return None
        else:
            good, batch = batch, batch * 2
    while bad - good > 1:
        mid = (good + bad) // 2
        if trial(mid):
            good = mid
        else:
            bad = mid
    return good


def sweep(trainer, start, limit):
    """(largest batch that runs a step, every batch tried with its peak)."""
    points = []

    def trial(batch):
        torch.cuda.reset_peak_memory_stats(trainer.device)
        ok = fits(trainer, batch)
        peak = torch.cuda.max_memory_allocated(trainer.device) if ok else None
        points.append({"batch": batch, "fits": ok, "peak_allocated_bytes": peak})
        return ok

    return largest_fitting(trial, start, limit), points


def measure_host(m, trainer, scenario, steps, num_workers):
    """Host time per step and, for patch classifiers, the DataLoader loop (measure_host.py)."""
    from . import measure_host

    m["host_step_s"] = measure_host.summary(measure_host.host_step_times(trainer, steps))
    if num_workers is not None and trainer.label_shape == []:
        waits, loop = measure_host.loader_wait_times(trainer, scenario["bands"], scenario["patch"], num_workers, steps)
        m.update(loader_num_workers=num_workers, loader_wait_s=measure_host.summary(waits),
                 loader_step_s=measure_host.summary(loop))
        trainer.set_batch(scenario["batch_per_gpu"])


def measure(scenario, dry_run, warmup, steps, do_sweep, sweep_limit, note, host=False, num_workers=None,
            cudnn_benchmark=False):
    check_scenario(scenario)
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = cudnn_benchmark
    device = torch.device("cpu" if dry_run else "cuda")
    if not dry_run and not torch.cuda.is_available():
        raise ScenarioError("no CUDA device: run on a CUDA machine, or use --dry-run on a CPU")
    m = {
        "note": note,
        "synthetic": False,
        "dry_run": dry_run,
        "device": {"gpu_name": "cpu", "total_memory_bytes": None, "driver": None, "cuda": None, "torch": torch.__version__},
        "batch": scenario["batch_per_gpu"],
        "bands": scenario["bands"],
        "patch": scenario["patch"],
        "classes": scenario["classes"],
        "precision": scenario["precision"],
        "optimizer": scenario["optimizer"],
        "checkpointing": False,
        "cudnn_benchmark": cudnn_benchmark,
        "warmup_steps": warmup,
    }
    if not dry_run:
        torch.cuda.init()
        torch.zeros(1, device=device)  # starts the context
        props = torch.cuda.get_device_properties(device)
        m["device"].update(gpu_name=props.name, total_memory_bytes=props.total_memory, driver=driver_version(),
                           cuda=torch.version.cuda)
        m["device_used_before_bytes"] = device_used(device)
    trainer = Trainer(scenario, device)
    m["model"] = trainer.name
    trainer.set_batch(scenario["batch_per_gpu"])
    for _ in range(warmup):
        trainer.step()
    if not dry_run:
        torch.cuda.reset_peak_memory_stats(device)
    times = [trainer.timed_step() for _ in range(steps)]
    m["step_times_s"] = times
    m["step_time_s"] = statistics.median(times)
    if host:
        measure_host(m, trainer, scenario, steps, num_workers)
    if not dry_run:
        m["peak_allocated_bytes"] = torch.cuda.max_memory_allocated(device)
        m["peak_reserved_bytes"] = torch.cuda.max_memory_reserved(device)
        m["device_used_after_bytes"] = device_used(device)
        m["context_bytes"] = m["device_used_after_bytes"] - torch.cuda.memory_reserved(device)
        if do_sweep:
            m["max_batch"], m["sweep"] = sweep(trainer, scenario["batch_per_gpu"], sweep_limit)
            if m["max_batch"] is None:
                print(f"measure: batch {sweep_limit} (--sweep-limit) still fits: no max_batch recorded", file=sys.stderr)
    return m


def check_scenario(scenario):
    if not isinstance(scenario, dict):
        raise ScenarioError("the scenario must be a JSON object")
    missing = [k for k in REQUIRED if k not in scenario]
    if missing:
        raise ScenarioError(f"missing {', '.join(missing)}: start from `hsi-gpu scenario`, which writes every field")
    if scenario["precision"] not in PRECISIONS:
        raise ScenarioError(f"precision: {scenario['precision']!r}; allowed: {', '.join(PRECISIONS)}")
    if scenario["optimizer"] not in OPTIMIZERS:
        raise ScenarioError(f"optimizer: {scenario['optimizer']!r}; allowed: {', '.join(OPTIMIZERS)}")
    if scenario.get("checkpointing"):
        raise ScenarioError("checkpointing: true is not measured by this script (set it false)")
    for key in ("bands", "patch", "classes", "batch_per_gpu"):
        if not isinstance(scenario[key], int) or scenario[key] < 1:
            raise ScenarioError(f"{key}: {scenario[key]!r}; allowed: a positive integer")


# --- self-test ---------------------------------------------------------------------------


def same_as_zoo_model(spec, case):
    """True if SpecModel(spec) counts the FLOPs and saves the bytes that the original
    PyTorch zoo model did in `case` (a core/tests/fixtures/pytorch_zoo.json case)."""
    import validate_zoo

    model = SpecModel(spec).train()
    torch.manual_seed(0)
    x = torch.randn(case["batch"], *spec["input"])
    with torch.no_grad():  # eval: a BatchNorm1d over [1, C] refuses training mode
        out_shape = model.eval()(x[:1]).shape
    model.train()
    y = torch.randint(0, out_shape[1], (case["batch"], *out_shape[2:]))
    fwd, bwd = validate_zoo.flops(model, x, y, case["precision"])
    saved = validate_zoo.saved_bytes(model, x, y, case["precision"])
    return (fwd, bwd, saved) == (case["fwd_flops"], case["bwd_flops"], case["saved_bytes"])


def outputs_held_past_backward_needs(spec):
    """The layer outputs a SpecModel holds while its last layer runs that autograd did not
    save for backward (nor the last layer's inputs): none, if each is dropped after its
    last reader, as the estimate assumes."""
    model = SpecModel(spec).train()
    outputs, saved, held = [], set(), []

    def pack(t):
        saved.add(t.untyped_storage().data_ptr())
        return t

    def note_held(module, args, out):
        reading = {t.untyped_storage().data_ptr() for t in (*args, out)}
        alive = (ref() for ref in outputs)
        held[:] = [t.shape for t in alive if t is not None and t.untyped_storage().data_ptr() not in saved | reading]

    for block in set(model.blocks):
        block.register_forward_hook(lambda module, args, out: outputs.append(weakref.ref(out)))
    model.blocks[-1].register_forward_hook(note_held)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(torch.randn(2, *spec["input"]))
    return held


def self_test():
    """SpecModel builds every op of the estimator and rebuilds every exported fixture with
    torch's parameter count (and trains the every-op list one step), and an
    exported zoo model with the original's FLOPs and saved bytes (so measuring a layer
    list measures what the estimate describes); the OOM search finds the edge and a failed
    step leaves nothing behind; a dry run
    of a zoo preset and of a custom spec produce complete measurement records."""
    fixtures = repository_path("core", "tests", "fixtures")
    with open(os.path.join(fixtures, "pytorch_zoo.json")) as f:
        zoo_cases = json.load(f)["cases"]
    option_keys = ("bands", "patch", "classes", "width", "size")
    # Every op of the estimator (every_op.json), then the exporter's layer lists.
    files = ["every_op.json"] + [os.path.join(d, f) for d in ("exported", "families")
                                 for f in sorted(os.listdir(os.path.join(fixtures, d))) if f.endswith(".json")]
    # A layer list holds no more than its module would: ResNet-50's branches and sums too.
    with open(os.path.join(fixtures, "published_models", "resnet50.json")) as f:
        resnet50 = json.load(f)
    assert outputs_held_past_backward_needs(resnet50) == []
    for file in files:
        with open(os.path.join(fixtures, file)) as f:
            fixture = json.load(f)
        model = SpecModel(fixture["spec"])
        params = sum(p.numel() for p in model.parameters())
        assert params == fixture["torch_params"], (file, params, fixture["torch_params"])
        source = fixture.get("source", {})
        for case in zoo_cases:
            if case["model"] == source.get("zoo") and all(case["options"][k] == source[k] for k in option_keys):
                assert same_as_zoo_model(fixture["spec"], case), (file, case)
    base = {"bands": 30, "patch": 13, "classes": 16, "batch_per_gpu": 4, "precision": "fp32",
            "optimizer": "adam", "checkpointing": False}
    with open(os.path.join(fixtures, "exported", "zoo_hu1d.json")) as f:
        hu1d_spec = json.load(f)["spec"]
    with open(os.path.join(fixtures, "every_op.json")) as f:
        every_op_spec = json.load(f)["spec"]
    cases = [
        {**base, "model": {"kind": "preset", "id": "ssftt"}},
        {**base, "model": {"kind": "custom", "spec": hu1d_spec}, "precision": "amp_bf16"},
        {**base, "model": {"kind": "custom", "spec": every_op_spec}},
    ]
    for scenario in cases:
        m = measure(scenario, dry_run=True, warmup=1, steps=2, do_sweep=False, sweep_limit=0, note="self-test",
                    host=True, num_workers=0)
        assert m["dry_run"] and len(m["step_times_s"]) == 2 and m["step_time_s"] > 0, m
        assert 0 < m["host_step_s"] and 0 <= m["loader_wait_s"] < m["loader_step_s"], m
        assert m.get("peak_allocated_bytes") is None and m.get("context_bytes") is None, m
    # A preset with the foundation-model options builds them (a ViT-S: sdpa and LoRA)...
    vit = {**base, "model": {"kind": "preset", "id": "vit", "size": "small"}, "bands": 4, "patch": 16,
           "attention": "sdpa", "finetune": {"mode": "lora", "rank": 4, "targets": ["qkv"]}}
    assert measure(vit, True, 0, 1, False, 0, "")["step_time_s"] > 0
    # ... and refuses what it cannot build, as with checkpointing.
    for refused in ({**vit, "attention": "flash"}, {**vit, "finetune": {"mode": "lora", "rank": 4, "targets": ["fc1"]}},
                    {**base, "model": {"kind": "preset", "id": "ssftt"}, "checkpointing": True}):
        try:
            measure(refused, True, 0, 1, False, 0, "")
            raise AssertionError(f"must be refused: {refused}")
        except ScenarioError:
            pass
    # The out-of-memory path: a step that fails leaves the trainer usable.
    trainer = Trainer({**base, "model": {"kind": "custom", "spec": hu1d_spec}, "precision": "amp_fp16"}, torch.device("cpu"))
    real_step = trainer.step

    def step_up_to_8():
        if trainer.batch[0].shape[0] > 8:
            raise torch.cuda.OutOfMemoryError("simulated")
        real_step()

    trainer.step = step_up_to_8
    assert not fits(trainer, 9) and trainer.batch is None
    assert fits(trainer, 8)
    # cuDNN finding no plan that runs ends the batch too, with its message; any other
    # error is the script's own and goes up.
    for error, counts in ((RuntimeError("GET was unable to find an engine to execute this computation"), True),
                          (RuntimeError("shape mismatch"), False)):
        def step_failing(error=error):
            raise error

        trainer.step, errors = step_failing, []
        try:
            assert not fits(trainer, 8, errors) and counts and errors == [str(error)]
        except RuntimeError as e:
            assert not counts and e is error
    trainer.step = real_step
    # A step that runs out of memory in its backward takes its graph with it: the layers
    # the backward had not reached still hold their saved activations, and the next batch
    # a sweep tries would run beside them (its largest batch would come out low).
    trainer = Trainer({**base, "model": {"kind": "custom", "spec": hu1d_spec}}, torch.device("cpu"))

    class OutOfMemoryInBackward(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.view_as(x)

        @staticmethod
        def backward(ctx, grad):
            raise torch.cuda.OutOfMemoryError("simulated, in the backward")

    trainer.model.register_forward_hook(
        lambda module, args, out: OutOfMemoryInBackward.apply(out) if out.shape[0] > 8 else out)
    assert not fits(trainer, 9)
    assert trainer.last_loss.grad_fn is None, "the failed step's graph (and its saved activations) outlives it"
    assert fits(trainer, 8)
    for edge, start, limit in ((37, 64, 1 << 16), (37, 4, 1 << 16), (1, 8, 64), (0, 8, 64), (5000, 1, 4096)):
        tried = []
        found = largest_fitting(lambda b: tried.append(b) or b <= edge, start, limit)
        expected = None if edge >= limit else edge
        assert found == expected and max(tried) <= limit, (edge, start, limit, found, tried)
    print("measure self-test: ok")
