//! Every layer list the exporter wrote into the fixtures (tests/fixtures/exported/,
//! families/, published_models/) goes through the whole estimate, what-ifs included, as
//! `hsi-gpu estimate` runs it: none is refused, and each keeps its layers and torch's
//! parameter count and gives finite, positive memory and step time, in PyTorch's
//! default precision and under bf16 autocast.

use std::path::Path;

use hsi_gpu_core::graph::ModelSpec;
use hsi_gpu_core::scenario::{ModelChoice, Precision};
use hsi_gpu_core::whatifs::estimate_all;
use hsi_gpu_core::Scenario;
use serde_json::Value;

/// (file, layer list, torch's trainable parameters where the fixture records them).
fn exported_lists() -> Vec<(String, ModelSpec, Option<u64>)> {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut lists = Vec::new();
    for dir in ["exported", "families", "published_models"] {
        let mut paths: Vec<_> = std::fs::read_dir(fixtures.join(dir))
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .map(|entry| entry.expect("readable entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .filter(|p| p.file_name().is_some_and(|n| n != "index.json"))
            .collect();
        paths.sort();
        for path in paths {
            let name = format!("{dir}/{}", path.file_name().unwrap().to_string_lossy());
            let text = std::fs::read_to_string(&path).unwrap();
            let value: Value =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            // Fixtures hold the list under "spec" with torch's count beside it; the
            // published models are bare lists.
            let (spec, params) = match value.get("spec") {
                Some(spec) => (spec.clone(), value["torch_params"].as_u64()),
                None => (value, None),
            };
            let spec: ModelSpec =
                serde_json::from_value(spec).unwrap_or_else(|e| panic!("{name}: {e}"));
            lists.push((name, spec, params));
        }
    }
    lists
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
            let report = estimate_all(&scenario)
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
