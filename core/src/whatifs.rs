//! The estimate with its what-ifs: `estimate_all` adds to `estimate`'s Report what each
//! lever would change (`levers`) and the evaluation and scene prediction after training
//! (`inference`). It sits above `compare`, whose largest-patch search the lever table uses.

use crate::compare::sensitivity::largest_patch;
use crate::gpu::GpuSpec;
use crate::steptime::StepBound;
use crate::{analysis, build_model, estimate, estimate_on, inference, levers};
use crate::{FieldError, Report, Scenario};

/// The estimate with its what-ifs: what each lever would change (`levers`) and the
/// evaluation and scene prediction after training (`inference`). What the CLI's `estimate`
/// and the page show; `estimate` alone is what comparisons and searches repeat.
pub fn estimate_all(s: &Scenario) -> Result<Report, Vec<FieldError>> {
    let mut report = estimate(s)?;
    let gpu = &crate::market::scenario_card(s).expect("estimate checked the GPU id");
    let spec = build_model(s).map_err(|e| vec![e])?;
    let base = lever_point(s, gpu, &report, None);
    let outcomes = levers::outcomes(&base, &levers::trials(s, gpu), |t, g| {
        let r = estimate_on(t, g).ok()?;
        // Only more capacity moves the largest patch: reuse the scenario's otherwise.
        let patch = (g.memory_bytes == gpu.memory_bytes).then_some(base.largest_patch);
        Some(lever_point(t, g, &r, patch))
    });
    report.best_lever = levers::best_lever(&base, &outcomes);
    report.levers = outcomes;
    report.lever_baseline = Some(base);
    let training = analysis::Training::of(s, gpu);
    let analysis =
        analysis::analyze_with(&spec, s.batch_per_gpu.into(), &training).map_err(|e| vec![e])?;
    report.inference = inference::inference(&spec, &analysis, s, gpu, report.perf.epoch.total_s)
        .map_err(|e| vec![e])?;
    Ok(report)
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
    levers::LeverPoint {
        fits,
        time_to_result_s: fits.then_some(r.perf.epoch.total_s),
        largest_batch: r.max_batch,
        largest_patch: known_patch.unwrap_or_else(|| largest_patch(s, gpu).value()),
        limit: match t.bound {
            _ if !fits => levers::Limit::Capacity,
            StepBound::Host => levers::Limit::Host,
            StepBound::Input => levers::Limit::Input,
            StepBound::Device => levers::limit_of(
                fits,
                accum * t.memory_limited_s,
                accum * t.compute_limited_s,
                accum * t.launch_limited_s,
                t.allreduce_exposed_s,
            ),
        },
    }
}
