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

/// A typo gets the one field or id it most likely meant (the command line says it), and
/// none where the guess would be a coin toss or far off.
#[test]
fn a_typo_names_what_it_most_likely_meant() {
    use hsi_gpu_core::estimate;
    let read = |json: &str| scenario_from_json(json).unwrap_err();
    assert_eq!(read(r#"{"bandz": 200}"#).meant(), Some("bands"));
    assert_eq!(
        read(r#"{"memory": {"headroomm": 0.1}}"#).meant(),
        Some("headroom")
    );
    assert_eq!(read(r#"{"sharding": "fsdp3"}"#).meant(), Some("fsdp"));
    assert_eq!(read(r#"{"xyz": 1}"#).meant(), None);
    assert_eq!(
        read(r#"{"bands": "many"}"#).meant(),
        None,
        "a number has no near id"
    );
    let gpu = |id: &str| {
        let s = scenario_from_json(&format!(r#"{{"gpu": "{id}"}}"#)).unwrap();
        estimate(&s).unwrap_err()[0].meant().map(str::to_string)
    };
    // Case, `_` and `-` do not count; a word that begins one id means it.
    assert_eq!(gpu("RTX-3090").as_deref(), Some("rtx_3090"));
    assert_eq!(gpu("rtx_a550").as_deref(), Some("rtx_a5500"));
    // "a100" begins three A100 ids: no guess, rather than the A10 one edit away.
    assert_eq!(gpu("a100"), None);
    // A range is no list to guess from.
    let s = scenario_from_json(r#"{"batch_per_gpu": 0}"#).unwrap();
    assert_eq!(estimate(&s).unwrap_err()[0].meant(), None);
}
