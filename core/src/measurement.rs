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
//! - max batch = the largest batch whose total fits the card with no headroom (the
//!   measured sweep stops at the first out-of-memory error, not at a safety margin).

use serde::Serialize;

use crate::json::{self, json_struct, Check};

use crate::gpu::{gpu_by_id, GpuSpec};
use crate::perf::PerfAssumptions;
use crate::problems::{FieldError, Problems};
use crate::scenario::{
    json_object_value, JsonDocument, ModelChoice, Optimizer, Precision, Scenario, MAX_BANDS,
    MAX_BATCH, MAX_CLASSES, MAX_PATCH,
};
use crate::{build_model, estimate, memory};

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
        pub warmup_steps: u32 = 0,
        /// Every timed step, seconds (CUDA-synchronised).
        pub step_times_s: Vec<f64> [0.0, MAX_STEP_S] = Vec::new(),
        /// Median of `step_times_s`.
        pub step_time_s: Option<f64> [f64::MIN_POSITIVE, MAX_STEP_S] = None,
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

/// One figure, predicted and measured.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Term {
    /// `peak_allocated_bytes`, `peak_reserved_bytes`, `context_bytes`,
    /// `device_total_bytes`, `step_time_s` or `max_batch`.
    pub name: String,
    pub predicted: f64,
    pub measured: f64,
    /// (predicted - measured) / measured x 100: positive when the estimate is high.
    /// None when the measured figure is 0.
    pub error_pct: Option<f64>,
}

impl Term {
    fn new(name: &str, predicted: f64, measured: f64) -> Self {
        Term {
            name: name.into(),
            predicted,
            measured,
            error_pct: (measured != 0.0).then(|| (predicted - measured) / measured * 100.0),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    pub model: String,
    pub gpu: String,
    /// Per-GPU batch compared (the measurement's).
    pub batch: u32,
    /// Only the terms the measurement has.
    pub terms: Vec<Term>,
    /// Settings that differ between scenario and measurement, synthetic or dry-run data.
    pub warnings: Vec<Note>,
}

impl Comparison {
    pub fn term(&self, name: &str) -> Option<&Term> {
        self.terms.iter().find(|t| t.name == name)
    }
}

/// Why a comparison may not set like beside like. `Display` gives the English sentence
/// (the CLI's JSON carries it); the web app words each kind in its own languages.
#[derive(Clone, Debug, PartialEq)]
pub enum Note {
    /// The scenario has this many cards; the measurement is of one, compared as one.
    OneCard(u32),
    /// A setting the run recorded (`bands`, `precision`, ...) differs from the scenario's:
    /// the estimate uses the measured value.
    Setting {
        field: &'static str,
        measured: String,
        scenario: String,
    },
    /// The run names another model than the scenario's: the figures may not be comparable.
    OtherModel { measured: String, scenario: String },
    /// Measured on another card than the scenario's.
    OtherCard { measured: String, scenario: String },
    /// Made-up figures (examples and tests).
    Synthetic,
    /// `measure.py --dry-run` on a CPU: no CUDA figures.
    DryRun,
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Note::OneCard(cards) => write!(
                f,
                "the scenario has {cards} cards; the measurement is of one card, compared as one"
            ),
            Note::Setting {
                field,
                measured,
                scenario,
            } => write!(
                f,
                "measured with {field} {measured}, the scenario has {scenario}: estimating {measured}"
            ),
            Note::OtherModel { measured, scenario } => write!(
                f,
                "measured model {measured}, the scenario's is {scenario}: the figures may not compare"
            ),
            Note::OtherCard { measured, scenario } => {
                write!(f, "measured on {measured}, the scenario's card is {scenario}")
            }
            Note::Synthetic => f.write_str("synthetic sample: made-up figures, not a measurement"),
            Note::DryRun => f.write_str(
                "dry run on the CPU: no CUDA figures, and its step time is not a card's",
            ),
        }
    }
}

