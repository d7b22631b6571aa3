//! The Report: everything `estimate` computes for a Scenario. Serialised by the CLI as
//! JSON (documented in the README) and drawn by the web app.

use serde::{Deserialize, Serialize};

use crate::scenario::Interconnect;

/// One layer, for the whole per-GPU batch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LayerReport {
    pub name: String,
    pub kind: String,
    /// Per-sample output shape (no batch dimension).
    pub output_shape: Vec<u64>,
    pub params: u64,
    /// Conv/linear/matmul FLOPs (multiply-add = 2) as torch.utils.flop_counter counts them.
    pub fwd_flops: f64,
    pub bwd_flops: f64,
    /// Element-wise, normalisation and pooling FLOPs (forward; rough, for the roofline).
    pub other_flops: f64,
    /// Bytes the forward pass reads as inputs (compute dtype).
    pub input_bytes: f64,
    /// Bytes the forward pass writes.
    pub output_bytes: f64,
    /// Parameter bytes as the kernel reads them (compute dtype).
    pub weight_bytes: f64,
    /// Bytes autograd keeps for backward that this layer adds (tensors shared with an
    /// earlier layer are counted there).
    pub saved_bytes: f64,
    /// Runs on tensor cores when the precision allows it (conv, linear, matmul).
    pub tensor_core: bool,
    /// CUDA kernels launched, forward and backward.
    pub kernels_fwd: u32,
    pub kernels_bwd: u32,
}

/// Memory per GPU, in bytes, term by term. `total` is their sum.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryBreakdown {
    pub cuda_context: f64,
    pub weights: f64,
    pub gradients: f64,
    pub optimizer_states: f64,
    /// Activations autograd keeps for backward (includes the input batch and the
    /// half-precision weight copies autocast keeps).
    pub activations: f64,
    /// Largest temporary on top of the kept activations during forward/backward.
    pub transient: f64,
    /// Caching-allocator rounding and fragmentation.
    pub allocator: f64,
    pub total: f64,
    /// Usable card memory (physical minus driver reserve).
    pub capacity: f64,
    pub fits: bool,
    /// (capacity - total) / capacity; negative when it does not fit.
    pub headroom: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub model_name: String,
    pub params: u64,
    /// Forward and backward FLOPs per sample (conv/linear/matmul, flop_counter convention).
    pub fwd_flops_per_sample: f64,
    pub bwd_flops_per_sample: f64,
    pub layers: Vec<LayerReport>,
    pub memory: MemoryBreakdown,
    /// Largest per-GPU batch whose total stays within capacity x (1 - headroom); 0 if none.
    pub max_batch: u32,
    pub perf: crate::perf::PerfReport,
    /// The scenario's own point in the lever table (`estimate_all` only).
    pub lever_baseline: Option<crate::levers::LeverPoint>,
    /// One resource improved at a time (`estimate_all` only; empty otherwise).
    pub levers: Vec<crate::levers::LeverOutcome>,
    /// The lever that pays most; None when none helps (or without `estimate_all`).
    pub best_lever: Option<crate::levers::BestLever>,
    /// Evaluation and whole-scene prediction (`estimate_all` with a catalog dataset).
    pub inference: Option<crate::inference::InferenceReport>,
    /// Non-fatal remarks (e.g. a precision the card runs only in emulation).
    pub warnings: Vec<Warning>,
}

/// A non-fatal remark on an estimate. `Display` gives the English sentence (the CLI's
/// JSON carries it); the web app words each kind in its own languages.
#[derive(Clone, Debug, PartialEq)]
pub enum Warning {
    /// No TF32 tensor cores: tf32 is estimated at the FP32 rate.
    NoTf32 { gpu: String },
    /// No BF16 support: PyTorch emulates bf16, estimated at the FP32 rate at best.
    NoBf16 { gpu: String },
    /// The card cannot use the chosen interconnect; the scaling uses another.
    InterconnectReplaced {
        gpu: String,
        requested: Interconnect,
        used: Interconnect,
    },
    /// The dataset is not in the catalog: no epoch time.
    UnknownDataset { id: String },
    /// The card has no known price: it counts as 0 USD until cost.card_price_usd is set.
    PriceUnknown { gpu: String },
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Warning::NoTf32 { gpu } => {
                write!(
                    f,
                    "{gpu} has no TF32 tensor cores: tf32 runs at the FP32 rate"
                )
            }
            Warning::NoBf16 { gpu } => write!(
                f,
                "{gpu} has no BF16 support: bf16 is emulated, estimated at the FP32 rate at best"
            ),
            Warning::InterconnectReplaced {
                gpu,
                requested,
                used,
            } => write!(
                f,
                "{gpu} cannot use interconnect {}; using {}",
                requested.id(),
                used.id()
            ),
            Warning::UnknownDataset { id } => {
                write!(f, "unknown dataset {id}: epoch time not estimated")
            }
            Warning::PriceUnknown { gpu } => write!(
                f,
                "no price known for {gpu}: set cost.card_price_usd (cards are counted at 0 USD)"
            ),
        }
    }
}

impl Serialize for Warning {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}
