//! Hardware options side by side ("4x RTX A5500 or one big card?").
//!
//! A `Comparison` holds up to `MAX_OPTIONS` full Scenarios. `compare` estimates each one
//! and lays the results out as rows (one figure per option), marks the best value of
//! every row, finds what breaks first (largest patch, bands and batch that fit) and runs
//! the decision matrix (`decision`).
//!
//! "Fits" here means "fits within the planner's memory budget": usable card memory
//! x (1 - memory.headroom), the same budget `memory::max_batch` uses, so an option fits
//! exactly when its largest batch is at least its batch.

pub mod decision;
pub mod export;
pub mod import;
mod locate;
pub mod presets;
pub mod sensitivity;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::json::{self, json_struct, Check, FromJson, ToJson};

use crate::problems::{FieldError, Problems};
use crate::scenario::{Interconnect, ParallelMode, Scenario};
use decision::{Decision, DecisionInputs};
use sensitivity::Largest;

/// Most options compared at once: the ready-made set for the article's question has
/// seven (four single cards, 4x RTX A5500 as DDP over PCIe and NVLink, and as parallel
/// experiments), plus one of the user's own.
pub const MAX_OPTIONS: usize = 8;
/// Longest option label, characters.
pub const MAX_LABEL_CHARS: usize = 80;

/// One option of a Comparison: a label and a full Scenario.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompareOption {
    pub label: String,
    pub scenario: Scenario,
}

impl CompareOption {
    pub const FIELDS: [&'static str; 2] = ["label", "scenario"];
}

/// A missing label is empty and a missing scenario is the default one, as in Scenario JSON.
impl FromJson for CompareOption {
    fn from_json(v: &Value) -> Result<Self, FieldError> {
        let map = json::object(v, &Self::FIELDS)?;
        Ok(CompareOption {
            label: json::field(map, "label")?.unwrap_or_default(),
            scenario: json::field(map, "scenario")?.unwrap_or_default(),
        })
    }
}

impl ToJson for CompareOption {
    fn to_json(&self) -> Value {
        let mut map = Map::new();
        json::put(&mut map, "label", &self.label);
        json::put(&mut map, "scenario", &self.scenario);
        Value::Object(map)
    }
}

json::serialize_by_to_json!(CompareOption);

/// The label's length; the scenario is checked by `compare`, so that one bad option
/// does not hide the others.
impl Check for CompareOption {
    fn check(&self, path: &str, p: &mut Problems) {
        let chars = self.label.chars().count();
        if chars > MAX_LABEL_CHARS {
            p.push(
                &json::join(path, "label"),
                format!("{chars} characters"),
                format!("at most {MAX_LABEL_CHARS} characters"),
            );
        }
    }
}

json_struct! {
    /// Options side by side and the decision inputs: what the comparison view shows
    /// and exports as JSON. The default is the article's option set.
    #[derive(Clone, Debug, PartialEq)]
    pub struct Comparison {
        pub options: Vec<CompareOption> = presets::article_options(&Scenario::default()),
        pub decision: DecisionInputs = DecisionInputs::default(),
    }
}

impl Comparison {
    /// The currency the comparison writes money in: its first option's (the page builds
    /// the options from its scenario).
    pub fn money(&self) -> crate::cost::Money {
        self.options.first().map_or_else(
            || crate::cost::Money::of(&Default::default()),
            |o| crate::cost::Money::of(&o.scenario.cost),
        )
    }

    /// Problems with the option list and the decision inputs (each scenario is checked
    /// by `compare`, so one bad option does not hide the others).
    pub fn validate(&self) -> Vec<FieldError> {
        let mut p = Problems::default();
        let count = self.options.len();
        if count == 0 || count > MAX_OPTIONS {
            p.push(
                "options",
                format!("{count} options"),
                format!("from 1 to {MAX_OPTIONS} options"),
            );
        }
        self.check("", &mut p);
        p.0
    }
}

/// How hard the option is to run: what the article's "operational complexity" counts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Complexity {
    pub cards: u32,
    /// One run spread over the cards with DistributedDataParallel (else one run per card).
    pub ddp: bool,
    /// NCCL collectives to set up and debug (DDP on more than one card).
    pub nccl: bool,
    /// PSU capacity the cost model sizes for the box, W.
    pub psu_watts: f64,
    /// Administration time the cost model charges, hours/month.
    pub ops_hours_per_month: f64,
    /// Whether the cards fit one workstation (slots, PSU, cooler, board).
    pub chassis: crate::market::ChassisFit,
}

