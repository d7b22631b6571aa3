//! The lever table: improving a resource that does not bind changes nothing, improving
//! the binding one helps, and a scenario that does not fit is helped by capacity only.

use hsi_gpu_core::levers::{BestLever, LeverPoint};
use hsi_gpu_core::levers::{Lever, LeverOutcome, Limit, MIN_SPEEDUP};
use hsi_gpu_core::whatifs::estimate_all;
use hsi_gpu_core::{scenario::scenario_from_json, Scenario};

fn lever_table(s: &Scenario) -> (LeverPoint, Vec<LeverOutcome>, Option<BestLever>) {
    let r = estimate_all(s).unwrap();
    (r.lever_baseline.unwrap(), r.levers, r.best_lever)
}

fn table(json: &str) -> (LeverPoint, Vec<LeverOutcome>) {
    let (base, outcomes, _) = lever_table(&scenario_from_json(json).unwrap());
    (base, outcomes)
}

fn of(outcomes: &[LeverOutcome], lever: Lever) -> Vec<&LeverOutcome> {
    outcomes.iter().filter(|o| o.lever == lever).collect()
}

/// The lever that relieves a limit; none shortens kernels held to the device's least time
/// per kernel.
fn lever_for(limit: Limit) -> Option<Lever> {
    match limit {
        Limit::Capacity => Some(Lever::MemoryCapacity),
        Limit::Bandwidth => Some(Lever::MemoryBandwidth),
        Limit::Compute => Some(Lever::Compute),
        Limit::Host | Limit::Offload => Some(Lever::HostCpu),
        Limit::Input => Some(Lever::InputPipeline),
        Limit::Interconnect => Some(Lever::Interconnect),
        Limit::KernelFloor => None,
    }
}

/// Element-wise layers and one small classifier over a large input: memory-bound in
/// every pass on every card. Its 3.3 MB samples would bind a DataLoader: the batch is made
/// on the card (`synthetic`), as a benchmark of the model alone does.
const MEMORY_BOUND: &str = r#"{"model": {"kind": "custom", "spec": {"name": "stream", "input": [1, 200, 64, 64],
    "layers": [{"op": "act", "kind": "relu"}, {"op": "act", "kind": "sigmoid"}, {"op": "act", "kind": "tanh"},
               {"op": "flatten"}, {"op": "linear", "out_features": 16}]}}, "classes": 16,
    "pipeline": {"synthetic": true}}"#;

#[test]
fn more_capacity_does_not_speed_up_a_run_that_fits_but_raises_batch_and_patch() {
    let (base, outcomes) = table("{}");
    assert!(base.fits);
    let capacity = of(&outcomes, Lever::MemoryCapacity);
    assert_eq!(capacity.len(), 2);
    for o in capacity {
        assert_eq!(o.speedup, Some(1.0), "{o:?}");
        assert!(o.largest_batch > base.largest_batch, "{o:?}");
        assert!(o.largest_patch > base.largest_patch, "{o:?}");
    }
}

/// More compute only speeds up the FP32 work a streaming kernel issues per byte
/// (`perf.device.memory_issue_per_kib`): a few percent, where 1.5x the bandwidth gives far
/// more.
#[test]
fn more_compute_barely_speeds_up_a_memory_bound_model_and_bandwidth_does() {
    let (base, outcomes) = table(MEMORY_BOUND);
    assert_eq!(base.limit, Limit::Bandwidth);
    let bandwidth = of(&outcomes, Lever::MemoryBandwidth)[0];
    let gain = bandwidth.speedup.unwrap();
    assert!(gain > 1.3, "{bandwidth:?}");
    for o in of(&outcomes, Lever::Compute) {
        let speedup = o.speedup.unwrap();
        assert!((1.0..1.05).contains(&speedup), "{o:?}");
    }
}

#[test]
fn the_lever_for_the_binding_resource_helps() {
    for json in [
        "{}",
        MEMORY_BOUND,
        r#"{"model": {"kind": "preset", "id": "ssftt"}, "patch": 13}"#,
        r#"{"batch_per_gpu": 4}"#,
    ] {
        let (base, outcomes) = table(json);
        let lever = lever_for(base.limit).unwrap_or_else(|| panic!("{json}: {:?}", base.limit));
        let best = of(&outcomes, lever)
            .iter()
            .filter_map(|o| o.speedup)
            .fold(0.0, f64::max);
        assert!(
            best > MIN_SPEEDUP,
            "{json}: {lever:?} for {:?} gives {best}",
            base.limit
        );
    }
}

