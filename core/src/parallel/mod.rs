//! Model parallelism inside a node: tensor parallelism (`tensor`, Megatron-LM's split of
//! attention heads and MLP columns) and pipeline parallelism (`stages`, 1F1B), combined
//! with data parallelism and sharding: per node, cards = data x tensor x pipeline, ranked
//! as Megatron orders them (tensor innermost, so a tensor group of two is an NVLink-
//! bridged pair; then data; then pipeline). A group never spans nodes.
//!
//! `plan` turns a scenario into what one GPU holds and does: the split layer list and its
//! analysis, the tensor-parallel all-reduces on the group's real link
//! (`links::ring_bus_bytes_per_s` over the group's cards: a bridged pair, PCIe beyond it
//! or through host memory on GeForce cards, NVSwitch), the stages with their memory
//! (the memory breakdown of each stage's share) and the replica's step, which data
//! parallelism (`scaling`) then runs between replicas.

pub mod stages;
pub mod tensor;

use serde::Serialize;

use crate::analysis::{analyze_with, Analysis, Training};
use crate::choices::ParallelMode;
use crate::gpu::GpuSpec;
use crate::graph::ModelSpec;
use crate::links::ring_bus_bytes_per_s;
use crate::memory::{self, MemoryBreakdown};
use crate::perf::{self, OneCard};
use crate::problems::{FieldError, Problems};
use crate::scaling::StepCompute;
use crate::scenario::{Scenario, MAX_CARDS};
use crate::steptime::LayerComm;

/// One pipeline stage as its GPU sees it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StageReport {
    pub first_layer: String,
    pub last_layer: String,
    pub layers: u32,
    /// Parameters its GPU holds (its share of the tensor-parallel split).
    pub params: u64,
    /// Micro-batches whose activations it keeps at once (1F1B: min(p - i, m)).
    pub in_flight: u32,
    /// One micro-batch through the stage, forward and backward with its tensor-parallel
    /// all-reduces (and checkpointing's recompute), seconds.
    pub forward_s: f64,
    pub backward_s: f64,
    /// Bytes it sends to the next stage per micro-batch (the activations; their gradients
    /// come back the same size) and the seconds of one such send.
    pub send_bytes: f64,
    pub send_s: f64,
    /// The part of the step its GPU waits: the bubble and the imbalance.
    pub idle_fraction: f64,
    pub memory: MemoryBreakdown,
}

/// How one run is laid out over its cards, and what tensor and pipeline parallelism cost.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ParallelReport {
    /// Data-parallel ranks over all nodes (model replicas).
    pub data_parallel: u32,
    pub tensor_parallel: u32,
    pub pipeline_parallel: u32,
    pub micro_batches: u32,
    /// Parameters the most loaded GPU holds.
    pub params_per_gpu: u64,
    /// Layers split over the tensor-parallel group (0 without it).
    pub split_layers: u32,
    /// The tensor-parallel ring's bandwidth, bytes/s (0 without it), and one GPU's
    /// all-reduces per micro-step: bytes and seconds.
    pub tensor_bus_bytes_per_s: f64,
    pub tensor_allreduce_bytes: f64,
    pub tensor_allreduce_s: f64,
    /// The 1F1B schedule's idle share (p - 1) / (m + p - 1); 0 without stages.
    pub bubble_fraction: f64,
    /// The link between consecutive stages, bytes/s (0 without stages).
    pub stage_link_bytes_per_s: f64,
    /// Every stage (one without pipeline parallelism).
    pub stages: Vec<StageReport>,
}

/// What one GPU of a run holds and does (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The layers one GPU of the tensor-parallel group runs, analysed (the whole model
    /// without tensor parallelism).
    pub analysis: Analysis,
    /// Each stage's share, as the memory breakdown reads it (empty without stages: the
    /// GPU holds `analysis`).
    pub stages: Vec<Analysis>,
    /// The replica's step as its GPUs see it: per layer, per micro-batch and per step.
    pub card: OneCard,
    /// The binding GPU's memory (the stage with the largest total).
    pub memory: MemoryBreakdown,
    pub report: ParallelReport,
}

