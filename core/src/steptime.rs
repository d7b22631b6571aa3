//! One optimizer step on one card as the host, the input pipeline and the device see it.
//!
//! The GPU runs asynchronously: the host issues forward, backward and optimizer ops
//! (`host`), the device executes them (`device`), the pipeline feeds the batch
//! (`pipeline`). A step that syncs (`loss.item()` every step, what most HSI training
//! scripts do) cannot run ahead: the main process loads its next batch after the sync, so
//! step = input (main process) + max(host, device) + sync latency, and never less than the
//! workers need per batch. Without a per-step sync the three overlap:
//! step = max(host + input (main process), device, workers). What is largest of host,
//! input and device bounds the step.

use serde::{Deserialize, Serialize};

use crate::analysis::LayerReport;
use crate::assumptions::{PerfAssumptions, Pipeline};
use crate::device::{device_layer, DeviceLayer, Maths, OpClass};
use crate::gpu::GpuSpec;
use crate::host::{host_time, CpuProfile, HostTime, HostWork};
use crate::pipeline::{input_time, InputTime, InputWork};
use crate::scaling::pcie_x16_bytes_per_s;

/// What bounds a step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepBound {
    Host,
    Input,
    #[default]
    Device,
}

impl StepBound {
    pub fn id(self) -> &'static str {
        match self {
            StepBound::Host => "host",
            StepBound::Input => "input",
            StepBound::Device => "device",
        }
    }
}

/// The longest of some times and what it is (`tie` when all are zero; the first of
/// equal ones otherwise).
pub fn largest<T: Copy, const N: usize>(times: [(f64, T); N], tie: T) -> (f64, T) {
    times.into_iter().fold(
        (0.0, tie),
        |best, (t, l)| if t > best.0 { (t, l) } else { best },
    )
}

/// Host-to-device latency of a sync (`loss.item()`): the GPU drains, the host wakes, the
/// next kernel launches. Tens of microseconds (CUDA event round trip plus launch).
pub const SYNC_LATENCY_S: f64 = 30e-6;

/// Kernels a `_foreach_*` op launches per this many parameter tensors
/// (`multi_tensor_apply` packs about 110 tensor pointers per launch).
const FOREACH_TENSORS_PER_LAUNCH: f64 = 110.0;

/// A layer's tensor-parallel all-reduces (`parallel`), seconds per micro-step: they run
/// on the device's stream between its kernels.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LayerComm {
    pub forward_s: f64,
    pub backward_s: f64,
}

/// The run as the step model needs it.
#[derive(Clone, Debug, PartialEq)]
pub struct StepSetup<'a> {
    pub layers: &'a [LayerReport],
    /// Each layer's collectives, in layer order (empty: none).
    pub collectives: &'a [LayerComm],
    pub params: u64,
    pub maths: Maths,
    /// Optimizer states per parameter, and AdamW's decoupled decay.
    pub optimizer_states: u64,
    pub decoupled_decay: bool,
    /// `_foreach_*` ops of one optimizer step.
    pub foreach_ops: f64,
    /// Bytes the optimizer update moves per parameter.
    pub optimizer_bytes_per_param: f64,
    /// fp16 autocast with GradScaler (unscale, inf check, update each step).
    pub grad_scaler: bool,
    pub batch: u32,
    pub accum_steps: u32,
    /// Bytes of one input sample as loaded (fp32).
    pub sample_bytes: f64,
    pub cpu: CpuProfile,
    /// Runs sharing this host's cores (parallel experiments), at least 1.
    pub runs_per_host: u32,
    pub pipeline: Pipeline,
    /// Gradient checkpointing: every forward runs again during backward.
    pub recompute: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct StepBreakdown {
    pub layers: Vec<DeviceLayer>,
    /// Device seconds of forward, backward (all micro-steps) and the optimizer update.
    pub forward_device_s: f64,
    pub backward_device_s: f64,
    pub optimizer_device_s: f64,
    pub device_s: f64,
    pub host: HostTime,
    pub host_s: f64,
    pub input: InputTime,
    /// Input pipeline time per step (the larger of the main process's and the workers').
    pub input_s: f64,
    pub step_s: f64,
    pub bound: StepBound,
    /// What the host issues per step (for `with_runs`).
    #[serde(skip)]
    pub work: HostWork,
}

/// Host ops of the cross-entropy loss (log_softmax, nll_loss), each way.
const LOSS_OPS: f64 = 2.0;
/// GradScaler per step: scale the loss, unscale with the inf check, update the scale.
const GRAD_SCALER_OPS: f64 = 4.0;

