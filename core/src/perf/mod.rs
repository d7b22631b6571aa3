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
//! The times per layer and pass come from the device model by op class (`device`); the
//! roofline here shows each pass on the unit its class runs on.
//!
//! Step: micro-step = forward + backward (+ one more forward with checkpointing) on the
//! device; one card's step = accum x micro-step + optimizer update + what the host, the
//! input pipeline and the per-step sync add (`steptime`: the GPU runs asynchronously, so
//! the step is about max(host, device) plus the input and the sync); on N cards the
//! exposed all-reduce and DDP's overhead come on top (see `scaling`).

use serde::Serialize;

pub use crate::assumptions::PerfAssumptions;

use crate::analysis::LayerReport;
use crate::choices::{Optimizer, ParallelMode, Precision};
use crate::cost::CostReport;
use crate::device::Maths;
use crate::gpu::{GpuSpec, PrecisionPeak};
use crate::host::cpu_profile;
use crate::scaling::{BackwardSlice, ScalingReport, StepCompute};
use crate::scenario::{ModelChoice, Scenario, MAX_CARDS};
use crate::steptime::{self, LayerComm, SharedHost, StepSetup};

mod roofline;
mod time;

use roofline::{largest, layer_perf};
pub use roofline::{Bound, LayerPerf, Limiter, PassPerf, Roofline};
pub use time::{epoch_time, ring_cards, run_cards, run_nodes, usage, EpochTime, StepTime};

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

