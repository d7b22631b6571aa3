//! The article's decision matrix, computed from the user's workload.
//!
//! Criteria: team size and single-run speed vs sweeps set what "time to result" means;
//! model size decides what fits (memory) and how much DDP loses to all-reduce; budget and
//! operations capacity rule options out. The rule:
//!
//! 1. Eligible: fits the memory budget at its batch, TCO within the budget (an option
//!    whose card price is unknown is not, where a budget is set: its cost could be
//!    anything), administration within the team's hours.
//! 2. Time to result: one run's wall time, or, for sweeps, the wall time for every team
//!    member's sweep: ceil(team x runs / concurrent runs) x run time.
//! 3. Among eligible options within `simplicity_margin` of the fastest, the simplest wins
//!    (fewest cards, then no NCCL), then the cheapest, then the fastest: the article's
//!    "one big card is less trouble" unless several cards are clearly faster.
//!
//! Flips: the same rule re-run with one input changed (a larger patch, another model,
//! more or fewer runs or people, a smaller budget, the other priority) reports the
//! conditions under which the recommendation changes.

use serde::{Deserialize, Serialize};

use crate::json::{json_enum, json_struct};

use super::sensitivity::{geometry_step, largest_patch, Dimension, Largest};
use crate::scenario::{ModelChoice, ParallelMode, Scenario, VitSize};

json_enum! {
    pub enum Priority {
        /// The wall time of one training run.
        SingleRun = "single_run",
        /// The wall time of everyone's hyper-parameter sweeps.
        Sweep = "sweep",
    }
}

/// A faster option must save more than this fraction of the simplest option's time to
/// result to be recommended over it. A judgement call after the article (a multi-card
/// box costs debugging and administration time that the cost model only partly counts),
/// not a measurement: set your own.
pub const DEFAULT_SIMPLICITY_MARGIN: f64 = 0.25;

/// Largest team size accepted (and tried by the flip search).
pub const MAX_TEAM_SIZE: u32 = 64;
/// The largest budget (USD) and administration hours a month the decision takes.
pub const MAX_BUDGET_USD: u32 = 1_000_000_000;
pub const MAX_OPS_HOURS: u32 = 744;
/// Largest runs per sweep the flip search tries.
const MAX_SCANNED_RUNS: u32 = 256;

json_struct! {
    #[derive(Clone, Debug, PartialEq)]
    pub struct DecisionInputs {
        /// People sharing the box, each training a sweep of `workload.sweep_runs` runs.
        pub team_size: u32 [1, MAX_TEAM_SIZE] = 1,
        pub priority: Priority = Priority::Sweep,
        /// Most the box may cost over its life (TCO), USD; None = no limit.
        pub budget_usd: Option<f64> [0.0, MAX_BUDGET_USD as f64] = None,
        /// Administration hours per month the team can spare; None = no limit.
        pub ops_hours_per_month: Option<f64> [0.0, MAX_OPS_HOURS as f64] = None,
        /// See `DEFAULT_SIMPLICITY_MARGIN`.
        pub simplicity_margin: f64 [0.0, 10.0] = DEFAULT_SIMPLICITY_MARGIN,
    }
}

/// What the rule needs from one option.
#[derive(Clone, Debug, PartialEq)]
struct Candidate {
    fits: bool,
    run_s: f64,
    concurrent_runs: u32,
    sweep_runs: u32,
    tco_usd: Option<f64>,
    ops_hours_per_month: f64,
    cards: u32,
    nccl: bool,
}

impl Candidate {
    /// None when the scenario is invalid (its option shows the errors).
    fn of(s: &Scenario) -> Option<Candidate> {
        let r = crate::estimate(s).ok()?;
        let ddp = s.workload.mode == ParallelMode::Ddp;
        let cost = &r.perf.cost;
        Some(Candidate {
            fits: r.max_batch >= s.batch_per_gpu,
            // A run's wall time, CUDA start-up included (the sweep's column counts it too).
            run_s: r.perf.epoch.run_s,
            concurrent_runs: if ddp { 1 } else { s.cards },
            sweep_runs: s.workload.sweep_runs,
            tco_usd: cost.card_price_known.then_some(cost.tco_usd),
            ops_hours_per_month: super::ops_hours_per_month(s, s.cards),
            cards: s.cards,
            nccl: ddp && s.cards > 1,
        })
    }
}

