//! One optimizer step on one card as the host, the input pipeline and the device see it.
//!
//! The GPU runs asynchronously: the host issues forward, backward and optimizer ops
//! (`host`), the device executes them (`device`), the pipeline feeds the batch
//! (`pipeline`). A step that syncs (`loss.item()` every step, what most HSI training
//! scripts do) cannot run ahead: the main process loads its next batch after the sync, so
//! step = input (main process) + the device's end behind the host's issue (at least
//! max(host, device): `device_end`) + sync latency, and never less than the workers need
//! per batch. Without a per-step sync the three overlap:
//! step = max(host + input (main process), device, workers). What is largest of host,
//! input and device bounds the step; across cards, the exposed all-reduce or offload's
//! copies and CPU Adam when they take longer (`perf::step_time`).

use serde::{Deserialize, Serialize};

use crate::analysis::LayerReport;
use crate::assumptions::{PerfAssumptions, Pipeline};
use crate::device::{device_layer, DeviceLayer, Maths, OpClass};
use crate::gpu::GpuSpec;
use crate::host::{host_time, CpuProfile, HostTime, HostWork};
use crate::pipeline::{input_time, InputTime, InputWork};
use crate::scaling::{pcie_x16_bytes_per_s, ScalingPoint};

/// What bounds a step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepBound {
    Host,
    Input,
    #[default]
    Device,
    /// The all-reduce not hidden by backward.
    Interconnect,
    /// Offload's PCIe copies and CPU Adam.
    Offload,
}

impl StepBound {
    pub fn id(self) -> &'static str {
        match self {
            StepBound::Host => "host",
            StepBound::Input => "input",
            StepBound::Device => "device",
            StepBound::Interconnect => "interconnect",
            StepBound::Offload => "offload",
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

/// What bounds a step across cards: what they add after the one-card step's parts (the
/// exposed all-reduce, offload's copies and CPU Adam) where it takes longer than the
/// largest of those parts (`parts_s`), else what bounds the one-card step.
pub fn across_cards(one_card: StepBound, parts_s: f64, point: &ScalingPoint) -> StepBound {
    largest(
        [
            (parts_s, one_card),
            (point.allreduce_exposed_s, StepBound::Interconnect),
            (point.optimizer_change_s, StepBound::Offload),
        ],
        one_card,
    )
    .1
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
    /// One micro-step in issue order (for `with_runs`).
    #[serde(skip)]
    pub issue: Vec<Issue>,
}

/// One stretch of a micro-step in the order the host issues it: a layer's pass (or the
/// loss), the host ops it dispatches and the device seconds of what they launch.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Issue {
    pub forward_ops: f64,
    pub backward_ops: f64,
    pub device_s: f64,
}

/// When the device finishes a step whose host issues `issue` (one micro-step, `accum`
/// times) and then the optimizer: the GPU runs its queue in order and cannot start a
/// kernel before the host has issued it (CUDA's asynchronous launches; PyTorch "CUDA
/// semantics", asynchronous execution), so a step whose forward is host-bound and whose
/// backward is device-bound takes longer than the larger of the two totals. The host's
/// seconds per op are its forward and backward totals spread over their ops.
fn device_end(issue: &[Issue], host: &HostTime, accum: f64, optimizer_device_s: f64) -> f64 {
    let (fwd_ops, bwd_ops) = issue.iter().fold((0.0, 0.0), |(f, b), i| {
        (f + i.forward_ops, b + i.backward_ops)
    });
    let per_op = |total_s: f64, ops: f64| {
        if ops > 0.0 {
            total_s / accum / ops
        } else {
            0.0
        }
    };
    let (fwd_op_s, bwd_op_s) = (
        per_op(host.forward_s, fwd_ops),
        per_op(host.backward_s, bwd_ops),
    );
    // One pass over the micro-step from (host, device) clocks.
    let run = |(mut h, mut d): (f64, f64)| {
        for i in issue {
            h += i.forward_ops * fwd_op_s + i.backward_ops * bwd_op_s;
            d = d.max(h) + i.device_s;
        }
        (h, d)
    };
    let first = run((0.0, 0.0));
    let (h, d) = if accum > 1.0 {
        // Later micro-steps repeat the second's increments.
        let second = run(first);
        (
            first.0 + (accum - 1.0) * (second.0 - first.0),
            first.1 + (accum - 1.0) * (second.1 - first.1),
        )
    } else {
        first
    };
    let h = h + host.optimizer_s;
    d.max(h) + optimizer_device_s
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
        weight_queries: s.layers.iter().fold([0.0; 2], |[f, b], l| {
            [f + forwards * l.weight_queries[0], b + l.weight_queries[1]]
        }),
        accum_steps: s.accum_steps,
    };
    let cast = |l: &LayerReport, d: &DeviceLayer| {
        f64::from(
            s.maths.autocast
                && matches!(d.class, OpClass::Gemm | OpClass::Conv | OpClass::Conv3d)
                && l.params > 0,
        )
    };
    let comms = |i: usize| s.collectives.get(i).copied().unwrap_or_default();
    let mut issue = Vec::with_capacity(2 * layers.len() + 4);
    for pass in 0..(forwards as usize) {
        for (i, (l, d)) in s.layers.iter().zip(&layers).enumerate() {
            issue.push(Issue {
                forward_ops: f64::from(l.host_ops_fwd()) + if pass == 0 { cast(l, d) } else { 0.0 },
                backward_ops: 0.0,
                device_s: d.forward.time_s + comms(i).forward_s,
            });
        }
        issue.push(Issue {
            forward_ops: LOSS_OPS,
            ..Issue::default()
        });
    }
    issue.push(Issue {
        forward_ops: if s.grad_scaler { GRAD_SCALER_OPS } else { 0.0 },
        backward_ops: LOSS_OPS,
        device_s: 0.0,
    });
    for (i, (l, d)) in s.layers.iter().zip(&layers).enumerate().rev() {
        issue.push(Issue {
            forward_ops: 0.0,
            backward_ops: f64::from(l.host_ops_bwd()) + cast(l, d) + f64::from(l.param_tensors),
            device_s: d.backward.time_s + comms(i).backward_s,
        });
    }
    let shared = on_shared_host(
        s,
        &work,
        (&issue, optimizer_device_s, device_s),
        gpu,
        a,
        s.runs_per_host,
    );
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
        issue,
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
    on_shared_host(
        s,
        &b.work,
        (&b.issue, b.optimizer_device_s, b.device_s),
        gpu,
        a,
        runs,
    )
}

