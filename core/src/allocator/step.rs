//! One training step's tensors as the caching allocator sees them, replayed until a step
//! takes no new segment (each step reuses the segments the ones before it left cached, and
//! `max_memory_reserved` after warm-up is the high-water mark of that cache).
//!
//! Order of one step (PyTorch eager, `zero_grad(set_to_none=False)` as `memory` counts):
//! the input batch; forward, layer by layer: each tensor the layer keeps for backward (one
//! block each), a recurrent layer's cuDNN reserve space, each forward cuDNN call's
//! workspace (allocated and freed around the call), then its output where backward keeps
//! none of it (freed once the next layer ran); the loss's kept tensors; backward, layers
//! in reverse: the layer's temporaries (output and input gradients, scratch: one block,
//! which matched the H200's reserved peaks better than three, 8.9 % against 14 % at the
//! median), its gradients (first step
//! only, there as AccumulateGrad takes them: they stay), its backward workspaces, then
//! its kept tensors and temporaries freed; the optimizer's states (first step only) and
//! its step temporary. With checkpointing (`torch.utils.checkpoint` over segments of
//! `segment` layers) the forward runs without autograd, each output freed once the next
//! layer ran but a segment's last, the next segment's input; backward, segment by segment
//! from the last, runs the segment's forward again as above (its kept tensors at full
//! size), then its backward, then frees its input. The weights, the cuBLAS workspaces,
//! sharding buffers and the data cube stay allocated throughout.
//!
//! Within a limit (the card's memory less the CUDA context) a workspace counts as a
//! tensor does: one the allocator cannot hand out makes the step not fit. PyTorch would
//! catch that error and run cuDNN's next plan (`try_configs` in ATen's `Conv_v8.cpp`),
//! with a smaller workspace or none: HybridSN's H200 sweep ran to batch 20,479, its peak
//! falling to its tensors alone past 19,456 (`measured_h200/zoo.jsonl`). Which plans
//! come next, and their workspaces, is not known without the kernels' names: a replay
//! that skips every such workspace matches the card's peaks past 19,456 but runs
//! HybridSN to about 29,000, far past where the card failed, so the planner keeps the
//! safe bound (10,131; `core/tests/measured_h200_memory.rs`, `measured_sweep.rs`).

use super::{CachingAllocator, Handle};
use std::ops::Range;

/// A step's tensors, bytes, at one batch.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepTensors {
    /// Resident from the start: per layer its weights, the cuBLAS workspaces, sharding
    /// buffers, the data cube.
    pub resident: Vec<f64>,
    /// Per layer: its gradients (0 without trainable parameters). Per layer with
    /// parameters: its optimizer states.
    pub gradients: Vec<f64>,
    pub optimizer_states: Vec<f64>,
    pub input: f64,
    /// The tensors kept for backward in the order the layers keep them, and per layer
    /// the end of its run there; per layer, its backward temporaries (one block: output
    /// and input gradients, scratch), its forward and backward workspaces (one per cuDNN
    /// call).
    pub kept: Vec<f64>,
    pub kept_ends: Vec<usize>,
    /// Per layer: its output where backward keeps none of it, and its output.
    pub unkept_outputs: Vec<f64>,
    pub outputs: Vec<f64>,
    /// Layers per checkpointed segment (0: no checkpointing).
    pub segment: usize,
    pub temporaries: Vec<f64>,
    pub forward_workspaces: Vec<Vec<f64>>,
    pub backward_workspaces: Vec<Vec<f64>>,
    /// Per layer (or none): cuDNN's RNN reserve space, allocated after what the layer
    /// keeps and freed with it.
    pub reserves: Vec<f64>,
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
    /// The allocator gave its cached segments back at the limit (`CachingAllocator`).
    pub reached_limit: bool,
}

/// Steps replayed at most: a step's order of requests over the cached blocks settles
/// within a few (the first allocates the gradients and optimizer states).
const MAX_STEPS: usize = 6;

fn bytes(x: f64) -> u64 {
    x.max(0.0).ceil() as u64
}

/// A cuDNN call's workspace, allocated and freed around it.
fn workspace(a: &mut CachingAllocator, own: f64) {
    let h = a.malloc(bytes(own));
    a.free(h);
}

/// Forward through `layers` with autograd on: each tensor a layer keeps (into `kept`),
/// its workspaces, its output where backward keeps none of it (freed once the next
/// layer ran).
fn forward(
    a: &mut CachingAllocator,
    t: &StepTensors,
    layers: Range<usize>,
    kept: &mut [Option<Handle>],
    reserves: &mut [Option<Handle>],
) {
    let mut previous = None;
    for i in layers {
        let start = i.checked_sub(1).map_or(0, |j| t.kept_ends[j]);
        for (h, &b) in kept[start..t.kept_ends[i]].iter_mut().zip(&t.kept[start..]) {
            *h = a.malloc(bytes(b));
        }
        if let (Some(h), Some(&b)) = (reserves.get_mut(i), t.reserves.get(i)) {
            *h = a.malloc(bytes(b));
        }
        for &w in &t.forward_workspaces[i] {
            workspace(a, w);
        }
        let output = a.malloc(bytes(t.unkept_outputs[i]));
        a.free(std::mem::replace(&mut previous, output));
    }
    a.free(previous);
}

