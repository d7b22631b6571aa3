//! HSI GPU Planner's estimator core: pure, deterministic, no browser or UI dependency.
//! `estimate(&Scenario)` turns a scenario into a `Report`.

pub mod analysis;
pub mod chart;
pub mod compare;
pub mod cost;
pub mod dataset;
pub mod format;
pub mod gpu;
mod gpu_2026;
pub mod graph;
mod json_fields;
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
    let analysis =
        analysis::analyze(&spec, s.batch_per_gpu.into(), s.precision).map_err(|e| vec![e])?;
    let memory = memory::breakdown(&analysis, s, gpu);
    let max_batch = memory::max_batch(&spec, s, gpu).map_err(|e| vec![e])?;
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
        warnings,
        layers: analysis.layers,
    })
}