impl Serialize for Note {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// The scenario's model as `measure.py` names it: the zoo id, or the layer list's name.
fn model_name(s: &Scenario) -> &str {
    match &s.model {
        ModelChoice::Preset { id, .. } => id,
        ModelChoice::Custom { spec } => &spec.name,
    }
}

/// The scenario as it was measured: one card, the measurement's batch and, where the
/// measurement records them, its geometry, precision, optimizer and checkpointing. Returns
/// the differences from `s` as notes.
fn measured_scenario(s: &Scenario, m: &Measurement) -> (Scenario, Vec<Note>) {
    let mut measured = s.clone();
    let mut notes = Vec::new();
    if s.cards != 1 {
        notes.push(Note::OneCard(s.cards));
        measured.cards = 1;
    }
    measured.batch_per_gpu = m.batch;
    if !m.model.is_empty() && m.model != model_name(s) {
        notes.push(Note::OtherModel {
            measured: m.model.clone(),
            scenario: model_name(s).into(),
        });
    }
    // Takes a recorded setting when it differs, with a note.
    fn take<T: PartialEq + Copy>(
        notes: &mut Vec<Note>,
        field: &'static str,
        recorded: Option<T>,
        slot: &mut T,
        text: impl Fn(T) -> String,
    ) {
        if let Some(value) = recorded.filter(|v| v != slot) {
            notes.push(Note::Setting {
                field,
                measured: text(value),
                scenario: text(*slot),
            });
            *slot = value;
        }
    }
    take(&mut notes, "bands", m.bands, &mut measured.bands, |v| {
        v.to_string()
    });
    take(&mut notes, "patch", m.patch, &mut measured.patch, |v| {
        v.to_string()
    });
    take(
        &mut notes,
        "classes",
        m.classes,
        &mut measured.classes,
        |v| v.to_string(),
    );
    take(
        &mut notes,
        "precision",
        m.precision,
        &mut measured.precision,
        |p| p.id().into(),
    );
    take(
        &mut notes,
        "optimizer",
        m.optimizer,
        &mut measured.optimizer,
        |o| o.id().into(),
    );
    take(
        &mut notes,
        "checkpointing",
        m.checkpointing,
        &mut measured.checkpointing,
        |c| c.to_string(),
    );
    (measured, notes)
}

/// True when PyTorch's device name names the catalog card ("NVIDIA RTX A5500" and
/// "RTX A5500").
fn same_card(gpu: &GpuSpec, device_name: &str) -> bool {
    // Letters and digits only, lowercase (a byte search: the web page has no substring
    // searcher otherwise).
    let normalise = |s: &str| -> Vec<u8> {
        s.bytes()
            .filter(|b| b.is_ascii_alphanumeric())
            .map(|b| b.to_ascii_lowercase())
            .collect()
    };
    let (device, card) = (normalise(device_name), normalise(gpu.name));
    device.windows(card.len()).any(|w| w == card)
}

/// Predicted versus measured, term by term where the measurement has the term.
pub fn compare(s: &Scenario, m: &Measurement) -> Result<Comparison, Vec<FieldError>> {
    let measurement_errors = m.validate();
    if !measurement_errors.is_empty() {
        return Err(measurement_errors);
    }
    let (scenario, mut warnings) = measured_scenario(s, m);
    let report = estimate(&scenario)?;
    let gpu = gpu_by_id(&scenario.gpu).expect("estimate checked the GPU id");
    if let Some(name) = &m.device.gpu_name {
        if !m.dry_run && !same_card(gpu, name) {
            warnings.push(Note::OtherCard {
                measured: name.clone(),
                scenario: gpu.name.into(),
            });
        }
    }
    let mem = &report.memory;
    let mut terms = Vec::new();
    let mut add = |name: &str, predicted: f64, measured: Option<f64>| {
        if let Some(measured) = measured {
            terms.push(Term::new(name, predicted, measured));
        }
    };
    add(
        "peak_allocated_bytes",
        mem.total - mem.cuda_context - mem.allocator,
        m.peak_allocated_bytes,
    );
    add(
        "peak_reserved_bytes",
        mem.total - mem.cuda_context,
        m.peak_reserved_bytes,
    );
    add("context_bytes", mem.cuda_context, m.context_bytes);
    add(
        "device_total_bytes",
        mem.total,
        m.peak_reserved_bytes
            .zip(m.context_bytes)
            .map(|(r, c)| r + c),
    );
    if !m.dry_run {
        add("step_time_s", report.perf.time.step_s, m.step_time_s);
    }
    if let Some(measured_max) = m.max_batch {
        let spec = build_model(&scenario).map_err(|e| vec![e])?;
        let mut no_headroom = scenario.clone();
        no_headroom.memory.headroom = 0.0;
        let predicted = memory::max_batch(&spec, &no_headroom, gpu).map_err(|e| vec![e])?;
        add("max_batch", predicted.into(), Some(measured_max.into()));
    }
    if m.synthetic {
        warnings.push(Note::Synthetic);
    }
    if m.dry_run {
        warnings.push(Note::DryRun);
    }
    Ok(Comparison {
        model: report.model_name,
        gpu: gpu.name.into(),
        batch: m.batch,
        terms,
        warnings,
    })
}

/// Mean |error| in percent of each term over `comparisons`, in the order terms first
/// appear: how far off the estimate is, e.g. before and after calibration.
pub fn mean_abs_errors(comparisons: &[Comparison]) -> Vec<(String, f64)> {
    let mut sums: Vec<(String, f64, usize)> = Vec::new();
    for term in comparisons.iter().flat_map(|c| &c.terms) {
        let Some(error) = term.error_pct else {
            continue;
        };
        match sums.iter_mut().find(|(name, ..)| *name == term.name) {
            Some((_, sum, n)) => {
                *sum += error.abs();
                *n += 1;
            }
            None => sums.push((term.name.clone(), error.abs(), 1)),
        }
    }
    sums.into_iter()
        .map(|(name, sum, n)| (name, sum / n as f64))
        .collect()
}

/// One constant `calibrate` changed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fitted {
    /// Scenario field path, e.g. `memory.cuda_context_bytes`.
    pub field: String,
    pub before: f64,
    pub after: f64,
    /// Measurements the value comes from.
    pub measurements: usize,
    pub how: String,
}