/// Host work, device time and input time of one optimizer step on one card.
pub fn step_time(s: &StepSetup, gpu: &GpuSpec, a: &PerfAssumptions) -> StepBreakdown {
    let layers: Vec<DeviceLayer> = s
        .layers
        .iter()
        .map(|l| device_layer(l, s.maths, gpu, a))
        .collect();
    let accum = f64::from(s.accum_steps.max(1));
    // Checkpointing runs every forward once more during backward.
    let forwards = if s.recompute { 2.0 } else { 1.0 };
    let comm = |of: fn(&LayerComm) -> f64| s.collectives.iter().map(of).sum::<f64>();
    let forward_device_s = accum
        * forwards
        * (layers.iter().map(|l| l.forward.time_s).sum::<f64>() + comm(|c| c.forward_s));
    let backward_device_s =
        accum * (layers.iter().map(|l| l.backward.time_s).sum::<f64>() + comm(|c| c.backward_s));

    let tensors: f64 = s.layers.iter().map(|l| f64::from(l.param_tensors)).sum();
    let ops_per_tensor =
        crate::host::optimizer_ops_per_tensor(s.optimizer_states, s.decoupled_decay);
    let optimizer_kernels = if a.host.foreach {
        s.foreach_ops * (tensors / FOREACH_TENSORS_PER_LAUNCH).ceil()
    } else {
        ops_per_tensor * tensors
    } + if s.grad_scaler { GRAD_SCALER_OPS } else { 0.0 };
    let optimizer_device_s = (s.params as f64 * s.optimizer_bytes_per_param
        / (gpu.bandwidth_bytes_per_s * a.memory_efficiency))
        .max(optimizer_kernels * a.kernel_launch_s);
    let device_s = forward_device_s + backward_device_s + optimizer_device_s;

    let cast_layers = if s.maths.autocast {
        layers
            .iter()
            .zip(s.layers)
            .filter(|(d, l)| {
                matches!(d.class, OpClass::Gemm | OpClass::Conv | OpClass::Conv3d) && l.params > 0
            })
            .count() as f64
    } else {
        0.0
    };
    let work = HostWork {
        forward_ops: forwards
            * (s.layers
                .iter()
                .map(|l| f64::from(l.host_ops_fwd()))
                .sum::<f64>()
                + LOSS_OPS),
        // Autograd's AccumulateGrad node per parameter tensor adds to the backward.
        backward_ops: s
            .layers
            .iter()
            .map(|l| f64::from(l.host_ops_bwd()))
            .sum::<f64>()
            + LOSS_OPS
            + cast_layers
            + tensors,
        param_tensors: tensors,
        optimizer_ops_per_tensor: ops_per_tensor,
        foreach_ops: s.foreach_ops,
        amp_ops: cast_layers + if s.grad_scaler { GRAD_SCALER_OPS } else { 0.0 },
        accum_steps: s.accum_steps,
    };
    let shared = on_shared_host(s, &work, device_s, gpu, a, s.runs_per_host);
    StepBreakdown {
        layers,
        forward_device_s,
        backward_device_s,
        optimizer_device_s,
        device_s,
        host_s: shared.host.total_s,
        host: shared.host,
        input: shared.input,
        input_s: shared.input_s,
        step_s: shared.step_s,
        bound: shared.bound,
        work,
    }
}

/// The host and input side of a step when `runs` runs share the host, and the step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SharedHost {
    pub host: HostTime,
    pub input: InputTime,
    pub input_s: f64,
    pub step_s: f64,
    pub bound: StepBound,
}

/// The one-card step of `b` when `runs` runs share the host (parallel experiments):
/// fewer cores each and lower clocks with more of them busy; the device side is the same.
pub fn with_runs(
    s: &StepSetup,
    b: &StepBreakdown,
    gpu: &GpuSpec,
    a: &PerfAssumptions,
    runs: u32,
) -> SharedHost {
    on_shared_host(s, &b.work, b.device_s, gpu, a, runs)
}

fn on_shared_host(
    s: &StepSetup,
    work: &HostWork,
    device_s: f64,
    gpu: &GpuSpec,
    a: &PerfAssumptions,
    runs: u32,
) -> SharedHost {
    let accum = f64::from(s.accum_steps.max(1));
    let runs = runs.max(1);
    let cores_per_run = s.cpu.cores / runs;
    let workers = s.pipeline.num_workers.min(cores_per_run.saturating_sub(1));
    let cpu = s.cpu.loaded(f64::from(runs * (1 + workers)));
    let host = host_time(work, &a.host, cpu);

    let input = input_time(
        &InputWork {
            batch: s.batch,
            sample_bytes: s.sample_bytes,
            op_s: cpu.single_thread * a.host.op_forward_s,
            single_thread: cpu.single_thread,
            spare_cores: cores_per_run.saturating_sub(1),
            pcie_bytes_per_s: pcie_x16_bytes_per_s(gpu.pcie_gen),
        },
        &s.pipeline,
        &a.pipeline,
    );
    let input_main_s = accum * input.main_s;
    let input_workers_s = accum * input.workers_s;
    let input_s = input_main_s.max(input_workers_s);
    let step_s = if s.pipeline.sync_every_step {
        (input_main_s + host.total_s.max(device_s) + SYNC_LATENCY_S).max(input_workers_s)
    } else {
        (host.total_s + input_main_s)
            .max(device_s)
            .max(input_workers_s)
    };
    let bound = largest(
        [
            (host.total_s, StepBound::Host),
            (input_s, StepBound::Input),
            (device_s, StepBound::Device),
        ],
        StepBound::Device,
    )
    .1;
    SharedHost {
        host,
        input,
        input_s,
        step_s,
        bound,
    }
}
