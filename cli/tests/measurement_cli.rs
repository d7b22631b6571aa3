//! `hsi-gpu compare` and `hsi-gpu calibrate` on the sample files in tools/samples/.

mod common;

use common::{json, one_line_error};
use std::process::Output;

fn sample(name: &str) -> String {
    format!("{}/../tools/samples/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn run(args: &[&str]) -> Output {
    common::run(args, "")
}

#[test]
fn compare_accepts_a_dry_run_from_measure_py() {
    let scenario = sample("scenario_hu1d.json");
    let dry = sample("dry_run_hu1d.json");
    let c = json(&run(&["compare", &scenario, &dry]));
    assert_eq!(c["terms"].as_array().unwrap().len(), 0);
    assert_eq!(c["batch"], 64);
}

#[test]
fn compare_gives_signed_errors_per_term() {
    let scenario = sample("scenario_hybridsn_a5500.json");
    let measured = sample("synthetic_hybridsn_a5500_b64.json");
    let c = json(&run(&["compare", &scenario, &measured]));
    for term in c["terms"].as_array().unwrap() {
        let (p, m) = (
            term["predicted"].as_f64().unwrap(),
            term["measured"].as_f64().unwrap(),
        );
        let error = term["error_pct"].as_f64().unwrap();
        assert!((error - (p - m) / m * 100.0).abs() < 1e-9, "{term}");
    }
}

#[test]
fn calibrate_prints_a_scenario_that_estimates() {
    let scenario = sample("scenario_hybridsn_a5500.json");
    let out = json(&run(&[
        "calibrate",
        &scenario,
        &sample("synthetic_hybridsn_a5500_b64.json"),
        &sample("synthetic_hybridsn_a5500_b128.json"),
    ]));
    // The context and the driver reserve, and the 13 constants the speed factor scales.
    assert_eq!(out["report"]["fitted"].as_array().unwrap().len(), 15);
    assert_eq!(
        out["report"]["not_fitted"][0]["field"],
        "memory.fragmentation"
    );
    let path = std::env::temp_dir().join(format!("hsi-gpu-calibrated-{}.json", std::process::id()));
    std::fs::write(&path, out["scenario"].to_string()).unwrap();
    let report = json(&run(&["estimate", path.to_str().unwrap()]));
    std::fs::remove_file(&path).unwrap();
    assert_eq!(
        report["memory"]["cuda_context"],
        out["scenario"]["memory"]["cuda_context_bytes"]
            .as_f64()
            .unwrap()
    );
}

#[test]
fn bad_measurements_and_missing_files_are_one_line_errors() {
    let scenario = sample("scenario_hybridsn_a5500.json");
    let path = std::env::temp_dir().join(format!(
        "hsi-gpu-bad-measurement-{}.json",
        std::process::id()
    ));
    std::fs::write(&path, r#"{"batch": 8, "step_time_s": -1}"#).unwrap();
    let bad = path.to_str().unwrap();
    assert!(one_line_error(&run(&["compare", &scenario, bad])).contains("step_time_s"));
    assert!(one_line_error(&run(&["calibrate", &scenario, bad])).contains("step_time_s"));
    std::fs::remove_file(&path).unwrap();
    assert!(
        one_line_error(&run(&["compare", &scenario, "no-such-file.json"]))
            .contains("no-such-file.json")
    );
    // Only dry runs: nothing to fit.
    let dry = sample("dry_run_hu1d.json");
    assert!(one_line_error(&run(&["calibrate", &scenario, &dry])).contains("measurements"));
    assert!(one_line_error(&run(&["calibrate", &scenario])).contains("usage"));
}

#[test]
fn a_typo_in_a_measurement_exits_2_naming_its_path_and_the_allowed_fields() {
    let scenario = sample("scenario_hybridsn_a5500.json");
    let path = std::env::temp_dir().join(format!(
        "hsi-gpu-typo-measurement-{}.json",
        std::process::id()
    ));
    std::fs::write(&path, r#"{"batch": 8, "device": {"gpu_nam": "x"}}"#).unwrap();
    let error = one_line_error(&run(&["compare", &scenario, path.to_str().unwrap()]));
    std::fs::remove_file(&path).unwrap();
    assert!(error.contains("device.gpu_nam: "), "{error}");
    assert!(error.contains("total_memory_bytes"), "{error}");
}
