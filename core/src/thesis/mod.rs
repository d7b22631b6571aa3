//! The article's thesis mapped across model scale: for the scenario's card and task, each
//! zoo model from the small HSI networks to a ViT of 1 B parameters (HyperSIGMA's scale),
//! at each patch size, trained with what it needs to fit and with its best lever, the
//! per-scenario lever of `levers` and `whatifs` (`whatifs::lever_outcomes`,
//! `levers::best_lever`). Where the best lever changes from one model to the next larger
//! one at the same patch is a flip; what bounds the larger model says why. Beside the
//! map, the article's claims (sections 3.2, 7.2, 11, 12) are checked against its cells:
//! computed, never copied.
//!
//! What a model needs to fit (`Aid`), added in this order until it fits (the fit test of
//! the lever table: the largest batch is at least the scenario's): Megatron tensor
//! parallelism over pairs of cards (with two cards or more, for a model it splits: the
//! article's sec. 7.2 case, where NVLink is essential), FSDP over the data-parallel ranks
//! (with two or more), mixed precision (bf16 autocast where the card has bf16, else
//! fp16), activation checkpointing, optimizer offload to the host (these two only where
//! they free 1 % of the memory or raise the largest batch). A model that fits as
//! the scenario is needs none; one that never fits gets the capacity step that makes it
//! fit as its lever, or none.
//!
//! The map is many estimates (`cell` is one model at one patch: up to five estimates to
//! fit it, then one per lever trial); the page computes it cell by cell once the scenario
//! rests, and only while the map is open.

mod claims;

use serde::Serialize;

use crate::choices::{Interconnect, ParallelMode, Precision, Sharding, VitSize};
use crate::levers::{self, BestLever, Lever, LeverOutcome, Limit};
use crate::scenario::{FineTune, ModelChoice, Scenario};
use crate::whatifs::lever_outcomes;
use crate::{estimate, zoo, FieldError, Report};

/// One row of the map: a zoo preset, with its ViT size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MapModel {
    pub id: &'static str,
    pub size: Option<VitSize>,
}

const fn zoo_model(id: &'static str) -> MapModel {
    MapModel { id, size: None }
}

const fn vit(size: VitSize) -> MapModel {
    MapModel {
        id: "vit",
        size: Some(size),
    }
}

/// The zoo's patch-based HSI classifiers (the pixel models take no patch), then the ViT
/// foundation model from ViT-S to ViT-g.
pub const MODELS: [MapModel; 11] = [
    zoo_model("hamida3d"),
    zoo_model("ssftt"),
    zoo_model("spectralformer"),
    zoo_model("ssrn"),
    zoo_model("dbda"),
    zoo_model("hybridsn"),
    vit(VitSize::Small),
    vit(VitSize::Base),
    vit(VitSize::Large),
    vit(VitSize::Huge),
    vit(VitSize::Giant),
];

/// Patch sides of the map: multiples of the ViT's 8-pixel patches, from the small HSI
/// patches to SpectralGPT's 128-pixel tiles.
pub const PATCHES: [u32; 5] = [8, 16, 32, 64, 128];

/// What a model was given to fit, in the order it is tried.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Aid {
    /// Megatron tensor parallelism over pairs of cards (tensor innermost: a pair is what
    /// an NVLink bridge joins), for the models it splits (transformers).
    TensorParallel,
    /// FSDP (full sharding) over the data-parallel ranks of the run.
    Sharding,
    /// bf16 autocast (fp16 on a card without bf16).
    MixedPrecision,
    /// Activation checkpointing.
    Checkpointing,
    /// The optimizer's states and master weights on the host (ZeRO-Offload).
    Offload,
}

impl Aid {
    pub const ALL: [Aid; 5] = [
        Aid::TensorParallel,
        Aid::Sharding,
        Aid::MixedPrecision,
        Aid::Checkpointing,
        Aid::Offload,
    ];

