//! The comparison table: rows, best values, validation, CSV export.

use hsi_gpu_core::compare::export::results_csv;
use hsi_gpu_core::compare::presets::article_options;
use hsi_gpu_core::compare::{
    best_of, compare, Better, CompareOption, Comparison, Metric, MAX_LABEL_CHARS, MAX_OPTIONS,
};
use hsi_gpu_core::estimate;
use hsi_gpu_core::gpu::gpu_by_id;
use hsi_gpu_core::scenario::Scenario;

fn row(
    report: &hsi_gpu_core::compare::ComparisonReport,
    metric: Metric,
) -> &hsi_gpu_core::compare::MetricRow {
    report.rows.iter().find(|r| r.metric == metric).unwrap()
}

#[test]
fn best_of_picks_the_extreme_and_keeps_ties() {
    let values = [Some(3.0), None, Some(1.0), Some(3.0)];
    assert_eq!(best_of(&values, Better::Higher), vec![0, 3]);
    assert_eq!(best_of(&values, Better::Lower), vec![2]);
    assert!(best_of(&[None, None], Better::Lower).is_empty());
    // One option is best against nothing: no star on every row.
    assert!(best_of(&[Some(3.0)], Better::Higher).is_empty());
    // The only option with a figure among several is (the others do not fit).
    assert_eq!(best_of(&[None, Some(3.0)], Better::Higher), vec![1]);
}

#[test]
fn the_ready_made_set_has_every_option_of_the_question() {
    let c = Comparison::default();
    let gpus: Vec<(&str, u32)> = c
        .options
        .iter()
        .map(|o| (o.scenario.gpu.as_str(), o.scenario.cards))
        .collect();
    assert_eq!(
        gpus,
        vec![
            ("rtx_3090", 1),
            ("rtx_4090", 1),
            ("v100s_pcie", 1),
            ("rtx_a6000", 1),
            ("rtx_a5500", 4),
            ("rtx_a5500", 4),
            ("rtx_a5500", 4)
        ]
    );
    assert!(c.options.len() <= MAX_OPTIONS);
    let report = compare(&c).unwrap();
    assert!(report.options.iter().all(|o| o.errors.is_empty()));
}

#[test]
fn the_48_gb_card_holds_the_largest_batch_and_patch() {
    // Same model and precision everywhere: the largest usable memory wins both rows.
    let report = compare(&Comparison::default()).unwrap();
    let largest_memory = Comparison::default()
        .options
        .iter()
        .enumerate()
        .max_by_key(|(_, o)| gpu_by_id(&o.scenario.gpu).unwrap().memory_bytes)
        .map(|(i, _)| i)
        .unwrap();
    assert_eq!(row(&report, Metric::MaxBatch).best, vec![largest_memory]);
    assert_eq!(
        row(&report, Metric::LargestPatch).best,
        vec![largest_memory]
    );
    assert_eq!(
        row(&report, Metric::MemoryUtilization).best,
        vec![largest_memory]
    );
}

#[test]
fn every_option_figure_matches_its_own_estimate() {
    let c = Comparison::default();
    let report = compare(&c).unwrap();
    for (option, outcome) in c.options.iter().zip(&report.options) {
        let e = estimate(&option.scenario).unwrap();
        let r = outcome.result.as_ref().unwrap();
        assert_eq!(r.max_batch, e.max_batch);
        assert_eq!(r.fits, e.max_batch >= option.scenario.batch_per_gpu);
        assert_eq!(r.fits, r.memory_utilization <= 1.0);
        assert_eq!(r.samples_per_s, e.perf.time.samples_per_s);
        let gpu = gpu_by_id(&option.scenario.gpu).unwrap();
        let draw = f64::from(option.scenario.cards) * gpu.tdp_watts
            + option.scenario.cost.system_base_watts;
        assert!(
            (r.power_watts - draw).abs() < 1e-9 * draw,
            "{} W",
            r.power_watts
        );
        assert_eq!(r.tco_usd.is_some(), e.perf.cost.card_price_known);
    }
}

#[test]
fn changing_one_option_updates_only_its_column() {
    let mut c = Comparison::default();
    let before = compare(&c).unwrap();
    c.options[1].scenario.batch_per_gpu = 256;
    let after = compare(&c).unwrap();
    for metric in [
        Metric::MemoryUtilization,
        Metric::SamplesPerS,
        Metric::LargestPatch,
    ] {
        let (b, a) = (&row(&before, metric).values, &row(&after, metric).values);
        assert_ne!(b[1], a[1], "{metric:?} of the changed option");
        for i in (0..b.len()).filter(|&i| i != 1) {
            assert_eq!(b[i], a[i], "{metric:?} of option {i}");
        }
    }
}

#[test]
fn an_option_that_does_not_fit_has_no_speed_or_time() {
    let mut c = Comparison::default();
    c.options[0].scenario.batch_per_gpu = 100_000;
    let report = compare(&c).unwrap();
    assert!(!report.options[0].result.as_ref().unwrap().fits);
    for metric in [Metric::SamplesPerS, Metric::RunTime, Metric::SweepTime] {
        assert_eq!(row(&report, metric).values[0], None);
        assert!(!row(&report, metric).best.contains(&0));
    }
}

