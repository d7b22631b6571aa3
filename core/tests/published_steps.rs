//! The step-time model against published training measurements
//! (fixtures/published_steps.json: sources, conditions and the fit/holdout split rule).
//!
//! Every point is estimated with the model's defaults; the test prints each point's
//! error and the error tables (median, worst, by GPU family and architecture family) for
//! the fitted and the held-out points, and fails when the held-out error grows past what
//! docs/validation.md states (`HELDOUT_*`) or when its table is not the one the points
//! give today. `fit_report` prints the same for the constants `tools/fit_steps.py` would
//! move, so a refit can be checked.

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

mod common;

/// Held-out bounds docs/validation.md states for the throughput benchmarks: median |error| of the
/// step time, worst factor, and the Spearman rank correlation of the GPUs on the
/// single-card ResNet-50 points (issue 12's targets: 20 %, 1.5x, 0.95).
const HELDOUT_MEDIAN: f64 = 0.12;
const HELDOUT_WORST: f64 = 1.5;
const GPU_SPEARMAN: f64 = 0.95;
/// Families added for issue 22 (grouped and depthwise convolutions the device model had
/// not seen; before their op classes were fitted: median 37 %, worst 2.01): their
/// held-out points on their own.
const ADDED_FAMILIES: [&str; 3] = ["convnext", "resnext", "regnet"];
const ADDED_MEDIAN: f64 = 0.15;
/// The SSFTT run on Indian Pines within this factor of its 15.5 s (issue 12: 2x).
const SSFTT_FACTOR: f64 = 2.0;

#[derive(Deserialize)]
struct Fixture {
    points: Vec<Point>,
}

#[derive(Clone, Deserialize)]
struct Point {
    source: String,
    model: String,
    family: String,
    gpu: String,
    cards: u32,
    interconnect: Interconnect,
    #[serde(default = "yes")]
    nccl_p2p: bool,
    precision: Precision,
    memory_format: String,
    optimizer: Optimizer,
    batch_per_gpu: u32,
    samples_per_s: Option<f64>,
    run_s: Option<f64>,
    train_samples: Option<u64>,
    epochs: Option<u64>,
    bands: Option<u64>,
    patch: Option<u64>,
    classes: Option<u64>,
    num_workers: Option<u32>,
    /// The optimizer's `foreach` path (PyTorch >= 2.0 default); every published run here
    /// predates it unless the point says so.
    #[serde(default)]
    foreach: bool,
    /// CUDA loads its modules lazily (CUDA >= 11.7); false for older stacks.
    #[serde(default = "yes")]
    lazy_loading: bool,
    split: String,
}

fn yes() -> bool {
    true
}