/// The figures of one option.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OptionResult {
    pub gpu_name: String,
    pub cards: u32,
    /// The topology used (the scenario's, or its replacement where the card lacks it).
    pub interconnect: Interconnect,
    pub mode: ParallelMode,
    /// The layout over the cards: data-parallel ranks x tensor-parallel group x pipeline
    /// stages (`parallel`).
    #[serde(default)]
    pub data_parallel: u32,
    #[serde(default)]
    pub tensor_parallel: u32,
    #[serde(default)]
    pub pipeline_parallel: u32,
    pub batch_per_gpu: u32,
    /// Memory per GPU at the chosen batch, bytes.
    pub memory_per_gpu_bytes: f64,
    /// Usable card memory x (1 - headroom), bytes.
    pub memory_budget_bytes: f64,
    /// memory / budget; at most 1 when it fits.
    pub memory_utilization: f64,
    pub fits: bool,
    pub max_batch: u32,
    pub largest_patch: Largest,
    pub largest_bands: Largest,
    /// Samples per second over all cards in the chosen mode.
    pub samples_per_s: f64,
    /// Wall time of one run: workload.epochs epochs and CUDA's start-up.
    pub run_s: f64,
    /// Runs the box trains at once (1 with DDP, one per card for parallel experiments).
    pub concurrent_runs: u32,
    /// Wall time of the sweep of workload.sweep_runs runs.
    pub sweep_wall_s: f64,
    /// Exposed all-reduce share of a step (0 without DDP).
    pub allreduce_share: f64,
    /// None when the card's price is unknown (set cost.card_price_usd).
    pub tco_usd: Option<f64>,
    pub usd_per_experiment: Option<f64>,
    /// Sustained draw of the box under training load, W.
    pub power_watts: f64,
    pub complexity: Complexity,
    pub warnings: Vec<String>,
}

/// One option: its figures, or every problem with its scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OptionOutcome {
    pub label: String,
    pub result: Option<OptionResult>,
    pub errors: Vec<FieldError>,
}

/// The rows of the comparison table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    MemoryUtilization,
    MaxBatch,
    LargestPatch,
    LargestBands,
    SamplesPerS,
    RunTime,
    SweepTime,
    Tco,
    CostPerExperiment,
    Power,
    Cards,
    OpsHours,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Better {
    Higher,
    Lower,
}

impl Metric {
    pub const ALL: [Metric; 12] = [
        Metric::MemoryUtilization,
        Metric::MaxBatch,
        Metric::LargestPatch,
        Metric::LargestBands,
        Metric::SamplesPerS,
        Metric::RunTime,
        Metric::SweepTime,
        Metric::Tco,
        Metric::CostPerExperiment,
        Metric::Power,
        Metric::Cards,
        Metric::OpsHours,
    ];

    pub fn better(self) -> Better {
        match self {
            Metric::MaxBatch
            | Metric::LargestPatch
            | Metric::LargestBands
            | Metric::SamplesPerS => Better::Higher,
            _ => Better::Lower,
        }
    }

    /// The option's figure; None where it has none (speed and time of an option that
    /// does not fit, cost with an unknown card price, limits of a custom model).
    pub fn value(self, r: &OptionResult) -> Option<f64> {
        let when_fits = |x: f64| r.fits.then_some(x);
        match self {
            Metric::MemoryUtilization => Some(r.memory_utilization),
            Metric::MaxBatch => Some(r.max_batch.into()),
            Metric::LargestPatch => r.largest_patch.value().map(f64::from),
            Metric::LargestBands => r.largest_bands.value().map(f64::from),
            Metric::SamplesPerS => when_fits(r.samples_per_s),
            Metric::RunTime => when_fits(r.run_s),
            Metric::SweepTime => when_fits(r.sweep_wall_s),
            Metric::Tco => r.tco_usd,
            Metric::CostPerExperiment => r.usd_per_experiment.filter(|_| r.fits),
            Metric::Power => Some(r.power_watts),
            Metric::Cards => Some(r.cards.into()),
            Metric::OpsHours => Some(r.complexity.ops_hours_per_month),
        }
    }
}

/// One table row: a figure per option (None = none) and the options holding the best.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetricRow {
    pub metric: Metric,
    pub better: Better,
    pub values: Vec<Option<f64>>,
    pub best: Vec<usize>,
}

/// Two figures closer than this (relative) tie for best: rounding noise, not a win.
const TIE_RELATIVE: f64 = 1e-9;

