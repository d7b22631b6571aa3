//! Performance model: roofline per layer and per step, step time, epoch time, and (via
//! `scaling` and `cost`) multi-card scaling and cost.
//!
//! Per layer and pass (forward, backward), for the whole per-GPU batch:
//! - traffic: forward reads its input and weights and writes its output; backward reads
//!   the output gradient, the saved input and the weights and writes the input gradient
//!   and the weight gradient (`output + 2 x input + 2 x weights`; the first layer's
//!   unneeded input gradient is counted too). Caches are ignored: every tensor crosses
//!   device memory once per use. A pass that launches no kernel (views) costs nothing.
//! - FLOPs: forward `fwd_flops + other_flops`; backward `bwd_flops + other_flops`
//!   (element-wise backward costs about what its forward does).
//! - roofline: roof = the precision's tensor peak for tensor-core layers, the FP32 peak
//!   otherwise; ridge = roof / bandwidth; intensity = FLOPs / bytes; attainable =
//!   min(roof, intensity x bandwidth); memory-bound when intensity < ridge.
//! - time = max(compute, memory, launch) with
//!   compute = FLOPs / (roof x eff(FLOPs)), eff(w) = eff_max x w / (w + roof x ramp),
//!   i.e. `(w + roof x ramp) / (roof x eff_max)`: a kernel reaches half of `eff_max`
//!   when its work equals `ramp` seconds at peak (small GEMMs cannot fill every SM);
//!   memory = bytes / (bandwidth x memory_efficiency); launch = kernels x launch floor.
//!
//! Step: micro-step = forward + backward (+ one more forward with checkpointing);
//! optimizer step = accum x micro-step + optimizer update (memory-bound over weights,
//! gradients and states) + exposed all-reduce (see `scaling`). Data loading is not
//! modelled (assumed overlapped by the DataLoader).

use serde::{Deserialize, Serialize};

pub use crate::assumptions::PerfAssumptions;

use crate::analysis::LayerReport;
use crate::choices::{Optimizer, ParallelMode, Precision};
use crate::cost::{CostReport, Usage};
use crate::dataset::dataset_by_id;
use crate::gpu::{GpuSpec, PrecisionPeak};
use crate::scaling::{BackwardSlice, ScalingReport, StepCompute};
use crate::scenario::Scenario;
use crate::warning::Warning;

mod roofline;

use roofline::{largest, layer_perf};
pub use roofline::{Bound, LayerPerf, Limiter, PassPerf, Roofline};

/// Kernels of one optimizer update with PyTorch's default `foreach` implementation, one
/// launch per `_foreach_*` op (enough for models with fewer than ~100 parameter tensors).
/// Counted from torch/optim/sgd.py and adam.py (`_multi_tensor_*`); rough.
pub fn default_optimizer_kernels(optimizer: Optimizer) -> u32 {
    match optimizer {
        Optimizer::Sgd => 1,
        Optimizer::SgdMomentum => 3,
        Optimizer::Adam => 8,
        Optimizer::Adamw => 9,
    }
}

