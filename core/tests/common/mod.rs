//! What the tests share: reading a fixture or a file of the repository (the docs that
//! state figures), a median, and the zoo options each PyTorch case was measured at; the
//! H200 measurements (`h200`) and the published training steps (`published_steps`) as
//! their tests read them, and layer figures built by hand (`hand_built`).
// Each test crate that includes this module uses part of it.
#![allow(dead_code)]

use hsi_gpu_core::scenario::VitSize;
use hsi_gpu_core::zoo::ZooOptions;
use serde::de::DeserializeOwned;
use serde::Deserialize;

pub mod h200;
pub mod hand_built;
pub mod published_steps;
mod repo;
#[allow(unused_imports)] // Each test crate uses part of it.
pub use repo::{repo_file, repo_prose, repo_prose_zh};

/// `core/tests/fixtures/<name>`, read into `T`.
pub fn read_fixture<T: DeserializeOwned>(name: &str) -> T {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The median of `xs` (NaN for none).
pub fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
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