impl Plan {
    /// Cards one replica takes (tensor x pipeline).
    pub fn cards(&self) -> u32 {
        self.report.tensor_parallel * self.report.pipeline_parallel
    }

    /// Largest per-GPU batch every GPU of the replica can hold.
    pub fn max_batch(&self, s: &Scenario, gpu: &GpuSpec) -> u32 {
        let shares = if self.stages.is_empty() {
            std::slice::from_ref(&self.analysis)
        } else {
            &self.stages
        };
        memory::largest_batch(shares, s, gpu)
    }
}

/// Stage counts from 1 to `MAX_CARDS` whose product with `other` divides `cards`, as
/// text.
fn divisors(cards: u32, other: u32) -> String {
    (1..=MAX_CARDS)
        .filter(|n| cards.is_multiple_of(n * other))
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every problem with the scenario's layout for this model: each names its field and
/// what is allowed.
pub fn check(s: &Scenario, spec: &ModelSpec) -> Vec<FieldError> {
    let mut p = Problems::default();
    let (tp, pp, cards) = (s.tensor_parallel, s.pipeline_parallel, s.cards.max(1));
    if s.workload.mode == ParallelMode::ParallelExperiments {
        for (field, value) in [("tensor_parallel", tp), ("pipeline_parallel", pp)] {
            if value > 1 {
                p.push(
                    field,
                    value,
                    "1 with workload.mode parallel_experiments (each run has one card)",
                );
            }
        }
        return p.0;
    }
    let nothing = tp > 1 && tensor::split_sizes(spec).is_empty();
    if nothing {
        p.push("tensor_parallel", tp, tensor::nothing_to_split(spec));
    } else if let Some(allowed) = tensor::indivisible(spec, tp, cards) {
        p.push("tensor_parallel", tp, allowed);
    } else if !cards.is_multiple_of(tp * pp) {
        p.push(
            "pipeline_parallel",
            pp,
            format!(
                "{}: tensor_parallel ({tp}) x pipeline_parallel must divide the {cards} cards \
                 per node",
                divisors(cards, tp)
            ),
        );
    }
    let layers = spec.layers.len() as u32;
    if pp > layers {
        p.push(
            "pipeline_parallel",
            pp,
            format!("at most {layers}, the model's layers (one stage holds one at least)"),
        );
    }
    if pp == 1 && s.micro_batches > 1 {
        p.push(
            "micro_batches",
            s.micro_batches,
            "1 without pipeline_parallel (for more samples per step: \
             workload.grad_accum_steps)",
        );
    }
    p.0
}

/// What one GPU of `s`'s run holds and does, for the model `spec` whose whole analysis is
/// `whole` (at the scenario's batch). The scenario must pass `check`.
pub fn plan(
    s: &Scenario,
    spec: &ModelSpec,
    whole: Analysis,
    gpu: &GpuSpec,
    training: &Training,
) -> Result<Plan, FieldError> {
    let tp = s.tensor_parallel.max(1);
    let pp = s.pipeline_parallel.max(1);
    let a = &s.perf.scaling;
    let split = if tp > 1 {
        Some(tensor::split(spec, &whole.layers, tp, s.cards)?)
    } else {
        None
    };
    let analysis = match &split {
        Some(split) => analyze_with(&split.spec, whole.batch, training)?,
        None => whole,
    };
    let bus = match split {
        Some(_) => ring_bus_bytes_per_s(gpu, s.interconnect, tp, a).unwrap_or(0.0),
        None => 0.0,
    };
    let allreduces = split.as_ref().map_or_else(Vec::new, |split| {
        tensor::allreduces(&split.roles, &analysis.layers, analysis.batch)
    });
    let comm = if bus > 0.0 {
        tensor::collectives(&allreduces, tp, bus, a.hop_latency_s)
    } else {
        Vec::new()
    };
    let card = perf::one_card_with(&analysis.layers, analysis.trainable_params, &comm, s, gpu);
    let mut report = ParallelReport {
        data_parallel: crate::shard::ranks(s),
        tensor_parallel: tp,
        pipeline_parallel: pp,
        micro_batches: s.micro_batches.max(1),
        params_per_gpu: analysis.params,
        split_layers: split.as_ref().map_or(0, |split| {
            split
                .roles
                .iter()
                .filter(|r| **r != tensor::Role::Replicated)
                .count() as u32
        }),
        tensor_bus_bytes_per_s: bus,
        // A fold from 0, not `sum` (whose empty sum is -0.0, written "-0.0" in JSON).
        tensor_allreduce_bytes: allreduces.iter().fold(0.0, |total, r| {
            total + f64::from(r.forward_count) * r.forward_bytes + r.backward_bytes
        }),
        tensor_allreduce_s: card.time.tensor_allreduce_s,
        ..ParallelReport::default()
    };
    if pp == 1 {
        let memory = memory::breakdown(&analysis, s, gpu);
        report.stages = vec![StageReport {
            first_layer: analysis.layers.first().map_or("", |l| &l.name).into(),
            last_layer: analysis.layers.last().map_or("", |l| &l.name).into(),
            layers: analysis.layers.len() as u32,
            params: analysis.params,
            in_flight: 1,
            forward_s: card.time.forward_s + card.time.recompute_s,
            backward_s: card.time.backward_s,
            send_bytes: 0.0,
            send_s: 0.0,
            idle_fraction: 0.0,
            memory: memory.clone(),
        }];
        return Ok(Plan {
            stages: Vec::new(),
            analysis,
            card,
            memory,
            report,
        });
    }
    let gpu_spec = split.as_ref().map_or(spec, |split| &split.spec);
    pipelined(s, gpu, gpu_spec, analysis, card, &comm, report)
}

/// The plan with the per-GPU layers cut into `s.pipeline_parallel` stages.
fn pipelined(
    s: &Scenario,
    gpu: &GpuSpec,
    spec: &ModelSpec,
    analysis: Analysis,
    card: OneCard,
    comm: &[LayerComm],
    mut report: ParallelReport,
) -> Result<Plan, FieldError> {
    let (pp, m) = (report.pipeline_parallel, report.micro_batches);
    let recompute = if s.checkpointing { 2.0 } else { 1.0 };
    let comm_of = |i: usize| comm.get(i).copied().unwrap_or_default();
    let times: Vec<f64> = card
        .layers
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let c = comm_of(i);
            recompute * (l.forward.time_s + c.forward_s) + l.backward.time_s + c.backward_s
        })
        .collect();
    let ranges = stages::cut(&times, &stages::units(&analysis.layers), pp as usize);
    let feeds = tensor::consumers(spec);
    // Consecutive stages sit data x tensor cards apart.
    let stride = report.tensor_parallel * (s.cards.max(1) / (report.tensor_parallel * pp)).max(1);
    let a = &s.perf.scaling;
    let link = ring_bus_bytes_per_s(gpu, s.interconnect, stride + 1, a).unwrap_or(0.0);
    let send_s = |bytes: f64| {
        if bytes > 0.0 && link > 0.0 {
            bytes / link + a.hop_latency_s
        } else {
            0.0
        }
    };
    let mut per_stage = s.clone();
    per_stage.workload.grad_accum_steps = s.workload.grad_accum_steps.max(1) * m;
    let mut cards = Vec::new();
    let mut shares = Vec::new();
    let mut per_micro = Vec::new();
    let mut sends = Vec::new();
    for (i, range) in ranges.iter().enumerate() {
        let layers = &analysis.layers[range.clone()];
        let trainable = layers.iter().map(|l| l.trainable_params).sum();
        let stage = perf::one_card_with(
            layers,
            trainable,
            &comm[range.start.min(comm.len())..range.end.min(comm.len())],
            &per_stage,
            gpu,
        );
        let out = if range.end < analysis.layers.len() {
            stages::crossing_bytes(&feeds, &analysis.layers, range.end)
        } else {
            0.0
        };
        let back = if range.start > 0 {
            stages::crossing_bytes(&feeds, &analysis.layers, range.start)
        } else {
            0.0
        };
        per_micro.push(stage.step.micro_step_s + send_s(out) + send_s(back));
        sends.push(out);
        shares.push(stages::stage_analysis(
            &analysis,
            range.clone(),
            stages::in_flight(i as u32, pp, m),
        ));
        cards.push(stage);
    }
    let flush = stages::flush_s(&per_micro, m);
    let accum = s.workload.grad_accum_steps.max(1);
    let slowest = (0..cards.len())
        .max_by(|&x, &y| per_micro[x].total_cmp(&per_micro[y]))
        .unwrap_or(0);
    let heaviest = (0..cards.len())
        .max_by(|&x, &y| {
            cards[x]
                .step
                .grad_bytes()
                .total_cmp(&cards[y].step.grad_bytes())
        })
        .unwrap_or(0);
    let processes = cards[0].step.host_extra_s.len();
    let step = StepCompute {
        micro_step_s: flush / f64::from(m),
        optimizer_s: cards.iter().map(|c| c.step.optimizer_s).fold(0.0, f64::max),
        accum_steps: accum * m,
        batch_per_gpu: s.batch_per_gpu.max(1),
        backward: cards[heaviest].step.backward.clone(),
        host_extra_s: (0..processes)
            .map(|n| {
                cards
                    .iter()
                    .map(|c| c.step.host_extra_s[n])
                    .fold(0.0, f64::max)
            })
            .collect(),
        host_backward_s: cards[heaviest].step.host_backward_s.clone(),
        host_serial_s: cards[heaviest].step.host_serial_s.clone(),
        params: cards[heaviest].step.params,
        // The slowest stage's, once per micro-step it runs.
        tensor_allreduce_s: f64::from(accum * m) * cards[slowest].step.tensor_allreduce_s
            / f64::from(cards[slowest].step.accum_steps.max(1)),
    };
    let memories: Vec<MemoryBreakdown> = shares
        .iter()
        .map(|a| memory::breakdown(a, s, gpu))
        .collect();
    let step_s = step.compute_s_on(s.cards);
    report.bubble_fraction = stages::bubble_fraction(pp, m);
    report.stage_link_bytes_per_s = link;
    report.params_per_gpu = shares.iter().map(|a| a.params).max().unwrap_or(0);
    report.stages = ranges
        .iter()
        .zip(&cards)
        .zip(&memories)
        .enumerate()
        .map(|(i, ((range, c), memory))| StageReport {
            first_layer: analysis.layers[range.start].name.clone(),
            last_layer: analysis.layers[range.end - 1].name.clone(),
            layers: range.len() as u32,
            params: shares[i].params,
            in_flight: stages::in_flight(i as u32, pp, m),
            forward_s: c.time.forward_s + c.time.recompute_s,
            backward_s: c.time.backward_s,
            send_bytes: sends[i],
            send_s: send_s(sends[i]),
            idle_fraction: (1.0 - f64::from(accum * m) * per_micro[i] / step_s).clamp(0.0, 1.0),
            memory: memory.clone(),
        })
        .collect();
    let binding = (0..memories.len())
        .max_by(|&x, &y| memories[x].total.total_cmp(&memories[y].total))
        .unwrap_or(0);
    let mut card_out = cards.swap_remove(slowest);
    card_out.layers = card.layers;
    card_out.time.micro_step_s = step.micro_step_s;
    card_out.time.accum_steps = step.accum_steps;
    card_out.time.optimizer_s = step.optimizer_s;
    card_out.time.device_s = f64::from(step.accum_steps) * step.micro_step_s + step.optimizer_s;
    card_out.step_achieved_flops = card_out.step_roofline.flops / step.compute_s();
    card_out.step = step;
    Ok(Plan {
        memory: memories[binding].clone(),
        stages: shares,
        analysis,
        card: card_out,
        report,
    })
}

/// Memory per GPU at `s`'s batch on its layout (the binding GPU's total), for searches
/// over the geometry; the scenario must pass `check`.
pub fn memory_total(s: &Scenario, spec: &ModelSpec, gpu: &GpuSpec) -> Result<f64, FieldError> {
    let training = Training::of(s, gpu);
    let whole = analyze_with(spec, s.batch_per_gpu.into(), &training)?;
    if s.tensor_parallel <= 1 && s.pipeline_parallel <= 1 {
        return Ok(memory::breakdown(&whole, s, gpu).total);
    }
    Ok(plan(s, spec, whole, gpu, &training)?.memory.total)
}
