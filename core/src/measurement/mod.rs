//! Predicted versus measured, and calibration of the constants that cannot be derived.
//!
//! A `Measurement` is what `tools/measure.py` records for a Scenario on a real card: peak
//! `torch.cuda.max_memory_allocated` and `max_memory_reserved`, the memory outside
//! PyTorch's allocator (CUDA context, kernels, library handles) from
//! `torch.cuda.mem_get_info`, the median step time and, optionally, the largest batch
//! before an out-of-memory error. `compare` sets each measured figure beside the
//! estimate's; `calibrate` fits the scenario's overridable constants to measurements.
//!
//! How the estimate's terms (`memory.rs`) map to what PyTorch reports:
//! - allocated peak = total - CUDA context - allocator overhead (weights, gradients,
//!   optimizer states, activations, transient);
//! - reserved peak = total - CUDA context (the allocated peak plus the allocator term);
//! - context = the CUDA context term;
//! - device total = total (reserved + context as `nvidia-smi` would show it);
//! - step time = one optimizer step on one card (`perf.rs`);
//! - max batch = the largest batch whose step fits the card with no headroom (the
//!   measured sweep stops at the first out-of-memory error, not at a safety margin), the
//!   card's size being what the measurement's device reported (`total_memory_bytes`).

mod calibrate;
mod compare;

pub use calibrate::{calibrate, CalibrationReport, Fitted, NotFitted};
pub use compare::{compare, mean_abs_errors, Note, PredictedVsMeasured, Setting, Term};

use crate::choices::{Optimizer, Precision};
use crate::json::{self, json_object_value, json_struct, Check, JsonDocument};
use crate::problems::{FieldError, Problems};
use crate::scenario::{MAX_BANDS, MAX_BATCH, MAX_CLASSES, MAX_PATCH};

json_struct! {
    /// The card and software a measurement ran on, as PyTorch reports them.
    #[derive(Clone, Debug, PartialEq)]
    pub struct DeviceInfo {
        /// `torch.cuda.get_device_name()`, e.g. "NVIDIA RTX A5500"; "cpu" for a dry run.
        pub gpu_name: Option<String> = None,
        /// `torch.cuda.get_device_properties().total_memory`: what CUDA can use.
        pub total_memory_bytes: Option<u64> = None,
        pub driver: Option<String> = None,
        /// CUDA version PyTorch was built with (`torch.version.cuda`).
        pub cuda: Option<String> = None,
        pub torch: Option<String> = None,
    }
}

json_struct! {
    /// One batch size of an out-of-memory sweep.
    #[derive(Clone, Debug, PartialEq)]
    pub struct SweepPoint {
        pub batch: u32 [1, MAX_BATCH] = 0,
        /// False when the step ran out of memory.
        pub fits: bool = false,
        pub peak_allocated_bytes: Option<f64> = None,
    }
}

/// Largest byte figure accepted (1 PiB): far above any card, small enough to stay exact.
const MAX_MEASURED_BYTES: f64 = (1u64 << 50) as f64;
/// Longest step accepted, seconds (a day).
const MAX_STEP_S: f64 = 86_400.0;

