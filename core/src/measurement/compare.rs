//! Predicted versus measured, term by term (see the mapping in `measurement`'s
//! documentation).

use serde::Serialize;

use super::Measurement;
use crate::gpu::GpuSpec;
use crate::problems::FieldError;
use crate::scenario::{ModelChoice, Optimizer, Pipeline, Precision, Scenario};
use crate::{build_model, estimate, memory};

/// One figure, predicted and measured.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Term {
    /// `peak_allocated_bytes`, `peak_reserved_bytes`, `context_bytes`,
    /// `device_total_bytes`, `step_time_s`, `host_step_s` or `max_batch`.
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

/// A measurement set beside the estimate of the scenario it measured (not to be confused
/// with `compare::Comparison`, hardware options side by side).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PredictedVsMeasured {
    pub model: String,
    pub gpu: String,
    /// Per-GPU batch compared (the measurement's).
    pub batch: u32,
    /// Only the terms the measurement has.
    pub terms: Vec<Term>,
    /// Settings that differ between scenario and measurement, synthetic or dry-run data.
    pub warnings: Vec<Note>,
}

impl PredictedVsMeasured {
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
        measured: Setting,
        scenario: Setting,
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

/// A recorded setting's value, kept typed so that each reader can name it in its words.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Setting {
    Count(u32),
    Precision(Precision),
    Optimizer(Optimizer),
    Switch(bool),
}

/// The value as the JSON formats write it (`amp_bf16`, `true`).
impl std::fmt::Display for Setting {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Setting::Count(n) => write!(f, "{n}"),
            Setting::Precision(p) => f.write_str(p.id()),
            Setting::Optimizer(o) => f.write_str(o.id()),
            Setting::Switch(on) => write!(f, "{on}"),
        }
    }
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
/// measurement records them, its geometry, precision, optimizer, checkpointing and
/// cudnn.benchmark. Returns the differences from `s` as notes.
pub(super) fn measured_scenario(s: &Scenario, m: &Measurement) -> (Scenario, Vec<Note>) {
    let mut measured = s.clone();
    let mut notes = Vec::new();
    if s.cards != 1 {
        notes.push(Note::OneCard(s.cards));
        measured.cards = 1;
    }
    measured.batch_per_gpu = m.batch;
    // tools/measure.py times one process on a synthetic batch already on the card, with a
    // sync after every step.
    measured.pipeline = Pipeline {
        synthetic: true,
        sync_every_step: true,
        num_workers: 0,
        ..s.pipeline.clone()
    };
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
        setting: impl Fn(T) -> Setting,
    ) {
        if let Some(value) = recorded.filter(|v| v != slot) {
            notes.push(Note::Setting {
                field,
                measured: setting(value),
                scenario: setting(*slot),
            });
            *slot = value;
        }
    }
    take(
        &mut notes,
        "bands",
        m.bands,
        &mut measured.bands,
        Setting::Count,
    );
    take(
        &mut notes,
        "patch",
        m.patch,
        &mut measured.patch,
        Setting::Count,
    );
    take(
        &mut notes,
        "classes",
        m.classes,
        &mut measured.classes,
        Setting::Count,
    );
    take(
        &mut notes,
        "precision",
        m.precision,
        &mut measured.precision,
        Setting::Precision,
    );
    take(
        &mut notes,
        "optimizer",
        m.optimizer,
        &mut measured.optimizer,
        Setting::Optimizer,
    );
    take(
        &mut notes,
        "checkpointing",
        m.checkpointing,
        &mut measured.checkpointing,
        Setting::Switch,
    );
    take(
        &mut notes,
        "cudnn_benchmark",
        m.cudnn_benchmark,
        &mut measured.cudnn_benchmark,
        Setting::Switch,
    );
    (measured, notes)
}

/// True when PyTorch's device name names the catalog card ("NVIDIA RTX A5500" and
/// "RTX A5500").
pub(super) fn same_card(gpu: &GpuSpec, device_name: &str) -> bool {
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
pub fn compare(s: &Scenario, m: &Measurement) -> Result<PredictedVsMeasured, Vec<FieldError>> {
    let measurement_errors = m.validate();
    if !measurement_errors.is_empty() {
        return Err(measurement_errors);
    }
    let (scenario, mut warnings) = measured_scenario(s, m);
    let report = estimate(&scenario)?;
    let gpu = &crate::market::scenario_card(&scenario).expect("estimate checked the GPU id");
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
        mem.allocated_peak,
        m.peak_allocated_bytes,
    );
    add(
        "peak_reserved_bytes",
        mem.reserved_peak,
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
        add("host_step_s", report.perf.time.host_s, m.host_step_s);
    }
    if let Some(measured_max) = m.max_batch {
        let spec = build_model(&scenario).map_err(|e| vec![e])?;
        let mut no_headroom = scenario.clone();
        no_headroom.memory.headroom = 0.0;
        // The card as measured: what CUDA said it can use, not the catalog's size.
        if let Some(usable) = m.device.total_memory_bytes.filter(|_| !m.dry_run) {
            no_headroom.memory.driver_reserved_bytes = gpu.memory_bytes.saturating_sub(usable);
        }
        let predicted = memory::max_batch(&spec, &no_headroom, gpu).map_err(|e| vec![e])?;
        add("max_batch", predicted.into(), Some(measured_max.into()));
    }
    if m.synthetic {
        warnings.push(Note::Synthetic);
    }
    if m.dry_run {
        warnings.push(Note::DryRun);
    }
    Ok(PredictedVsMeasured {
        model: report.model_name,
        gpu: gpu.name.into(),
        batch: m.batch,
        terms,
        warnings,
    })
}

/// Mean |error| in percent of each term over `comparisons`, in the order terms first
/// appear: how far off the estimate is, e.g. before and after calibration.
pub fn mean_abs_errors(comparisons: &[PredictedVsMeasured]) -> Vec<(String, f64)> {
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
