//! The hand-written Scenario reader against the Scenario's own JSON: every field the
//! Scenario writes is read back (so a field added to a section but not to the reader
//! fails here), a top-level typo is refused, and what is left out keeps its default.

use hsi_gpu_core::choices::{Currency, NodeLink, Sharding};
use hsi_gpu_core::scenario::{
    scenario_from_json, Attention, CpuClass, Interconnect, Optimizer, ParallelMode, Precision,
    Scenario,
};
use serde_json::{json, Value};

/// Every scalar in `value` (objects walked, the model choice and the fine-tuning mode
/// left to their own tests), as
/// (JSON pointer, value).
fn leaves(pointer: &str, value: &Value, out: &mut Vec<(String, Value)>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                if pointer.is_empty() && (key == "model" || key == "finetune") {
                    continue;
                }
                leaves(&format!("{pointer}/{key}"), child, out);
            }
        }
        scalar => out.push((pointer.to_string(), scalar.clone())),
    }
}

/// Values to try instead of `current`: another number, the other boolean, every id the
/// Scenario's enums have.
fn alternatives(current: &Value) -> Vec<Value> {
    match current {
        Value::Bool(b) => vec![json!(!b)],
        Value::Number(n) if n.is_u64() => vec![json!(n.as_u64().unwrap() + 3)],
        Value::Number(n) => vec![json!(n.as_f64().unwrap() * 0.5 + 0.25)],
        // An unset option: a count or an amount.
        Value::Null => vec![json!(3), json!(3.5)],
        _ => Precision::ALL
            .iter()
            .map(|p| p.id())
            .chain(Optimizer::ALL.iter().map(|o| o.id()))
            .chain(Interconnect::ALL.iter().map(|i| i.id()))
            .chain(ParallelMode::ALL.iter().map(|m| m.id()))
            .chain(Currency::ALL.iter().map(|c| c.id()))
            .chain(CpuClass::ALL.iter().map(|c| c.id()))
            .chain(Attention::ALL.iter().map(|a| a.id()))
            .chain(Sharding::ALL.iter().map(|c| c.id()))
            .chain(NodeLink::ALL.iter().map(|c| c.id()))
            .chain(["pavia_university", "rtx_4090"])
            .filter(|id| current.as_str() != Some(id))
            .map(|id| json!(id))
            .collect(),
    }
}

#[test]
fn every_field_the_scenario_writes_is_read_back() {
    let defaults = serde_json::to_value(Scenario::default()).unwrap();
    let mut fields = Vec::new();
    leaves("", &defaults, &mut fields);
    assert!(fields.len() > 40, "{} fields", fields.len());
    for (pointer, current) in fields {
        let read_back = alternatives(&current).into_iter().find_map(|candidate| {
            let mut doc = defaults.clone();
            *doc.pointer_mut(&pointer).unwrap() = candidate.clone();
            let s = scenario_from_json(&doc.to_string()).ok()?;
            let written = serde_json::to_value(&s).unwrap();
            (written.pointer(&pointer) == Some(&candidate)).then_some(candidate)
        });
        assert!(read_back.is_some(), "{pointer}: no other value reads back");
    }
}

