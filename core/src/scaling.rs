//! Data-parallel scaling over 1..=8 cards.
//!
//! DDP all-reduces the gradients with a ring: for `S` bytes on `N` cards
//! `t = 2(N-1)/N x S / busbw + 2(N-1) x hop_latency` (NCCL tests, PERFORMANCE.md), where
//! `busbw` is the slowest ring hop's achievable one-way bandwidth.
//!
//! Overlap: DDP fills buckets with gradients in reverse layer order as backward produces
//! them (first bucket 1 MiB, then 25 MiB: `torch.nn.parallel.DistributedDataParallel`'s
//! `bucket_cap_mb=25` and `dist._DEFAULT_FIRST_BUCKET_BYTES`). A bucket's all-reduce starts
//! when its last gradient is ready and the previous all-reduce is done; only what runs
//! past the end of backward is exposed. With gradient accumulation (`no_sync` on all but
//! the last micro-step) this happens once per accumulation cycle, overlapped with the last
//! micro-step's backward only.
//!
//! Sharded runs (`shard`) move other collectives: ZeRO-1/2 reduce-scatter the gradients
//! in the same buckets (overlapped the same way) and all-gather the updated parameters
//! after the optimizer step (exposed); ZeRO-2 reduces every micro-step. ZeRO-3 and FSDP
//! all-gather the parameters during forward and again during backward, and
//! reduce-scatter the gradients, every micro-step; what takes longer than the pass it
//! overlaps is exposed. The optimizer runs on each rank's 1/Nd share; offloaded, it runs
//! on the host (CPU Adam) after the gradients cross PCIe, and the parameters come back.
//! Over several nodes every collective runs as NCCL's rings through the nodes' NICs
//! (`cluster`).

use serde::{Deserialize, Serialize};

pub use crate::assumptions::ScalingAssumptions;
pub use crate::links::{
    pcie_x16_bytes_per_s, ring_allreduce_s, ring_bus_bytes_per_s, valid_interconnects,
};

mod collectives;
mod step;

use crate::choices::{Interconnect, ParallelMode};
use crate::cluster::{DataParallel, Network};
use crate::gpu::GpuSpec;
use crate::scenario::{MAX_CARDS, MAX_NODES};
use collectives::{buckets, collectives, ddp_overhead_s, optimizer_change_s};
pub use step::{BackwardSlice, StepCompute};

