//! Memory per GPU for one training step, term by term, and the largest batch that fits.
//!
//! total = CUDA context + weights + gradients + optimizer states + kept activations
//!       + transient peak + allocator overhead
//!
//! - weights and gradients: params x 4 B (fp32, tf32 and autocast, whose fp32 parameters
//!   are the master weights) or x 2 B (a model cast to bf16, which has no master copy);
//! - optimizer states: params x states x parameter bytes (torch keeps states in the
//!   parameter dtype: SGD 0, momentum 1, Adam/AdamW 2 states);
//! - sharded (ZeRO, FSDP) or offloaded: each state's share per GPU, and the buckets and
//!   gathered units sharding adds (`shard`);
//! - activations: what autograd keeps for backward (`analysis`), plus the input batch
//!   when no layer keeps it; with gradient checkpointing, see `checkpointed_activations`;
//! - transient: the largest temporary on top of the kept activations: a layer's output
//!   and input gradients during backward plus op scratch (attention scores), or the
//!   optimizer's parameter-sized temporaries (Adam's foreach sqrt), whichever is larger,
//!   plus the cuBLAS workspaces PyTorch keeps (`GpuSpec::blas_workspace_bytes`);
//! - allocated peak, reserved peak: these tensors, with each convolution's cuDNN
//!   workspace (`cudnn::workspaces`), replayed until a step takes no new segment through
//!   a simulation of PyTorch's caching allocator (`allocator`) within the card (the cache
//!   hands unused segments back at its limit): what `torch.cuda.max_memory_allocated`
//!   and `max_memory_reserved` report;
//! - allocator: reserved peak less the tensors above (block rounding, cached segments,
//!   the workspaces), never below `memory.fragmentation` x (activations + transient);
//! - device total (`total`): reserved peak + CUDA context, what nvidia-smi shows; "fits"
//!   and the largest batch also need every request of the replay, tensor or workspace,
//!   to have found room within the limit (after the cached segments went back).
//!
//! The estimate is conservative in one respect: gradients are counted as alive together
//! with all kept activations (true for `zero_grad(set_to_none=False)`; with the default
//! set_to_none the early part of backward needs less).

use crate::allocator::{self, StepMemory, StepTensors};
use crate::analysis::{analyze_with, Analysis, Training};
use crate::cudnn::{self, Maths, Pass};
use crate::gpu::GpuSpec;
use crate::graph::ModelSpec;
use crate::problems::FieldError;
use crate::scenario::{Scenario, MAX_BATCH};
use serde::{Deserialize, Serialize};

/// Memory per GPU, in bytes, term by term. `total` is their sum.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryBreakdown {
    pub cuda_context: f64,
    pub weights: f64,
    pub gradients: f64,
    pub optimizer_states: f64,
    /// ZeRO's buckets and gathered layers, FSDP's unit working set (0 without sharding).
    pub sharding_buffers: f64,
    /// Optimizer states (and fp32 master) each GPU's rank keeps in host memory instead
    /// (`offload`); not part of `total`.
    pub offloaded_to_host: f64,
    /// Activations autograd keeps for backward (includes the input batch and the
    /// half-precision weight copies autocast keeps).
    pub activations: f64,
    /// Largest temporary on top of the kept activations during forward/backward.
    pub transient: f64,
    /// Caching-allocator rounding, cached segments and cuDNN workspaces: reserved peak
    /// less the tensor terms.
    pub allocator: f64,
    /// `torch.cuda.max_memory_allocated` as the allocator simulation finds it.
    pub allocated_peak: f64,
    /// `torch.cuda.max_memory_reserved`: the segments the allocator holds at its peak.
    pub reserved_peak: f64,
    /// The whole H x W x B fp32 cube when it is kept on the GPU (`pipeline.cube_on_gpu`);
    /// 0 otherwise.
    pub input_cube: f64,
    pub total: f64,
    /// Usable card memory (physical minus driver reserve).
    pub capacity: f64,
    /// Bytes ECC takes from the card when the scenario turns it on (inline GDDR ECC:
    /// 1/16); `capacity` is what is left.
    pub ecc_reserved: f64,
    /// What the planner lets a batch use: capacity x (1 - memory.headroom), the budget
    /// `max_batch` searches within.
    pub budget: f64,
    /// The step runs on the card: every request of the replay found room, and reserved
    /// peak + context is within capacity.
    pub fits: bool,
    /// The step keeps the headroom: it fits, its total is within the budget, and (with a
    /// headroom) the allocator did not reach the card's limit. At the limit it hands its
    /// cache back and the total shrinks to what the card holds, so a batch whose cache the
    /// card cannot hold would otherwise read as leaving more headroom than a smaller one.
    /// What `max_batch` searches on.
    pub within_budget: bool,
    /// (capacity - total) / capacity: the part of the card left spare; negative when
    /// it does not fit.
    pub spare_fraction: f64,
}

