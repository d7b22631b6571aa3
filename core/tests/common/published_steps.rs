//! The published training measurements as the `published_steps*` tests read them
//! (fixtures/published_steps.json: sources, conditions and the fit/holdout split rule):
//! each point as a Scenario under the software conditions it was measured in, its
//! estimate with a given set of constants, and the error tables (median, worst, by GPU
//! family and architecture family, the GPUs' ranking) both tests print.

use std::collections::BTreeMap;

use hsi_gpu_core::analysis::{analyze, Analysis};
use hsi_gpu_core::assumptions::{PerfAssumptions, Pipeline};
use hsi_gpu_core::gpu::{gpu_by_id, GpuSpec, NvLink};
use hsi_gpu_core::graph::ModelSpec;
use hsi_gpu_core::host::EAGER_LOADING_STARTUP_S;
use hsi_gpu_core::scenario::{Interconnect, ModelChoice, Optimizer, Precision, Scenario};
use hsi_gpu_core::steptime::StepBound;
use hsi_gpu_core::{build_model, performance};
use serde::Deserialize;

use super::median;

#[derive(Deserialize)]
struct Fixture {
    points: Vec<Point>,
}

/// One published measurement with its conditions, as the fixture gives it.
#[derive(Clone, Deserialize)]
pub struct Point {
    pub source: String,
    pub model: String,
    pub family: String,
    pub gpu: String,
    pub cards: u32,
    pub interconnect: Interconnect,
    #[serde(default = "yes")]
    nccl_p2p: bool,
    pub precision: Precision,
    pub memory_format: String,
    pub optimizer: Optimizer,
    pub batch_per_gpu: u32,
    pub samples_per_s: Option<f64>,
    pub run_s: Option<f64>,
    pub train_samples: Option<u64>,
    pub epochs: Option<u64>,
    pub bands: Option<u64>,
    pub patch: Option<u64>,
    pub classes: Option<u64>,
    pub num_workers: Option<u32>,
    /// The optimizer's `foreach` path (PyTorch >= 2.0 default); every published run here
    /// predates it unless the point says so.
    #[serde(default)]
    pub foreach: bool,
    /// CUDA loads its modules lazily (CUDA >= 11.7); false for older stacks.
    #[serde(default = "yes")]
    pub lazy_loading: bool,
    pub split: String,
}

fn yes() -> bool {
    true
}

impl Point {
    /// Measured seconds per optimizer step (all cards step together).
    pub fn measured_step_s(&self) -> f64 {
        match (self.samples_per_s, self.run_s) {
            (Some(rate), _) => f64::from(self.batch_per_gpu * self.cards) / rate,
            (None, Some(run)) => {
                let steps = self
                    .train_samples
                    .unwrap()
                    .div_ceil(u64::from(self.batch_per_gpu))
                    * self.epochs.unwrap();
                run / steps as f64
            }
            _ => panic!("a point needs samples_per_s or run_s"),
        }
    }
}

fn fixture() -> Fixture {
    serde_json::from_str(include_str!("../fixtures/published_steps.json")).unwrap()
}

fn model(p: &Point) -> ModelSpec {
    if let Some(id) = p.model.strip_prefix("zoo:") {
        let s = Scenario {
            model: ModelChoice::Preset {
                id: id.into(),
                width: None,
                size: None,
            },
            bands: p.bands.unwrap() as u32,
            patch: p.patch.unwrap() as u32,
            classes: p.classes.unwrap() as u32,
            ..Scenario::default()
        };
        return build_model(&s).unwrap();
    }
    super::read_fixture(&format!("published_models/{}.json", p.model))
}

/// The card as the benchmark ran it: with `NCCL_P2P_DISABLE=1` NCCL uses neither NVLink
/// nor PCIe peer-to-peer but stages through host memory.
pub fn card_as_run(p: &Point) -> GpuSpec {
    let mut gpu = *gpu_by_id(&p.gpu).unwrap();
    if !p.nccl_p2p {
        gpu.nvlink = NvLink::None;
        gpu.pcie_p2p = false;
    }
    gpu
}

/// A point with its model analysed once (the analysis does not depend on the constants
/// being fitted).
pub struct Case {
    pub point: Point,
    pub spec: ModelSpec,
    pub analysis: Analysis,
}

