//! What would help most: the article's thesis (sections 1, 3.2, 12: capacity and bandwidth
//! pay more than compute and interconnect for HSI training) computed for one scenario.
//!
//! The scenario is re-estimated with one resource improved at a time, all else equal:
//! memory capacity x1.5 and x2, memory bandwidth x1.5, compute (every peak) x1.5 and x2,
//! the best interconnect the card family offers (NVLink bridge pairs for a PCIe card that
//! has a bridge connector; SXM modules already sit on NVSwitch; its factor is the bus
//! bandwidth of the tensor-parallel group where there is one, of all the cards
//! otherwise), and the host CPU x1.5
//! (the eager-mode launch floor, which is host-side dispatch, shrinks by the factor).
//! Each outcome has the time to result (one run at the scenario's batch), the speed-up
//! over the scenario, the largest batch and patch that fit, and what limits next.
//!
//! A resource that does not bind changes nothing: more capacity does not speed up a run
//! that already fits (it only raises the largest batch and patch), more compute does not
//! speed up memory-bound layers. The best lever is the largest speed-up above
//! `MIN_SPEEDUP`; when the scenario does not fit, the smallest capacity step that makes
//! it fit. When no lever reaches `MIN_SPEEDUP`, none is named.

use serde::Serialize;

use crate::gpu::GpuSpec;
use crate::scaling::{ring_bus_bytes_per_s, valid_interconnects};
use crate::scenario::Scenario;

/// A speed-up must exceed this to count as help (2 %: below the model's resolution).
pub const MIN_SPEEDUP: f64 = 1.02;

/// A resource the scenario could have more of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Lever {
    MemoryCapacity,
    MemoryBandwidth,
    Compute,
    Interconnect,
    HostCpu,
    /// The data cube kept on the GPU: patches gathered there instead of by the
    /// DataLoader.
    InputPipeline,
}

impl Lever {
    pub const ALL: [Lever; 6] = [
        Lever::MemoryCapacity,
        Lever::MemoryBandwidth,
        Lever::Compute,
        Lever::Interconnect,
        Lever::HostCpu,
        Lever::InputPipeline,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Lever::MemoryCapacity => "memory_capacity",
            Lever::MemoryBandwidth => "memory_bandwidth",
            Lever::Compute => "compute",
            Lever::Interconnect => "interconnect",
            Lever::HostCpu => "host_cpu",
            Lever::InputPipeline => "input_pipeline",
        }
    }
}

/// What sets the time to result (or keeps the run from starting).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// The scenario does not fit the memory budget.
    Capacity,
    /// Memory-bound kernels take the most time.
    Bandwidth,
    /// Compute-bound kernels take the most time.
    Compute,
    /// The host CPU (eager dispatch, autograd, the optimizer loop) bounds the step.
    Host,
    /// Kernels held to the least time one takes on the device (its launch floor) take
    /// the most time: the GPU bounds the step, and neither a faster host nor more FLOPs
    /// shorten those kernels.
    KernelFloor,
    /// The input pipeline (cutting and copying patches) bounds the step.
    Input,
    /// The exposed all-reduce takes more than any kind of kernel.
    Interconnect,
    /// Offload's PCIe copies and CPU Adam take longer than the rest of the step.
    Offload,
}

/// The figures one estimate gives for the lever table.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LeverPoint {
    pub fits: bool,
    /// Wall time of one run at the scenario's batch; None when it does not fit.
    pub time_to_result_s: Option<f64>,
    pub largest_batch: u32,
    /// Largest patch that fits at the scenario's batch; None for a custom model (its input
    /// fixes the patch) or when no patch fits.
    pub largest_patch: Option<u32>,
    pub limit: Limit,
    /// Cost per experiment at the card's own price; None when it does not fit or the
    /// card has no known price.
    pub usd_per_experiment: Option<f64>,
}

/// One lever tried.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LeverOutcome {
    pub lever: Lever,
    /// How much more of the resource: 1.5 = +50 %; for the interconnect, the ratio of
    /// the ring's bus bandwidth on the better link to the scenario's.
    pub factor: f64,
    pub fits: bool,
    pub time_to_result_s: Option<f64>,
    /// Scenario time / this time; None when either does not fit.
    pub speedup: Option<f64>,
    pub largest_batch: u32,
    pub largest_patch: Option<u32>,
    /// What limits next.
    pub limit: Limit,
    /// Cost per experiment with the lever at the card's own price (what the time saved is
    /// worth; the better resource's own price is not known): None when it does not fit
    /// or the card has no known price.
    pub usd_per_experiment: Option<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct BestLever {
    pub lever: Lever,
    pub factor: f64,
    /// None when the scenario does not fit and this lever makes it fit.
    pub speedup: Option<f64>,
}

