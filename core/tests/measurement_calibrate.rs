//! `measurement::calibrate` on the synthetic sample measurements in tools/samples/
//! (made-up figures, labelled as such, not a GPU measurement): each fitted constant has
//! the property its fit promises, and the calibrated scenario is a valid Scenario.

use std::path::Path;

use hsi_gpu_core::gpu::gpu_by_id;
use hsi_gpu_core::measurement::{
    calibrate, mean_abs_errors, measurement_from_json, Measurement, PredictedVsMeasured, Term,
};
use hsi_gpu_core::scenario::scenario_from_json;
use hsi_gpu_core::{estimate, Scenario};

fn sample(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tools/samples")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn scenario() -> Scenario {
    scenario_from_json(&sample("scenario_hybridsn_a5500.json")).unwrap()
}

fn measurements() -> Vec<Measurement> {
    [
        "synthetic_hybridsn_a5500_b64.json",
        "synthetic_hybridsn_a5500_b128.json",
    ]
    .iter()
    .map(|name| measurement_from_json(&sample(name)).unwrap())
    .collect()
}

fn term(c: &PredictedVsMeasured, name: &str) -> (f64, f64) {
    let t = c.term(name).unwrap_or_else(|| panic!("no {name} term"));
    (t.predicted, t.measured)
}

#[test]
fn calibration_fits_each_constant_to_the_samples() {
    let before = scenario();
    let ms = measurements();
    let (after, report) = calibrate(&before, &ms).expect("the samples calibrate");
    let fitted: Vec<&str> = report.fitted.iter().map(|f| f.field.as_str()).collect();
    assert_eq!(
        fitted[..5],
        [
            "memory.cuda_context_bytes",
            "memory.driver_reserved_bytes",
            "perf.compute_efficiency",
            "perf.memory_efficiency",
            "perf.kernel_launch_s"
        ]
    );
    // Every value the calibration changed is in the report with its new value: none is
    // changed unseen (the host's costs and the convolution rates once were).
    let (old, new) = (leaves(&before), leaves(&after));
    let changed: Vec<&str> = new
        .iter()
        .filter(|(path, v)| old.get(*path) != Some(*v))
        .map(|(path, _)| path.as_str())
        .collect();
    assert!(changed.len() > 5, "{changed:?}");
    for path in &changed {
        let f = report
            .fitted
            .iter()
            .find(|f| f.field == *path)
            .unwrap_or_else(|| panic!("{path} changed but is not in the report"));
        assert_eq!(Some(f.after), new[*path].as_f64(), "{path}");
    }
    // The samples' reserved - allocated is less than the simulated allocator already
    // holds: the fragmentation floor would not bind, so it is not fitted.
    let [skipped] = &report.not_fitted[..] else {
        panic!("{:?}", report.not_fitted);
    };
    assert_eq!(skipped.field, "memory.fragmentation");
    assert!(skipped.why.contains("already holds"), "{}", skipped.why);
    assert_eq!(after.memory.fragmentation, before.memory.fragmentation);

    // Context: the median of the two measured contexts (their mean).
    let contexts: Vec<f64> = ms.iter().map(|m| m.context_bytes.unwrap()).collect();
    assert_eq!(
        after.memory.cuda_context_bytes.unwrap() as f64,
        ((contexts[0] + contexts[1]) / 2.0).round()
    );

    // Driver reserve: catalog memory minus what CUDA reports.
    let gpu = gpu_by_id(&before.gpu).unwrap();
    let total = ms[0].device.total_memory_bytes.unwrap();
    assert_eq!(after.memory.driver_reserved_bytes, gpu.memory_bytes - total);

    // Speed: the geometric mean of predicted / measured step time is 1 after, not before.
    let log_ratio = |cs: &[PredictedVsMeasured]| -> f64 {
        cs.iter()
            .map(|c| {
                let (p, m) = term(c, "step_time_s");
                (p / m).ln()
            })
            .sum()
    };
    assert!(log_ratio(&report.before).abs() > 0.05);
    // (The fitted constants are rounded to 6 significant digits.)
    assert!(
        log_ratio(&report.after).abs() < 1e-4,
        "{}",
        log_ratio(&report.after)
    );
    assert!(after.perf.compute_efficiency <= 1.0 && after.perf.memory_efficiency <= 1.0);

    // The calibrated scenario is a valid Scenario that round-trips through JSON.
    estimate(&after).expect("calibrated scenario estimates");
    let json = serde_json::to_string(&after).unwrap();
    assert_eq!(scenario_from_json(&json).unwrap(), after);
}

#[test]
fn dry_runs_alone_cannot_calibrate() {
    let dry = measurement_from_json(&sample("dry_run_hu1d.json")).unwrap();
    let hu1d = scenario_from_json(&sample("scenario_hu1d.json")).unwrap();
    let error = calibrate(&hu1d, &[dry]).unwrap_err();
    assert_eq!(error.field, "measurements");
    assert!(error.allowed.contains("CUDA"));
}

#[test]
fn an_invalid_measurement_is_named_by_its_position() {
    let mut ms = measurements();
    ms[1].step_time_s = Some(f64::NAN);
    let error = calibrate(&scenario(), &ms).unwrap_err();
    assert_eq!(error.field, "measurements[1].step_time_s");
}