impl Point {
    /// Measured seconds per optimizer step (all cards step together).
    fn measured_step_s(&self) -> f64 {
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
    serde_json::from_str(include_str!("fixtures/published_steps.json")).unwrap()
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
    common::read_fixture(&format!("published_models/{}.json", p.model))
}

/// The card as the benchmark ran it: with `NCCL_P2P_DISABLE=1` NCCL uses neither NVLink
/// nor PCIe peer-to-peer but stages through host memory.
fn card_as_run(p: &Point) -> GpuSpec {
    let mut gpu = *gpu_by_id(&p.gpu).unwrap();
    if !p.nccl_p2p {
        gpu.nvlink = NvLink::None;
        gpu.pcie_p2p = false;
    }
    gpu
}

/// A point with its model analysed once (the analysis does not depend on the constants
/// being fitted).
struct Case {
    point: Point,
    spec: ModelSpec,
    analysis: Analysis,
}

fn cases() -> Vec<Case> {
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
fn scenario(c: &Case, perf: &PerfAssumptions) -> Scenario {
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
fn estimate(c: &Case, perf: &PerfAssumptions) -> (f64, StepBound) {
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

struct Row {
    point: Point,
    estimated_s: f64,
    measured_s: f64,
    bound: StepBound,
}

impl Row {
    /// Estimated / measured step time.
    fn ratio(&self) -> f64 {
        self.estimated_s / self.measured_s
    }
    fn factor(&self) -> f64 {
        self.ratio().max(1.0 / self.ratio())
    }
}

fn rows(cases: &[Case], a: &PerfAssumptions) -> Vec<Row> {
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

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

/// Median |relative error| of the step time and worst factor.
fn errors(rows: &[&Row]) -> (f64, f64) {
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
fn gpu_spearman(rows: &[Row], source: &str) -> f64 {
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
fn too_fast(rows: &[&Row]) -> usize {
    rows.iter().filter(|r| r.ratio() < 1.0).count()
}

fn table(title: &str, rows: &[&Row]) {
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

fn report(rows: &[Row]) {
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

#[test]
fn held_out_published_steps_within_the_stated_error() {
    let rows = rows(&cases(), &PerfAssumptions::default());
    report(&rows);
    // The HSI run has its own bound (the SSFTT test below): a whole training run on an
    // unknown host, not a throughput benchmark.
    let held: Vec<&Row> = rows
        .iter()
        .filter(|r| r.point.split == "holdout" && r.point.run_s.is_none())
        .collect();
    table("holdout, throughput benchmarks", &held);
    let (med, worst) = errors(&held);
    assert!(
        med <= HELDOUT_MEDIAN,
        "held-out median {med:.3} > {HELDOUT_MEDIAN}"
    );
    assert!(
        worst <= HELDOUT_WORST,
        "held-out worst {worst:.2} > {HELDOUT_WORST}"
    );
    for source in ["lambda_tf32", "lambda_amp"] {
        let rho = gpu_spearman(&rows, source);
        assert!(rho >= GPU_SPEARMAN, "{source}: Spearman {rho:.3}");
    }
    let added: Vec<&Row> = held
        .iter()
        .copied()
        .filter(|r| ADDED_FAMILIES.contains(&r.point.family.as_str()))
        .collect();
    table("holdout, ConvNeXt, ResNeXt and RegNet", &added);
    let (med, worst) = errors(&added);
    assert!(
        !added.is_empty() && med <= ADDED_MEDIAN && worst <= HELDOUT_WORST,
        "added families held out: median {med:.3}, worst {worst:.2}"
    );
    // docs/validation.md's step-time table carries these rows as they are today.
    let earlier: Vec<&Row> = held
        .iter()
        .copied()
        .filter(|r| !ADDED_FAMILIES.contains(&r.point.family.as_str()))
        .collect();
    let split = |s: &str| -> Vec<&Row> { rows.iter().filter(|r| r.point.split == s).collect() };
    let doc_row = |name: String, rows: &[&Row]| {
        let (med, worst) = errors(rows);
        let n = rows.len();
        format!(
            "| {name} | {n} | {:.1} % | {worst:.2} | {} |",
            med * 100.0,
            too_fast(rows)
        )
    };
    // The page's note on how well the estimate was checked says the held-out median.
    let note = common::repo_file("src/i18n/strings.rs");
    let (med, _) = errors(&held);
    for said in [
        format!(
            "step time off by {:.0} % at the median on published benchmarks",
            med * 100.0
        ),
        format!("单步时间在公开基准上的中位误差为 {:.0} %", med * 100.0),
    ] {
        assert!(note.contains(&said), "the page's note should say: {said}");
    }
    let doc = common::repo_file("docs/validation.md");
    for said in [
        doc_row("held out, throughput benchmarks".into(), &held),
        doc_row(
            format!("of which the {} earlier points", earlier.len()),
            &earlier,
        ),
        doc_row("of which ConvNeXt, ResNeXt, RegNet".into(), &added),
        doc_row(
            "held out, all (with the SSFTT run)".into(),
            &split("holdout"),
        ),
        doc_row("fitted".into(), &split("fit")),
    ] {
        assert!(
            doc.lines().any(|l| l == said),
            "docs/validation.md should carry: {said}"
        );
    }
}

#[test]
fn the_ssftt_run_is_host_bound_and_within_2x() {
    let rows = rows(&cases(), &PerfAssumptions::default());
    let r = rows.iter().find(|r| r.point.source == "ssftt").unwrap();
    let run = |step_s: f64| step_s * r.measured_s.recip() * r.point.run_s.unwrap();
    println!(
        "SSFTT Indian Pines, RTX 3090: measured {:.1} s, estimated {:.1} s, bound by {}",
        r.point.run_s.unwrap(),
        run(r.estimated_s),
        r.bound.id()
    );
    assert!(r.factor() <= SSFTT_FACTOR, "factor {:.2}", r.factor());
    assert_eq!(r.bound, StepBound::Host);
    // Its step, term by term, and the same run with today's PyTorch defaults (foreach
    // Adam, gradients set to None, lazy loading).
    let case = cases()
        .into_iter()
        .find(|c| c.point.source == "ssftt")
        .unwrap();
    let s = scenario(&case, &PerfAssumptions::default());
    let (report, _) = performance(
        &case.analysis.layers,
        case.analysis.params,
        &s,
        &card_as_run(&case.point),
    );
    let t = &report.time;
    let mut today = case;
    (today.point.foreach, today.point.lazy_loading) = (true, true);
    let today_s = estimate(&today, &PerfAssumptions::default()).0;
    println!(
        "  per step: host {:.1} ms, input {:.1} ms, device {:.1} ms; with today's defaults {:.1} s",
        t.host_s * 1e3,
        t.input_s * 1e3,
        t.device_s * 1e3,
        run(today_s)
    );
}

/// The constants the fit moves, with the range each may take.
type Field = (&'static str, fn(&mut PerfAssumptions) -> &mut f64, f64, f64);

const FITTED: [Field; 15] = [
    (
        "compute_efficiency",
        |a| &mut a.compute_efficiency,
        0.2,
        0.9,
    ),
    ("memory_efficiency", |a| &mut a.memory_efficiency, 0.5, 0.95),
    (
        "conv_efficiency",
        |a| &mut a.device.conv_efficiency,
        0.1,
        1.0,
    ),
    (
        "fp32_conv_efficiency",
        |a| &mut a.device.fp32_conv_efficiency,
        0.2,
        1.0,
    ),
    (
        "conv3d_tensor_factor",
        |a| &mut a.device.conv3d_tensor_factor,
        0.05,
        1.0,
    ),
    (
        "conv3d_fp32_factor",
        |a| &mut a.device.conv3d_fp32_factor,
        0.1,
        1.0,
    ),
    (
        "grouped_efficiency",
        |a| &mut a.device.grouped_efficiency,
        0.01,
        1.0,
    ),
    (
        "grouped_depth_half",
        |a| &mut a.device.grouped_depth_half,
        1.0,
        1000.0,
    ),
    (
        "grouped_channels_half",
        |a| &mut a.device.grouped_channels_half,
        1.0,
        1000.0,
    ),
    ("norm_passes", |a| &mut a.device.norm_passes, 1.0, 3.0),
    ("conv_traffic", |a| &mut a.device.conv_traffic, 1.0, 4.0),
    (
        "transpose_passes",
        |a| &mut a.device.transpose_passes,
        0.0,
        6.0,
    ),
    (
        "attention_score_passes",
        |a| &mut a.device.attention_score_passes,
        4.0,
        64.0,
    ),
    ("l2_speedup", |a| &mut a.device.l2_speedup, 1.0, 5.0),
    (
        "memory_issue_per_kib",
        |a| &mut a.device.memory_issue_per_kib,
        0.0,
        10000.0,
    ),
];

/// Mean |ln(estimate / measurement)| over the fit points.
fn fit_loss(cases: &[Case], a: &PerfAssumptions) -> f64 {
    let fit: Vec<f64> = cases
        .iter()
        .filter(|c| c.point.split == "fit")
        .map(|c| (estimate(c, a).0 / c.point.measured_step_s()).ln().abs())
        .collect();
    fit.iter().sum::<f64>() / fit.len() as f64
}

/// Deterministic coordinate descent over `FITTED` on the fit points only. Run with
/// `cargo test -p hsi-gpu-core --test published_steps -- --ignored --nocapture`; copy
/// the printed constants into `DeviceAssumptions::default` (core/src/assumptions.rs).
/// `FIT_ONLY=name,name` refits those constants alone, the others as they are.
#[test]
#[ignore]
fn fit_device_constants() {
    let cases = cases();
    let only = std::env::var("FIT_ONLY").ok();
    let fitted = |name: &str| {
        only.as_ref()
            .is_none_or(|o| o.split(',').any(|n| n == name))
    };
    let mut a = PerfAssumptions::default();
    let mut best = fit_loss(&cases, &a);
    println!("loss at the defaults {best:.4}");
    for round in 0..5 {
        for (name, field, lo, hi) in FITTED.into_iter().filter(|f| fitted(f.0)) {
            let start = *field(&mut a);
            for factor in [0.6, 0.75, 0.9, 0.95, 1.05, 1.1, 1.3, 1.6] {
                let mut trial = a.clone();
                *field(&mut trial) = (start * factor).clamp(lo, hi);
                let loss = fit_loss(&cases, &trial);
                if loss < best - 1e-6 {
                    best = loss;
                    a = trial;
                }
            }
            println!(
                "round {round} {name:<24} {:.4}  loss {best:.4}",
                *field(&mut a)
            );
        }
    }
    report(&rows(&cases, &a));
}
