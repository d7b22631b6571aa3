//! HSI GPU Planner's estimator core: pure, deterministic, no browser or UI dependency.
//! `estimate(&Scenario)` turns a scenario into a `Report`.

pub mod analysis;
pub mod article;
pub mod chart;
pub mod compare;
pub mod cost;
pub mod dataset;
pub mod format;
pub mod gpu;
pub mod graph;
pub mod inference;
mod json_fields;
pub mod levers;
pub mod market;
pub mod measurement;
pub mod memory;
pub mod perf;
pub mod report;
pub mod scaling;
pub mod scenario;
pub mod zoo;

pub use report::Report;
pub use scenario::{FieldError, Scenario};

use graph::ModelSpec;
use scenario::ModelChoice;
use zoo::ZooOptions;

/// The model a scenario describes: a zoo preset built for its geometry, or its custom spec.
pub fn build_model(s: &Scenario) -> Result<ModelSpec, FieldError> {
    match &s.model {
        ModelChoice::Custom { spec } => Ok(spec.clone()),
        ModelChoice::Preset { id, width, size } => {
            let entry = zoo::zoo_entry(id).ok_or_else(|| FieldError {
                field: "model.id".into(),
                value: id.clone(),
                allowed: zoo::zoo_ids().join(", "),
            })?;
            (entry.build)(&ZooOptions {
                bands: s.bands,
                patch: s.patch,
                classes: s.classes,
                width: *width,
                size: *size,
            })
        }
    }
}

/// Everything the planner computes for a scenario, or every problem with it.
pub fn estimate(s: &Scenario) -> Result<Report, Vec<FieldError>> {
    let mut errors = s.validate();
    let spec = build_model(s).map_err(|e| errors.push(e)).ok();
    let gpu = gpu::gpu_by_id(&s.gpu);
    if let Some(gpu) = gpu {
        let allowed = scaling::valid_interconnects(gpu);
        if !allowed.contains(&s.interconnect) {
            let ids: Vec<_> = allowed.iter().map(|i| i.id()).collect();
            errors.push(FieldError {
                field: "interconnect".into(),
                value: s.interconnect.id().into(),
                allowed: format!("{} on {}", ids.join(", "), gpu.name),
            });
        }
    }
    let (Some(spec), Some(gpu), true) = (spec, gpu, errors.is_empty()) else {
        return Err(errors);
    };
    estimate_with(s, &spec, gpu)
}

/// The scenario's model on any card, for what-ifs on a modified card (`levers`): the
/// scenario is assumed valid for the catalog card it names.
pub fn estimate_on(s: &Scenario, gpu: &gpu::GpuSpec) -> Result<Report, Vec<FieldError>> {
    let spec = build_model(s).map_err(|e| vec![e])?;
    estimate_with(s, &spec, gpu)
}

fn estimate_with(
    s: &Scenario,
    spec: &ModelSpec,
    gpu: &gpu::GpuSpec,
) -> Result<Report, Vec<FieldError>> {
    let analysis =
        analysis::analyze(spec, s.batch_per_gpu.into(), s.precision).map_err(|e| vec![e])?;
    let memory = memory::breakdown(&analysis, s, gpu);
    let max_batch = memory::max_batch(spec, s, gpu).map_err(|e| vec![e])?;
    let mut perf = perf::performance(&analysis.layers, analysis.params, s, gpu);
    let warnings = std::mem::take(&mut perf.warnings);
    Ok(Report {
        model_name: spec.name.clone(),
        params: analysis.params,
        fwd_flops_per_sample: analysis.fwd_flops / f64::from(s.batch_per_gpu),
        bwd_flops_per_sample: analysis.bwd_flops / f64::from(s.batch_per_gpu),
        memory,
        max_batch,
        perf,
        lever_baseline: None,
        levers: Vec::new(),
        best_lever: None,
        inference: None,
        warnings,
        layers: analysis.layers,
    })
}

/// The estimate with its what-ifs: what each lever would change (`levers`) and the
/// evaluation and scene prediction after training (`inference`). What the CLI's `estimate`
/// and the page show; `estimate` alone is what comparisons and searches repeat.
pub fn estimate_all(s: &Scenario) -> Result<Report, Vec<FieldError>> {
    let mut report = estimate(s)?;
    let gpu = gpu::gpu_by_id(&s.gpu).expect("estimate checked the GPU id");
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
    let analysis =
        analysis::analyze(&spec, s.batch_per_gpu.into(), s.precision).map_err(|e| vec![e])?;
    report.inference = inference::inference(&spec, &analysis, s, gpu, report.perf.epoch.total_s)
        .map_err(|e| vec![e])?;
    Ok(report)
}

/// The lever table's figures for an estimate of `s` on `gpu`; `largest_patch` when known.
fn lever_point(
    s: &Scenario,
    gpu: &gpu::GpuSpec,
    r: &Report,
    largest_patch: Option<Option<u32>>,
) -> levers::LeverPoint {
    let t = &r.perf.time;
    let fits = r.max_batch >= s.batch_per_gpu;
    let accum = f64::from(t.accum_steps);
    levers::LeverPoint {
        fits,
        time_to_result_s: fits.then_some(r.perf.epoch.total_s),
        largest_batch: r.max_batch,
        largest_patch: largest_patch
            .unwrap_or_else(|| compare::sensitivity::largest_patch(s, gpu).value()),
        limit: levers::limit_of(
            fits,
            accum * t.memory_limited_s,
            accum * t.compute_limited_s,
            accum * t.launch_limited_s,
            t.allreduce_exposed_s,
        ),
    }
}
