//! HSI GPU Planner's estimator core: pure, deterministic, no browser or UI dependency.
//! `estimate(&Scenario)` turns a scenario into a `Report`.

pub mod analysis;
pub mod chart;
pub mod cost;
pub mod dataset;
pub mod format;
pub mod gpu;
pub mod graph;
pub mod memory;
pub mod perf;
pub mod report;
pub mod scenario;
pub mod zoo;

pub use scenario::{FieldError, Scenario};
