//! HSI GPU Planner's estimator core: pure, deterministic, no browser or UI dependency.
//! `estimate(&Scenario)` turns a scenario into a `Report`.

pub mod allocator;
pub mod analysis;
pub mod article;
pub mod assumptions;
pub mod chart;
pub mod choices;
pub mod cluster;
pub mod compare;
pub mod cost;
pub mod cudnn;
pub mod dataset;
pub mod device;
pub mod format;
pub mod foundation;
pub mod gpu;
pub mod graph;
pub mod host;
pub mod inference;
pub mod json;
pub mod levers;
pub mod links;
pub mod market;
pub mod measurement;
pub mod memory;
pub mod order;
pub mod parallel;
pub mod perf;
pub mod pipeline;
pub mod problems;
pub mod report;
pub mod scaling;
pub mod scenario;
pub mod shard;
pub mod steptime;
pub mod thesis;
pub mod warning;
pub mod whatifs;
pub mod zoo;

pub use problems::FieldError;
pub use report::Report;
pub use scenario::Scenario;

use std::borrow::Cow;

use analysis::LayerReport;
use gpu::GpuSpec;
use graph::{ModelSpec, Op};
use perf::PerfReport;
use scenario::ModelChoice;
use warning::Warning;
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
            let options = ZooOptions {
                bands: s.bands,
                patch: s.patch,
                classes: s.classes,
                width: *width,
                size: *size,
            };
            zoo::build(entry, &options, &s.mae)
        }
    }
}

/// Everything the planner computes for a scenario, or every problem with it: the whole
/// walk, step by step.
pub fn estimate(s: &Scenario) -> Result<Report, Vec<FieldError>> {
    let (s, remark) = linked(s);
    let (spec, gpu) = checked(&s)?;
    let mut report = estimate_with(&s, &spec, &gpu, None)?;
    report.warnings.extend(remark);
    report.warnings.extend(input_remarks(&s));
    Ok(report)
}

/// Settings the estimate takes as asked though the card or the dataset cannot have them:
/// ECC on a card without it, more bands than the sensor delivers, a patch wider than the
/// scene (a preset's input: a custom model brings its own).
fn input_remarks(s: &Scenario) -> Vec<Warning> {
    let mut out = Vec::new();
    if let (true, Some(gpu)) = (s.ecc, gpu::gpu_by_id(&s.gpu)) {
        if market::market_by_id(gpu.id).is_some_and(|m| m.ecc == market::Ecc::None) {
            out.push(Warning::EccIgnored {
                gpu: gpu.name.into(),
            });
        }
    }
    let preset = matches!(s.model, scenario::ModelChoice::Preset { .. });
    if let Some(d) = dataset::dataset_by_id(&s.dataset).filter(|_| preset) {
        if s.bands > d.bands_raw {
            out.push(Warning::BandsOverDataset {
                bands: s.bands,
                dataset: d.name.into(),
                raw: d.bands_raw,
                used: d.bands_used,
            });
        }
        if s.patch > d.height.min(d.width) {
            out.push(Warning::PatchOverScene {
                patch: s.patch,
                dataset: d.name.into(),
                height: d.height,
                width: d.width,
            });
        }
    }
    out
}

/// `s` on a link its card has, and the remark when that is not the one it names: an SXM
/// module sits on NVSwitch only, a card without a bridge connector has PCIe only, and a
/// scenario that changed cards (or a file that left the default PCIe) should still
/// estimate rather than fail.
pub fn linked(s: &Scenario) -> (Cow<'_, Scenario>, Option<Warning>) {
    let Some(gpu) = market::scenario_card(s) else {
        return (Cow::Borrowed(s), None);
    };
    let links = scaling::valid_interconnects(&gpu);
    if links.contains(&s.interconnect) {
        return (Cow::Borrowed(s), None);
    }
    let remark = Warning::LinkReplaced {
        gpu: gpu.name.into(),
        nvswitch: links[0] == scenario::Interconnect::Nvswitch,
    };
    let s = Scenario {
        interconnect: links[0],
        ..s.clone()
    };
    (Cow::Owned(s), Some(remark))
}

/// The topologies to offer for `s`: its card's (every one for a card not in the catalog),
/// and its own choice where that is not one of them, so a select still shows it while
/// `linked` explains the replacement.
pub fn interconnect_choices(s: &Scenario) -> Vec<scenario::Interconnect> {
    let mut links = gpu::gpu_by_id(&s.gpu).map_or_else(
        || scenario::Interconnect::ALL.to_vec(),
        scaling::valid_interconnects,
    );
    if !links.contains(&s.interconnect) {
        links.push(s.interconnect);
    }
    links
}

/// The scenario's model on any card, for what-ifs on a modified card (`levers`): the
/// scenario is assumed valid for the catalog card it names. `max_batch`, when the caller
/// knows it (a lever that leaves memory as it is), spares the largest-batch search.
pub fn estimate_on(
    s: &Scenario,
    gpu: &GpuSpec,
    max_batch: Option<u32>,
) -> Result<Report, Vec<FieldError>> {
    let spec = build_model(s).map_err(|e| vec![e])?;
    estimate_with(s, &spec, gpu, max_batch)
}

