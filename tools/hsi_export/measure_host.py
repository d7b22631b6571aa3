"""Host-side figures for measure.py: how long the CPU takes to issue a training
step, and how long the loop waits for a DataLoader that cuts patches from a cube.

- `host_step_times`: per step, the wall time until `trainer.step()` returns, started
  after a sync and not synced at the end (the GPU may still be running): the time the
  host needs to issue forward, backward and the optimizer. A step whose device work is
  shorter than that is host-bound.
- `loader_wait_times`: a training loop fed by a DeepHyperX-style Dataset over a
  synthetic H x W x B cube (patches.py `CutPatches`) through
  `torch.utils.data.DataLoader(num_workers=...)`, one `loss.item()` sync per step as
  HSI scripts do; per step the time spent in `next(loader)` and the whole step.
"""

import statistics
import time

import torch

from .patches import CutPatches, synthetic_cube


def host_step_times(trainer, steps):
    times = []
    for _ in range(steps):
        trainer.synchronize()
        start = time.perf_counter()
        trainer.step()
        times.append(time.perf_counter() - start)
    trainer.synchronize()
    return times


def loader_wait_times(trainer, bands, patch, num_workers, steps, cube=(145, 145)):
    """(seconds waiting for each batch, seconds of each whole step) over `steps` steps
    after one untimed step. Patch-classification models only (one label per sample); a
    model whose input is not B x s x s (a spectrum, a custom layer list) gets 1 x 1 patches
of its input's size."""
    size = 1
    for d in trainer.input_shape:
        size *= d
    if size != bands * patch * patch:
        bands, patch = size, 1  # a custom layer list of its own width
    data, labels = synthetic_cube(cube[0], cube[1], bands)
    dataset = CutPatches(data, labels, patch, augment=False, samples=max(4096, (steps + 2) * trainer.batch_size))
    loader = torch.utils.data.DataLoader(
        dataset,
        batch_size=trainer.batch_size,
        shuffle=True,
        num_workers=num_workers,
        pin_memory=trainer.device.type == "cuda",
        drop_last=True,
    )
    waits, steps_s = [], []
    it = iter(loader)
    for i in range(steps + 1):
        start = time.perf_counter()
        x, y = next(it)
        waited = time.perf_counter() - start
        trainer.set_loaded_batch(x, y)
        trainer.step()
        trainer.loss_value()
        if i > 0:
            waits.append(waited)
            steps_s.append(time.perf_counter() - start)
    return waits, steps_s


def summary(times):
    return statistics.median(times) if times else None
