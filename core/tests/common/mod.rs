//! What the tests share: reading a fixture or a file of the repository (the docs that
//! state figures), and the zoo options each PyTorch case was measured at.
// Each test crate that includes this module uses part of it.
#![allow(dead_code)]

use hsi_gpu_core::scenario::VitSize;
use hsi_gpu_core::zoo::ZooOptions;
use serde::de::DeserializeOwned;
use serde::Deserialize;

mod repo;
#[allow(unused_imports)] // Each test crate uses part of it.
pub use repo::{repo_file, repo_prose, repo_prose_zh};

/// `core/tests/fixtures/<name>`, read into `T`.
pub fn read_fixture<T: DeserializeOwned>(name: &str) -> T {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The JSON lines of `fixtures/measured_h200/<file>` (one run's record each).
pub fn h200_records(file: &str) -> Vec<serde_json::Value> {
    let path = format!(
        "{}/tests/fixtures/measured_h200/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{path}: {e}")))
        .collect()
}

/// A record's scenario on the machine that measured it: one SXM card (its only
/// interconnect id) in a server, `cudnn.benchmark` as the run set it.
pub fn h200_scenario(record: &serde_json::Value) -> serde_json::Value {
    let mut s = record["scenario"].clone();
    s["interconnect"] = "nvswitch".into();
    s["cpu"] = "server".into();
    s["cudnn_benchmark"] = record["cudnn_benchmark"].as_bool().unwrap_or(false).into();
    s
}

/// A case's zoo options as the tools write them (`tools/validate_zoo.py`).
#[derive(Deserialize)]
pub struct CaseOptions {
    pub bands: u32,
    pub patch: u32,
    pub classes: u32,
    pub width: Option<u32>,
    pub size: Option<VitSize>,
}

impl CaseOptions {
    pub fn zoo(&self) -> ZooOptions {
        ZooOptions {
            bands: self.bands,
            patch: self.patch,
            classes: self.classes,
            width: self.width,
            size: self.size,
        }
    }
}