/// Usable card memory: physical minus the driver reserve.
pub fn capacity(s: &Scenario, gpu: &GpuSpec) -> f64 {
    gpu.memory_bytes
        .saturating_sub(s.memory.driver_reserved_bytes) as f64
}

/// capacity x (1 - memory.headroom): the budget `max_batch` searches within.
pub fn budget(s: &Scenario, gpu: &GpuSpec) -> f64 {
    capacity(s, gpu) * (1.0 - s.memory.headroom)
}

/// Layers per segment of sqrt(L) segment checkpointing (`checkpoint_sequential` with
/// ceil(sqrt(L)) segments) over `layers` layers.
pub fn checkpoint_segment(layers: usize) -> usize {
    let segments = (layers as f64).sqrt().ceil().max(1.0) as usize;
    layers.div_ceil(segments).max(1)
}

/// Kept activations with sqrt(L) segment checkpointing at `batch`: backward recomputes
/// one segment at a time, from the last, and frees each segment's input once the
/// segment is done, so while segment k runs again the inputs of segments 1..=k are kept
/// beside its own tensors; the peak is the largest such sum. The loss keeps its tensors.
pub fn checkpointed_activations(a: &Analysis, batch: u64) -> f64 {
    let lines = &a.lines;
    let per_segment = checkpoint_segment(lines.layer_kept_end.len());
    let mut inputs = 0.0;
    let mut peak = 0.0f64;
    for (i, chunk) in lines.layer_saved().chunks(per_segment).enumerate() {
        if i > 0 {
            inputs += lines.layer_output[i * per_segment - 1].at(batch);
        }
        peak = peak.max(inputs + chunk.iter().map(|b| b.at(batch)).sum::<f64>());
    }
    peak + lines.loss_saved.at(batch) + lines.unsaved_input.at(batch)
}

/// Bytes of the dataset's H x W x bands cube in fp32 when the scenario keeps it on the
/// GPU (an unknown dataset counts 0; `estimate` refuses one).
pub fn input_cube_bytes(s: &Scenario) -> f64 {
    match crate::dataset::dataset_by_id(&s.dataset) {
        Some(d) if s.pipeline.cube_on_gpu && !s.pipeline.synthetic => {
            f64::from(d.height) * f64::from(d.width) * f64::from(s.bands) * 4.0
        }
        _ => 0.0,
    }
}

/// The CUDA context's bytes: the scenario's, or the card's.
pub fn cuda_context(s: &Scenario, gpu: &GpuSpec) -> f64 {
    s.memory
        .cuda_context_bytes
        .unwrap_or_else(|| gpu.cuda_context_bytes()) as f64
}

/// Builds the breakdown for an analysed model on `gpu`, at the analysed batch.
pub fn breakdown(a: &Analysis, s: &Scenario, gpu: &GpuSpec) -> MemoryBreakdown {
    breakdown_at(a, a.batch, s, gpu)
}

/// The breakdown at any `batch`, from the analysis's batch-linear terms. The caching
/// allocator replays the step within the card: it gives unused segments back at the
/// limit, and `fits` says whether every request then found room.
pub fn breakdown_at(a: &Analysis, batch: u64, s: &Scenario, gpu: &GpuSpec) -> MemoryBreakdown {
    let params = a.params as f64;
    // Gradients and optimizer states exist for what trains (`finetune`), split by `sharding`.
    let states = crate::shard::states(s, params, a.trainable_params as f64, &a.layers);
    let (weights, gradients, optimizer_states) =
        (states.weights, states.gradients, states.optimizer);
    let kept = (a.lines.saved.at(batch) + a.lines.unsaved_input.at(batch)
        - states.no_autocast_copies)
        .max(0.0);
    // With checkpointing a recurrent layer's reserve exists only while its segment runs
    // again: counting every one is the safe side.
    let reserves: f64 = rnn_reserves(a, batch).iter().sum();
    let activations = if s.checkpointing {
        checkpointed_activations(a, batch).min(kept)
    } else {
        kept
    } + reserves;
    // Adam's foreach implementation builds one temporary list the size of a state; the
    // BLAS workspaces stay allocated beside whichever is larger.
    let transient =
        a.lines.transient_at(batch).max(states.step_temporary) + gpu.blas_workspace_bytes();
    let cuda_context = cuda_context(s, gpu);
    let input_cube = input_cube_bytes(s);
    let capacity = capacity(s, gpu);
    let tensors = weights
        + gradients
        + optimizer_states
        + states.buffers
        + activations
        + transient
        + input_cube;
    let segments_limit = (capacity - cuda_context).max(0.0) as u64;
    let replay = replay(a, batch, s, gpu, &states, kept, segments_limit);
    let allocator =
        (replay.reserved_peak - tensors).max(s.memory.fragmentation * (activations + transient));
    let total = cuda_context + tensors + allocator;
    let (budget, fits) = (budget(s, gpu), !replay.out_of_memory && total <= capacity);
    MemoryBreakdown {
        cuda_context,
        weights,
        gradients,
        optimizer_states,
        sharding_buffers: states.buffers,
        offloaded_to_host: states.host,
        activations,
        transient,
        allocator,
        allocated_peak: replay.allocated_peak.max(tensors),
        reserved_peak: tensors + allocator,
        input_cube,
        total,
        capacity,
        ecc_reserved: crate::market::ecc_reserved_bytes(s),
        budget,
        fits,
        within_budget: fits && total <= budget && (!replay.reached_limit || budget >= capacity),
        spare_fraction: if capacity > 0.0 {
            (capacity - total) / capacity
        } else {
            -1.0
        },
    }
}