#[test]
fn a_top_level_typo_is_refused_and_left_out_fields_keep_their_defaults() {
    let e = scenario_from_json(r#"{"bandz": 30}"#).unwrap_err();
    assert_eq!(e.field, "bandz");
    assert!(e.allowed.contains("batch_per_gpu"), "{e}");
    let s = scenario_from_json(r#"{"perf": null, "memory": {"headroom": 0.3}}"#).unwrap();
    assert_eq!(s.memory.headroom, 0.3);
    // Read in place over the defaults: the section's other fields keep theirs.
    assert_eq!(
        s.memory,
        hsi_gpu_core::scenario::MemoryAssumptions {
            headroom: 0.3,
            ..Default::default()
        }
    );
    assert_eq!(
        Scenario {
            memory: s.memory.clone(),
            ..Scenario::default()
        },
        s
    );
    let e = scenario_from_json(r#"{"workload": {"epochs": -5}}"#).unwrap_err();
    assert_eq!(e.field, "workload.epochs");
    let e = scenario_from_json(r#"{"perf": {"scaling": {"overlap": "half"}}}"#).unwrap_err();
    assert_eq!(e.field, "perf.scaling.overlap");
}

/// A whole number written as a float (64.0, 1e3: what scripts and spreadsheets write) is
/// read; a fraction is refused. Out-of-range layouts and empty layer lists name their own
/// field, not one their checks trip over.
#[test]
fn whole_floats_read_and_bad_layouts_name_their_field() {
    let s = scenario_from_json(r#"{"batch_per_gpu": 64.0, "workload": {"epochs": 1e3}}"#).unwrap();
    assert_eq!((s.batch_per_gpu, s.workload.epochs), (64, 1000));
    let e = scenario_from_json(r#"{"batch_per_gpu": 64.5}"#).unwrap_err();
    assert_eq!(e.field, "batch_per_gpu");
    let e = scenario_from_json(r#"{"batch_per_gpu": -64.0}"#).unwrap_err();
    assert_eq!(e.field, "batch_per_gpu");
    // Not a number of the field's type: refused with the field's range, not the type's.
    for (json, field, allowed) in [
        (r#"{"bands": -1}"#, "bands", "an integer from 1 to 1024"),
        (r#"{"patch": "9"}"#, "patch", "an integer from 1 to 4096"),
        (
            r#"{"memory": {"cuda_context_bytes": -1}}"#,
            "memory.cuda_context_bytes",
            "an integer from 0 to 68719476736",
        ),
        (
            r#"{"memory": {"headroom": "x"}}"#,
            "memory.headroom",
            "a number from 0 to 0.9",
        ),
    ] {
        let e = scenario_from_json(json).unwrap_err();
        assert_eq!(
            (e.field.as_str(), e.allowed.as_str()),
            (field, allowed),
            "{json}"
        );
    }

    let s = scenario_from_json(r#"{"tensor_parallel": 0}"#).unwrap();
    let errors = hsi_gpu_core::estimate(&s).unwrap_err();
    let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(fields, ["tensor_parallel"], "{errors:?}");

    let empty =
        r#"{"model": {"kind": "custom", "spec": {"name": "x", "input": [4], "layers": []}}}"#;
    let e = scenario_from_json(empty).unwrap_err();
    assert_eq!(e.field, "model.spec.layers");
    assert_eq!(
        (e.value.as_str(), e.allowed.as_str()),
        ("0 layers", "1 to 4096 layers")
    );
    let layer = r#"{"op": "act", "kind": "relu"}"#;
    let long = format!(
        r#"{{"model": {{"kind": "custom", "spec": {{"name": "x", "input": [4], "layers": [{}]}}}}}}"#,
        vec![layer; hsi_gpu_core::graph::MAX_LAYERS + 1].join(", ")
    );
    let e = scenario_from_json(&long).unwrap_err();
    assert_eq!(
        (e.field.as_str(), e.value.as_str()),
        ("model.spec.layers", "4097 layers")
    );
}

/// An out-of-range number is named as the reader can take it in: a huge or tiny one in
/// exponent form (as JSON writes it), not 301 digits.
#[test]
fn an_out_of_range_number_is_written_as_short_as_it_was_typed() {
    let value_of = |json: &str| {
        let s = scenario_from_json(json).unwrap();
        hsi_gpu_core::estimate(&s).unwrap_err()[0].value.clone()
    };
    assert_eq!(value_of(r#"{"cost": {"card_price_usd": 1e300}}"#), "1e+300");
    assert_eq!(value_of(r#"{"memory": {"headroom": -0.5}}"#), "-0.5");
    assert_eq!(value_of(r#"{"memory": {"headroom": -1e-9}}"#), "-1e-9");
}