/// Every point of the fixture, in file order.
pub fn cases() -> Vec<Case> {
    let mut specs: BTreeMap<String, ModelSpec> = BTreeMap::new();
    fixture()
        .points
        .into_iter()
        .map(|point| {
            let key = format!(
                "{}{:?}{:?}{:?}",
                point.model, point.bands, point.patch, point.classes
            );
            let spec = specs.entry(key).or_insert_with(|| model(&point)).clone();
            let analysis = analyze(&spec, point.batch_per_gpu.into(), point.precision).unwrap();
            Case {
                point,
                spec,
                analysis,
            }
        })
        .collect()
}

/// The point as a Scenario: its model, card, cards, precision, batch and optimizer, the
/// software conditions it was measured under, and `perf` (the constants being checked or
/// fitted).
pub fn scenario(c: &Case, perf: &PerfAssumptions) -> Scenario {
    let p = &c.point;
    let mut perf = perf.clone();
    perf.device.channels_last = p.memory_format == "nhwc";
    perf.host.foreach = p.foreach;
    // The same PyTorch releases (< 2.0) zero gradients with kernels.
    perf.host.zero_grad_to_none = p.foreach;
    if !p.lazy_loading {
        perf.host.startup_s = EAGER_LOADING_STARTUP_S;
    }
    let whole_run = p.run_s.is_some();
    Scenario {
        model: ModelChoice::Custom {
            spec: c.spec.clone(),
        },
        bands: p.bands.unwrap_or(1) as u32,
        patch: p.patch.unwrap_or(1) as u32,
        classes: p.classes.unwrap_or(1000) as u32,
        batch_per_gpu: p.batch_per_gpu,
        precision: p.precision,
        // Throughput benchmarks (timm, Lambda, NVIDIA's) set cudnn.benchmark; the HSI
        // code's whole run keeps PyTorch's default.
        cudnn_benchmark: !whole_run,
        optimizer: p.optimizer,
        gpu: p.gpu.clone(),
        cards: p.cards,
        interconnect: if p.nccl_p2p {
            p.interconnect
        } else {
            Interconnect::Pcie
        },
        pipeline: Pipeline {
            num_workers: p.num_workers.unwrap_or(0),
            // Synthetic or GPU-side (DALI) input: the batch is already on the device.
            cube_on_gpu: !whole_run,
            // Throughput benchmarks do not sync every step; HSI scripts call loss.item().
            sync_every_step: whole_run,
            ..Pipeline::default()
        },
        perf,
        ..Scenario::default()
    }
}

/// Estimated seconds per optimizer step (for a whole-run measurement: the run's
/// estimate, start-up included, over its steps) and what bounds the step.
pub fn estimate(c: &Case, perf: &PerfAssumptions) -> (f64, StepBound) {
    let s = scenario(c, perf);
    let gpu = card_as_run(&c.point);
    let (report, _) = performance(&c.analysis.layers, c.analysis.params, &s, &gpu);
    let t = &report.time;
    match c.point.run_s {
        Some(run_s) => {
            let steps = run_s / c.point.measured_step_s();
            ((report.epoch.startup_s + steps * t.step_s) / steps, t.bound)
        }
        None => (t.step_s, t.bound),
    }
}

/// A point's measured and estimated step time.
pub struct Row {
    pub point: Point,
    pub estimated_s: f64,
    pub measured_s: f64,
    pub bound: StepBound,
}

impl Row {
    /// Estimated / measured step time.
    pub fn ratio(&self) -> f64 {
        self.estimated_s / self.measured_s
    }
    pub fn factor(&self) -> f64 {
        self.ratio().max(1.0 / self.ratio())
    }
}

/// Each case estimated with the constants `a`.
pub fn rows(cases: &[Case], a: &PerfAssumptions) -> Vec<Row> {
    cases
        .iter()
        .map(|c| {
            let (estimated_s, bound) = estimate(c, a);
            Row {
                measured_s: c.point.measured_step_s(),
                estimated_s,
                bound,
                point: c.point.clone(),
            }
        })
        .collect()
}
/// Median |relative error| of the step time and worst factor.
pub fn errors(rows: &[&Row]) -> (f64, f64) {
    (
        median(rows.iter().map(|r| (r.ratio() - 1.0).abs()).collect()),
        rows.iter().map(|r| r.factor()).fold(1.0, f64::max),
    )
}