#[test]
fn a_measurement_without_memory_figures_fits_only_the_speed() {
    let ms: Vec<Measurement> = measurements()
        .into_iter()
        .map(|m| Measurement {
            peak_allocated_bytes: None,
            peak_reserved_bytes: None,
            context_bytes: None,
            device: Default::default(),
            ..m
        })
        .collect();
    let before = scenario();
    let (after, report) = calibrate(&before, &ms).unwrap();
    assert_eq!(after.memory, before.memory);
    assert_eq!(report.not_fitted.len(), 3, "{:?}", report.not_fitted);
    assert_ne!(after.perf, before.perf);
}

#[test]
fn mean_abs_errors_average_each_term_over_the_comparisons() {
    let comparison = |terms: Vec<Term>| PredictedVsMeasured {
        model: "m".into(),
        gpu: "g".into(),
        batch: 1,
        terms,
        warnings: Vec::new(),
    };
    let term = |name: &str, predicted: f64, measured: f64| Term {
        name: name.into(),
        predicted,
        measured,
        error_pct: (measured != 0.0).then(|| (predicted - measured) / measured * 100.0),
    };
    let cs = [
        comparison(vec![
            term("step_time_s", 1.1, 1.0),
            term("context_bytes", 5.0, 0.0),
        ]),
        comparison(vec![
            term("max_batch", 50.0, 100.0),
            term("step_time_s", 0.7, 1.0),
        ]),
    ];
    let errors = mean_abs_errors(&cs);
    let names: Vec<&str> = errors.iter().map(|(n, _)| n.as_str()).collect();
    // A term measured as 0 has no error and is left out.
    assert_eq!(names, ["step_time_s", "max_batch"]);
    assert!((errors[0].1 - 20.0).abs() < 1e-9, "{errors:?}");
    assert!((errors[1].1 - 50.0).abs() < 1e-9);

    // On the samples, calibration lowers the step-time error to ~0.
    let (_, report) = calibrate(&scenario(), &measurements()).unwrap();
    let step = |cs: &[PredictedVsMeasured]| {
        mean_abs_errors(cs)
            .into_iter()
            .find(|(n, _)| n == "step_time_s")
            .unwrap()
            .1
    };
    assert!(step(&report.after) < step(&report.before));
}

#[test]
fn step_times_from_another_card_do_not_set_this_cards_speed() {
    // Measured elsewhere, with 2 GB cached above the tensors, more than the simulated allocator holds.
    let elsewhere: Vec<Measurement> = measurements()
        .into_iter()
        .map(|mut m| {
            m.device.gpu_name = Some("NVIDIA H100 80GB HBM3".into());
            m.peak_reserved_bytes = m.peak_allocated_bytes.map(|a| a + 2e9);
            m
        })
        .collect();
    let before = scenario();
    let (after, report) = calibrate(&before, &elsewhere).unwrap();
    assert_eq!(after.perf, before.perf);
    let not_fitted: Vec<&str> = report.not_fitted.iter().map(|n| n.field.as_str()).collect();
    assert!(
        not_fitted.contains(&"perf.compute_efficiency"),
        "{not_fitted:?}"
    );
    assert!(report
        .not_fitted
        .iter()
        .any(|n| n.why.contains("RTX A5500")));
    // The allocator's behaviour does not depend on the card: still fitted, to the
    // measured (reserved - allocated) over the estimate's activations + transient (at most
    // 1), and the estimate's cache never falls below the floor it sets.
    let fitted: Vec<&str> = report.fitted.iter().map(|f| f.field.as_str()).collect();
    assert!(fitted.contains(&"memory.fragmentation"), "{fitted:?}");
    let memory = |s: &Scenario, m: &Measurement| {
        estimate(&Scenario {
            batch_per_gpu: m.batch,
            ..s.clone()
        })
        .unwrap()
        .memory
    };
    let measured: f64 = elsewhere
        .iter()
        .map(|m| m.peak_reserved_bytes.unwrap() - m.peak_allocated_bytes.unwrap())
        .sum();
    let base: f64 = elsewhere
        .iter()
        .map(|m| memory(&before, m))
        .map(|m| m.activations + m.transient)
        .sum();
    let share = after.memory.fragmentation;
    assert!((share - (measured / base).min(1.0)).abs() < 1e-5, "{share}");
    for m in &elsewhere {
        let memory = memory(&after, m);
        assert!(memory.allocator >= share * (memory.activations + memory.transient));
    }
}

/// A scenario's values by their dotted paths (`perf.host.op_forward_s`).
fn leaves(s: &Scenario) -> std::collections::BTreeMap<String, serde_json::Value> {
    fn walk(
        prefix: &str,
        v: &serde_json::Value,
        out: &mut std::collections::BTreeMap<String, serde_json::Value>,
    ) {
        match v {
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    let path = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    walk(&path, v, out);
                }
            }
            _ => {
                out.insert(prefix.to_string(), v.clone());
            }
        }
    }
    let mut out = std::collections::BTreeMap::new();
    walk("", &serde_json::to_value(s).unwrap(), &mut out);
    out
}