/// A constant `calibrate` left alone, for want of the figure it needs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NotFitted {
    /// Scenario field path.
    pub field: String,
    /// What the measurements lack.
    pub why: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CalibrationReport {
    pub fitted: Vec<Fitted>,
    pub not_fitted: Vec<NotFitted>,
    /// Each measurement compared with the scenario before and after calibration.
    pub before: Vec<Comparison>,
    pub after: Vec<Comparison>,
}

fn median(mut values: Vec<f64>) -> Option<f64> {
    values.sort_unstable_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(values[n / 2]),
        _ => Some((values[n / 2 - 1] + values[n / 2]) / 2.0),
    }
}

/// Bounds the speed factor search (a card 1000x slower or faster than modelled).
const SPEED_FACTOR_RANGE: (f64, f64) = (1e-3, 1e3);

/// Significant digits kept in fitted factors: far below measurement noise, and short
/// decimals read back from JSON exactly.
const FITTED_DIGITS: i32 = 6;

/// `x` rounded to `FITTED_DIGITS` significant digits.
fn rounded(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let decimals = FITTED_DIGITS - 1 - x.abs().log10().floor() as i32;
    let scale = 10f64.powi(decimals.abs());
    if decimals >= 0 {
        (x * scale).round() / scale
    } else {
        (x / scale).round() * scale
    }
}

/// The constants the speed factor scales (see `scaled_perf`).
const SPEED_FIELDS: [&str; 3] = [
    "perf.compute_efficiency",
    "perf.memory_efficiency",
    "perf.kernel_launch_s",
];

