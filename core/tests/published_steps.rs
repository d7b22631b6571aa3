//! The step-time model against published training measurements
//! (fixtures/published_steps.json: sources, conditions and the fit/holdout split rule;
//! read, estimated and tabled by `common/published_steps.rs`).
//!
//! Every point is estimated with the model's defaults; the test prints each point's
//! error and the error tables (median, worst, by GPU family and architecture family) for
//! the fitted and the held-out points, and fails when the held-out error grows past what
//! docs/validation.md states (`HELDOUT_*`) or when its table is not the one the points
//! give today. `fit_device_constants` (`published_steps_fit.rs`) refits the constants on
//! the fit points and prints the same, so a refit can be checked.

use common::published_steps::{
    card_as_run, cases, errors, estimate, gpu_spearman, report, rows, scenario, table, too_fast,
    Row,
};
use hsi_gpu_core::assumptions::PerfAssumptions;
use hsi_gpu_core::performance;
use hsi_gpu_core::steptime::StepBound;

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
