//! One training step's tensors as the caching allocator sees them, replayed until a step
//! takes no new segment (each step reuses the segments the ones before it left cached, and
//! `max_memory_reserved` after warm-up is the high-water mark of that cache).
//!
//! Order of one step (PyTorch eager, `zero_grad(set_to_none=False)` as `memory` counts):
//! the input batch; forward, layer by layer: each tensor the layer keeps for backward (one
//! block each), each forward convolution's cuDNN workspace (allocated and freed around
//! the call), then its output where backward keeps none of it (freed once the next layer
//! ran); the loss's kept tensors; backward, layers in reverse: the layer's temporaries
//! (output and input gradients, scratch: one block, which matched the H200's reserved
//! peaks better than three, 8.9 % against 14 % at the median), its gradients (first step
//! only: they stay), its backward workspaces, then its kept tensors and temporaries
//! freed; the optimizer's states (first step only) and its step temporary. The weights,
//! the cuBLAS workspaces, sharding buffers and the data cube stay allocated throughout.
//!
//! Within a limit (the card's memory less the CUDA context) a workspace counts as a
//! tensor does: one the allocator cannot hand out makes the step not fit. PyTorch would
//! catch that error and run cuDNN's next plan (`try_configs` in ATen's `Conv_v8.cpp`),
//! with a smaller workspace or none: HybridSN's H200 sweep ran to batch 20,479, its peak
//! falling to its tensors alone past 19,456 (`measured_h200/zoo.jsonl`). Which plans
//! come next, and their workspaces, is not known without the kernels' names: a replay
//! that skips every such workspace matches the card's peaks past 19,456 but runs
//! HybridSN to about 29,000, far past where the card failed, so the planner keeps the
//! safe bound (10,131; `core/tests/measured_h200.rs`, `measured_sweep.rs`).

use super::{CachingAllocator, Handle};

/// A step's tensors, bytes, at one batch.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepTensors {
    /// Resident from the start: per layer its weights, the cuBLAS workspaces, sharding
    /// buffers, the data cube.
    pub resident: Vec<f64>,
    /// Per layer with parameters: its gradients and its optimizer states.
    pub gradients: Vec<f64>,
    pub optimizer_states: Vec<f64>,
    pub input: f64,
    /// The tensors kept for backward in the order the layers keep them, and per layer
    /// the end of its run there; per layer, its backward temporaries (one block: output
    /// and input gradients, scratch), its forward and backward workspaces (one per cuDNN
    /// call).
    pub kept: Vec<f64>,
    pub kept_ends: Vec<usize>,
    /// Per layer: its output where backward keeps none of it.
    pub unkept_outputs: Vec<f64>,
    pub temporaries: Vec<f64>,
    pub forward_workspaces: Vec<Vec<f64>>,
    pub backward_workspaces: Vec<Vec<f64>>,
    pub loss_kept: f64,
    pub step_temporary: f64,
}

/// The peaks of the replay, bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepMemory {
    pub allocated_peak: f64,
    pub reserved_peak: f64,
    /// A tensor or workspace did not fit the limit: the step runs out of memory (or,
    /// for a workspace, on a slower plan).
    pub out_of_memory: bool,
}

/// Steps replayed at most: a step's order of requests over the cached blocks settles
/// within a few (the first allocates the gradients and optimizer states).
const MAX_STEPS: usize = 6;

fn bytes(x: f64) -> u64 {
    x.max(0.0).ceil() as u64
}

/// Replays steps of `t` within `limit` bytes of segments until one takes no new segment
/// (at most `MAX_STEPS`) and returns the peaks (each step repeats the first's
/// allocations in the segments the earlier ones left cached).
pub fn training_step(t: &StepTensors, limit: u64) -> StepMemory {
    let mut a = CachingAllocator::with_limit(limit);
    let _resident: Vec<Option<Handle>> = t.resident.iter().map(|&b| a.malloc(bytes(b))).collect();
    let mut grads: Vec<Option<Handle>> = Vec::new();
    let mut states: Vec<Option<Handle>> = Vec::new();
    let layers = t.kept_ends.len();
    // A cuDNN call's workspace, allocated and freed around it.
    let workspace = |a: &mut CachingAllocator, own: f64| {
        let h = a.malloc(bytes(own));
        a.free(h);
    };
    for step in 0..MAX_STEPS {
        let reserved_before = a.reserved();
        let input = a.malloc(bytes(t.input));
        let mut kept: Vec<Option<Handle>> = Vec::with_capacity(t.kept.len());
        let mut previous_output = None;
        for i in 0..layers {
            while kept.len() < t.kept_ends[i] {
                kept.push(a.malloc(bytes(t.kept[kept.len()])));
            }
            for &w in &t.forward_workspaces[i] {
                workspace(&mut a, w);
            }
            let output = a.malloc(bytes(t.unkept_outputs[i]));
            a.free(std::mem::replace(&mut previous_output, output));
        }
        a.free(previous_output);
        let loss = a.malloc(bytes(t.loss_kept));
        a.free(loss);
        for i in (0..layers).rev() {
            let temporary = a.malloc(bytes(t.temporaries[i]));
            if step == 0 && i == layers - 1 {
                grads = t.gradients.iter().map(|&g| a.malloc(bytes(g))).collect();
            }
            for &w in &t.backward_workspaces[i] {
                workspace(&mut a, w);
            }
            let start = i.checked_sub(1).map_or(0, |j| t.kept_ends[j]);
            while kept.len() > start {
                a.free(kept.pop().flatten());
            }
            a.free(temporary);
        }
        a.free(input);
        if step == 0 {
            states = t
                .optimizer_states
                .iter()
                .map(|&s| a.malloc(bytes(s)))
                .collect();
        }
        let temporary = a.malloc(bytes(t.step_temporary));
        a.free(temporary);
        if step > 0 && a.reserved() == reserved_before {
            break;
        }
    }
    drop((grads, states));
    StepMemory {
        allocated_peak: a.peak_allocated as f64,
        reserved_peak: a.peak_reserved as f64,
        out_of_memory: a.out_of_memory,
    }
}
