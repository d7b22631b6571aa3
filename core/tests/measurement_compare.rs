//! `measurement::compare` and the measurement JSON: what is compared, signs and sizes of
//! the errors, settings taken from the measurement, and clear errors for bad files.

use std::path::Path;

use hsi_gpu_core::measurement::{compare, measurement_from_json, Measurement, Note, Setting};
use hsi_gpu_core::scenario::{scenario_from_json, Precision};
use hsi_gpu_core::{estimate, Scenario};

fn sample(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tools/samples")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn hybridsn() -> Scenario {
    scenario_from_json(&sample("scenario_hybridsn_a5500.json")).expect("sample scenario parses")
}

#[test]
fn a_term_is_compared_only_when_measured_and_its_error_is_signed() {
    let scenario = hybridsn();
    let memory = estimate(&scenario).unwrap().memory;
    let predicted_allocated = memory.allocated_peak;
    // Measured twice the prediction: the estimate is 50 % low.
    let m = Measurement {
        batch: scenario.batch_per_gpu,
        peak_allocated_bytes: Some(2.0 * predicted_allocated),
        ..Measurement::default()
    };
    let c = compare(&scenario, &m).unwrap();
    assert_eq!(c.terms.len(), 1);
    let term = c.term("peak_allocated_bytes").unwrap();
    assert_eq!(term.predicted, predicted_allocated);
    assert!((term.error_pct.unwrap() + 50.0).abs() < 1e-9);
    // Half the prediction: 100 % high.
    let m = Measurement {
        peak_allocated_bytes: Some(0.5 * predicted_allocated),
        context_bytes: Some(memory.cuda_context),
        ..m
    };
    let c = compare(&scenario, &m).unwrap();
    assert!((c.term("peak_allocated_bytes").unwrap().error_pct.unwrap() - 100.0).abs() < 1e-9);
    assert_eq!(c.term("context_bytes").unwrap().error_pct, Some(0.0));
    assert!(c.term("step_time_s").is_none() && c.term("max_batch").is_none());
}

#[test]
fn the_measured_batch_and_precision_are_the_ones_estimated() {
    let scenario = hybridsn();
    let m = Measurement {
        batch: 32,
        precision: Some(Precision::AmpBf16),
        peak_reserved_bytes: Some(1e9),
        ..Measurement::default()
    };
    let c = compare(&scenario, &m).unwrap();
    let measured_setup = Scenario {
        batch_per_gpu: 32,
        precision: Precision::AmpBf16,
        ..scenario.clone()
    };
    let memory = estimate(&measured_setup).unwrap().memory;
    assert_eq!(c.batch, 32);
    assert_eq!(
        c.term("peak_reserved_bytes").unwrap().predicted,
        memory.total - memory.cuda_context
    );
    assert_eq!(
        c.warnings,
        [Note::Setting {
            field: "precision",
            measured: Setting::Precision(Precision::AmpBf16),
            scenario: Setting::Precision(Precision::Fp32)
        }]
    );
    assert!(c.warnings[0].to_string().contains("estimating amp_bf16"));
}

#[test]
fn a_run_with_cudnn_benchmark_is_estimated_with_it() {
    let scenario = Scenario {
        cudnn_benchmark: false,
        ..hybridsn()
    };
    let m = Measurement {
        batch: 64,
        cudnn_benchmark: Some(true),
        step_time_s: Some(0.01),
        ..Measurement::default()
    };
    let c = compare(&scenario, &m).unwrap();
    assert_eq!(
        c.warnings,
        [Note::Setting {
            field: "cudnn_benchmark",
            measured: Setting::Switch(true),
            scenario: Setting::Switch(false)
        }]
    );
    // The same as a scenario that has it on, measured without saying.
    let unsaid = Measurement {
        cudnn_benchmark: None,
        ..m
    };
    let on = Scenario {
        cudnn_benchmark: true,
        ..scenario.clone()
    };
    let same = compare(&on, &unsaid).unwrap();
    assert!(same.warnings.is_empty());
    assert_eq!(c.terms, same.terms);
    // HybridSN's 3-D convolutions run cuDNN's untimed FP32 picks without it: slower.
    let untimed = compare(&scenario, &unsaid).unwrap();
    let step = |c: &hsi_gpu_core::measurement::PredictedVsMeasured| {
        c.term("step_time_s").unwrap().predicted
    };
    assert!(
        step(&untimed) > 2.0 * step(&c),
        "{} {}",
        step(&untimed),
        step(&c)
    );
}