/// Hidden-sized values per step, sample, layer and direction that a GRU or LSTM keeps on
/// the GPU from its forward to its backward: its output and cuDNN's reserve space. cuDNN 7
/// reserved 27 FP32 values per unit, step and sample for a 4-layer GRU
/// (pytorch/pytorch#2895, its shape in docs/validation.md): 6.75 a layer, plus the output.
/// The LSTM of that shape reserved 23, under the native cells' 7 with its output: it is
/// given the GRU's.
const CUDNN_RNN_KEPT_PER_STEP: f64 = 27.0 / 4.0 + 1.0;

/// Per layer at `batch`: what cuDNN's RNN reserve space holds beyond the native cells'
/// kept tensors (`CUDNN_RNN_KEPT_PER_STEP` in place of their 7 per step).
fn rnn_reserves(a: &Analysis, batch: u64) -> Vec<f64> {
    let extra = CUDNN_RNN_KEPT_PER_STEP - crate::analysis::RNN_KEPT_PER_STEP as f64;
    let per_batch = batch as f64 / a.batch.max(1) as f64;
    a.layers
        .iter()
        .map(|l| extra * l.rnn_step_bytes * per_batch)
        .collect()
}

/// One training step's tensors at `batch` replayed through the caching allocator
/// (`allocator::training_step`). Per-layer shares of the model states follow the layers'
/// parameters, the gradients' their trainable parameters; kept tensors are scaled to
/// `kept`, the activations without checkpointing (with it, the replay keeps each
/// segment's input and runs the segment again in backward, `allocator::step`).
fn replay(
    a: &Analysis,
    batch: u64,
    s: &Scenario,
    gpu: &GpuSpec,
    states: &crate::shard::States,
    kept: f64,
    limit: u64,
) -> StepMemory {
    let lines = &a.lines;
    let params = (a.params as f64).max(1.0);
    let trainable = (a.trainable_params as f64).max(1.0);
    let share = |total: f64| -> Vec<f64> {
        a.layers
            .iter()
            .filter(|l| l.params > 0)
            .map(|l| total * l.params as f64 / params)
            .collect()
    };
    let mut resident = share(states.weights);
    resident.extend([
        gpu.blas_workspace_bytes(),
        states.buffers,
        input_cube_bytes(s),
    ]);
    let layers = lines.layer_kept_end.len();
    let layers_kept = lines.layer_kept_end.last().map_or(0, |&end| end);
    let saved: f64 = lines.kept_tensors[..layers_kept]
        .iter()
        .map(|b| b.at(batch))
        .sum();
    let loss = lines.loss_saved.at(batch);
    let input = lines.unsaved_input.at(batch);
    let listed = saved + loss + input;
    // Scaled to `kept` (less autocast's copies a sharded layout does not make, times a
    // pipeline stage's micro-batches in flight); with checkpointing a segment runs again
    // for one micro-batch at a time.
    let target = if s.checkpointing {
        listed - states.no_autocast_copies
    } else {
        kept
    };
    let scale = if listed > 0.0 {
        target.max(0.0) / listed
    } else {
        0.0
    };
    let temporaries: Vec<f64> = lines.transient.iter().map(|t| t.at(batch)).collect();
    let maths = Maths::of(s.precision, gpu).benchmarked(s.cudnn_benchmark);
    let mut forward_workspaces = vec![Vec::new(); layers];
    let mut backward_workspaces = vec![Vec::new(); layers];
    let rnn_workspace = s.perf.cudnn.rnn_workspace_per_step * batch as f64 / a.batch.max(1) as f64;
    for (i, l) in a.layers.iter().enumerate() {
        if l.rnn_step_bytes > 0.0 {
            forward_workspaces[i].push(rnn_workspace * l.rnn_step_bytes);
            backward_workspaces[i].push(rnn_workspace * l.rnn_step_bytes);
        }
    }
    for (i, pass) in cudnn::workspaces(&a.layers, maths, &s.perf.cudnn) {
        let list = if pass.pass == Pass::Forward {
            &mut forward_workspaces
        } else {
            &mut backward_workspaces
        };
        if let Some(l) = list.get_mut(i) {
            l.push(pass.workspace_bytes(batch));
        }
    }
    let tensors = StepTensors {
        resident,
        gradients: a
            .layers
            .iter()
            .map(|l| states.gradients * l.trainable_params as f64 / trainable)
            .collect(),
        optimizer_states: share(states.optimizer),
        input: input * scale,
        unkept_outputs: lines
            .layer_unkept_output
            .iter()
            .map(|b| b.at(batch) * scale)
            .collect(),
        kept: lines
            .kept_tensors
            .iter()
            .map(|b| b.at(batch) * scale)
            .collect(),
        kept_ends: lines.layer_kept_end.clone(),
        outputs: lines.layer_output.iter().map(|b| b.at(batch)).collect(),
        segment: if s.checkpointing {
            checkpoint_segment(layers)
        } else {
            0
        },
        temporaries,
        forward_workspaces,
        backward_workspaces,
        reserves: rnn_reserves(a, batch),
        loss_kept: loss * scale,
        step_temporary: states.step_temporary,
    };
    allocator::training_step(&tensors, limit)
}