/// Backward through `layers`, last first: each layer's temporaries, its gradients (the
/// first backward only: they stay), its backward workspaces, then what it kept freed,
/// last kept first, and its temporaries.
fn backward(
    a: &mut CachingAllocator,
    t: &StepTensors,
    layers: Range<usize>,
    kept: &mut [Option<Handle>],
    reserves: &mut [Option<Handle>],
    grads: &mut [Option<Handle>],
) {
    for i in layers.rev() {
        let temporary = a.malloc(bytes(t.temporaries[i]));
        // AccumulateGrad takes a parameter's first gradient when backward reaches its
        // layer, not all at the start of backward (where a small gradient could split a
        // workspace's cached segment that later layers' tensors still fill, and pin it).
        if grads[i].is_none() {
            grads[i] = a.malloc(bytes(t.gradients.get(i).copied().unwrap_or(0.0)));
        }
        for &w in &t.backward_workspaces[i] {
            workspace(a, w);
        }
        let start = i.checked_sub(1).map_or(0, |j| t.kept_ends[j]);
        if let Some(h) = reserves.get_mut(i) {
            a.free(h.take());
        }
        for h in kept[start..t.kept_ends[i]].iter_mut().rev() {
            a.free(h.take());
        }
        a.free(temporary);
    }
}

/// Replays steps of `t` within `limit` bytes of segments until one takes no new segment
/// (at most `MAX_STEPS`) and returns the peaks (each step repeats the first's
/// allocations in the segments the earlier ones left cached).
pub fn training_step(t: &StepTensors, limit: u64) -> StepMemory {
    let mut a = CachingAllocator::with_limit(limit);
    let _resident: Vec<Option<Handle>> = t.resident.iter().map(|&b| a.malloc(bytes(b))).collect();
    let layers = t.kept_ends.len();
    let mut grads: Vec<Option<Handle>> = vec![None; layers];
    let mut states: Vec<Option<Handle>> = Vec::new();
    // Layers per backward run: a checkpointed segment, or the whole model.
    let per = if t.segment == 0 { layers } else { t.segment }.max(1);
    let mut kept: Vec<Option<Handle>> = vec![None; t.kept.len()];
    let mut reserves: Vec<Option<Handle>> = vec![None; t.reserves.len()];
    for step in 0..MAX_STEPS {
        let reserved_before = a.reserved();
        let input = a.malloc(bytes(t.input));
        // Checkpointing's forward keeps nothing for backward but each segment's input.
        let mut inputs = Vec::new();
        if t.segment == 0 {
            forward(&mut a, t, 0..layers, &mut kept, &mut reserves);
        } else {
            let mut previous = None;
            for i in 0..layers {
                for &w in &t.forward_workspaces[i] {
                    workspace(&mut a, w);
                }
                let output = a.malloc(bytes(t.outputs[i]));
                a.free(std::mem::replace(&mut previous, output));
                if (i + 1) % per == 0 && i + 1 < layers {
                    inputs.push(previous.take());
                }
            }
            a.free(previous);
        }
        let loss = a.malloc(bytes(t.loss_kept));
        a.free(loss);
        // Backward segment by segment, last first: checkpointing recomputes a segment's
        // forward from its input, backward frees what it kept, then the input goes.
        for start in (0..layers).step_by(per).rev() {
            let run = start..(start + per).min(layers);
            if t.segment > 0 {
                forward(&mut a, t, run.clone(), &mut kept, &mut reserves);
            }
            backward(&mut a, t, run, &mut kept, &mut reserves, &mut grads);
            a.free(inputs.pop().flatten());
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
        reached_limit: a.reached_limit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two layers keeping two 8 MiB tensors each, their outputs 8 MiB: checkpointed one
    /// layer a segment, the forward keeps only layer 0's output (layer 1's input), and
    /// backward runs each layer again at full size, one at a time: 8 + 16 MiB at most,
    /// where keeping everything holds 32 MiB.
    #[test]
    fn checkpointing_replays_one_segment_at_a_time_at_full_size() {
        let mib = f64::from(1 << 20);
        let t = |segment| StepTensors {
            kept: vec![8.0 * mib; 4],
            kept_ends: vec![2, 4],
            unkept_outputs: vec![0.0; 2],
            outputs: vec![8.0 * mib; 2],
            segment,
            temporaries: vec![0.0; 2],
            forward_workspaces: vec![Vec::new(); 2],
            backward_workspaces: vec![Vec::new(); 2],
            ..StepTensors::default()
        };
        let peak = |segment| training_step(&t(segment), u64::MAX).allocated_peak / mib;
        assert_eq!(peak(0), 32.0);
        assert_eq!(peak(1), 24.0);
    }
}
