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

use crate::cost::{CostReport, Usage};
use crate::dataset::dataset_by_id;
use crate::gpu::GpuSpec;
use crate::report::{LayerReport, Warning};
use crate::scaling::{
    valid_interconnects, BackwardSlice, ScalingAssumptions, ScalingReport, StepCompute,
};
use crate::scenario::{Optimizer, ParallelMode, Precision, Problems, Scenario};

/// Efficiency factors that cannot be derived. Every field is user-editable.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PerfAssumptions {
    /// Fraction of peak a large conv/GEMM reaches. cuBLAS/cuDNN reach roughly 60-80 % of
    /// the datasheet peak on large problems (NVIDIA "Matrix Multiplication Background"
    /// guide; boost clocks are rarely sustained). Rough.
    pub compute_efficiency: f64,
    /// Work, in seconds at peak, at which a kernel reaches half of `compute_efficiency`.
    /// It is also the least time a kernel with any work takes (ramp / efficiency, one
    /// "wave" of thread blocks). 2 us puts a 1024^3 GEMM (2.1 GFLOP) on an A100's tensor
    /// cores at about 54 % of peak and a 4096^3 one at 70 %, the shape of published cuBLAS
    /// size sweeps. Rough calibration.
    pub efficiency_ramp_s: f64,
    /// Fraction of datasheet bandwidth streaming kernels reach (STREAM-like copies reach
    /// 80-90 % on HBM and GDDR6/6X cards). Rough.
    pub memory_efficiency: f64,
    /// Least time one CUDA kernel costs, seconds: launch latency plus PyTorch's eager
    /// dispatch per op (several microseconds each). Dominates tiny HSI patches at small
    /// batch. Rough.
    pub kernel_launch_s: f64,
    /// Kernels one optimizer update launches; None = the default for the optimizer
    /// (`default_optimizer_kernels`).
    pub optimizer_kernels: Option<u32>,
    pub scaling: ScalingAssumptions,
}

impl Default for PerfAssumptions {
    fn default() -> Self {
        PerfAssumptions {
            compute_efficiency: 0.70,
            efficiency_ramp_s: 2e-6,
            memory_efficiency: 0.80,
            kernel_launch_s: 5e-6,
            optimizer_kernels: None,
            scaling: ScalingAssumptions::default(),
        }
    }
}

impl PerfAssumptions {
    pub fn validate(&self, p: &mut Problems) {
        p.range_f64(
            "perf.compute_efficiency",
            self.compute_efficiency,
            0.01,
            1.0,
        );
        p.range_f64("perf.efficiency_ramp_s", self.efficiency_ramp_s, 0.0, 1e-2);
        p.range_f64("perf.memory_efficiency", self.memory_efficiency, 0.01, 1.0);
        p.range_f64("perf.kernel_launch_s", self.kernel_launch_s, 0.0, 1e-2);
        if let Some(k) = self.optimizer_kernels {
            p.range_u64("perf.optimizer_kernels", k.into(), 0, 100_000);
        }
        self.scaling.validate(p);
    }
}

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

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    #[default]
    Memory,
    Compute,
}

/// What sets a pass's time in the model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Limiter {
    #[default]
    Memory,
    Compute,
    Launch,
}

/// A point on the roofline.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Roofline {
    pub flops: f64,
    /// Bytes moved to and from device memory.
    pub bytes: f64,
    /// FLOPs per byte (0 when nothing moves).
    pub intensity: f64,
    /// Compute roof, FLOP/s.
    pub roof_flops: f64,
    /// roof / bandwidth, FLOP/byte.
    pub ridge: f64,
    /// min(roof, intensity x bandwidth).
    pub attainable_flops: f64,
    pub bound: Bound,
}

impl Roofline {
    fn new(flops: f64, bytes: f64, roof_flops: f64, bandwidth: f64) -> Self {
        let intensity = if bytes > 0.0 { flops / bytes } else { 0.0 };
        let ridge = roof_flops / bandwidth;
        Roofline {
            flops,
            bytes,
            intensity,
            roof_flops,
            ridge,
            attainable_flops: roof_flops.min(intensity * bandwidth),
            bound: if intensity < ridge {
                Bound::Memory
            } else {
                Bound::Compute
            },
        }
    }
}

/// One pass of one layer: its roofline point and modelled time.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PassPerf {
    pub roofline: Roofline,
    /// Fraction of the roof the compute reaches at this work size, (0, compute_efficiency].
    pub efficiency: f64,
    pub kernels: u32,
    pub compute_s: f64,
    pub memory_s: f64,
    pub launch_s: f64,
    /// max(compute, memory, launch).
    pub time_s: f64,
    pub limiter: Limiter,
    /// flops / time (0 when the pass takes no time).
    pub achieved_flops: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LayerPerf {
    pub name: String,
    pub kind: String,
    pub forward: PassPerf,
    pub backward: PassPerf,
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
    pub warnings: Vec<Warning>,
}

/// Shortest micro-step the model reports, seconds: keeps rates finite for degenerate
/// inputs (no layers and a zero launch floor); far below any real step.
const MIN_MICRO_STEP_S: f64 = 1e-9;

/// Per-pass inputs.
struct Work {
    flops: f64,
    bytes: f64,
    kernels: u32,
    roof_flops: f64,
}

/// The longest of three times and what it is (memory on ties and when all are zero).
fn largest(times: [(f64, Limiter); 3]) -> (f64, Limiter) {
    times
        .into_iter()
        .fold((0.0, Limiter::Memory), |best, (t, l)| {
            if t > best.0 {
                (t, l)
            } else {
                best
            }
        })
}