/// `a` with every time term scaled by `factor`: efficiencies divided, launch floor
/// multiplied, each kept within what `PerfAssumptions::validate` allows.
fn scaled_perf(a: &PerfAssumptions, factor: f64) -> PerfAssumptions {
    PerfAssumptions {
        compute_efficiency: rounded((a.compute_efficiency / factor).clamp(0.01, 1.0)),
        memory_efficiency: rounded((a.memory_efficiency / factor).clamp(0.01, 1.0)),
        kernel_launch_s: rounded((a.kernel_launch_s * factor).clamp(0.0, 1e-2)),
        ..a.clone()
    }
}

/// Fits the scenario's overridable constants to measurements of it and returns the
/// updated scenario:
/// - `memory.cuda_context_bytes`: median of the measured context;
/// - `memory.fragmentation`: sum of (reserved - allocated) over the sum of the
///   estimate's activations + transient (the terms `memory.rs` applies it to);
/// - `memory.driver_reserved_bytes`: catalog memory - what CUDA reports as total, when
///   the measured card is the scenario's;
/// - perf: one speed factor shared by the compute, memory and launch terms
///   (`compute_efficiency` and `memory_efficiency` divided by it, `kernel_launch_s`
///   multiplied), chosen so the geometric mean of predicted / measured step time is 1.
///   With measurements that differ in what limits them a per-term fit would be
///   possible; one factor is what a few measurements support. Only step times measured
///   on the scenario's card count (or from files that name no card).
///
/// Dry runs carry no CUDA figures and are skipped. An error names the measurement.
pub fn calibrate(
    s: &Scenario,
    measurements: &[Measurement],
) -> Result<(Scenario, CalibrationReport), FieldError> {
    let invalid = |i: usize, e: &FieldError| FieldError {
        field: format!("measurements[{i}].{}", e.field),
        value: e.value.clone(),
        allowed: e.allowed.clone(),
    };
    let mut before = Vec::new();
    let mut cases = Vec::new(); // (measurement, the scenario as measured)
    for (i, m) in measurements.iter().enumerate() {
        if let Some(e) = m.validate().first() {
            return Err(invalid(i, e));
        }
        before.push(compare(s, m).map_err(|errors| invalid(i, &errors[0]))?);
        if !m.dry_run {
            cases.push((m, measured_scenario(s, m).0));
        }
    }
    if cases.is_empty() {
        return Err(FieldError {
            field: "measurements".into(),
            value: format!(
                "{} measurement(s), none from a CUDA card",
                measurements.len()
            ),
            allowed:
                "at least one measurement from a CUDA card (tools/measure.py without --dry-run)"
                    .into(),
        });
    }
    let gpu = gpu_by_id(&s.gpu).expect("compare checked the GPU id");
    let mut out = s.clone();
    let mut fitted = Vec::new();
    let mut not_fitted = Vec::new();

    let contexts: Vec<f64> = cases.iter().filter_map(|(m, _)| m.context_bytes).collect();
    let count = contexts.len();
    match median(contexts) {
        Some(context) => {
            out.memory.cuda_context_bytes = context.round() as u64;
            fitted.push(Fitted {
                field: "memory.cuda_context_bytes".into(),
                before: s.memory.cuda_context_bytes as f64,
                after: out.memory.cuda_context_bytes as f64,
                measurements: count,
                how: "median of the measured context (device used - reserved)".into(),
            });
        }
        None => not_fitted.push(NotFitted {
            field: "memory.cuda_context_bytes".into(),
            why: "no measured context".into(),
        }),
    }

    let mut overhead = 0.0;
    let mut base = 0.0;
    let mut used = 0;
    for (m, scenario) in &cases {
        if let (Some(allocated), Some(reserved)) = (m.peak_allocated_bytes, m.peak_reserved_bytes) {
            let memory = estimate(scenario).map_err(|e| e[0].clone())?.memory;
            overhead += reserved - allocated;
            base += memory.activations + memory.transient;
            used += 1;
        }
    }
    if used > 0 && base > 0.0 {
        let fragmentation = rounded((overhead / base).clamp(0.0, 1.0));
        out.memory.fragmentation = fragmentation;
        fitted.push(Fitted {
            field: "memory.fragmentation".into(),
            before: s.memory.fragmentation,
            after: fragmentation,
            measurements: used,
            how: "sum of (reserved - allocated) / sum of estimated activations + transient, within 0..1, 6 significant digits".into(),
        });
    } else {
        not_fitted.push(NotFitted {
            field: "memory.fragmentation".into(),
            why: "no measurement with both allocated and reserved peaks".into(),
        });
    }

    // Measured on the scenario's card (None: the file names no card).
    let on_this_card =
        |m: &Measurement| -> Option<bool> { Some(same_card(gpu, m.device.gpu_name.as_deref()?)) };
    let totals: Vec<f64> = cases
        .iter()
        .filter(|(m, _)| on_this_card(m) == Some(true))
        .filter_map(|(m, _)| m.device.total_memory_bytes.map(|t| t as f64))
        .collect();
    let count = totals.len();
    match median(totals) {
        Some(total) => {
            out.memory.driver_reserved_bytes = (gpu.memory_bytes as f64 - total).max(0.0) as u64;
            fitted.push(Fitted {
                field: "memory.driver_reserved_bytes".into(),
                before: s.memory.driver_reserved_bytes as f64,
                after: out.memory.driver_reserved_bytes as f64,
                measurements: count,
                how: format!(
                    "catalog memory of the {} minus the total CUDA reports (0 if CUDA reports more)",
                    gpu.name
                ),
            });
        }
        None => not_fitted.push(NotFitted {
            field: "memory.driver_reserved_bytes".into(),
            why: format!("no measurement of a {} with its total memory", gpu.name),
        }),
    }

    // Step times say how fast this card runs, so another card's are left out.
    let timed: Vec<(&Scenario, f64)> = cases
        .iter()
        .filter(|(m, _)| on_this_card(m) != Some(false))
        .filter_map(|(m, scenario)| m.step_time_s.map(|t| (scenario, t)))
        .collect();
    if timed.is_empty() {
        not_fitted.extend(SPEED_FIELDS.map(|field| NotFitted {
            field: field.into(),
            why: format!("no step time measured on a {}", gpu.name),
        }));
    } else {
        // Mean log ratio predicted / measured; non-decreasing in the factor.
        let log_error = |factor: f64| -> Result<f64, FieldError> {
            let perf = scaled_perf(&s.perf, factor);
            let mut sum = 0.0;
            for (scenario, measured) in &timed {
                let mut scenario = (*scenario).clone();
                scenario.perf = perf.clone();
                let predicted = estimate(&scenario)
                    .map_err(|e| e[0].clone())?
                    .perf
                    .time
                    .step_s;
                sum += (predicted / measured).ln();
            }
            Ok(sum / timed.len() as f64)
        };
        let (mut lo, mut hi) = (SPEED_FACTOR_RANGE.0.ln(), SPEED_FACTOR_RANGE.1.ln());
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if log_error(mid.exp())? < 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let factor = (0.5 * (lo + hi)).exp();
        out.perf = scaled_perf(&s.perf, factor);
        let how = format!(
            "one speed factor {factor:.4} over {} timed measurement(s): efficiencies / factor, launch floor x factor, within the allowed ranges, 6 significant digits",
            timed.len()
        );
        let (old, new) = (&s.perf, &out.perf);
        let changes = [
            (old.compute_efficiency, new.compute_efficiency),
            (old.memory_efficiency, new.memory_efficiency),
            (old.kernel_launch_s, new.kernel_launch_s),
        ];
        for (field, (before, after)) in SPEED_FIELDS.into_iter().zip(changes) {
            fitted.push(Fitted {
                field: field.into(),
                before,
                after,
                measurements: timed.len(),
                how: how.clone(),
            });
        }
    }

    let after = measurements
        .iter()
        .map(|m| compare(&out, m).map_err(|e| e[0].clone()))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((
        out,
        CalibrationReport {
            fitted,
            not_fitted,
            before,
            after,
        },
    ))
}