#[test]
fn one_card_gains_nothing_from_a_faster_link() {
    let (_, outcomes) = table("{}");
    let link = of(&outcomes, Lever::Interconnect);
    assert_eq!(link.len(), 1, "the RTX A5500 has a bridge connector");
    assert_eq!(link[0].speedup, Some(1.0));
}

#[test]
fn a_bridged_pair_gains_from_nvlink_and_a_card_without_one_has_no_link_lever() {
    let (_, outcomes) = table(r#"{"cards": 2, "batch_per_gpu": 16}"#);
    let link = of(&outcomes, Lever::Interconnect)[0];
    assert!(link.factor > 1.0 && link.speedup.unwrap() > 1.0, "{link:?}");
    let (_, outcomes) = table(r#"{"gpu": "rtx_4090", "cards": 2}"#);
    assert!(of(&outcomes, Lever::Interconnect).is_empty());
}

#[test]
fn a_scenario_that_does_not_fit_is_helped_by_capacity_alone() {
    let s = scenario_from_json(r#"{"batch_per_gpu": 2500}"#).unwrap();
    let (base, outcomes, best) = lever_table(&s);
    assert!(!base.fits && base.time_to_result_s.is_none());
    assert_eq!(base.limit, Limit::Capacity);
    for o in &outcomes {
        assert_eq!(
            o.fits,
            o.lever == Lever::MemoryCapacity && o.largest_batch >= 2500,
            "{o:?}"
        );
    }
    let best = best.expect("more memory makes it fit");
    assert_eq!(best.lever, Lever::MemoryCapacity);
    let smallest_fitting = outcomes
        .iter()
        .filter(|o| o.fits)
        .map(|o| o.factor)
        .fold(f64::INFINITY, f64::min);
    assert_eq!(best.factor, smallest_fitting);
}

#[test]
fn the_comparison_has_a_row_per_lever_option_with_each_options_own_outcome() {
    use hsi_gpu_core::compare::presets::article_comparison;
    use hsi_gpu_core::whatifs::compare_levers;
    let c = article_comparison(&Scenario::default());
    let rows = compare_levers(&c);
    // Capacity x1.5 and x2, bandwidth, compute x1.5 and x2, the link (the A5500s have a
    // bridge), host CPU, the cube on the GPU.
    let names: Vec<(Lever, Option<f64>)> = rows.iter().map(|r| (r.lever, r.factor)).collect();
    assert_eq!(
        names,
        [
            (Lever::MemoryCapacity, Some(1.5)),
            (Lever::MemoryCapacity, Some(2.0)),
            (Lever::MemoryBandwidth, Some(1.5)),
            (Lever::Compute, Some(1.5)),
            (Lever::Compute, Some(2.0)),
            (Lever::Interconnect, None),
            (Lever::HostCpu, Some(1.5)),
            (Lever::InputPipeline, Some(1.0)),
        ]
    );
    for (i, option) in c.options.iter().enumerate() {
        let own = estimate_all(&option.scenario).unwrap().levers;
        for row in &rows {
            let expected = own.iter().find(|o| {
                o.lever == row.lever && (row.factor.is_none() || row.factor == Some(o.factor))
            });
            assert_eq!(
                row.outcomes[i].as_ref(),
                expected,
                "{} {:?}",
                option.label,
                row.lever
            );
        }
    }
    for row in &rows {
        let speedups: Vec<f64> = row
            .outcomes
            .iter()
            .flatten()
            .filter_map(|o| o.speedup)
            .collect();
        let top = speedups.iter().copied().fold(f64::MIN, f64::max);
        // The best are those at the top speed-up, and only where it is a real gain: a
        // tie at no gain (more capacity for a run that fits: 1x everywhere) marks nothing.
        if top > MIN_SPEEDUP {
            assert!(
                !row.best.is_empty()
                    && row
                        .best
                        .iter()
                        .all(|&i| row.outcomes[i].unwrap().speedup == Some(top))
            );
        } else {
            assert!(row.best.is_empty(), "{:?} {:?}", row.lever, row.factor);
        }
    }
    assert!(rows
        .iter()
        .filter(|r| r.lever == Lever::MemoryCapacity)
        .all(|r| r.best.is_empty()));
    // The NVLink-bridged option already has the best link; on the PCIe one bridges would
    // not widen a 4-card ring (it still crosses PCIe): neither has a link row.
    let link = rows.iter().find(|r| r.lever == Lever::Interconnect);
    assert!(link.is_none_or(|l| l.outcomes[4].is_none() && l.outcomes[5].is_none()));
    // A faster run on a priced card costs less per experiment (fewer hours of it).
    let compute = &rows[4].outcomes[0].unwrap();
    let base = estimate_all(&c.options[0].scenario)
        .unwrap()
        .lever_baseline
        .unwrap();
    assert!(compute.speedup.unwrap() > MIN_SPEEDUP);
    assert!(compute.usd_per_experiment.unwrap() < base.usd_per_experiment.unwrap());
}

/// The speed levers reuse the scenario's largest batch (`levers::memory_as_is`): on every
/// zoo model, and split, sharded or offloaded over cards, the search on the lever's own
/// trial finds the same batch.
#[test]
fn a_lever_that_leaves_memory_as_is_keeps_the_largest_batch_the_search_finds() {
    use hsi_gpu_core::{estimate, estimate_on, levers, market::scenario_card, zoo};
    let mut scenarios: Vec<String> = zoo::ZOO
        .iter()
        .map(|m| {
            format!(
                r#"{{"model": {{"kind": "preset", "id": "{}"}}, "patch": {}}}"#,
                m.id, m.default_patch
            )
        })
        .collect();
    scenarios.extend(
        [
            r#"{"cards": 2}"#,
            r#"{"gpu": "rtx_4090", "cards": 4, "sharding": "zero3", "model": {"kind": "preset", "id": "vit"}, "patch": 32}"#,
            r#"{"gpu": "rtx_4090", "sharding": "zero3", "offload": true, "model": {"kind": "preset", "id": "vit"}, "patch": 32}"#,
            r#"{"gpu": "h100_sxm", "cards": 4, "tensor_parallel": 2, "model": {"kind": "preset", "id": "vit"}, "patch": 32}"#,
            r#"{"gpu": "a100_80_sxm", "cards": 4, "pipeline_parallel": 2, "micro_batches": 4, "model": {"kind": "preset", "id": "vit"}, "patch": 32}"#,
        ]
        .map(String::from),
    );
    let mut reused = 0;
    for json in &scenarios {
        let s = scenario_from_json(json).unwrap();
        let s = hsi_gpu_core::linked(&s).0.into_owned();
        let gpu = scenario_card(&s).unwrap();
        let report = estimate(&s).unwrap();
        for t in levers::trials(&s, &gpu) {
            if !levers::memory_as_is(&s, &gpu, &t.scenario, &t.gpu) {
                continue;
            }
            let searched = estimate_on(&t.scenario, &t.gpu, None).unwrap().max_batch;
            assert_eq!(
                searched, report.max_batch,
                "{json}: {:?} x{}",
                t.lever, t.factor
            );
            reused += 1;
        }
    }
    assert!(reused >= 4 * scenarios.len(), "{reused} trials reused");
}

/// The table's time to a result is the run the Speed panel shows: its epochs and the CUDA
/// start-up (one figure for one run, wherever the page shows it).
#[test]
fn the_time_to_a_result_is_the_whole_run() {
    let s = Scenario::default();
    let r = estimate_all(&s).unwrap();
    let epoch = &r.perf.epoch;
    assert!(epoch.startup_s > 0.0);
    assert_eq!(
        r.lever_baseline.unwrap().time_to_result_s,
        Some(epoch.run_s)
    );
}

/// Faster kernels never slow a step: on a host-bound step across nodes backward's buckets
/// come ready at the host's pace, so they hide as much of the all-reduce as before; and
/// as DDP waits for the all-reduce at the end of backward, a host-bound step takes the
/// device's last backward whole (MAE ViT on 4 T4s, a 4-core host whose workers find no
/// core: compute x1.5 read 0.98x when the all-reduce was measured past the device's
/// backward but the host's total counted only its dispatch). ZeRO-3 and FSDP gather the
/// weights behind the forward and backward as the host paces them (0.87-0.97x when the
/// gathers were measured against the device's shorter kernels alone).
#[test]
fn more_compute_never_slows_a_host_bound_data_parallel_step() {
    for json in [
        r#"{"model": {"kind": "preset", "id": "vit", "size": "base"}, "patch": 16, "nodes": 64, "cards": 8}"#,
        r#"{"model": {"kind": "preset", "id": "vit", "size": "base"}, "patch": 16, "cards": 8, "gpu": "h100_sxm"}"#,
        r#"{"cards": 4}"#,
        r#"{"model": {"kind": "preset", "id": "mae_vit"}, "bands": 144, "patch": 96,
            "batch_per_gpu": 7, "cards": 4, "gpu": "t4", "cpu": "laptop",
            "checkpointing": true, "workload": {"grad_accum_steps": 4},
            "pipeline": {"cores": 4, "num_workers": 2, "precut": false,
                "sync_every_step": false}}"#,
        r#"{"model": {"kind": "preset", "id": "mae_vit"}, "bands": 144, "patch": 96,
            "batch_per_gpu": 7, "cards": 4, "gpu": "t4", "cpu": "laptop", "sharding": "zero3",
            "checkpointing": true, "workload": {"grad_accum_steps": 4},
            "pipeline": {"cores": 4, "num_workers": 2, "precut": false,
                "sync_every_step": false}}"#,
        r#"{"model": {"kind": "preset", "id": "vit", "size": "base"}, "patch": 32,
            "batch_per_gpu": 16, "cards": 4, "gpu": "t4", "cpu": "laptop", "sharding": "fsdp"}"#,
        r#"{"model": {"kind": "preset", "id": "vit", "size": "base"}, "patch": 32,
            "batch_per_gpu": 16, "cards": 2, "gpu": "t4", "sharding": "zero3"}"#,
    ] {
        let (_, outcomes) = table(json);
        for o in of(&outcomes, Lever::Compute) {
            assert!(o.speedup.unwrap() >= 0.999, "{json}: {o:?}");
        }
    }
}