fn pass(w: &Work, gpu: &GpuSpec, a: &PerfAssumptions) -> PassPerf {
    let bandwidth = gpu.bandwidth_bytes_per_s;
    let ramp_flops = w.roof_flops * a.efficiency_ramp_s;
    let (efficiency, compute_s) = if w.flops > 0.0 {
        (
            a.compute_efficiency * w.flops / (w.flops + ramp_flops),
            (w.flops + ramp_flops) / (w.roof_flops * a.compute_efficiency),
        )
    } else {
        (a.compute_efficiency, 0.0)
    };
    let memory_s = w.bytes / (bandwidth * a.memory_efficiency);
    let launch_s = f64::from(w.kernels) * a.kernel_launch_s;
    let (time_s, limiter) = largest([
        (memory_s, Limiter::Memory),
        (compute_s, Limiter::Compute),
        (launch_s, Limiter::Launch),
    ]);
    PassPerf {
        roofline: Roofline::new(w.flops, w.bytes, w.roof_flops, bandwidth),
        efficiency,
        kernels: w.kernels,
        compute_s,
        memory_s,
        launch_s,
        time_s,
        limiter,
        achieved_flops: if time_s > 0.0 { w.flops / time_s } else { 0.0 },
    }
}

fn layer_perf(l: &LayerReport, peak: f64, gpu: &GpuSpec, a: &PerfAssumptions) -> LayerPerf {
    let roof_flops = if l.tensor_core { peak } else { gpu.fp32_flops };
    // A pass that launches no kernel (a view, or a backward nothing needs) does no work.
    let work = |kernels: u32, flops: f64, bytes: f64| {
        let runs = if kernels > 0 { 1.0 } else { 0.0 };
        Work {
            flops: runs * flops,
            bytes: runs * bytes,
            kernels,
            roof_flops,
        }
    };
    let forward = work(
        l.kernels_fwd,
        l.fwd_flops + l.other_flops,
        l.input_bytes + l.weight_bytes + l.output_bytes,
    );
    let backward = work(
        l.kernels_bwd,
        l.bwd_flops + l.other_flops,
        l.output_bytes + 2.0 * l.input_bytes + 2.0 * l.weight_bytes,
    );
    LayerPerf {
        name: l.name.clone(),
        kind: l.kind.clone(),
        forward: pass(&forward, gpu, a),
        backward: pass(&backward, gpu, a),
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

/// The performance, scaling and cost model for a scenario on a card. `layers` are the
/// analysis's per-layer figures for the whole per-GPU batch; `params` is the trainable
/// parameter count. Every figure is finite and non-negative for a valid scenario.
pub fn performance(
    layers: &[LayerReport],
    params: u64,
    scenario: &Scenario,
    gpu: &GpuSpec,
) -> PerfReport {
    let a = &scenario.perf;
    let mut warnings = Vec::new();
    let peak = gpu.peak_flops(scenario.precision);
    warnings.extend(peak.warning);
    let peak_flops = peak.flops;
    let bandwidth = gpu.bandwidth_bytes_per_s;

    let layer_perfs: Vec<LayerPerf> = layers
        .iter()
        .map(|l| layer_perf(l, peak_flops, gpu, a))
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

    let valid = valid_interconnects(gpu);
    let chosen = if valid.contains(&scenario.interconnect) {
        scenario.interconnect
    } else {
        let replacement = valid[0];
        warnings.push(Warning::InterconnectReplaced {
            gpu: gpu.name.into(),
            requested: scenario.interconnect,
            used: replacement,
        });
        replacement
    };
    let scaling = crate::scaling::scaling(&step, gpu, chosen, &a.scaling);

    let cards = scenario.cards.max(1);
    let ddp = scenario.workload.mode == ParallelMode::Ddp;
    let run_cards = if ddp { cards } else { 1 };
    let one_card_step_s = step.compute_s();
    match scaling.chosen_point(run_cards) {
        Some(point) if ddp => {
            time.allreduce_s = point.allreduce_s;
            time.allreduce_exposed_s = point.allreduce_exposed_s;
            time.step_s = point.step_s;
        }
        _ => time.step_s = one_card_step_s,
    }
    time.allreduce_share = time.allreduce_exposed_s / time.step_s;
    time.samples_per_s_per_run = f64::from(run_cards) * step.samples_per_step() / time.step_s;
    time.samples_per_s = if ddp {
        time.samples_per_s_per_run
    } else {
        f64::from(cards) * time.samples_per_s_per_run
    };

    let epoch = epoch_time(scenario, run_cards, &time, &mut warnings);

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
        peak_flops,
        bandwidth,
    );
    let step_achieved_flops = step_roofline.flops / one_card_step_s;

    let usage = Usage {
        cards,
        samples_per_s: time.samples_per_s,
        run_s: epoch.total_s,
        cards_per_run: run_cards,
        concurrent_runs: if ddp { 1 } else { cards },
        sweep_runs: scenario.workload.sweep_runs,
    };
    let cost = crate::cost::cost(&scenario.cost, gpu, &usage);
    if !cost.card_price_known {
        warnings.push(Warning::PriceUnknown {
            gpu: gpu.name.into(),
        });
    }

    PerfReport {
        peak_flops,
        fp32_flops: gpu.fp32_flops,
        bandwidth_bytes_per_s: bandwidth,
        ridge: peak_flops / bandwidth,
        layers: layer_perfs,
        step_roofline,
        step_achieved_flops,
        time,
        epoch,
        scaling,
        cost,
        warnings,
    }
}

/// One run's epoch on `run_cards` cards: a DistributedSampler gives each card
/// ceil(samples / cards) samples, batched without dropping the last partial batch.
fn epoch_time(
    scenario: &Scenario,
    run_cards: u32,
    time: &StepTime,
    warnings: &mut Vec<Warning>,
) -> EpochTime {
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