    /// `s` with the aid; None where it does not apply or `s` already has it.
    fn apply(self, s: &Scenario, bf16: bool) -> Option<Scenario> {
        let mut out = s.clone();
        match self {
            Aid::TensorParallel => {
                if s.cards < 2 || s.tensor_parallel > 1 {
                    return None;
                }
                out.workload.mode = ParallelMode::Ddp;
                out.tensor_parallel = 2;
            }
            Aid::Sharding => {
                out.workload.mode = ParallelMode::Ddp;
                let (_, _, params_split) = s.sharding.splits();
                if crate::shard::ranks(&out) < 2 || params_split {
                    return None;
                }
                out.sharding = Sharding::Fsdp;
            }
            Aid::MixedPrecision => {
                if s.precision.is_autocast() || s.precision == Precision::Bf16 {
                    return None;
                }
                out.precision = if bf16 {
                    Precision::AmpBf16
                } else {
                    Precision::AmpFp16
                };
            }
            Aid::Checkpointing if !s.checkpointing => out.checkpointing = true,
            Aid::Offload if !s.offload => out.offload = true,
            Aid::Checkpointing | Aid::Offload => return None,
        }
        Some(out)
    }
}

/// The largest speed-up one lever gives (over its factors).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Gain {
    pub lever: Lever,
    /// None when neither the cell nor the lever's outcome fits.
    pub speedup: Option<f64>,
    /// Whether some factor of the lever fits.
    pub fits: bool,
}

/// One model at one patch.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    pub id: &'static str,
    pub size: Option<VitSize>,
    /// The model's name as built ("HybridSN", "ViT-g"), or the zoo's name if it cannot be.
    pub model: String,
    pub params: u64,
    pub patch: u32,
    pub bands: u32,
    /// What it was given to fit.
    pub aids: Vec<Aid>,
    /// Weights, gradients and optimizer states over the card's capacity, as the scenario
    /// is (before any aid).
    pub states_share: f64,
    pub fits: bool,
    /// What bounds its step as trained (capacity when it does not fit); None on an error.
    pub limit: Option<Limit>,
    pub best: Option<BestLever>,
    /// What limits once the best lever is applied.
    pub next_limit: Option<Limit>,
    pub gains: Vec<Gain>,
    /// One run as trained; None when it does not fit.
    pub time_to_result_s: Option<f64>,
    /// Why the model cannot be built or estimated at this patch.
    pub error: Option<String>,
}

/// A row's model and its size on the map's scale (parameters at the middle patch).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    pub id: &'static str,
    pub size: Option<VitSize>,
    pub model: String,
    pub params: u64,
}

/// Where the best lever changes from one model (`row - 1`) to the next larger (`row`) at
/// one patch (`col`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Flip {
    pub row: usize,
    pub col: usize,
    pub patch: u32,
    pub smaller: String,
    pub larger: String,
    pub from: Option<Lever>,
    pub to: Option<Lever>,
    /// What bounds the larger model: why its lever differs.
    pub why: Option<Limit>,
}

/// The article's claims the map can test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimId {
    /// Sec. 3.2: HSI models' parameters sit well inside one card; capacity buys larger
    /// batches and patches, not room for the model.
    SmallModelsFitOneCard,
    /// Sec. 3.2, 12: for HSI training, capacity and bandwidth pay more than compute and
    /// interconnect (the small HSI models' cells).
    CapacityBandwidthFirst,
    /// Sec. 11: foundation models (hundreds of millions to billions of parameters) do not
    /// train on one card as they are: they need sharding, ZeRO-style offload, ... (the
    /// cells of at least `FOUNDATION_PARAMS`: they needed an aid, or do not fit).
    FoundationModelsOutgrowOneCard,
    /// Sec. 3.2, 7.1, 7.2, 11: data-parallel traffic grows with the parameters, so the
    /// interconnect's worth is diluted for the small HSI models and rises for foundation
    /// models (the cells of at least `FOUNDATION_PARAMS` whose best lever is the
    /// interconnect; `baseline`: the small models' cells and those where it is).
    InterconnectRisesWithScale,
}

/// Where the article's foundation models start (sec. 11: "数亿到数十亿", hundreds of
/// millions to billions of parameters).
pub const FOUNDATION_PARAMS: u64 = 100_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// At least two thirds of the claim's cells support it.
    Agrees,
    /// More than a third and less than two thirds do.
    Partly,
    /// At most a third does.
    Disagrees,
    /// The map cannot test it here (`Claim::untested`).
    NotTested,
}