/// The walk after `checked`: analysis -> what one GPU holds and does (`parallel`: the
/// model split and staged, its memory) -> performance -> the Report.
fn estimate_with(
    s: &Scenario,
    spec: &ModelSpec,
    gpu: &GpuSpec,
    known_max_batch: Option<u32>,
) -> Result<Report, Vec<FieldError>> {
    let training = analysis::Training::of(s, gpu);
    let analysis =
        analysis::analyze_with(spec, s.batch_per_gpu.into(), &training).map_err(|e| vec![e])?;
    // The model on one card alone: the scaling's baseline (without model parallelism
    // the plan's own step).
    let parallel = s.tensor_parallel * s.pipeline_parallel > 1;
    let plain =
        parallel.then(|| perf::one_card(&analysis.layers, analysis.trainable_params, s, gpu));
    let (params, trainable_params) = (analysis.params, analysis.trainable_params);
    let flops = [analysis.fwd_flops, analysis.bwd_flops].map(|f| f / f64::from(s.batch_per_gpu));
    let plan = parallel::plan(s, spec, analysis, gpu, &training).map_err(|e| vec![e])?;
    let max_batch = match known_max_batch {
        Some(known) => known,
        None if parallel => plan.max_batch(s, gpu),
        None => memory::max_batch(spec, s, gpu).map_err(|e| vec![e])?,
    };
    let replica = Replica {
        card: &plan.card,
        params: plan.report.params_per_gpu,
        cards: plan.cards(),
        tensor: plan.report.tensor_parallel,
    };
    let (perf, mut warnings) =
        performance_of(plain.as_ref().unwrap_or(&plan.card), &replica, s, gpu);
    if spec.layers.iter().any(|l| matches!(l.op, Op::Rnn { .. })) {
        warnings.push(Warning::RecurrentReserve);
    }
    Ok(Report {
        model_name: spec.name.clone(),
        params,
        trainable_params,
        fwd_flops_per_sample: flops[0],
        bwd_flops_per_sample: flops[1],
        memory: plan.memory,
        max_batch,
        perf,
        parallel: plan.report,
        lever_baseline: None,
        levers: Vec::new(),
        best_lever: None,
        cudnn_benchmark_speedup: None,
        inference: None,
        warnings,
        layers: plan.analysis.layers,
    })
}

/// The scenario validated, its model built and its card found; every problem otherwise.
fn checked(s: &Scenario) -> Result<(ModelSpec, GpuSpec), Vec<FieldError>> {
    let mut errors = s.validate();
    let spec = build_model(s).map_err(|e| errors.push(e)).ok();
    // The layout's checks assume fields in range (a tensor_parallel of 0 divides nothing).
    if let Some(spec) = spec.as_ref().filter(|_| errors.is_empty()) {
        errors.extend(parallel::check(s, spec));
    }
    let gpu = market::scenario_card(s);
    match (spec, gpu, errors.is_empty()) {
        (Some(spec), Some(gpu), true) => Ok((spec, gpu)),
        _ => Err(errors),
    }
}

/// The performance half of the walk, for the analysis's per-layer figures (`layers`,
/// `params`) of a model on one card each: the step on one card -> scaling over 1..8
/// cards -> the scenario's step on its cards -> one epoch -> cost. Returns the figures
/// and the remarks on them.
pub fn performance(
    layers: &[LayerReport],
    params: u64,
    s: &Scenario,
    gpu: &GpuSpec,
) -> (PerfReport, Vec<Warning>) {
    let one_card = perf::one_card(layers, params, s, gpu);
    let replica = Replica {
        card: &one_card,
        params: layers.iter().map(|l| l.params).sum(),
        cards: 1,
        tensor: 1,
    };
    performance_of(&one_card, &replica, s, gpu)
}

/// One model replica's step as its GPUs see it (`parallel::Plan`), the parameters each
/// GPU holds, its cards and its tensor-parallel group.
struct Replica<'a> {
    card: &'a perf::OneCard,
    params: u64,
    cards: u32,
    tensor: u32,
}

/// `performance` for replicas of `replica` (`plain`: the model on one card alone, the
/// scaling's baseline).
fn performance_of(
    plain: &perf::OneCard,
    replica: &Replica,
    s: &Scenario,
    gpu: &GpuSpec,
) -> (PerfReport, Vec<Warning>) {
    let mut warnings = Vec::new();
    let one_card = replica.card;
    let trainable = one_card.step.params;
    warnings.extend(one_card.peak.warning.clone());
    let a = &s.perf.scaling;
    let dp = cluster::DataParallel {
        sharding: s.sharding,
        offload: s.offload,
        traffic: shard::traffic(s, replica.params as f64, trainable),
        network: cluster::Network::new(s.node_link, s.nics_per_node, perf::run_nodes(s), a),
        pcie_bytes_per_s: scaling::pcie_x16_bytes_per_s(gpu.pcie_gen)
            * s.perf.pipeline.pcie_efficiency,
        offload_bytes_per_param: shard::Layout::of(s).grad + shard::Layout::of(s).weight,
    };
    let group = scaling::Replica {
        step: &one_card.step,
        cards: replica.cards,
        tensor: replica.tensor,
    };
    let scaling = scaling::scaling(&plain.step, group, gpu, s.interconnect, s.cards, &dp, a);
    let time = perf::step_time(one_card, &scaling, s);
    let epoch = perf::epoch_time(s, &time, &mut warnings);
    let cost = cost::cost(&s.cost, gpu, &perf::usage(s, &time, &epoch));
    if !cost.card_price_known {
        warnings.push(Warning::PriceUnknown {
            gpu: gpu.name.into(),
        });
    }
    let report = PerfReport::new(one_card.clone(), gpu, time, epoch, scaling, cost);
    (report, warnings)
}