/// What the step model needs from a scenario (one process on the host; `steptime::with_runs`
/// gives the step with more).
pub fn step_setup<'a>(
    layers: &'a [LayerReport],
    params: u64,
    scenario: &Scenario,
    gpu: &GpuSpec,
) -> StepSetup<'a> {
    let precision = scenario.precision;
    let mut cpu = cpu_profile(scenario.cpu);
    if let Some(cores) = scenario.pipeline.cores {
        cpu.cores = cores;
    }
    // One fp32 sample as the DataLoader hands it over: a custom model's own input, else
    // the patch of the cube the presets are built for.
    let sample_elements = match &scenario.model {
        ModelChoice::Custom { spec } => spec.input.iter().product::<u64>() as f64,
        ModelChoice::Preset { .. } => {
            f64::from(scenario.bands) * f64::from(scenario.patch) * f64::from(scenario.patch)
        }
    };
    StepSetup {
        layers,
        collectives: &[],
        params,
        maths: Maths::of(precision, gpu).benchmarked(scenario.cudnn_benchmark),
        optimizer_states: scenario.optimizer.states_per_param(),
        decoupled_decay: scenario.optimizer == Optimizer::Adamw,
        foreach_ops: f64::from(
            scenario
                .perf
                .optimizer_kernels
                .unwrap_or_else(|| default_optimizer_kernels(scenario.optimizer)),
        ),
        optimizer_bytes_per_param: optimizer_bytes_per_param(precision, scenario.optimizer),
        grad_scaler: precision == Precision::AmpFp16,
        batch: scenario.batch_per_gpu.max(1),
        accum_steps: scenario.workload.grad_accum_steps.max(1),
        sample_bytes: sample_elements * 4.0,
        cpu,
        runs_per_host: 1,
        pipeline: scenario.pipeline.clone(),
        recompute: scenario.checkpointing,
    }
}

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
    collectives: &[LayerComm],
    scenario: &Scenario,
) -> (StepTime, Vec<BackwardSlice>) {
    let mut time = StepTime::default();
    let recompute = if scenario.checkpointing { 1.0 } else { 0.0 };
    let grad_bytes_per_param = crate::shard::grad_bytes_per_param(scenario);
    let mut backward = Vec::with_capacity(layers.len());
    for (i, (l, lp)) in layers.iter().zip(layer_perfs).enumerate() {
        let comm = collectives.get(i).copied().unwrap_or_default();
        time.tensor_allreduce_s += (1.0 + recompute) * comm.forward_s + comm.backward_s;
        let forward_s = lp.forward.time_s + comm.forward_s;
        time.forward_s += forward_s;
        time.backward_s += lp.backward.time_s + comm.backward_s;
        time.recompute_s += recompute * forward_s;
        add_limited(&mut time, &lp.forward);
        add_limited(&mut time, &lp.backward);
        if scenario.checkpointing {
            // The recomputed forward is limited by what limits the forward.
            add_limited(&mut time, &lp.forward);
        }
        backward.push(BackwardSlice {
            seconds: lp.backward.time_s + comm.backward_s + recompute * forward_s,
            grad_bytes: l.trainable_params as f64 * grad_bytes_per_param,
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
    one_card_with(layers, params, &[], scenario, gpu)
}

/// `one_card` with each layer's tensor-parallel collectives (`parallel`) on the device's
/// stream.
pub fn one_card_with(
    layers: &[LayerReport],
    params: u64,
    collectives: &[LayerComm],
    scenario: &Scenario,
    gpu: &GpuSpec,
) -> OneCard {
    let a = &scenario.perf;
    let peak = gpu.peak_flops(scenario.precision);
    let bandwidth = gpu.bandwidth_bytes_per_s;
    let setup = StepSetup {
        collectives,
        ..step_setup(layers, params, scenario, gpu)
    };
    let breakdown = steptime::step_time(&setup, gpu, a);
    let layer_perfs: Vec<LayerPerf> = layers
        .iter()
        .zip(&breakdown.layers)
        .map(|(l, d)| layer_perf(l, d, peak.flops, gpu))
        .collect();

    let (mut time, backward) = micro_step(layers, &layer_perfs, collectives, scenario);
    time.optimizer_s = breakdown.optimizer_device_s;
    // Every card count's one-card step with that many processes on the host (DDP ranks
    // or parallel runs share its cores).
    let shared: Vec<SharedHost> = (1..=MAX_CARDS)
        .map(|n| steptime::with_runs(&setup, &breakdown, gpu, a, n))
        .collect();
    let mine = shared[(scenario.cards.clamp(1, MAX_CARDS) - 1) as usize];
    let accum = f64::from(time.accum_steps);
    let device_s = accum * time.micro_step_s + time.optimizer_s;
    time.device_s = device_s;
    time.host_s = mine.host.total_s;
    time.input_s = mine.input_s;
    time.input_samples_per_s = mine.input.samples_per_s;
    time.bound = mine.bound;
    time.host_extra_s = (mine.step_s - device_s).max(0.0);
    let step = StepCompute {
        micro_step_s: time.micro_step_s,
        optimizer_s: time.optimizer_s,
        accum_steps: time.accum_steps,
        batch_per_gpu: scenario.batch_per_gpu.max(1),
        backward,
        host_extra_s: shared
            .iter()
            .map(|h| (h.step_s - device_s).max(0.0))
            .collect(),
        host_backward_s: shared.iter().map(|h| h.host.backward_s / accum).collect(),
        host_serial_s: shared
            .iter()
            .map(|h| h.host.total_s + accum * h.input.main_s)
            .collect(),
        params: params as f64,
        tensor_allreduce_s: accum * time.tensor_allreduce_s,
    };

    let optimizer_bytes =
        params as f64 * optimizer_bytes_per_param(scenario.precision, scenario.optimizer);
    let recomputed_forwards = if scenario.checkpointing { 2.0 } else { 1.0 };
    let micro_step_total = |of: fn(&Roofline) -> f64| -> f64 {
        layer_perfs
            .iter()
            .map(|l| recomputed_forwards * of(&l.forward.roofline) + of(&l.backward.roofline))
            .sum()
    };
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

/// The scenario's step on its cards: the one-card step plus the exposed all-reduce of
/// the chosen topology (DDP), and the throughput.
pub fn step_time(one: &OneCard, scaling: &ScalingReport, scenario: &Scenario) -> StepTime {
    let mut time = one.time.clone();
    let cards = scenario.cards.max(1);
    let ddp = scenario.workload.mode == ParallelMode::Ddp;
    // Each data-parallel rank (a tensor x pipeline group) takes its own samples.
    let ranks = crate::shard::ranks(scenario);
    match scaling.scenario_point(scenario.cards.max(1), scenario.nodes.max(1)) {
        Some(point) if ddp => {
            time.allreduce_s = point.allreduce_s;
            time.allreduce_exposed_s = point.allreduce_exposed_s;
            time.optimizer_change_s = point.optimizer_change_s;
            time.ddp_overhead_s = point.ddp_overhead_s;
            time.step_s = point.step_s;
            time.allreduce_share = point.allreduce_share;
            let parts = time.host_s.max(time.input_s).max(time.device_s);
            time.bound = steptime::across_cards(time.bound, parts, point);
        }
        _ => {
            time.step_s = one.step.compute_s_on(cards);
            time.allreduce_share = time.link_s() / time.step_s;
        }
    }
    time.samples_per_s_per_run = f64::from(ranks) * one.step.samples_per_step() / time.step_s;
    time.samples_per_s = if ddp {
        time.samples_per_s_per_run
    } else {
        f64::from(cards) * time.samples_per_s_per_run
    };
    time
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

/// One forward pass of every layer on one card (no backward, no optimizer): what an
/// evaluation or prediction batch costs. The host issues every op (a view costs one too,
/// a cuDNN RNN under autocast its weight queries) while the device runs them, so the slower
/// of the two sets the time.
pub fn forward_s(layers: &[LayerReport], scenario: &Scenario, gpu: &GpuSpec) -> f64 {
    let maths = Maths::of(scenario.precision, gpu).benchmarked(scenario.cudnn_benchmark);
    let device_s: f64 = layers
        .iter()
        .map(|l| {
            crate::device::device_layer(l, maths, gpu, &scenario.perf)
                .forward
                .time_s
        })
        .sum();
    let host = &scenario.perf.host;
    let op_s = |l: &LayerReport| {
        f64::from(l.host_ops_fwd()) * host.op_forward_s
            + l.weight_queries[0] * host.rnn_weight_query_s
    };
    let host_s = cpu_profile(scenario.cpu).single_thread * layers.iter().map(op_s).sum::<f64>();
    device_s.max(host_s)
}