/// Time of one optimizer step on one card and across the chosen cards.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepTime {
    pub forward_s: f64,
    pub backward_s: f64,
    /// The extra forward of gradient checkpointing (0 without it).
    pub recompute_s: f64,
    /// forward + backward + recompute.
    pub micro_step_s: f64,
    pub accum_steps: u32,
    pub optimizer_s: f64,
    pub allreduce_s: f64,
    pub allreduce_exposed_s: f64,
    /// accum x micro-step + optimizer + exposed all-reduce.
    pub step_s: f64,
    /// Exposed all-reduce / step.
    pub allreduce_share: f64,
    /// Seconds of the micro-step whose passes are limited by compute, memory, launches.
    pub compute_limited_s: f64,
    pub memory_limited_s: f64,
    pub launch_limited_s: f64,
    /// Which of the three takes the most time.
    pub limiter: Limiter,
    /// Samples per second over all cards in the chosen mode.
    pub samples_per_s: f64,
    /// Samples per second of one run (equal to the above with DDP).
    pub samples_per_s_per_run: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EpochTime {
    /// ceil(labeled pixels x train_fraction).
    pub samples_per_epoch: u64,
    pub micro_steps_per_epoch: u64,
    pub optimizer_steps_per_epoch: u64,
    pub epoch_s: f64,
    pub epochs: u32,
    /// epochs x epoch (one run).
    pub total_s: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PerfReport {
    /// Compute roof of the precision in use, FLOP/s.
    pub peak_flops: f64,
    /// FP32 CUDA-core roof (element-wise layers), FLOP/s.
    pub fp32_flops: f64,
    pub bandwidth_bytes_per_s: f64,
    /// peak / bandwidth, FLOP/byte.
    pub ridge: f64,
    pub layers: Vec<LayerPerf>,
    /// The whole optimizer step (all micro-steps and the update) on one card.
    pub step_roofline: Roofline,
    /// The step's FLOPs over its modelled time on one card (no communication), FLOP/s.
    pub step_achieved_flops: f64,
    pub time: StepTime,
    pub epoch: EpochTime,
    pub scaling: ScalingReport,
    pub cost: CostReport,
}

/// Shortest micro-step the model reports, seconds: keeps rates finite for degenerate
/// inputs (no layers and a zero launch floor); far below any real step.
const MIN_MICRO_STEP_S: f64 = 1e-9;

/// Bytes the optimizer update moves per parameter: read and write the weights and each
/// state, read the gradient; with fp16 AMP GradScaler also reads and writes every
/// gradient once to unscale it.
fn optimizer_bytes_per_param(precision: Precision, optimizer: Optimizer) -> f64 {
    let unscale = if precision == Precision::AmpFp16 {
        2
    } else {
        0
    };
    let touches = 2 + 1 + 2 * optimizer.states_per_param() + unscale;
    (touches * precision.param_bytes()) as f64
}

fn add_limited(t: &mut StepTime, p: &PassPerf) {
    match p.limiter {
        Limiter::Compute => t.compute_limited_s += p.time_s,
        Limiter::Memory => t.memory_limited_s += p.time_s,
        Limiter::Launch => t.launch_limited_s += p.time_s,
    }
}

/// Sums the layers into one micro-step (forward, backward, the recomputed forward of
/// checkpointing) and lists each layer's share of backward for the all-reduce overlap.
fn micro_step(
    layers: &[LayerReport],
    layer_perfs: &[LayerPerf],
    scenario: &Scenario,
) -> (StepTime, Vec<BackwardSlice>) {
    let mut time = StepTime::default();
    let recompute = if scenario.checkpointing { 1.0 } else { 0.0 };
    let grad_bytes_per_param = scenario.precision.param_bytes() as f64;
    let mut backward = Vec::with_capacity(layers.len());
    for (l, lp) in layers.iter().zip(layer_perfs) {
        time.forward_s += lp.forward.time_s;
        time.backward_s += lp.backward.time_s;
        time.recompute_s += recompute * lp.forward.time_s;
        add_limited(&mut time, &lp.forward);
        add_limited(&mut time, &lp.backward);
        if scenario.checkpointing {
            // The recomputed forward is limited by what limits the forward.
            add_limited(&mut time, &lp.forward);
        }
        backward.push(BackwardSlice {
            seconds: lp.backward.time_s + recompute * lp.forward.time_s,
            grad_bytes: l.params as f64 * grad_bytes_per_param,
        });
    }
    // A model with no work and a zero launch floor would make every rate infinite.
    time.micro_step_s = (time.forward_s + time.backward_s + time.recompute_s).max(MIN_MICRO_STEP_S);
    time.limiter = largest([
        (time.memory_limited_s, Limiter::Memory),
        (time.compute_limited_s, Limiter::Compute),
        (time.launch_limited_s, Limiter::Launch),
    ])
    .1;
    time.accum_steps = scenario.workload.grad_accum_steps.max(1);
    (time, backward)
}

/// One optimizer step on one card, before any communication: the first step of the
/// performance walk (see `crate::performance`).
#[derive(Clone, Debug, PartialEq)]
pub struct OneCard {
    /// The precision's compute roof and, when the card lacks its unit, why it falls back.
    pub peak: PrecisionPeak,
    pub layers: Vec<LayerPerf>,
    /// Micro-step and optimizer times; the step itself comes with the scaling
    /// (`step_time`).
    pub time: StepTime,
    pub step: StepCompute,
    /// The whole optimizer step (all micro-steps and the update).
    pub step_roofline: Roofline,
    /// The step's FLOPs over its modelled time, FLOP/s.
    pub step_achieved_flops: f64,
}

/// The step on one card: each layer's roofline and time, the micro-step, the optimizer
/// update. `layers` are the analysis's per-layer figures for the whole per-GPU batch;
/// `params` is the trainable parameter count.
pub fn one_card(
    layers: &[LayerReport],
    params: u64,
    scenario: &Scenario,
    gpu: &GpuSpec,
) -> OneCard {
    let a = &scenario.perf;
    let peak = gpu.peak_flops(scenario.precision);
    let bandwidth = gpu.bandwidth_bytes_per_s;
    let layer_perfs: Vec<LayerPerf> = layers
        .iter()
        .map(|l| layer_perf(l, peak.flops, gpu, a))
        .collect();

    let (mut time, backward) = micro_step(layers, &layer_perfs, scenario);
    let optimizer_bytes =
        params as f64 * optimizer_bytes_per_param(scenario.precision, scenario.optimizer);
    let optimizer_kernels = a
        .optimizer_kernels
        .unwrap_or_else(|| default_optimizer_kernels(scenario.optimizer));
    time.optimizer_s = (optimizer_bytes / (bandwidth * a.memory_efficiency))
        .max(f64::from(optimizer_kernels) * a.kernel_launch_s);
    let step = StepCompute {
        micro_step_s: time.micro_step_s,
        optimizer_s: time.optimizer_s,
        accum_steps: time.accum_steps,
        batch_per_gpu: scenario.batch_per_gpu.max(1),
        backward,
    };

    let recomputed_forwards = if scenario.checkpointing { 2.0 } else { 1.0 };
    let micro_step_total = |of: fn(&Roofline) -> f64| -> f64 {
        layer_perfs
            .iter()
            .map(|l| recomputed_forwards * of(&l.forward.roofline) + of(&l.backward.roofline))
            .sum()
    };
    let accum = f64::from(time.accum_steps);
    let step_roofline = Roofline::new(
        accum * micro_step_total(|r| r.flops),
        accum * micro_step_total(|r| r.bytes) + optimizer_bytes,
        peak.flops,
        bandwidth,
    );
    let step_achieved_flops = step_roofline.flops / step.compute_s();
    OneCard {
        peak,
        layers: layer_perfs,
        time,
        step,
        step_roofline,
        step_achieved_flops,
    }
}

/// Cards one run uses: all of them with DDP, one with parallel experiments.
fn run_cards(scenario: &Scenario) -> u32 {
    match scenario.workload.mode {
        ParallelMode::Ddp => scenario.cards.max(1),
        ParallelMode::ParallelExperiments => 1,
    }
}

/// The scenario's step on its cards: the one-card step plus the exposed all-reduce of
/// the chosen topology (DDP), and the throughput.
pub fn step_time(one: &OneCard, scaling: &ScalingReport, scenario: &Scenario) -> StepTime {
    let mut time = one.time.clone();
    let cards = scenario.cards.max(1);
    let ddp = scenario.workload.mode == ParallelMode::Ddp;
    let run_cards = run_cards(scenario);
    match scaling.chosen_point(run_cards) {
        Some(point) if ddp => {
            time.allreduce_s = point.allreduce_s;
            time.allreduce_exposed_s = point.allreduce_exposed_s;
            time.step_s = point.step_s;
        }
        _ => time.step_s = one.step.compute_s(),
    }
    time.allreduce_share = time.allreduce_exposed_s / time.step_s;
    time.samples_per_s_per_run = f64::from(run_cards) * one.step.samples_per_step() / time.step_s;
    time.samples_per_s = if ddp {
        time.samples_per_s_per_run
    } else {
        f64::from(cards) * time.samples_per_s_per_run
    };
    time
}

/// What the cost model needs from the step and the epoch.
pub fn usage(scenario: &Scenario, time: &StepTime, epoch: &EpochTime) -> Usage {
    let cards = scenario.cards.max(1);
    let ddp = scenario.workload.mode == ParallelMode::Ddp;
    Usage {
        cards,
        samples_per_s: time.samples_per_s,
        run_s: epoch.total_s,
        cards_per_run: run_cards(scenario),
        concurrent_runs: if ddp { 1 } else { cards },
        sweep_runs: scenario.workload.sweep_runs,
    }
}

impl PerfReport {
    /// The performance figures of the walk's steps, in one report.
    pub fn new(
        one: OneCard,
        gpu: &GpuSpec,
        time: StepTime,
        epoch: EpochTime,
        scaling: ScalingReport,
        cost: CostReport,
    ) -> Self {
        let bandwidth = gpu.bandwidth_bytes_per_s;
        PerfReport {
            peak_flops: one.peak.flops,
            fp32_flops: gpu.fp32_flops,
            bandwidth_bytes_per_s: bandwidth,
            ridge: one.peak.flops / bandwidth,
            layers: one.layers,
            step_roofline: one.step_roofline,
            step_achieved_flops: one.step_achieved_flops,
            time,
            epoch,
            scaling,
            cost,
        }
    }
}

/// One run's epoch on its cards: a DistributedSampler gives each card
/// ceil(samples / cards) samples, batched without dropping the last partial batch.
pub fn epoch_time(scenario: &Scenario, time: &StepTime, warnings: &mut Vec<Warning>) -> EpochTime {
    let run_cards = run_cards(scenario);
    let w = &scenario.workload;
    let Some(dataset) = dataset_by_id(&scenario.dataset) else {
        warnings.push(Warning::UnknownDataset {
            id: scenario.dataset.clone(),
        });
        return EpochTime {
            epochs: w.epochs,
            ..EpochTime::default()
        };
    };
    let samples = (dataset.labeled_pixels as f64 * w.train_fraction).ceil() as u64;
    let per_card = samples.div_ceil(u64::from(run_cards));
    let micro_steps = per_card.div_ceil(u64::from(scenario.batch_per_gpu.max(1)));
    let optimizer_steps = micro_steps.div_ceil(u64::from(time.accum_steps));
    let per_update_s = time.optimizer_s + time.allreduce_exposed_s;
    let epoch_s = micro_steps as f64 * time.micro_step_s + optimizer_steps as f64 * per_update_s;
    EpochTime {
        samples_per_epoch: samples,
        micro_steps_per_epoch: micro_steps,
        optimizer_steps_per_epoch: optimizer_steps,
        epoch_s,
        epochs: w.epochs,
        total_s: f64::from(w.epochs) * epoch_s,
    }
}

/// One forward pass of every layer on one card (no backward, no optimizer): what an
/// evaluation or prediction batch costs the device.
pub fn forward_s(layers: &[LayerReport], scenario: &Scenario, gpu: &GpuSpec) -> f64 {
    let peak = gpu.peak_flops(scenario.precision).flops;
    layers
        .iter()
        .map(|l| layer_perf(l, peak, gpu, &scenario.perf).forward.time_s)
        .sum()
}