/// One card count on one topology.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ScalingPoint {
    /// GPUs of the run, all nodes together.
    pub cards: u32,
    /// Nodes of the run (1 in one box).
    #[serde(default)]
    pub nodes: u32,
    /// Slowest ring hop's achievable bandwidth, bytes/s (0 for one card).
    pub bus_bytes_per_s: f64,
    /// The step's collectives (the all-reduce; with sharding, its reduce-scatters and
    /// all-gathers), total and not hidden behind compute.
    pub allreduce_s: f64,
    pub allreduce_exposed_s: f64,
    /// What sharding and offload change in the optimizer step (negative: saved).
    #[serde(default)]
    pub optimizer_change_s: f64,
    /// DDP's own per-step cost beyond the all-reduce (`ddp_overhead_s`).
    pub ddp_overhead_s: f64,
    /// Seconds per optimizer step.
    pub step_s: f64,
    /// Samples per second over all cards.
    pub samples_per_s: f64,
    /// Throughput relative to one card without sharding or offload (below 1 where they
    /// cost one card more than they save).
    pub speedup: f64,
    /// speedup / cards.
    pub efficiency: f64,
    /// Exposed all-reduce time as a fraction of the step.
    pub allreduce_share: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScalingCurve {
    pub interconnect: Interconnect,
    pub points: Vec<ScalingPoint>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScalingReport {
    /// Bytes all-reduced per optimizer step (params x gradient bytes; AMP keeps fp32
    /// gradients).
    pub gradient_bytes: f64,
    pub buckets: u32,
    /// The scenario's topology (or its replacement when invalid for the card).
    pub chosen: Interconnect,
    /// DDP at fixed per-GPU batch: the chosen topology first, then the other valid ones
    /// (only where the model is whole on each card: see `scaling`).
    pub ddp: Vec<ScalingCurve>,
    /// N independent runs, one per card, no communication; they share the host's cores
    /// and clocks, so a host- or input-bound run does not scale exactly N x.
    pub parallel_experiments: Vec<ScalingPoint>,
    /// The chosen topology's nodes of `cards` GPUs over the scenario's network, 1, 2, 4
    /// ... 64 nodes and the scenario's (empty in one box).
    #[serde(default)]
    pub nodes: Vec<ScalingPoint>,
}

impl Default for ScalingReport {
    fn default() -> Self {
        ScalingReport {
            gradient_bytes: 0.0,
            buckets: 0,
            chosen: Interconnect::Pcie,
            ddp: Vec::new(),
            parallel_experiments: Vec::new(),
            nodes: Vec::new(),
        }
    }
}

impl ScalingReport {
    /// The chosen topology's point for `cards` per node on `nodes` nodes.
    pub fn scenario_point(&self, cards: u32, nodes: u32) -> Option<&ScalingPoint> {
        if nodes > 1 {
            self.nodes.iter().find(|p| p.nodes == nodes)
        } else {
            self.chosen_point(cards)
        }
    }

    /// The curve the scenario's mode runs on: the chosen topology's with DDP, the
    /// independent runs' with parallel experiments.
    pub fn mode_curve(&self, mode: ParallelMode) -> &[ScalingPoint] {
        match mode {
            ParallelMode::Ddp => self.ddp.first().map_or(&[], |c| &c.points),
            ParallelMode::ParallelExperiments => &self.parallel_experiments,
        }
    }

    /// The chosen topology's point for `cards` in one box.
    pub fn chosen_point(&self, cards: u32) -> Option<&ScalingPoint> {
        self.mode_curve(ParallelMode::Ddp)
            .iter()
            .find(|p| p.cards == cards)
    }
}

/// One model replica (`parallel`): the step of its cards (a tensor x pipeline group),
/// how many cards it takes and its tensor-parallel group's size. Data-parallel rings run
/// between replicas.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Replica<'a> {
    pub step: &'a StepCompute,
    pub cards: u32,
    pub tensor: u32,
}

impl<'a> Replica<'a> {
    /// A model on one card: plain data parallelism.
    pub fn one_card(step: &'a StepCompute) -> Self {
        Replica {
            step,
            cards: 1,
            tensor: 1,
        }
    }
}

/// `gpus` GPUs per node of replicas of `replica` (None where they do not divide or the
/// topology does not exist); one GPU runs `plain`, the model alone, the speed-up's
/// baseline.
fn ddp_point(
    plain: &StepCompute,
    replica: Replica,
    gpu: &GpuSpec,
    interconnect: Interconnect,
    gpus: u32,
    dp: &DataParallel,
    a: &ScalingAssumptions,
) -> Option<ScalingPoint> {
    let one_card_rate = plain.samples_per_step() / plain.compute_s();
    let replica = if gpus == 1 {
        Replica::one_card(plain)
    } else {
        replica
    };
    if !gpus.is_multiple_of(replica.cards) {
        return None;
    }
    let step = replica.step;
    let per_node = gpus / replica.cards;
    let ranks = per_node * dp.network.nodes;
    // A data-parallel ring spans its ranks' tensor-parallel groups (Megatron's order:
    // tensor innermost, then data, then pipeline).
    let bus = if per_node < 2 {
        0.0
    } else {
        ring_bus_bytes_per_s(gpu, interconnect, per_node * replica.tensor, a)?
    };
    let comm = collectives(step, per_node, bus, dp, a);
    let optimizer_change_s = if ranks < 2 && !dp.offload {
        0.0
    } else {
        optimizer_change_s(step, per_node, gpus, dp, a)
    };
    let ddp_overhead_s = ddp_overhead_s(step, ranks, a);
    let compute_s = if ranks < 2 {
        step.compute_s_on(gpus)
    } else {
        step.synced_s_on(gpus)
    };
    let step_s = compute_s + comm.exposed_s + ddp_overhead_s + optimizer_change_s;
    let samples_per_s = f64::from(ranks) * step.samples_per_step() / step_s;
    let speedup = samples_per_s / one_card_rate;
    let cards = gpus * dp.network.nodes;
    Some(ScalingPoint {
        cards,
        nodes: dp.network.nodes,
        bus_bytes_per_s: bus,
        allreduce_s: comm.total_s,
        allreduce_exposed_s: comm.exposed_s,
        optimizer_change_s,
        ddp_overhead_s,
        step_s,
        samples_per_s,
        speedup,
        efficiency: speedup / f64::from(cards),
        // Every all-reduce on the step's path: data-parallel (exposed) and tensor-parallel.
        allreduce_share: (comm.exposed_s + step.tensor_allreduce_s) / step_s,
    })
}