/// One option against the decision inputs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Assessment {
    pub fits: bool,
    /// Runs to finish: 1 for a single run, team x sweep runs for sweeps.
    pub runs: u32,
    pub concurrent_runs: u32,
    /// None when it does not fit.
    pub time_to_result_s: Option<f64>,
    /// None when the card price is unknown.
    pub tco_usd: Option<f64>,
    /// None when the price is unknown against a budget; no budget is no limit.
    pub within_budget: Option<bool>,
    pub ops_hours_per_month: f64,
    pub within_ops: bool,
    pub eligible: bool,
}

fn assess(c: &Candidate, inputs: &DecisionInputs) -> Assessment {
    let runs = match inputs.priority {
        Priority::SingleRun => 1,
        Priority::Sweep => inputs.team_size.saturating_mul(c.sweep_runs),
    };
    let concurrent_runs = c.concurrent_runs.max(1);
    let time = f64::from(runs.div_ceil(concurrent_runs)) * c.run_s;
    let within_budget = match (inputs.budget_usd, c.tco_usd) {
        (None, _) => Some(true),
        (Some(budget), tco) => tco.map(|t| t <= budget),
    };
    let within_ops = inputs
        .ops_hours_per_month
        .is_none_or(|h| c.ops_hours_per_month <= h);
    let timed = c.fits && time.is_finite() && time > 0.0;
    Assessment {
        fits: c.fits,
        runs,
        concurrent_runs,
        time_to_result_s: timed.then_some(time),
        tco_usd: c.tco_usd,
        within_budget,
        ops_hours_per_month: c.ops_hours_per_month,
        within_ops,
        eligible: timed && within_budget == Some(true) && within_ops,
    }
}

/// The option the rule recommends, if any is eligible.
fn choose(candidates: &[Option<Candidate>], inputs: &DecisionInputs) -> Option<usize> {
    let assessed: Vec<(usize, &Candidate, f64)> = candidates
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            let c = c.as_ref()?;
            let a = assess(c, inputs);
            a.eligible
                .then(|| (i, c, a.time_to_result_s.unwrap_or(f64::INFINITY)))
        })
        .collect();
    let fastest = assessed
        .iter()
        .map(|(_, _, t)| *t)
        .fold(f64::INFINITY, f64::min);
    let threshold = fastest * (1.0 + inputs.simplicity_margin);
    assessed
        .into_iter()
        .filter(|(_, _, t)| *t <= threshold)
        .min_by(|(_, a, ta), (_, b, tb)| {
            let tco = |c: &Candidate| c.tco_usd.unwrap_or(f64::INFINITY);
            (a.cards, a.nccl)
                .cmp(&(b.cards, b.nccl))
                .then(tco(a).total_cmp(&tco(b)))
                .then(ta.total_cmp(tb))
        })
        .map(|(i, _, _)| i)
}