/// The breakdown per GPU at `batch` samples (a full analysis at that batch).
pub fn breakdown_of(
    spec: &ModelSpec,
    s: &Scenario,
    gpu: &GpuSpec,
    batch: u32,
) -> Result<MemoryBreakdown, FieldError> {
    let a = analyze_with(spec, batch.into(), &Training::of(s, gpu))?;
    Ok(breakdown(&a, s, gpu))
}

/// Total bytes per GPU at `batch` samples.
pub fn total_at(
    spec: &ModelSpec,
    s: &Scenario,
    gpu: &GpuSpec,
    batch: u32,
) -> Result<f64, FieldError> {
    Ok(breakdown_of(spec, s, gpu, batch)?.total)
}

/// Largest batch whose step runs on the card with its total within capacity x
/// (1 - headroom); 0 if even one sample does not fit. The tensors grow with the batch
/// (the replay's peaks nearly so: the allocator's packing can lower them a little,
/// `allocator`), so a search over the analysis's batch-linear terms finds the first
/// batch past the budget (one analysis). A cuDNN workspace counts like a tensor: the
/// plans PyTorch falls back to when one does not fit are not modelled, so near the limit
/// this is the safe bound (`allocator::step`).
pub fn max_batch(spec: &ModelSpec, s: &Scenario, gpu: &GpuSpec) -> Result<u32, FieldError> {
    let a = analyze_with(spec, 1, &Training::of(s, gpu))?;
    Ok(largest_batch(&[a], s, gpu))
}

/// Largest batch at which every GPU whose share is analysed in `per_gpu` (pipeline
/// stages, `parallel`) stays within the budget; 0 if one sample does not fit.
pub fn largest_batch(per_gpu: &[Analysis], s: &Scenario, gpu: &GpuSpec) -> u32 {
    let budget = budget(s, gpu);
    let at = |a: &Analysis, b: u32| breakdown_at(a, b.into(), s, gpu);
    let fits = |b: u32| per_gpu.iter().all(|a| at(a, b).within_budget);
    // A first guess where the totals' straight line through batch 1 and `SECOND` meets
    // the budget (what a sample costs); from it, galloping up while batches fit and down
    // while they do not until a batch that fits (`lo`) sits below one that does not
    // (`hi`), then bisection: a dozen replays where doubling from 1 took two dozen.
    const SECOND: u32 = 64;
    let guess = per_gpu
        .iter()
        .map(|a| {
            let first = at(a, 1).total;
            let per_sample = (at(a, SECOND).total - first) / f64::from(SECOND - 1);
            if per_sample > 0.0 {
                1.0 + (budget - first) / per_sample
            } else {
                f64::from(MAX_BATCH)
            }
        })
        .fold(f64::from(MAX_BATCH), f64::min)
        .max(1.0) as u32;
    let (mut lo, mut hi) = (0, u32::MAX);
    let mut probe = guess.min(MAX_BATCH);
    let mut step = (guess / 32).max(1);
    loop {
        if fits(probe) {
            lo = probe;
        } else {
            hi = probe;
        }
        probe = if hi == 1 || lo == MAX_BATCH || hi - lo == 1 {
            return lo;
        } else if hi == u32::MAX {
            lo.saturating_add(step).min(MAX_BATCH)
        } else if lo == 0 {
            hi.saturating_sub(step).max(1)
        } else {
            lo + (hi - lo) / 2
        };
        step = step.saturating_mul(2);
    }
}