json_struct! {
    /// What `tools/measure.py` writes. Every figure is optional: a dry run on a CPU
    /// records the structure and no CUDA figure.
    #[derive(Clone, Debug, PartialEq)]
    pub struct Measurement {
        /// Free text: where the figures come from. Synthetic samples say so here.
        pub note: String = String::new(),
        /// True when the figures are made up (examples and tests), not measured.
        pub synthetic: bool = false,
        /// True for `measure.py --dry-run` (CPU): no CUDA figures, step time not
        /// comparable.
        pub dry_run: bool = false,
        pub device: DeviceInfo = DeviceInfo::default(),
        /// Model name or zoo id the script ran (informative).
        pub model: String = String::new(),
        /// Per-GPU batch of the timed steps.
        pub batch: u32 [1, MAX_BATCH] = 0,
        /// Scenario geometry the run used; when given and different from the scenario's,
        /// the comparison estimates the measured geometry and says so.
        pub bands: Option<u32> [1, MAX_BANDS] = None,
        pub patch: Option<u32> [1, MAX_PATCH] = None,
        pub classes: Option<u32> [1, MAX_CLASSES] = None,
        /// Settings the run used; when given and different from the scenario's, the
        /// comparison estimates the measured settings and says so.
        pub precision: Option<Precision> = None,
        pub optimizer: Option<Optimizer> = None,
        pub checkpointing: Option<bool> = None,
        /// `torch.backends.cudnn.benchmark` of the run.
        pub cudnn_benchmark: Option<bool> = None,
        pub warmup_steps: u32 = 0,
        /// Every timed step, seconds (CUDA-synchronised).
        pub step_times_s: Vec<f64> [0.0, MAX_STEP_S] = Vec::new(),
        /// Median of `step_times_s`: a microsecond at least (no step is shorter; the
        /// smallest positive float made the refusal 300 digits long).
        pub step_time_s: Option<f64> [1e-6, MAX_STEP_S] = None,
        /// `torch.cuda.max_memory_allocated` over the timed steps.
        pub peak_allocated_bytes: Option<f64> [0.0, MAX_MEASURED_BYTES] = None,
        /// `torch.cuda.max_memory_reserved` over the timed steps.
        pub peak_reserved_bytes: Option<f64> [0.0, MAX_MEASURED_BYTES] = None,
        /// Device memory in use (total - free from `mem_get_info`) right after CUDA
        /// starts and after the timed steps.
        pub device_used_before_bytes: Option<f64> [0.0, MAX_MEASURED_BYTES] = None,
        pub device_used_after_bytes: Option<f64> [0.0, MAX_MEASURED_BYTES] = None,
        /// Memory outside PyTorch's allocator: device used after - reserved after.
        pub context_bytes: Option<f64> [0.0, MAX_MEASURED_BYTES] = None,
        /// Largest batch of the sweep that did not run out of memory.
        pub max_batch: Option<u32> [0, MAX_BATCH] = None,
        pub sweep: Vec<SweepPoint> = Vec::new(),
        /// Median host time to issue one step (from a sync until the step's Python call
        /// returns, without syncing at its end): `measure.py --host`.
        pub host_step_s: Option<f64> [0.0, MAX_STEP_S] = None,
        /// DataLoader workers of the `--host --num-workers` loop over a synthetic cube.
        pub loader_num_workers: Option<u32> [0, 4096] = None,
        /// Median seconds the loop waited in `next(loader)` per step.
        pub loader_wait_s: Option<f64> [0.0, MAX_STEP_S] = None,
        /// Median seconds of that loop's whole step (wait, copy, step, `loss.item()`).
        pub loader_step_s: Option<f64> [0.0, MAX_STEP_S] = None,
    }
}

impl Measurement {
    /// Every problem with the figures (non-finite, negative, out of range).
    pub fn validate(&self) -> Vec<FieldError> {
        let mut p = Problems::default();
        self.check("", &mut p);
        if let (Some(allocated), Some(reserved)) =
            (self.peak_allocated_bytes, self.peak_reserved_bytes)
        {
            if reserved < allocated {
                p.push(
                    "peak_reserved_bytes",
                    reserved,
                    format!("at least peak_allocated_bytes ({allocated}): reserved memory holds the allocations"),
                );
            }
        }
        p.0
    }
}

/// Parses measurement JSON; errors name the field path, as `scenario_from_json` does.
/// Every field may be missing or null (it takes its default); unknown fields are refused.
pub fn measurement_from_json(text: &str) -> Result<Measurement, FieldError> {
    let value = json_object_value(
        text,
        &JsonDocument {
            field: "(measurement)",
            expected: "one JSON object written by tools/measure.py",
        },
    )?;
    let m: Measurement = json::read_document(&value, "(measurement)")?;
    match m.validate().into_iter().next() {
        Some(error) => Err(error),
        None => Ok(m),
    }
}
