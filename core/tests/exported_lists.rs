//! Every layer list the exporter wrote into the fixtures (tests/fixtures/exported/,
//! families/, published_models/), and the hand-written one that uses every op
//! (every_op.json, which tools/hsi_export/measure_model.py builds too), goes through the whole estimate, what-ifs included, as
//! `hsi-gpu estimate` runs it (in PyTorch's default precision; the estimate alone under
//! bf16 autocast): none is refused, and each keeps its layers and torch's parameter
//! count and gives finite, positive memory and step time.

use std::path::Path;

use hsi_gpu_core::graph::{ModelSpec, Op};
use hsi_gpu_core::scenario::{ModelChoice, Precision};
use hsi_gpu_core::whatifs::estimate_all;
use hsi_gpu_core::{estimate, Scenario};
use serde_json::Value;

/// (file, layer list, torch's trainable parameters where the fixture records them).
fn exported_lists() -> Vec<(String, ModelSpec, Option<u64>)> {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut lists = vec![layer_list(&fixtures, "every_op.json")];
    for dir in ["exported", "families", "published_models"] {
        let mut names: Vec<_> = std::fs::read_dir(fixtures.join(dir))
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .map(|entry| entry.expect("readable entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .filter(|p| p.file_name().is_some_and(|n| n != "index.json"))
            .map(|p| format!("{dir}/{}", p.file_name().unwrap().to_string_lossy()))
            .collect();
        names.sort();
        lists.extend(names.iter().map(|name| layer_list(&fixtures, name)));
    }
    lists
}

/// The fixture `name`: (name, layer list, torch's parameter count where recorded).
fn layer_list(fixtures: &Path, name: &str) -> (String, ModelSpec, Option<u64>) {
    let text = std::fs::read_to_string(fixtures.join(name)).unwrap();
    let value: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    // Fixtures hold the list under "spec" with torch's count beside it; the published
    // models are bare lists.
    let (spec, params) = match value.get("spec") {
        Some(spec) => (spec.clone(), value["torch_params"].as_u64()),
        None => (value, None),
    };
    let spec: ModelSpec = serde_json::from_value(spec).unwrap_or_else(|e| panic!("{name}: {e}"));
    (name.to_string(), spec, params)
}

#[test]
fn the_every_op_fixture_uses_every_op() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let (_, spec, params) = layer_list(&fixtures, "every_op.json");
    assert!(
        params.is_some(),
        "every_op.json records torch's parameter count"
    );
    let text = serde_json::to_value(&spec).unwrap().to_string();
    let missing: Vec<&str> = Op::TAGS
        .iter()
        .map(|(tag, _)| *tag)
        .filter(|tag| !text.contains(&format!("\"op\":\"{tag}\"")))
        .collect();
    assert!(missing.is_empty(), "every_op.json lacks {missing:?}");
}

#[test]
fn every_exported_layer_list_estimates() {
    let lists = exported_lists();
    assert!(lists.len() >= 50, "{} layer lists found", lists.len());
    for (name, spec, params) in &lists {
        for precision in [Precision::TorchDefault, Precision::AmpBf16] {
            let scenario = Scenario {
                model: ModelChoice::Custom { spec: spec.clone() },
                batch_per_gpu: 2,
                precision,
                ..Scenario::default()
            };
            let case = format!("{name} ({precision:?})");
            let report = if precision == Precision::TorchDefault {
                estimate_all(&scenario)
            } else {
                estimate(&scenario)
            }
            .unwrap_or_else(|e| panic!("{case}: the estimator refused it: {e:?}"));
            assert_eq!(report.layers.len(), spec.layers.len(), "{case}");
            if let Some(params) = params {
                assert_eq!(report.params, *params, "{case}: torch's parameter count");
            }
            let step = report.perf.time.step_s;
            let memory = report.memory.total;
            assert!(step.is_finite() && step > 0.0, "{case}: step {step}");
            assert!(
                memory.is_finite() && memory > report.memory.weights,
                "{case}"
            );
        }
    }
}

#[test]
fn a_layer_that_shares_parameters_counts_them_once_and_runs_as_its_twin() {
    // A depthwise convolution module called twice (CoaT's shared positional encoding).
    let spec: ModelSpec = serde_json::from_value(serde_json::json!({
        "name": "shared", "input": [16, 28, 28],
        "layers": [
            {"name": "first", "op": "conv", "dims": 2, "out_channels": 16, "kernel": [3], "padding": [1], "groups": 16},
            {"name": "again", "shares": "first", "op": "conv", "dims": 2, "out_channels": 16, "kernel": [3],
             "padding": [1], "groups": 16},
            {"op": "flatten"}, {"op": "linear", "out_features": 10}
        ]
    }))
    .unwrap();
    let scenario = Scenario {
        model: ModelChoice::Custom { spec },
        precision: Precision::AmpBf16,
        ..Scenario::default()
    };
    let report = estimate(&scenario).expect("estimates");
    let (first, again) = (&report.layers[0], &report.layers[1]);
    assert_eq!((first.params, again.params), (16 * 9 + 16, 0));
    assert_eq!(report.params, 16 * 9 + 16 + 16 * 28 * 28 * 10 + 10);
    assert_eq!((first.weights, again.weights), (first.params, first.params));
    assert_eq!(again.param_tensors, 0);
    let [a, b] = [0, 1].map(|i| &report.perf.layers[i]);
    // The same kernels on the same shapes, without the weight cast autocast caches once.
    assert_eq!(a.forward.roofline.flops, b.forward.roofline.flops);
    assert!(b.forward.time_s.is_finite() && b.forward.time_s > 0.0);
    assert!(b.forward.time_s <= a.forward.time_s);
    let bad: Result<ModelSpec, _> = serde_json::from_value(serde_json::json!({
        "name": "x", "input": [4], "layers": [{"op": "linear", "out_features": 4, "shares": "nowhere"}]
    }));
    let refused = estimate(&Scenario {
        model: ModelChoice::Custom { spec: bad.unwrap() },
        ..Scenario::default()
    })
    .unwrap_err();
    assert!(
        format!("{refused:?}").contains("shares 'nowhere'"),
        "{refused:?}"
    );
}