/// N independent runs, one per card, sharing the host's cores and clocks.
fn parallel_point(step: &StepCompute, cards: u32) -> ScalingPoint {
    let step_s = step.compute_s_on(cards);
    let n = f64::from(cards);
    let speedup = n * step.compute_s() / step_s;
    ScalingPoint {
        cards,
        nodes: 1,
        step_s,
        samples_per_s: n * step.samples_per_step() / step_s,
        speedup,
        efficiency: speedup / n,
        ..ScalingPoint::default()
    }
}

/// The scaling table for 1..=MAX_CARDS cards in one box (the card counts `replica`
/// divides, and one card alone) and, when `dp.network` has more than one node, the
/// chosen topology over 1, 2, 4 ... MAX_NODES nodes of `cards` GPUs. `chosen` must be
/// valid for `gpu` (see `valid_interconnects`); the caller replaces an invalid choice.
/// `plain` is the model on one card alone; `plain.compute_s()` must be positive.
pub fn scaling(
    plain: &StepCompute,
    replica: Replica,
    gpu: &GpuSpec,
    chosen: Interconnect,
    cards: u32,
    dp: &DataParallel,
    a: &ScalingAssumptions,
) -> ScalingReport {
    // The other links' curves where the model is whole on each card: split over cards
    // (tensor or pipeline parallelism), the replica's own collectives ran on the chosen
    // link, and another link would move those too (the interconnect lever re-estimates).
    let mut topologies = vec![chosen];
    if replica.cards == 1 {
        topologies.extend(
            valid_interconnects(gpu)
                .into_iter()
                .filter(|t| *t != chosen),
        );
    }
    let one_box = DataParallel {
        network: Network {
            nodes: 1,
            ..dp.network
        },
        ..*dp
    };
    let ddp = topologies
        .into_iter()
        .map(|interconnect| ScalingCurve {
            interconnect,
            points: (1..=MAX_CARDS)
                .filter_map(|n| ddp_point(plain, replica, gpu, interconnect, n, &one_box, a))
                .collect(),
        })
        .collect();
    let nodes = if dp.network.nodes > 1 {
        let mut counts: Vec<u32> = (0..)
            .map(|k| 1 << k)
            .take_while(|n| *n <= MAX_NODES)
            .collect();
        counts.push(dp.network.nodes);
        crate::order::insertion_sort(&mut counts);
        counts.dedup();
        counts
            .into_iter()
            .filter_map(|nodes| {
                let over = DataParallel {
                    network: Network {
                        nodes,
                        ..dp.network
                    },
                    ..*dp
                };
                ddp_point(plain, replica, gpu, chosen, cards, &over, a)
            })
            .collect()
    } else {
        Vec::new()
    };
    ScalingReport {
        gradient_bytes: replica.step.grad_bytes(),
        buckets: buckets(&replica.step.backward, a).len() as u32,
        chosen,
        ddp,
        parallel_experiments: (1..=MAX_CARDS).map(|n| parallel_point(plain, n)).collect(),
        nodes,
    }
}