/// A lever to try: the scenario and card it turns into.
#[derive(Clone, Debug, PartialEq)]
pub struct LeverTrial {
    pub lever: Lever,
    pub factor: f64,
    pub scenario: Scenario,
    pub gpu: GpuSpec,
}

/// The card with every compute peak scaled by `factor`.
fn faster_compute(gpu: &GpuSpec, factor: f64) -> GpuSpec {
    let mut out = *gpu;
    out.fp32_flops *= factor;
    out.tf32_flops = gpu.tf32_flops.map(|f| f * factor);
    out.fp16_tensor_flops *= factor;
    out
}

/// The scenario on a host whose every CPU cost (per op, per optimizer tensor, per step,
/// per patch cut, offload's CPU Adam) is `factor` times smaller.
fn faster_host(s: &Scenario, factor: f64) -> Scenario {
    let mut out = s.clone();
    let h = &mut out.perf.host;
    for cost in [
        &mut h.op_forward_s,
        &mut h.op_backward_s,
        &mut h.optimizer_op_s,
        &mut h.foreach_tensor_s,
        &mut h.step_fixed_s,
    ] {
        *cost /= factor;
    }
    let p = &mut out.perf.pipeline;
    for cost in [
        &mut p.precut_sample_s,
        &mut p.cut_sample_s,
        &mut p.byte_s,
        &mut p.cut_byte_s,
        &mut p.augment_sample_s,
        &mut p.augment_byte_s,
        &mut p.batch_s,
        &mut p.worker_byte_s,
        &mut p.shared_byte_s,
    ] {
        *cost /= factor;
    }
    out.perf.scaling.cpu_adam_params_per_s *= factor;
    out
}

/// The levers that apply to a scenario on a card (the interconnect only where the card
/// family offers a faster link than the scenario's).
pub fn trials(s: &Scenario, gpu: &GpuSpec) -> Vec<LeverTrial> {
    let trial = |lever, factor, scenario: Scenario, gpu: GpuSpec| LeverTrial {
        lever,
        factor,
        scenario,
        gpu,
    };
    let mut out = Vec::new();
    for factor in [1.5, 2.0] {
        let mut more = *gpu;
        more.memory_bytes = (gpu.memory_bytes as f64 * factor) as u64;
        out.push(trial(Lever::MemoryCapacity, factor, s.clone(), more));
    }
    let mut wider = *gpu;
    wider.bandwidth_bytes_per_s *= 1.5;
    out.push(trial(Lever::MemoryBandwidth, 1.5, s.clone(), wider));
    for factor in [1.5, 2.0] {
        out.push(trial(
            Lever::Compute,
            factor,
            s.clone(),
            faster_compute(gpu, factor),
        ));
    }
    if let Some(best) = valid_interconnects(gpu).last().copied() {
        // The busiest ring: the tensor-parallel group's where there is one.
        let group = if s.tensor_parallel > 1 {
            s.tensor_parallel
        } else {
            s.cards
        };
        let bus = |i| ring_bus_bytes_per_s(gpu, i, group.max(2), &s.perf.scaling);
        // Only a link that widens the ring (bridged pairs on 8 cards still cross PCIe).
        if let (true, Some(now), Some(better)) =
            (best != s.interconnect, bus(s.interconnect), bus(best))
        {
            if better > now {
                let mut linked = s.clone();
                linked.interconnect = best;
                out.push(trial(Lever::Interconnect, better / now, linked, *gpu));
            }
        }
    }
    out.push(trial(Lever::HostCpu, 1.5, faster_host(s, 1.5), *gpu));
    if !s.pipeline.cube_on_gpu {
        let mut resident = s.clone();
        resident.pipeline.cube_on_gpu = true;
        out.push(trial(Lever::InputPipeline, 1.0, resident, *gpu));
    }
    out
}

/// Whether a lever's trial (`t` on `g`) leaves what a card holds as `s` on `gpu` has it:
/// speed levers (compute, bandwidth, link, host) change neither the card's capacity nor
/// the input's place, so the scenario's largest batch stands (`tests/levers.rs` checks
/// it against the search on every trial).
pub fn memory_as_is(s: &Scenario, gpu: &GpuSpec, t: &Scenario, g: &GpuSpec) -> bool {
    g.memory_bytes == gpu.memory_bytes && t.pipeline.cube_on_gpu == s.pipeline.cube_on_gpu
}