/// A link lever only where the better link widens the ring: bridged pairs on 8 cards still
/// cross PCIe, so no row reads "1.00x".
#[test]
fn the_link_lever_appears_only_where_it_widens_the_ring() {
    let (_, eight) = table(r#"{"cards": 8}"#);
    assert!(of(&eight, Lever::Interconnect).is_empty(), "{eight:?}");
    let (_, two) = table(r#"{"cards": 2}"#);
    assert!(of(&two, Lever::Interconnect)[0].factor > 1.0);
}

/// More memory bandwidth never slows a step. Where a timed algorithm bound by its reads
/// set the rate a cuDNN pick was measured against, a pick not bound by them came out
/// faster than its own unit runs, and faster still on a card with less bandwidth (Hamida
/// in AMP at patch 64 on an H100 SXM: x1.5 bandwidth read 0.91x, and the H200, the same
/// chip with more bandwidth, 9 % slower); a pick now runs at its own unit's rate at best.
#[test]
fn more_bandwidth_never_slows_a_3d_cnn_step() {
    let mut h100_h200 = Vec::new();
    for model in ["hamida3d", "dbda", "hybridsn", "ssrn"] {
        for precision in ["amp_bf16", "torch_default"] {
            for patch in [9, 25, 64] {
                let step = |gpu: &str| {
                    let json = format!(
                        r#"{{"model": {{"kind": "preset", "id": "{model}"}}, "precision": "{precision}",
                            "patch": {patch}, "batch_per_gpu": 16, "gpu": "{gpu}"}}"#
                    );
                    let r = estimate_all(&scenario_from_json(&json).unwrap()).unwrap();
                    for o in of(&r.levers, Lever::MemoryBandwidth) {
                        assert!(o.speedup.unwrap() >= 0.999, "{json}: {o:?}");
                    }
                    r.perf.time.step_s
                };
                h100_h200.push((model, precision, patch, step("h100_sxm"), step("h200_sxm")));
                step("b200");
            }
        }
    }
    for (model, precision, patch, h100, h200) in h100_h200 {
        assert!(
            h200 <= h100 * 1.001,
            "{model} {precision} patch {patch}: {h200} > {h100}"
        );
    }
}

/// With `cudnn.benchmark` off the report says how much turning it on would speed a step
/// up, where that is a real gain: HybridSN's 3-D kernels get slow untimed algorithms, a
/// 1-D CNN's do not, and with it on there is nothing to say.
#[test]
fn the_report_says_what_cudnn_benchmark_would_gain() {
    let speedup = |json: &str| {
        estimate_all(&scenario_from_json(json).unwrap())
            .unwrap()
            .cudnn_benchmark_speedup
    };
    let hybridsn = speedup("{}").unwrap();
    assert!(hybridsn > 1.5, "{hybridsn}");
    let fp32 = speedup(r#"{"precision": "fp32"}"#).unwrap();
    assert!(fp32 > hybridsn, "{fp32} against {hybridsn}");
    assert_eq!(speedup(r#"{"cudnn_benchmark": true}"#), None);
    assert_eq!(
        speedup(r#"{"model": {"kind": "preset", "id": "hu1d"}, "patch": 1}"#),
        None
    );
}
