//! A step's and an epoch's times as the report gives them, and what the cost model reads
//! from them (`usage`).

use serde::{Deserialize, Serialize};

use crate::choices::{Interconnect, ParallelMode};
use crate::cost::Usage;
use crate::dataset::dataset_by_id;
use crate::scenario::Scenario;
use crate::steptime::StepBound;
use crate::warning::Warning;

use super::roofline::Limiter;

/// Time of one optimizer step on one card and across the chosen cards.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepTime {
    pub forward_s: f64,
    pub backward_s: f64,
    /// The extra forward of gradient checkpointing (0 without it).
    pub recompute_s: f64,
    /// The tensor-parallel all-reduces of one micro-step on the device's stream (in
    /// forward, backward and recompute above; 0 without `tensor_parallel`).
    #[serde(default)]
    pub tensor_allreduce_s: f64,
    /// forward + backward + recompute.
    pub micro_step_s: f64,
    pub accum_steps: u32,
    pub optimizer_s: f64,
    pub allreduce_s: f64,
    pub allreduce_exposed_s: f64,
    /// accum x micro-step + optimizer + exposed all-reduce.
    pub step_s: f64,
    /// `link_s` / step.
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
    /// The host's seconds per step: dispatch, autograd, the optimizer loop, zero_grad and
    /// the Python loop (`host`), on this CPU with the scenario's processes sharing it.
    pub host_s: f64,
    /// The GPU's seconds per step on one card: accum x micro-step + optimizer.
    pub device_s: f64,
    /// The input pipeline's seconds per step (`pipeline`): the main process's share
    /// or the workers', whichever is longer.
    pub input_s: f64,
    /// Samples per second the input pipeline alone can deliver.
    pub input_samples_per_s: f64,
    /// What bounds the step: the host, the input pipeline or the device.
    pub bound: StepBound,
    /// What the host, the input and the per-step sync add to the device's time on one
    /// card: step = device + this (+ the all-reduce and DDP's overhead).
    pub host_extra_s: f64,
    /// DDP's own per-step cost beyond the all-reduce (buckets, waiting for the slowest
    /// rank).
    pub ddp_overhead_s: f64,
    /// What sharding (the optimizer on 1/Nd of the parameters) and offload (PCIe copies
    /// and CPU Adam) change in the step, seconds; negative when it saves time.
    pub optimizer_change_s: f64,
}

impl StepTime {
    /// Seconds of the step on the links: the data-parallel all-reduce left exposed and the
    /// tensor-parallel all-reduces of every micro-step (on the device's stream, none
    /// hidden).
    pub fn link_s(&self) -> f64 {
        self.allreduce_exposed_s + f64::from(self.accum_steps) * self.tensor_allreduce_s
    }
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
    /// CUDA start-up once per run (`perf.host.startup_s`).
    pub startup_s: f64,
    /// A run's wall time: total + start-up.
    pub run_s: f64,
}

/// One run's epoch on its cards: a DistributedSampler gives each card
/// ceil(samples / cards) samples, batched without dropping the last partial batch.
pub fn epoch_time(scenario: &Scenario, time: &StepTime, warnings: &mut Vec<Warning>) -> EpochTime {
    let ranks = crate::shard::ranks(scenario);
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
    let per_card = samples.div_ceil(u64::from(ranks));
    let batch = u64::from(scenario.batch_per_gpu.max(1));
    let micro_steps = per_card.div_ceil(batch);
    if per_card < u64::from(scenario.batch_per_gpu) {
        warnings.push(Warning::BatchOverEpoch {
            batch: scenario.batch_per_gpu,
            samples: per_card,
        });
    }
    let optimizer_steps = micro_steps.div_ceil(u64::from(time.accum_steps));
    // The optimizer, the exposed all-reduce, DDP's overhead and what sharding changes come
    // once per update; the rest of a step (the micro-steps, with the host's and the input's
    // share of each) once per micro-step, so an epoch's last, shorter update (or one
    // accumulating over more micro-steps than the epoch has) pays for what it runs.
    let per_update_s =
        time.optimizer_s + time.allreduce_exposed_s + time.ddp_overhead_s + time.optimizer_change_s;
    let per_micro_step_s = (time.step_s - per_update_s) / f64::from(time.accum_steps);
    // The last, partial batch (PyTorch's DataLoader keeps it) takes its share of a step,
    // but no less than the host's issue of every op, which no batch shrinks.
    let rest = per_card % batch;
    let saved_s = if rest > 0 {
        let share = rest as f64 / batch as f64;
        ((share * time.step_s).max(time.host_s) - time.step_s).min(0.0)
            / f64::from(time.accum_steps)
    } else {
        0.0
    };
    let epoch_s =
        micro_steps as f64 * per_micro_step_s + optimizer_steps as f64 * per_update_s + saved_s;
    EpochTime {
        samples_per_epoch: samples,
        micro_steps_per_epoch: micro_steps,
        optimizer_steps_per_epoch: optimizer_steps,
        epoch_s,
        epochs: w.epochs,
        total_s: f64::from(w.epochs) * epoch_s,
        startup_s: scenario.perf.host.startup_s,
        run_s: f64::from(w.epochs) * epoch_s + scenario.perf.host.startup_s,
    }
}

/// Cards one run uses: all of them on every node with DDP, one with parallel
/// experiments.
pub fn run_cards(scenario: &Scenario) -> u32 {
    match scenario.workload.mode {
        ParallelMode::Ddp => scenario.cards.max(1) * scenario.nodes.max(1),
        ParallelMode::ParallelExperiments => 1,
    }
}

/// Nodes one run spans: the scenario's with DDP; independent runs stay in one box.
pub fn run_nodes(scenario: &Scenario) -> u32 {
    match scenario.workload.mode {
        ParallelMode::Ddp => scenario.nodes.max(1),
        ParallelMode::ParallelExperiments => 1,
    }
}

/// Cards in one box that one run's all-reduce spans: the scenario's with DDP, 1 (none)
/// with parallel experiments.
pub fn ring_cards(scenario: &Scenario) -> u32 {
    match scenario.workload.mode {
        ParallelMode::Ddp => scenario.cards.max(1),
        ParallelMode::ParallelExperiments => 1,
    }
}

/// What the cost model needs from the step and the epoch.
pub fn usage(scenario: &Scenario, time: &StepTime, epoch: &EpochTime) -> Usage {
    let cards = scenario.cards.max(1);
    let ddp = scenario.workload.mode == ParallelMode::Ddp;
    Usage {
        cards,
        nodes: run_nodes(scenario),
        nics_per_node: scenario.nics_per_node,
        samples_per_s: time.samples_per_s,
        run_s: epoch.run_s,
        cards_per_run: run_cards(scenario),
        bridged_pairs: if scenario.interconnect == Interconnect::NvlinkBridge {
            cards / 2
        } else {
            0
        },
        concurrent_runs: if ddp { 1 } else { cards },
        sweep_runs: scenario.workload.sweep_runs,
    }
}