#[test]
fn sample_measurement_compares_every_term_and_names_another_card() {
    let scenario = hybridsn();
    let m = measurement_from_json(&sample("synthetic_hybridsn_a5500_b64.json")).unwrap();
    assert!(m.synthetic && m.note.contains("SYNTHETIC"));
    let c = compare(&scenario, &m).unwrap();
    let names: Vec<&str> = c.terms.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "peak_allocated_bytes",
            "peak_reserved_bytes",
            "context_bytes",
            "device_total_bytes",
            "step_time_s",
            "max_batch"
        ]
    );
    assert_eq!(c.warnings, [Note::Synthetic]);
    // The sweep finds where memory runs out, so the prediction has no headroom.
    let report = estimate(&scenario).unwrap();
    assert!(c.term("max_batch").unwrap().predicted >= f64::from(report.max_batch));
    let on_a4000 = Scenario {
        gpu: "rtx_a4000".into(),
        ..scenario
    };
    let c = compare(&on_a4000, &m).unwrap();
    assert!(c.warnings.contains(&Note::OtherCard {
        measured: "NVIDIA RTX A5500".into(),
        scenario: "RTX A4000".into()
    }));
}

#[test]
fn dry_run_is_accepted_and_compares_nothing() {
    let scenario = scenario_from_json(&sample("scenario_hu1d.json")).unwrap();
    let m = measurement_from_json(&sample("dry_run_hu1d.json")).unwrap();
    assert!(m.dry_run && m.step_time_s.is_some() && m.peak_allocated_bytes.is_none());
    let c = compare(&scenario, &m).unwrap();
    assert!(c.terms.is_empty());
    assert!(c.warnings.contains(&Note::DryRun));
}

#[test]
fn bad_measurement_files_name_the_field() {
    let cases = [
        (
            r#"{"batch": 4, "peak_alocated_bytes": 1}"#,
            "peak_alocated_bytes",
        ),
        (r#"{"batch": 4, "step_time_s": "fast"}"#, "step_time_s"),
        (
            r#"{"batch": 4, "peak_allocated_bytes": 10, "peak_reserved_bytes": 5}"#,
            "peak_reserved_bytes",
        ),
        (r#"{"batch": 4, "context_bytes": -1}"#, "context_bytes"),
        (r#"{"batch": 0}"#, "batch"),
        ("[1, 2]", "(measurement)"),
        (
            r#"{"batch": 4, "device": {"gpu_nme": "x"}}"#,
            "device.gpu_nme",
        ),
        (r#"{"batch": 4, "device": "A100"}"#, "device"),
        (r#"{"batch": 4.5}"#, "batch"),
        (r#"{"batch": 4, "precision": "fp8"}"#, "precision"),
        (
            r#"{"batch": 4, "step_times_s": [0.1, "x"]}"#,
            "step_times_s[1]",
        ),
        (
            r#"{"batch": 4, "sweep": [{"batch": 1, "fits": true}, {"batch": 2, "fits": 1}]}"#,
            "sweep[1].fits",
        ),
    ];
    for (text, field) in cases {
        let error = measurement_from_json(text).expect_err(text);
        assert!(error.field.contains(field), "{text}: {error}");
    }
    // Null is as good as missing; the allowed values are named.
    let m = measurement_from_json(r#"{"batch": 4, "step_time_s": null, "device": {"cuda": null}}"#)
        .unwrap();
    assert_eq!((m.batch, m.step_time_s), (4, None));
    let error = measurement_from_json(r#"{"batch": 4, "optimizer": "lion"}"#).unwrap_err();
    assert!(error.allowed.contains("adamw"), "{error}");
    // A range a person can read: the smallest positive float was 300 digits long here.
    let error = measurement_from_json(r#"{"batch": 4, "step_time_s": 0}"#).unwrap_err();
    assert_eq!(
        (error.field.as_str(), error.allowed.as_str()),
        ("step_time_s", "a number from 0.000001 to 86400"),
        "{error}"
    );
}

#[test]
fn the_measured_geometry_is_estimated_and_another_model_is_named() {
    let scenario = hybridsn();
    let m = Measurement {
        model: "hybridsn".into(),
        batch: scenario.batch_per_gpu,
        bands: Some(60),
        patch: Some(scenario.patch),
        peak_allocated_bytes: Some(1e9),
        ..Measurement::default()
    };
    let c = compare(&scenario, &m).unwrap();
    let memory = estimate(&Scenario {
        bands: 60,
        ..scenario.clone()
    })
    .unwrap()
    .memory;
    assert_eq!(
        c.term("peak_allocated_bytes").unwrap().predicted,
        memory.allocated_peak
    );
    // The patch matches: only the bands are noted.
    assert_eq!(
        c.warnings,
        [Note::Setting {
            field: "bands",
            measured: Setting::Count(60),
            scenario: Setting::Count(30)
        }]
    );

    let other = Measurement {
        model: "ssrn".into(),
        bands: None,
        ..m
    };
    let c = compare(&scenario, &other).unwrap();
    assert_eq!(
        c.warnings,
        [Note::OtherModel {
            measured: "ssrn".into(),
            scenario: "hybridsn".into()
        }]
    );
    let bad = Measurement {
        bands: Some(0),
        ..other
    };
    let errors = compare(&scenario, &bad).unwrap_err();
    assert_eq!(errors[0].field, "bands");
}
