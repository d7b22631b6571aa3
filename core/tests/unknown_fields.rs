//! Unknown fields are refused everywhere a document is read: every Scenario section and
//! its nested sections, the model choice, every op of a layer list, a measurement and
//! its nested objects, and a comparison. The error names the field's path and lists the
//! fields allowed there.

use hsi_gpu_core::compare::import::import_comparison;
use hsi_gpu_core::compare::Comparison;
use hsi_gpu_core::graph::{Layer, Op};
use hsi_gpu_core::measurement::measurement_from_json;
use hsi_gpu_core::scenario::scenario_from_json;
use hsi_gpu_core::FieldError;

/// `error` names `path` and lists `allowed` among the fields allowed there.
fn names(error: &FieldError, path: &str, allowed: &str) {
    assert_eq!(error.field, path, "{error}");
    assert!(error.value.contains("unknown field"), "{error}");
    assert!(error.allowed.contains(allowed), "{error}");
}

#[test]
fn a_typo_in_any_scenario_section_is_refused_with_its_path() {
    let cases = [
        (
            r#"{"perf": {"overlap_typo": 1}}"#,
            "perf.overlap_typo",
            "compute_efficiency",
        ),
        (
            r#"{"perf": {"scaling": {"overlapp": 1}}}"#,
            "perf.scaling.overlapp",
            "overlap",
        ),
        (r#"{"workload": {"epoch": 3}}"#, "workload.epoch", "epochs"),
        (
            r#"{"memory": {"head_room": 0.3}}"#,
            "memory.head_room",
            "headroom",
        ),
        (
            r#"{"cost": {"pue_": 1.1}}"#,
            "cost.pue_",
            "cloud_usd_per_gpu_hour",
        ),
        (
            r#"{"model": {"kind": "preset", "id": "ssrn", "widht": 2}}"#,
            "model.widht",
            "width",
        ),
        (
            r#"{"model": {"kind": "custom", "id": "ssrn", "spec": {"name": "m", "input": [1], "layers": []}}}"#,
            "model.id",
            "spec",
        ),
        (
            r#"{"model": {"kind": "custom", "spec": {"name": "m", "input": [4], "layers": [{"op": "linear", "out_features": 2, "bais": false}]}}}"#,
            "model.spec.layers[0].bais",
            "bias",
        ),
        (r#"{"bandz": 30}"#, "bandz", "batch_per_gpu"),
    ];
    for (text, path, allowed) in cases {
        names(&scenario_from_json(text).expect_err(text), path, allowed);
    }
}

#[test]
fn a_typo_in_every_op_is_refused() {
    for (tag, fields) in Op::TAGS {
        let text = format!(r#"{{"op": "{tag}", "typo": 1}}"#);
        let error = serde_json::from_str::<Layer>(&text)
            .expect_err(&text)
            .to_string();
        assert!(error.starts_with("typo: "), "{text}: {error}");
        for field in ["name", "from"].iter().chain(fields.iter()) {
            assert!(error.contains(field), "{text}: {error}");
        }
    }
}

#[test]
fn a_typo_in_a_measurement_is_refused_with_its_path() {
    let cases = [
        (
            r#"{"batch": 4, "step_time": 0.1}"#,
            "step_time",
            "step_time_s",
        ),
        (
            r#"{"batch": 4, "device": {"gpu": "x"}}"#,
            "device.gpu",
            "gpu_name",
        ),
        (
            r#"{"batch": 4, "sweep": [{"batch": 2, "fit": true}]}"#,
            "sweep[0].fit",
            "fits",
        ),
    ];
    for (text, path, allowed) in cases {
        names(&measurement_from_json(text).expect_err(text), path, allowed);
    }
}

#[test]
fn a_typo_in_a_comparison_is_refused_with_its_path() {
    let mut doc = serde_json::to_value(Comparison::default()).unwrap();
    doc["decision"]["team"] = 3.into();
    let e = &import_comparison(&doc.to_string()).unwrap_err()[0];
    names(&e.error, "decision.team", "team_size");

    let mut doc = serde_json::to_value(Comparison::default()).unwrap();
    doc["options"][2]["scenario"]["perf"]["overlap_typo"] = 1.into();
    let e = &import_comparison(&doc.to_string()).unwrap_err()[0];
    names(
        &e.error,
        "options[2].scenario.perf.overlap_typo",
        "kernel_launch_s",
    );

    let mut doc = serde_json::to_value(Comparison::default()).unwrap();
    doc["options"][0]["labl"] = "x".into();
    let e = &import_comparison(&doc.to_string()).unwrap_err()[0];
    names(&e.error, "options[0].labl", "label");

    let e = &import_comparison(r#"{"options": [], "decisions": {}}"#).unwrap_err()[0];
    names(&e.error, "decisions", "options");
}