fn gpu_family(gpu: &str) -> &'static str {
    match gpu {
        g if g.starts_with("v100") => "Volta",
        g if g.starts_with("a100") || g == "a10" || g == "rtx_3090" || g == "rtx_a6000" => "Ampere",
        g if g.starts_with("h100") => "Hopper",
        _ => "Ada",
    }
}

fn ranks(xs: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..xs.len()).collect();
    order.sort_by(|&i, &j| xs[i].total_cmp(&xs[j]));
    let mut r = vec![0.0; xs.len()];
    for (rank, i) in order.into_iter().enumerate() {
        r[i] = rank as f64;
    }
    r
}

fn spearman(a: &[f64], b: &[f64]) -> f64 {
    let (ra, rb) = (ranks(a), ranks(b));
    let n = a.len() as f64;
    let d2: f64 = ra.iter().zip(&rb).map(|(x, y)| (x - y).powi(2)).sum();
    1.0 - 6.0 * d2 / (n * (n * n - 1.0))
}

/// Spearman of measured vs estimated step time over the single-card points of one source
/// (one model and precision over many GPUs).
pub fn gpu_spearman(rows: &[Row], source: &str) -> f64 {
    let single: Vec<&Row> = rows
        .iter()
        .filter(|r| r.point.source == source && r.point.cards == 1)
        .collect();
    let measured: Vec<f64> = single
        .iter()
        .map(|r| r.measured_s / f64::from(r.point.batch_per_gpu))
        .collect();
    let estimated: Vec<f64> = single
        .iter()
        .map(|r| r.estimated_s / f64::from(r.point.batch_per_gpu))
        .collect();
    spearman(&measured, &estimated)
}

/// Points whose estimate is faster than the measurement (the optimistic side).
pub fn too_fast(rows: &[&Row]) -> usize {
    rows.iter().filter(|r| r.ratio() < 1.0).count()
}

/// The error summary of `rows` and the same by GPU family and by architecture family.
pub fn table(title: &str, rows: &[&Row]) {
    let (med, worst) = errors(rows);
    println!(
        "{title}: {} points, median |error| {:.1} %, worst factor {:.2}, {} estimated too fast",
        rows.len(),
        med * 100.0,
        worst,
        too_fast(rows)
    );
    for (name, key) in [
        (
            "GPU family",
            (|r: &Row| gpu_family(&r.point.gpu).to_string()) as fn(&Row) -> String,
        ),
        ("architecture family", |r: &Row| r.point.family.clone()),
    ] {
        let mut groups: BTreeMap<String, Vec<&Row>> = BTreeMap::new();
        for r in rows {
            groups.entry(key(r)).or_default().push(r);
        }
        for (g, rs) in groups {
            let (m, w) = errors(&rs);
            println!(
                "  {name} {g:<24} n={:<3} median {:>5.1} %  worst {:.2}  too fast {}",
                rs.len(),
                m * 100.0,
                w,
                too_fast(&rs)
            );
        }
    }
}

/// Every point's error, the fit and holdout tables and the GPU ranking's Spearman.
pub fn report(rows: &[Row]) {
    for r in rows {
        println!(
            "{:<8} {:<12} {:<24} {:<13} x{} b{:<5} {:<14} measured {:>9.2} ms  estimated {:>9.2} ms  {:+6.1} %  {}",
            r.point.split,
            r.point.source,
            r.point.model,
            r.point.gpu,
            r.point.cards,
            r.point.batch_per_gpu,
            r.point.precision.id(),
            r.measured_s * 1e3,
            r.estimated_s * 1e3,
            (r.ratio() - 1.0) * 100.0,
            r.bound.id(),
        );
    }
    let split = |s: &str| -> Vec<&Row> { rows.iter().filter(|r| r.point.split == s).collect() };
    table("fit", &split("fit"));
    table("holdout", &split("holdout"));
    for source in ["lambda_tf32", "lambda_amp"] {
        println!(
            "GPU ranking Spearman ({source}, single card): {:.3}",
            gpu_spearman(rows, source)
        );
    }
}