/// Every lever's outcome against the scenario's own `base` point, from `point`, which
/// estimates a scenario on a card (None where it cannot: that lever is left out).
pub fn outcomes(
    base: &LeverPoint,
    trials: &[LeverTrial],
    point: impl Fn(&Scenario, &GpuSpec) -> Option<LeverPoint>,
) -> Vec<LeverOutcome> {
    trials
        .iter()
        .filter_map(|t| {
            let p = point(&t.scenario, &t.gpu)?;
            let speedup = match (base.time_to_result_s, p.time_to_result_s) {
                (Some(b), Some(t)) if t > 0.0 => Some(b / t),
                _ => None,
            };
            Some(LeverOutcome {
                lever: t.lever,
                factor: t.factor,
                fits: p.fits,
                time_to_result_s: p.time_to_result_s,
                speedup,
                largest_batch: p.largest_batch,
                largest_patch: p.largest_patch,
                limit: p.limit,
                usd_per_experiment: p.usd_per_experiment,
            })
        })
        .collect()
}

/// The lever that pays most (see the module doc); None when none helps.
pub fn best_lever(base: &LeverPoint, outcomes: &[LeverOutcome]) -> Option<BestLever> {
    let best = |o: &LeverOutcome| BestLever {
        lever: o.lever,
        factor: o.factor,
        speedup: o.speedup,
    };
    if !base.fits {
        return outcomes
            .iter()
            .filter(|o| o.fits)
            .min_by(|a, b| a.factor.total_cmp(&b.factor))
            .map(best);
    }
    outcomes
        .iter()
        .filter(|o| o.speedup.is_some_and(|s| s > MIN_SPEEDUP))
        .max_by(|a, b| {
            a.speedup
                .unwrap_or(0.0)
                .total_cmp(&b.speedup.unwrap_or(0.0))
        })
        .map(best)
}

/// What limits a step, from its seconds per kind: the micro-step's memory-, compute- and
/// launch-limited seconds (times the accumulation steps) and the exposed all-reduce.
pub fn limit_of(
    fits: bool,
    memory_s: f64,
    compute_s: f64,
    launch_s: f64,
    allreduce_s: f64,
) -> Limit {
    if !fits {
        return Limit::Capacity;
    }
    [
        (compute_s, Limit::Compute),
        (launch_s, Limit::KernelFloor),
        (allreduce_s, Limit::Interconnect),
    ]
    .into_iter()
    .fold((memory_s, Limit::Bandwidth), |best, (t, l)| {
        if t > best.0 {
            (t, l)
        } else {
            best
        }
    })
    .1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(time: Option<f64>) -> LeverPoint {
        LeverPoint {
            fits: time.is_some(),
            time_to_result_s: time,
            largest_batch: 64,
            largest_patch: Some(25),
            limit: Limit::Host,
            usd_per_experiment: None,
        }
    }

    fn outcome(lever: Lever, factor: f64, speedup: f64) -> LeverOutcome {
        LeverOutcome {
            lever,
            factor,
            fits: true,
            time_to_result_s: Some(10.0 / speedup),
            speedup: Some(speedup),
            largest_batch: 64,
            largest_patch: Some(25),
            limit: Limit::Host,
            usd_per_experiment: None,
        }
    }

    #[test]
    fn no_lever_is_named_when_none_gains_more_than_the_threshold() {
        let base = point(Some(10.0));
        let flat = [
            outcome(Lever::MemoryCapacity, 2.0, 1.0),
            outcome(Lever::Compute, 2.0, MIN_SPEEDUP - 0.001),
        ];
        assert_eq!(best_lever(&base, &flat), None);
        let with_gain = [flat[0], flat[1], outcome(Lever::HostCpu, 1.5, 1.3)];
        let best = best_lever(&base, &with_gain).unwrap();
        assert_eq!((best.lever, best.speedup), (Lever::HostCpu, Some(1.3)));
    }

    #[test]
    fn the_limit_is_the_largest_share_and_capacity_when_it_does_not_fit() {
        assert_eq!(limit_of(true, 1.0, 2.0, 0.5, 0.1), Limit::Compute);
        assert_eq!(limit_of(true, 3.0, 2.0, 0.5, 0.1), Limit::Bandwidth);
        assert_eq!(limit_of(true, 1.0, 1.0, 1.0, 1.5), Limit::Interconnect);
        assert_eq!(limit_of(false, 3.0, 2.0, 0.5, 0.1), Limit::Capacity);
        assert_eq!(limit_of(true, 1.0, 2.0, 2.5, 0.1), Limit::KernelFloor);
    }
}
