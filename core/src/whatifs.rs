//! The estimate with its what-ifs: `estimate_all` adds to `estimate`'s Report what each
//! lever would change (`levers`) and the evaluation and scene prediction after training
//! (`inference`); `compare_levers` lays the levers of every option of a comparison side
//! by side, a row per lever option. It sits above `compare`, whose largest-patch search
//! the lever table uses.

use serde::Serialize;

use crate::compare::sensitivity::largest_patch;
use crate::compare::{best_of, Better, Comparison};
use crate::gpu::GpuSpec;
use crate::levers::{Lever, LeverOutcome, LeverPoint};
use crate::steptime::StepBound;
use crate::{analysis, build_model, estimate, estimate_on, inference, levers};
use crate::{FieldError, Report, Scenario};

/// The estimate with its what-ifs: what each lever would change (`levers`) and the
/// evaluation and scene prediction after training (`inference`). What the CLI's `estimate`
/// and the page show; `estimate` alone is what comparisons and searches repeat.
pub fn estimate_all(s: &Scenario) -> Result<Report, Vec<FieldError>> {
    let mut report = estimate(s)?;
    // The what-ifs start from the link the estimate used.
    let s = &crate::linked(s).0;
    let gpu = &crate::market::scenario_card(s).expect("estimate checked the GPU id");
    let spec = build_model(s).map_err(|e| vec![e])?;
    let (base, outcomes) = lever_outcomes(s, gpu, &report, true);
    report.best_lever = levers::best_lever(&base, &outcomes);
    report.levers = outcomes;
    report.lever_baseline = Some(base);
    report.cudnn_benchmark_speedup = cudnn_benchmark_speedup(s, gpu, &report);
    let training = analysis::Training::of(s, gpu);
    let analysis =
        analysis::analyze_with(&spec, s.batch_per_gpu.into(), &training).map_err(|e| vec![e])?;
    // Against the run as the page and the lever table show it (start-up included).
    report.inference = inference::inference(&spec, &analysis, s, gpu, report.perf.epoch.run_s)
        .map_err(|e| vec![e])?;
    Ok(report)
}

/// The step's speed-up with `cudnn.benchmark` on, where the scenario has it off and the
/// gain is real (over `levers::MIN_SPEEDUP`; `Report::cudnn_benchmark_speedup`).
fn cudnn_benchmark_speedup(s: &Scenario, gpu: &GpuSpec, report: &Report) -> Option<f64> {
    // The flag picks convolution algorithms only: a model without one (a ViT, a GRU) is
    // not estimated again.
    if s.cudnn_benchmark || report.layers.iter().all(|l| l.conv.is_none()) {
        return None;
    }
    let timed = Scenario {
        cudnn_benchmark: true,
        ..s.clone()
    };
    let step = estimate_on(&timed, gpu, Some(report.max_batch))
        .ok()?
        .perf
        .time
        .step_s;
    let speedup = report.perf.time.step_s / step;
    (speedup > levers::MIN_SPEEDUP).then_some(speedup)
}

/// The scenario's own lever point and every lever's outcome, from its estimate `report`;
/// with `largest_patches` false the largest patches are not searched (None: the best lever
/// does not depend on them, and the search is most of the cost).
pub fn lever_outcomes(
    s: &Scenario,
    gpu: &GpuSpec,
    report: &Report,
    largest_patches: bool,
) -> (LeverPoint, Vec<LeverOutcome>) {
    let known = |patch: Option<u32>| (!largest_patches).then_some(patch);
    let base = lever_point(s, gpu, report, known(None));
    let outcomes = levers::outcomes(&base, &levers::trials(s, gpu), |t, g| {
        let memory_as_is = levers::memory_as_is(s, gpu, t, g);
        let r = estimate_on(t, g, memory_as_is.then_some(report.max_batch)).ok()?;
        // Only more capacity moves the largest patch: reuse the scenario's otherwise.
        let patch =
            (g.memory_bytes == gpu.memory_bytes || !largest_patches).then_some(base.largest_patch);
        Some(lever_point(t, g, &r, patch))
    });
    (base, outcomes)
}