/// Why a claim cannot be tested on this map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Untested {
    /// One card: no interconnect to improve.
    OneCard,
    /// The card family offers no faster link than the scenario's.
    NoFasterLink,
    /// No cell the claim is about.
    NoCells,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Claim {
    pub id: ClaimId,
    /// The article's sections.
    pub sections: &'static str,
    /// Cells the claim is about, and those that support it.
    pub cells: u32,
    pub supporting: u32,
    pub verdict: Verdict,
    pub untested: Option<Untested>,
    /// The best lever most often among the claim's cells.
    pub most_often: Option<Lever>,
    /// The same count over the small HSI models' cells, where the claim contrasts them:
    /// (cells, supporting).
    pub baseline: Option<(u32, u32)>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ThesisMap {
    pub gpu: String,
    /// Cards per node and nodes of the scenario (every cell keeps them).
    pub cards: u32,
    pub nodes: u32,
    pub interconnect: Interconnect,
    pub patches: Vec<u32>,
    /// Small to large.
    pub models: Vec<Row>,
    /// Row by row (`models`), each row one cell per patch.
    pub cells: Vec<Cell>,
    pub flips: Vec<Flip>,
    pub claims: Vec<Claim>,
}

/// The scenario's task with `model` at `patch`: its own fine-tuning targets name layers of
/// its own model, so every cell trains in full.
pub fn cell_scenario(s: &Scenario, model: MapModel, patch: u32) -> Scenario {
    Scenario {
        model: ModelChoice::Preset {
            id: model.id.into(),
            width: None,
            size: model.size,
        },
        patch,
        finetune: FineTune::Full,
        ..s.clone()
    }
}

/// The scenario as the map sees it: each cell sets its own model, patch and fine-tuning,
/// so two scenarios with the same key have the same map (the page recomputes only when
/// the key changes).
pub fn map_key(s: &Scenario) -> Scenario {
    cell_scenario(s, MODELS[0], PATCHES[0])
}

fn fits(s: &Scenario, r: &Report) -> bool {
    r.max_batch >= s.batch_per_gpu
}

/// A scenario as `trained` leaves it.
#[derive(Clone, Debug, PartialEq)]
pub struct Trained {
    pub scenario: Scenario,
    pub aids: Vec<Aid>,
    pub report: Report,
    /// The model states' share of the card before any aid.
    pub states_share: f64,
}

/// `s` with the aids it needs to fit (see the module doc) and its estimate; the last try
/// when nothing fits.
pub fn trained(s: &Scenario) -> Result<Trained, Vec<FieldError>> {
    let bf16 = crate::gpu::gpu_by_id(&s.gpu).is_some_and(|g| g.bf16);
    let report = estimate(s)?;
    let m = &report.memory;
    let states_share = (m.weights + m.gradients + m.optimizer_states) / m.capacity;
    let mut t = Trained {
        scenario: s.clone(),
        aids: Vec::new(),
        report,
        states_share,
    };
    for aid in Aid::ALL {
        if fits(&t.scenario, &t.report) {
            break;
        }
        if let Some(next) = aid.apply(&t.scenario, bf16) {
            let report = match estimate(&next) {
                Ok(r) => r,
                // A model with nothing to split, or heads a pair does not divide.
                Err(_) if aid == Aid::TensorParallel => continue,
                Err(e) => return Err(e),
            };
            // Checkpointing or offload that frees under 1 % of the memory is not what the
            // model needs (offloading the optimizer of DBDA's 72 k parameters, whose
            // activations do not fit). Mixed precision stays: it is also how such a
            // model is trained for speed.
            let frees = 1.0 - report.memory.total / t.report.memory.total;
            if matches!(aid, Aid::Checkpointing | Aid::Offload)
                && frees < 0.01
                && report.max_batch <= t.report.max_batch
            {
                continue;
            }
            t.report = report;
            t.scenario = next;
            t.aids.push(aid);
        }
    }
    Ok(t)
}

fn gains(outcomes: &[LeverOutcome]) -> Vec<Gain> {
    Lever::ALL
        .into_iter()
        .filter_map(|lever| {
            let of: Vec<&LeverOutcome> = outcomes.iter().filter(|o| o.lever == lever).collect();
            (!of.is_empty()).then(|| Gain {
                lever,
                speedup: of.iter().filter_map(|o| o.speedup).reduce(f64::max),
                fits: of.iter().any(|o| o.fits),
            })
        })
        .collect()
}

/// One model at one patch on the scenario's card and task.
pub fn cell(s: &Scenario, model: MapModel, patch: u32) -> Cell {
    let base = cell_scenario(s, model, patch);
    let zoo_name = zoo::zoo_entry(model.id).map_or(model.id, |e| e.name);
    let empty = Cell {
        id: model.id,
        size: model.size,
        model: zoo_name.into(),
        params: 0,
        patch,
        bands: s.bands,
        aids: Vec::new(),
        states_share: 0.0,
        fits: false,
        limit: None,
        best: None,
        next_limit: None,
        gains: Vec::new(),
        time_to_result_s: None,
        error: None,
    };
    let Trained {
        scenario,
        aids,
        report,
        states_share,
    } = match trained(&base) {
        Ok(t) => t,
        Err(errors) => {
            let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
            return Cell {
                error: Some(text.join("; ")),
                ..empty
            };
        }
    };
    let gpu = crate::market::scenario_card(&scenario).expect("estimate checked the GPU id");
    let (point, outcomes) = lever_outcomes(&scenario, &gpu, &report, false);
    let best = levers::best_lever(&point, &outcomes);
    let next_limit = best.and_then(|b| {
        outcomes
            .iter()
            .find(|o| o.lever == b.lever && o.factor == b.factor)
            .map(|o| o.limit)
    });
    Cell {
        model: report.model_name.clone(),
        params: report.params,
        aids,
        states_share,
        fits: point.fits,
        limit: Some(point.limit),
        best,
        next_limit,
        gains: gains(&outcomes),
        time_to_result_s: point.time_to_result_s,
        ..empty
    }
}

/// Every (model, patch) of the map, row by row: what `cell` is called with.
pub fn grid() -> impl Iterator<Item = (MapModel, u32)> {
    MODELS
        .into_iter()
        .flat_map(|m| PATCHES.into_iter().map(move |p| (m, p)))
}

/// The whole map for `s` (every cell of `grid`).
pub fn thesis_map(s: &Scenario) -> Result<ThesisMap, Vec<FieldError>> {
    let problems = s.validate();
    if !problems.is_empty() {
        return Err(problems);
    }
    let cells = grid().map(|(m, p)| cell(s, m, p)).collect();
    Ok(assemble(s, cells))
}

/// The map from its cells (in `grid` order): rows sorted by size, flips and claims.
pub fn assemble(s: &Scenario, cells: Vec<Cell>) -> ThesisMap {
    let cols = PATCHES.len();
    let middle = cols / 2;
    let mut rows: Vec<Vec<Cell>> = cells.chunks(cols).map(<[Cell]>::to_vec).collect();
    // Small to large by the parameters at the middle patch (some models' depend on it).
    // Eleven rows, nearly in order already.
    let size = |r: &[Cell]| r.get(middle).map_or(0, |c| c.params);
    crate::order::insertion_sort_by(&mut rows, |a, b| size(a) > size(b));
    let models = rows
        .iter()
        .filter_map(|r| r.get(middle))
        .map(|c| Row {
            id: c.id,
            size: c.size,
            model: c.model.clone(),
            params: c.params,
        })
        .collect();
    let cells: Vec<Cell> = rows.into_iter().flatten().collect();
    ThesisMap {
        gpu: s.gpu.clone(),
        cards: s.cards,
        nodes: s.nodes,
        // The link the cells ran on (an SXM card's own, where the scenario names another).
        interconnect: crate::linked(s).0.interconnect,
        patches: PATCHES.to_vec(),
        models,
        flips: claims::flips(&cells, cols),
        claims: claims::claims(s, &cells),
        cells,
    }
}