/// A change of one input, under which the recommendation changes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Condition {
    /// Every option's patch raised to `patch`: the first value (on the model's grid of
    /// accepted patches) at which the recommended option no longer fits its batch.
    PatchAbove {
        patch: u32,
    },
    /// Another zoo model, at its paper's patch.
    Model {
        id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        size: Option<VitSize>,
        patch: u32,
    },
    /// Runs per sweep: the nearest count below / above the current one that flips it.
    SweepRuns {
        runs: u32,
    },
    TeamSize {
        people: u32,
    },
    /// A budget below the recommended option's TCO.
    BudgetBelow {
        usd: f64,
    },
    /// The smallest budget above the current one that admits another option.
    BudgetAtLeast {
        usd: f64,
    },
    /// Ops capacity below the recommended option's needs.
    OpsHoursBelow {
        hours: f64,
    },
    Priority {
        priority: Priority,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Flip {
    pub condition: Condition,
    /// The recommendation under the condition (None: nothing is eligible).
    pub recommended: Option<usize>,
    /// Options that fit now and no longer fit under the condition.
    pub no_longer_fit: Vec<usize>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    pub inputs: DecisionInputs,
    /// Per option; None where the option's scenario is invalid.
    pub assessments: Vec<Option<Assessment>>,
    pub recommended: Option<usize>,
    /// The fastest eligible option (differs from the recommendation when a simpler one
    /// is within the margin).
    pub fastest: Option<usize>,
    pub flips: Vec<Flip>,
}

/// Every option's scenario changed by `change`; options whose model it cannot apply to
/// keep their scenario.
fn candidates_with(
    scenarios: &[Scenario],
    change: impl Fn(&Scenario) -> Option<Scenario>,
) -> Vec<Option<Candidate>> {
    scenarios
        .iter()
        .map(|s| Candidate::of(&change(s).unwrap_or_else(|| s.clone())))
        .collect()
}

fn lost_fit(base: &[Option<Candidate>], changed: &[Option<Candidate>]) -> Vec<usize> {
    let fits = |c: &Option<Candidate>| c.as_ref().is_some_and(|c| c.fits);
    (0..base.len())
        .filter(|&i| fits(&base[i]) && !fits(&changed[i]))
        .collect()
}

/// Zoo models tried for model flips: every preset at its paper's patch, the ViT
/// foundation model in each size.
fn model_variants() -> Vec<(&'static str, Option<VitSize>, u32)> {
    crate::zoo::ZOO
        .iter()
        .flat_map(|e| {
            let sizes: Vec<Option<VitSize>> = if e.id == "vit" {
                VitSize::ALL.into_iter().map(Some).collect()
            } else {
                vec![None]
            };
            sizes
                .into_iter()
                .map(move |size| (e.id, size, e.default_patch))
        })
        .collect()
}

/// The nearest values below and above `current` (within `1..=max`) at which `pick`
/// differs from `base`.
fn nearest_changes(
    current: u32,
    max: u32,
    base: Option<usize>,
    pick: impl Fn(u32) -> Option<usize>,
) -> Vec<(u32, Option<usize>)> {
    let below = (1..current).rev().find_map(|v| {
        let p = pick(v);
        (p != base).then_some((v, p))
    });
    let above = (current.saturating_add(1)..=max).find_map(|v| {
        let p = pick(v);
        (p != base).then_some((v, p))
    });
    below.into_iter().chain(above).collect()
}

/// Runs the decision matrix over the options' scenarios.
pub fn decide_scenarios(scenarios: &[Scenario], inputs: &DecisionInputs) -> Decision {
    let base = candidates_with(scenarios, |_| None);
    let recommended = choose(&base, inputs);
    let fastest = choose(
        &base,
        &DecisionInputs {
            simplicity_margin: 0.0,
            ..inputs.clone()
        },
    );
    let mut flips = Vec::new();
    let mut flip = |condition: Condition, changed: &[Option<Candidate>], pick: Option<usize>| {
        let no_longer_fit = lost_fit(&base, changed);
        if pick != recommended || !no_longer_fit.is_empty() {
            flips.push(Flip {
                condition,
                recommended: pick,
                no_longer_fit,
            });
        }
    };

    if let Some(rec) = recommended {
        patch_flip(scenarios, rec, inputs, &mut flip);
    }
    // A variant equal to the current model changes nothing and so reports nothing.
    for (id, size, patch) in model_variants() {
        let changed = candidates_with(scenarios, |s| {
            let mut s = s.clone();
            s.model = ModelChoice::Preset {
                id: id.into(),
                width: None,
                size,
            };
            s.patch = patch;
            Some(s)
        });
        if changed.iter().all(Option::is_none) {
            continue; // the model does not take this geometry
        }
        let pick = choose(&changed, inputs);
        flip(
            Condition::Model {
                id: id.into(),
                size,
                patch,
            },
            &changed,
            pick,
        );
    }

    let with_runs = |runs: u32| -> Vec<Option<Candidate>> {
        base.iter()
            .map(|c| {
                c.clone().map(|c| Candidate {
                    sweep_runs: runs,
                    ..c
                })
            })
            .collect()
    };
    if inputs.priority == Priority::Sweep {
        let current_runs = scenarios.first().map_or(1, |s| s.workload.sweep_runs);
        for (runs, pick) in nearest_changes(current_runs, MAX_SCANNED_RUNS, recommended, |r| {
            choose(&with_runs(r), inputs)
        }) {
            flip(Condition::SweepRuns { runs }, &base, pick);
        }
        let team = |people: u32| DecisionInputs {
            team_size: people,
            ..inputs.clone()
        };
        for (people, pick) in nearest_changes(inputs.team_size, MAX_TEAM_SIZE, recommended, |p| {
            choose(&base, &team(p))
        }) {
            flip(Condition::TeamSize { people }, &base, pick);
        }
    }

    let rec_candidate = recommended.and_then(|i| base[i].as_ref());
    if let Some(tco) = rec_candidate.and_then(|c| c.tco_usd) {
        let below = DecisionInputs {
            budget_usd: Some(tco * (1.0 - 1e-9)),
            ..inputs.clone()
        };
        flip(
            Condition::BudgetBelow { usd: tco },
            &base,
            choose(&base, &below),
        );
    }
    if let Some(budget) = inputs.budget_usd {
        // The known TCOs above the budget, cheapest first: the first that changes the pick.
        let mut below = budget;
        while let Some(usd) = base
            .iter()
            .flatten()
            .filter_map(|c| c.tco_usd)
            .filter(|t| *t > below)
            .min_by(f64::total_cmp)
        {
            let raised = DecisionInputs {
                budget_usd: Some(usd),
                ..inputs.clone()
            };
            let pick = choose(&base, &raised);
            if pick != recommended {
                flip(Condition::BudgetAtLeast { usd }, &base, pick);
                break;
            }
            below = usd;
        }
    }
    if let Some(c) = rec_candidate.filter(|c| c.ops_hours_per_month > 0.0) {
        let hours = c.ops_hours_per_month;
        let below = DecisionInputs {
            ops_hours_per_month: Some(hours * (1.0 - 1e-9)),
            ..inputs.clone()
        };
        flip(
            Condition::OpsHoursBelow { hours },
            &base,
            choose(&base, &below),
        );
    }
    let other = match inputs.priority {
        Priority::SingleRun => Priority::Sweep,
        Priority::Sweep => Priority::SingleRun,
    };
    let switched = DecisionInputs {
        priority: other,
        ..inputs.clone()
    };
    flip(
        Condition::Priority { priority: other },
        &base,
        choose(&base, &switched),
    );

    Decision {
        inputs: inputs.clone(),
        assessments: base
            .iter()
            .map(|c| c.as_ref().map(|c| assess(c, inputs)))
            .collect(),
        recommended,
        fastest,
        flips,
    }
}

/// The patch flip: every option at the first accepted patch above the recommended
/// option's largest fitting patch.
fn patch_flip(
    scenarios: &[Scenario],
    rec: usize,
    inputs: &DecisionInputs,
    flip: &mut impl FnMut(Condition, &[Option<Candidate>], Option<usize>),
) {
    let s = &scenarios[rec];
    let Some(gpu) = crate::market::scenario_card(s) else {
        return;
    };
    let Largest::Fits(largest) = largest_patch(s, &gpu) else {
        return;
    };
    let at_largest = Scenario {
        patch: largest,
        ..s.clone()
    };
    let patch = largest + geometry_step(&at_largest, &gpu, Dimension::Patch);
    let changed = candidates_with(scenarios, |s| match s.model {
        ModelChoice::Preset { .. } => Some(Scenario { patch, ..s.clone() }),
        ModelChoice::Custom { .. } => None,
    });
    let pick = choose(&changed, inputs);
    flip(Condition::PatchAbove { patch }, &changed, pick);
}