/// One lever option across a comparison: its outcome on each option (None where the
/// option cannot be estimated or the lever does not apply, e.g. no better link) and the
/// options it speeds up most.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LeverRow {
    pub lever: Lever,
    /// The lever's factor; None for the interconnect, whose factor is each card's own
    /// (the best link's bus bandwidth over the option's).
    pub factor: Option<f64>,
    pub outcomes: Vec<Option<LeverOutcome>>,
    /// Options with the largest speed-up, where it is a real gain (over
    /// `levers::MIN_SPEEDUP`); none where the best is no gain (e.g. every option at 1x).
    pub best: Vec<usize>,
}

/// Every lever option of every option of `c`, a row per lever option in `Lever::ALL`
/// order (each factor once), as the lever table has them for one scenario.
pub fn compare_levers(c: &Comparison) -> Vec<LeverRow> {
    let per_option: Vec<Vec<LeverOutcome>> = c
        .options
        .iter()
        .map(|o| {
            let Ok(report) = estimate(&o.scenario) else {
                return Vec::new();
            };
            let s = &crate::linked(&o.scenario).0;
            let gpu = crate::market::scenario_card(s).expect("estimate checked the GPU id");
            lever_outcomes(s, &gpu, &report, true).1
        })
        .collect();
    let key = |o: &LeverOutcome| {
        (
            o.lever,
            (o.lever != Lever::Interconnect).then_some(o.factor),
        )
    };
    // Every option lists its levers in the same order: merge the lists, keeping it.
    let mut keys: Vec<(Lever, Option<f64>)> = Vec::new();
    for outcomes in &per_option {
        let mut at = 0;
        for k in outcomes.iter().map(key) {
            match keys.iter().position(|x| *x == k) {
                Some(p) => at = p + 1,
                None => {
                    keys.insert(at, k);
                    at += 1;
                }
            }
        }
    }
    keys.into_iter()
        .map(|(lever, factor)| {
            let outcomes: Vec<Option<LeverOutcome>> = per_option
                .iter()
                .map(|os| os.iter().find(|o| key(o) == (lever, factor)).copied())
                .collect();
            let speedups: Vec<Option<f64>> =
                outcomes.iter().map(|o| o.and_then(|o| o.speedup)).collect();
            let mut best = best_of(&speedups, Better::Higher);
            best.retain(|&i| speedups[i].is_some_and(|s| s > levers::MIN_SPEEDUP));
            LeverRow {
                lever,
                factor,
                best,
                outcomes,
            }
        })
        .collect()
}

/// The lever table's figures for an estimate of `s` on `gpu`; the largest patch when known.
fn lever_point(
    s: &Scenario,
    gpu: &GpuSpec,
    r: &Report,
    known_patch: Option<Option<u32>>,
) -> levers::LeverPoint {
    let t = &r.perf.time;
    let fits = r.max_batch >= s.batch_per_gpu;
    let accum = f64::from(t.accum_steps);
    let cost = &r.perf.cost;
    levers::LeverPoint {
        fits,
        time_to_result_s: fits.then_some(r.perf.epoch.run_s),
        largest_batch: r.max_batch,
        largest_patch: known_patch.unwrap_or_else(|| largest_patch(s, gpu).value()),
        limit: match t.bound {
            _ if !fits => levers::Limit::Capacity,
            StepBound::Host => levers::Limit::Host,
            StepBound::Input => levers::Limit::Input,
            StepBound::Interconnect => levers::Limit::Interconnect,
            StepBound::Offload => levers::Limit::Offload,
            StepBound::Device => levers::limit_of(
                fits,
                accum * t.memory_limited_s,
                accum * t.compute_limited_s,
                accum * t.launch_limited_s,
                t.link_s(),
            ),
        },
        usd_per_experiment: (fits && cost.card_price_known).then_some(cost.usd_per_experiment),
    }
}
