//! The collectives of one optimizer step and what backward hides of them: DDP's gradient
//! buckets, sharding's reduce-scatters and gathers, and the optimizer's change under
//! sharding or offload (the model is in `scaling.rs`'s header).

use serde::{Deserialize, Serialize};

use super::step::{by_processes, BackwardSlice, StepCompute};
use crate::assumptions::ScalingAssumptions;
use crate::choices::Sharding;
use crate::cluster::{collective_s, Collective, DataParallel};

/// DDP buckets: (ready time from the start of backward, bytes), in all-reduce order.
pub(super) fn buckets(backward: &[BackwardSlice], a: &ScalingAssumptions) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    let (mut clock, mut filled) = (0.0, 0.0);
    for slice in backward.iter().rev() {
        clock += slice.seconds;
        filled += slice.grad_bytes;
        let cap = if out.is_empty() {
            a.first_bucket_bytes
        } else {
            a.bucket_bytes
        };
        if filled >= cap {
            out.push((clock, filled));
            filled = 0.0;
        }
    }
    if filled > 0.0 {
        out.push((clock, filled));
    }
    out
}

/// All-reduce of one optimizer step: total time and the part backward cannot hide.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct AllReduce {
    pub total_s: f64,
    pub exposed_s: f64,
}

/// The buckets' collectives, each `time_of(bytes)`, overlapped with backward, whose
/// layers take `paced` times their device seconds (`StepCompute::host_paced`): every
/// bucket comes ready that much later.
fn bucketed(
    step: &StepCompute,
    paced: f64,
    a: &ScalingAssumptions,
    time_of: impl Fn(f64) -> f64,
) -> AllReduce {
    let backward_end: f64 = paced * step.backward.iter().map(|s| s.seconds).sum::<f64>();
    let (mut total, mut comm_end) = (0.0, 0.0f64);
    for (ready, bytes) in buckets(&step.backward, a) {
        let t = time_of(bytes);
        total += t;
        comm_end = comm_end.max(paced * ready) + t;
    }
    let scheduled = (comm_end - backward_end).clamp(0.0, total);
    AllReduce {
        total_s: total,
        exposed_s: scheduled + (1.0 - a.overlap) * (total - scheduled),
    }
}

/// The collectives of one optimizer step on `gpus` GPUs per node of `dp.network`: total
/// and exposed seconds.
pub(super) fn collectives(
    step: &StepCompute,
    gpus: u32,
    bus: f64,
    dp: &DataParallel,
    a: &ScalingAssumptions,
) -> AllReduce {
    if gpus * dp.network.nodes < 2 {
        return AllReduce::default();
    }
    let t = |op, bytes| collective_s(op, bytes, gpus, bus, a.hop_latency_s, &dp.network);
    let accum = f64::from(step.accum_steps);
    // The gradient buckets of one micro-step's backward, each reduced by `op`.
    let paced = step.host_paced(gpus);
    let per_micro = |op| bucketed(step, paced, a, |bytes| t(op, bytes));
    match dp.sharding {
        Sharding::None => per_micro(Collective::AllReduce),
        Sharding::Zero1 | Sharding::Zero2 => {
            let times = if dp.sharding == Sharding::Zero2 {
                accum
            } else {
                1.0
            };
            let rs = per_micro(Collective::ReduceScatter);
            let gather = t(Collective::AllGather, dp.traffic.gather_after_step);
            AllReduce {
                total_s: times * rs.total_s + gather,
                exposed_s: times * rs.exposed_s + gather,
            }
        }
        Sharding::Zero3 | Sharding::Fsdp => {
            let gather = t(Collective::AllGather, dp.traffic.gather_per_pass);
            let reduce = t(Collective::ReduceScatter, dp.traffic.grad_bytes);
            let backward: f64 = step.backward.iter().map(|s| s.seconds).sum();
            let forward = (step.micro_step_s - backward).max(0.0);
            // What the device's forward and backward do not hide, less the time the
            // device waits for the host in each micro-step (a host-bound step's idle
            // device gathers too): else a faster device would expose more than it saves.
            let idle = by_processes(&step.host_extra_s, gpus) / accum;
            let exposed = ((gather - forward).max(0.0) + (gather + reduce - backward).max(0.0)
                - idle)
                .max(0.0);
            let hidden = gather + reduce + gather - exposed;
            AllReduce {
                total_s: accum * (2.0 * gather + reduce),
                exposed_s: accum * (exposed + (1.0 - a.overlap) * hidden),
            }
        }
    }
}

/// What sharding changes in the optimizer step on `ranks` data-parallel ranks per node
/// of `gpus` GPUs, seconds (negative when it saves time): each rank updates its 1/Nd
/// share; offloaded, the host's CPU Adam updates the node's share after the gradients go
/// down PCIe and before the weights come back.
pub(super) fn optimizer_change_s(
    step: &StepCompute,
    ranks: u32,
    gpus: u32,
    dp: &DataParallel,
    a: &ScalingAssumptions,
) -> f64 {
    let ranks = f64::from(ranks * dp.network.nodes);
    let (opt_split, _, _) = dp.sharding.splits();
    let share = if opt_split { 1.0 / ranks } else { 1.0 };
    if dp.offload {
        let rank_params = step.params * share;
        let copies = rank_params * dp.offload_bytes_per_param / dp.pcie_bytes_per_s;
        let cpu = rank_params * f64::from(gpus) / a.cpu_adam_params_per_s;
        copies + cpu - step.optimizer_s
    } else {
        (share - 1.0) * step.optimizer_s
    }
}

/// DDP's per-step cost beyond the all-reduce on `cards` cards: bucket handling and the
/// wait for the slowest rank (`ScalingAssumptions::bucket_overhead_s`,
/// `straggler_fraction`). Zero on one card.
pub(super) fn ddp_overhead_s(step: &StepCompute, cards: u32, a: &ScalingAssumptions) -> f64 {
    if cards < 2 {
        return 0.0;
    }
    buckets(&step.backward, a).len() as f64 * a.bucket_overhead_s
        + a.straggler_fraction * f64::from(cards).log2() * step.compute_s_on(cards)
}
