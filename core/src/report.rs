//! The Report: everything `estimate` computes for a Scenario. Serialised by the CLI as
//! JSON (documented in docs/formats.md) and drawn by the web app.

use serde::Serialize;

pub use crate::analysis::LayerReport;
pub use crate::memory::MemoryBreakdown;
pub use crate::warning::Warning;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub model_name: String,
    pub params: u64,
    /// Parameters that train (gradients, optimizer states): `params` unless `finetune`
    /// freezes some.
    pub trainable_params: u64,
    /// Forward and backward FLOPs per sample (conv/linear/matmul, flop_counter convention).
    pub fwd_flops_per_sample: f64,
    pub bwd_flops_per_sample: f64,
    /// The layers one GPU runs (narrowed by tensor parallelism; the whole model without).
    pub layers: Vec<LayerReport>,
    /// Memory per GPU (the most loaded pipeline stage's).
    pub memory: MemoryBreakdown,
    /// Largest per-GPU batch whose total stays within capacity x (1 - headroom); 0 if none.
    pub max_batch: u32,
    pub perf: crate::perf::PerfReport,
    /// How the run is laid out over its cards (data x tensor x pipeline), the
    /// tensor-parallel all-reduces, the pipeline's bubble and each stage's memory and time.
    pub parallel: crate::parallel::ParallelReport,
    /// The scenario's own point in the lever table (`estimate_all` only).
    pub lever_baseline: Option<crate::levers::LeverPoint>,
    /// One resource improved at a time (`estimate_all` only; empty otherwise).
    pub levers: Vec<crate::levers::LeverOutcome>,
    /// The lever that pays most; None when none helps (or without `estimate_all`).
    pub best_lever: Option<crate::levers::BestLever>,
    /// How much faster a step runs with `torch.backends.cudnn.benchmark = True`, where the
    /// scenario leaves it off and that gains over `levers::MIN_SPEEDUP` (`estimate_all`
    /// only): no card to buy, and for 3-D CNNs often more than any card gives.
    pub cudnn_benchmark_speedup: Option<f64>,
    /// Evaluation and whole-scene prediction (`estimate_all` with a catalog dataset).
    pub inference: Option<crate::inference::InferenceReport>,
    /// Non-fatal remarks (e.g. a precision the card runs only in emulation).
    pub warnings: Vec<Warning>,
}