#[test]
fn malformed_comparisons_are_refused_with_the_field() {
    let none = Comparison {
        options: vec![],
        ..Comparison::default()
    };
    assert_eq!(compare(&none).unwrap_err()[0].field, "options");
    let base = Scenario::default();
    let too_many = Comparison {
        options: (0..=MAX_OPTIONS)
            .map(|i| CompareOption {
                label: format!("option {i}"),
                scenario: base.clone(),
            })
            .collect(),
        ..Comparison::default()
    };
    assert_eq!(compare(&too_many).unwrap_err()[0].field, "options");
    let mut long_label = Comparison::default();
    long_label.options[3].label = "x".repeat(MAX_LABEL_CHARS + 1);
    assert_eq!(
        compare(&long_label).unwrap_err()[0].field,
        "options[3].label"
    );
    let mut bad_team = Comparison::default();
    bad_team.decision.team_size = 0;
    assert_eq!(
        compare(&bad_team).unwrap_err()[0].field,
        "decision.team_size"
    );
}

#[test]
fn csv_has_a_column_per_option_and_a_row_per_metric() {
    let mut options = article_options(&Scenario::default());
    options[0].label = "RTX 3090, \"24 GB\"".into();
    let c = Comparison {
        options,
        ..Comparison::default()
    };
    let report = compare(&c).unwrap();
    let csv = results_csv(&report);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), Metric::ALL.len() + 1);
    assert!(lines[0].starts_with("metric,\"RTX 3090, \"\"24 GB\"\"\",1x RTX 4090,"));
    for (line, row) in lines[1..].iter().zip(&report.rows) {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells[0], row.metric.csv_name());
        let parsed: Vec<Option<f64>> = cells[1..]
            .iter()
            .map(|c| (!c.is_empty()).then(|| c.parse().unwrap()))
            .collect();
        assert_eq!(parsed, row.values);
    }
}

#[test]
fn an_option_runs_the_workload_it_was_built_from_whatever_its_hardware() {
    use hsi_gpu_core::compare::presets::runs_workload_of;
    let base = Scenario::default();
    let mut options = article_options(&base);
    assert!(options.iter().all(|o| runs_workload_of(o, &base)));
    // What each option may choose for itself leaves it on the workload.
    options[0].scenario.cudnn_benchmark = true;
    options[0].scenario.cards = 2;
    assert!(runs_workload_of(&options[0], &base));
    // Its own batch, or the page's new patch, does not.
    options[1].scenario.batch_per_gpu *= 2;
    assert!(!runs_workload_of(&options[1], &base));
    let moved = Scenario {
        patch: base.patch + 2,
        ..base.clone()
    };
    assert!(!options.iter().any(|o| runs_workload_of(o, &moved)));
}

#[test]
fn a_price_entered_for_the_scenarios_card_stays_with_that_card() {
    use hsi_gpu_core::compare::presets::{onto_card, runs_workload_of};
    let mut base = Scenario {
        gpu: "rtx_3090".into(),
        ..Scenario::default()
    };
    base.cost.card_price_usd = Some(1500.0);
    base.cost.cloud_usd_per_gpu_hour = Some(0.3);
    base.cost.bridge_usd_per_pair = Some(80.0);
    let options = article_options(&base);
    for o in &options {
        let own = o.scenario.gpu == base.gpu;
        assert_eq!(o.scenario.cost.card_price_usd.is_some(), own, "{}", o.label);
        assert_eq!(o.scenario.cost.cloud_usd_per_gpu_hour.is_some(), own);
        assert_eq!(o.scenario.cost.bridge_usd_per_pair.is_some(), own);
        assert!(runs_workload_of(o, &base), "{}", o.label);
    }
    // The RTX A6000 is costed at its own dated price, not the RTX 3090's quote.
    let a6000 = options
        .iter()
        .find(|o| o.scenario.gpu == "rtx_a6000")
        .unwrap();
    let report = estimate(&a6000.scenario).unwrap();
    assert!(
        report.perf.cost.card_price_usd > 3000.0,
        "{}",
        report.perf.cost.card_price_usd
    );
    // Moving an option to another card drops the quote; back on the same card nothing changes.
    let mut s = base.clone();
    onto_card(&mut s, "rtx_3090");
    assert_eq!(s, base);
    onto_card(&mut s, "rtx_4090");
    assert_eq!((s.gpu.as_str(), s.cost.card_price_usd), ("rtx_4090", None));
}

#[test]
fn an_option_named_by_its_hardware_is_renamed_with_it_and_a_written_name_stays() {
    use hsi_gpu_core::compare::presets::{follow_hardware, hardware_label};
    let options = article_options(&Scenario::default());
    let labels: Vec<&str> = options.iter().map(|o| o.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "1x RTX 3090",
            "1x RTX 4090",
            "1x V100S PCIe 32 GB",
            "1x RTX A6000",
            "4x RTX A5500 DDP PCIe",
            "4x RTX A5500 DDP NVLink",
            "4 × (1x RTX A5500)"
        ]
    );
    // 1x RTX 3090 edited to 8 x H100 SXM on NVSwitch with tensor parallelism 2.
    let before = options[0].clone();
    let mut after = before.clone();
    after.scenario.gpu = "h100_sxm".into();
    after.scenario.cards = 8;
    after.scenario.interconnect = hsi_gpu_core::scenario::Interconnect::Nvswitch;
    after.scenario.tensor_parallel = 2;
    follow_hardware(&before, &mut after);
    assert_eq!(after.label, "8x H100 SXM DDP NVSwitch TP 2");
    assert_eq!(after.label, hardware_label(&after.scenario));
    // A name the user wrote, or is writing in this edit, stays.
    let mut named = before.clone();
    named.label = "team box".into();
    let mut moved = named.clone();
    moved.scenario.cards = 2;
    follow_hardware(&named, &mut moved);
    assert_eq!(moved.label, "team box");
    let mut typed = before.clone();
    typed.label = "1x RTX 3090 (ours)".into();
    follow_hardware(&before, &mut typed);
    assert_eq!(typed.label, "1x RTX 3090 (ours)");
}