/// The device side as the host meets it: the micro-step's issue order, the optimizer's
/// device seconds and the device's total.
type DeviceSide<'a> = (&'a [Issue], f64, f64);

fn on_shared_host(
    s: &StepSetup,
    work: &HostWork,
    (issue, optimizer_device_s, device_s): DeviceSide,
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
        // The sync drains the device, so each step starts with it idle and it follows
        // the host's issue (the per-step Python work at the step's end overlaps it).
        let overlapped = device_end(issue, &host, accum, optimizer_device_s)
            .max(host.total_s)
            .max(device_s);
        (input_main_s + overlapped + SYNC_LATENCY_S).max(input_workers_s)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn host(forward_s: f64, backward_s: f64) -> HostTime {
        HostTime {
            forward_s,
            backward_s,
            total_s: forward_s + backward_s,
            ..HostTime::default()
        }
    }

    #[test]
    fn the_device_waits_for_the_host_to_issue_its_kernels() {
        let pass = |forward_ops: f64, backward_ops: f64, device_s: f64| Issue {
            forward_ops,
            backward_ops,
            device_s,
        };
        // A host-bound forward (1 ms of host work, 0.1 ms of kernels), then a
        // device-bound backward (0.1 ms of host work, 1 ms of kernels): host and device
        // take 1.1 ms each, but the backward's kernels start only once the forward is
        // issued, at 1 ms, and end at 2.1 ms.
        let issue = [pass(10.0, 0.0, 1e-4), pass(0.0, 1.0, 1e-3)];
        let end = device_end(&issue, &host(1e-3, 1e-4), 1.0, 0.0);
        assert!((end - 2.1e-3).abs() < 1e-12, "{end}");
        // Device-bound first: the host's issue hides under the device's work.
        let issue = [pass(1.0, 0.0, 1e-3), pass(0.0, 10.0, 1e-4)];
        let end = device_end(&issue, &host(1e-4, 1e-3), 1.0, 0.0);
        assert!((end - 1.2e-3).abs() < 1e-12, "{end}");
        // Two micro-steps before the optimizer: the second starts where the first left.
        let issue = [pass(10.0, 0.0, 1e-4), pass(0.0, 1.0, 1e-3)];
        let two = device_end(&issue, &host(2e-3, 2e-4), 2.0, 5e-4);
        assert!((two - (2.1e-3 + 1.1e-3 + 5e-4)).abs() < 1e-12, "{two}");
    }
}