/// Indices of the best values; empty when no option has a figure, or there is one option
/// (nothing to be best against).
pub fn best_of(values: &[Option<f64>], better: Better) -> Vec<usize> {
    if values.len() < 2 {
        return Vec::new();
    }
    let present = values.iter().flatten().copied();
    let best = match better {
        Better::Higher => present.fold(None, |b: Option<f64>, x| Some(b.map_or(x, |b| b.max(x)))),
        Better::Lower => present.fold(None, |b: Option<f64>, x| Some(b.map_or(x, |b| b.min(x)))),
    };
    let Some(best) = best else {
        return Vec::new();
    };
    let tolerance = TIE_RELATIVE * best.abs().max(f64::MIN_POSITIVE);
    values
        .iter()
        .enumerate()
        .filter(|(_, v)| v.is_some_and(|v| (v - best).abs() <= tolerance))
        .map(|(i, _)| i)
        .collect()
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ComparisonReport {
    pub options: Vec<OptionOutcome>,
    pub rows: Vec<MetricRow>,
    pub decision: Decision,
}

/// Administration hours per month the cost model charges for `cards` cards.
fn ops_hours_per_month(s: &Scenario, cards: u32) -> f64 {
    s.cost.ops_hours_per_month
        + f64::from(cards.saturating_sub(1)) * s.cost.ops_hours_per_month_per_extra_card
}

/// Estimates one option; every problem with its scenario otherwise.
pub fn evaluate(s: &Scenario) -> Result<OptionResult, Vec<FieldError>> {
    let report = crate::estimate(s)?;
    let gpu = &crate::market::scenario_card(s).expect("estimate checked the GPU id");
    let perf = &report.perf;
    let cost = &perf.cost;
    let budget = report.memory.budget;
    let ddp = s.workload.mode == ParallelMode::Ddp;
    let price_known = cost.card_price_known;
    Ok(OptionResult {
        gpu_name: gpu.name.into(),
        cards: crate::perf::run_cards(s).max(s.cards),
        interconnect: perf.scaling.chosen,
        mode: s.workload.mode,
        data_parallel: report.parallel.data_parallel,
        tensor_parallel: report.parallel.tensor_parallel,
        pipeline_parallel: report.parallel.pipeline_parallel,
        batch_per_gpu: s.batch_per_gpu,
        memory_per_gpu_bytes: report.memory.total,
        memory_budget_bytes: budget,
        memory_utilization: report.memory.total / budget,
        fits: report.max_batch >= s.batch_per_gpu,
        max_batch: report.max_batch,
        largest_patch: sensitivity::largest_patch(s, gpu),
        largest_bands: sensitivity::largest_bands(s, gpu),
        samples_per_s: perf.time.samples_per_s,
        run_s: perf.epoch.run_s,
        concurrent_runs: if ddp { 1 } else { s.cards },
        sweep_wall_s: cost.sweep_wall_s,
        allreduce_share: perf.time.allreduce_share,
        tco_usd: price_known.then_some(cost.tco_usd),
        usd_per_experiment: price_known.then_some(cost.usd_per_experiment),
        // One PSU per node.
        power_watts: cost.psu_watts / s.cost.psu_margin * f64::from(if ddp { s.nodes } else { 1 }),
        complexity: Complexity {
            cards: s.cards,
            ddp,
            nccl: ddp && s.cards > 1,
            psu_watts: cost.psu_watts,
            ops_hours_per_month: ops_hours_per_month(s, s.cards),
            chassis: crate::market::chassis_fit(gpu, s.cards, &s.cost),
        },
        warnings: report.warnings.iter().map(ToString::to_string).collect(),
    })
}

/// Every option's figures, the table rows with their best values, and the decision.
/// Errors only when the comparison itself is malformed (no options, too many, bad
/// decision inputs); a bad scenario shows up in its option's `errors`.
pub fn compare(c: &Comparison) -> Result<ComparisonReport, Vec<FieldError>> {
    let problems = c.validate();
    if !problems.is_empty() {
        return Err(problems);
    }
    let options: Vec<OptionOutcome> = c
        .options
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let prefix = |mut e: FieldError| {
                e.field = format!("options[{i}].scenario.{}", e.field);
                e
            };
            match evaluate(&o.scenario) {
                Ok(r) => OptionOutcome {
                    label: o.label.clone(),
                    result: Some(r),
                    errors: Vec::new(),
                },
                Err(errors) => OptionOutcome {
                    label: o.label.clone(),
                    result: None,
                    errors: errors.into_iter().map(prefix).collect(),
                },
            }
        })
        .collect();
    let rows = Metric::ALL
        .iter()
        .map(|&metric| {
            let values: Vec<Option<f64>> = options
                .iter()
                .map(|o| o.result.as_ref().and_then(|r| metric.value(r)))
                .collect();
            MetricRow {
                metric,
                better: metric.better(),
                best: best_of(&values, metric.better()),
                values,
            }
        })
        .collect();
    let scenarios: Vec<Scenario> = c.options.iter().map(|o| o.scenario.clone()).collect();
    let decision = decision::decide_scenarios(&scenarios, &c.decision);
    Ok(ComparisonReport {
        options,
        rows,
        decision,
    })
}
