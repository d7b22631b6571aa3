//! The comparison view's state: the Comparison being edited plus the import box and the
//! heat map's option, changed only through `CompareAction`s (like the page's `AppState`).

use std::rc::Rc;

use hsi_gpu_core::compare::decision::{Priority, MAX_TEAM_SIZE};
use hsi_gpu_core::compare::import::{import_any, ImportError, Imported};
use hsi_gpu_core::compare::presets::article_comparison;
use hsi_gpu_core::compare::{CompareOption, Comparison, MAX_OPTIONS};
use hsi_gpu_core::scenario::ModelChoice;
use hsi_gpu_core::{gpu, Scenario};
use yew::Reducible;

#[derive(Clone, Debug, PartialEq)]
pub struct CompareState {
    pub comparison: Comparison,
    /// The import box's text (typed, pasted or read from a file).
    pub import_text: String,
    /// Why the last import failed; empty after a good one.
    pub import_errors: Vec<ImportError>,
    /// True after a good import, until the next one.
    pub import_done: bool,
    /// The option whose fit map is shown.
    pub heat_option: usize,
}

impl CompareState {
    /// The ready-made comparison around the page's scenario.
    pub fn new(scenario: &Scenario) -> Self {
        CompareState {
            comparison: article_comparison(scenario),
            import_text: String::new(),
            import_errors: Vec::new(),
            import_done: false,
            heat_option: 0,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum CompareAction {
    /// Option `index` as its editor changed it.
    SetOption(usize, CompareOption),
    /// Removes an option; the last one stays.
    Remove(usize),
    /// Adds the page's scenario as an option (up to `MAX_OPTIONS`).
    Add(Scenario),
    /// Rebuilds the ready-made set around the page's scenario, keeping the decision inputs.
    Rebuild(Scenario),
    /// Team size, clamped to the range `Comparison::validate` accepts (the view stays up).
    TeamSize(u32),
    Priority(Priority),
    /// Budget in USD; None is no limit.
    Budget(Option<f64>),
    /// Administration hours a month; None is no limit.
    OpsHours(Option<f64>),
    HeatOption(usize),
    ImportText(String),
    /// Reads the import box: a comparison, a scenario or a layer list (see `apply_import`).
    Import,
}

impl Reducible for CompareState {
    type Action = CompareAction;

    fn reduce(self: Rc<Self>, action: CompareAction) -> Rc<Self> {
        let mut next = (*self).clone();
        let c = &mut next.comparison;
        match action {
            CompareAction::SetOption(i, option) => {
                if let Some(slot) = c.options.get_mut(i) {
                    *slot = option;
                }
            }
            CompareAction::Remove(i) => {
                if c.options.len() > 1 && i < c.options.len() {
                    c.options.remove(i);
                }
            }
            CompareAction::Add(scenario) => {
                if c.options.len() < MAX_OPTIONS {
                    let name =
                        gpu::gpu_by_id(&scenario.gpu).map_or(scenario.gpu.as_str(), |g| g.name);
                    c.options.push(CompareOption {
                        label: format!("{} × {name}", scenario.cards),
                        scenario: scenario.clone(),
                    });
                }
            }
            CompareAction::Rebuild(scenario) => {
                *c = Comparison {
                    decision: c.decision.clone(),
                    ..article_comparison(&scenario)
                }
            }
            CompareAction::TeamSize(n) => c.decision.team_size = n.clamp(1, MAX_TEAM_SIZE),
            CompareAction::Priority(p) => c.decision.priority = p,
            CompareAction::Budget(usd) => c.decision.budget_usd = usd,
            CompareAction::OpsHours(hours) => c.decision.ops_hours_per_month = hours,
            CompareAction::HeatOption(i) => next.heat_option = i,
            CompareAction::ImportText(text) => next.import_text = text,
            CompareAction::Import => match import_any(&next.import_text) {
                Ok(imported) => {
                    *c = apply_import(c, imported);
                    next.import_errors.clear();
                    next.import_done = true;
                }
                Err(errors) => {
                    next.import_errors = errors;
                    next.import_done = false;
                }
            },
        }
        Rc::new(next)
    }
}

/// Applies an imported document: a comparison replaces everything, a scenario rebuilds the
/// ready-made set around it, a layer list becomes every option's model.
fn apply_import(current: &Comparison, imported: Imported) -> Comparison {
    match imported {
        Imported::Comparison(c) => c,
        Imported::Scenario(s) => Comparison {
            decision: current.decision.clone(),
            ..article_comparison(&s)
        },
        Imported::ModelSpec(spec) => {
            let mut c = current.clone();
            for o in &mut c.options {
                o.scenario.model = ModelChoice::Custom { spec: spec.clone() };
            }
            c
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reduce(state: CompareState, action: CompareAction) -> CompareState {
        (*Rc::new(state).reduce(action)).clone()
    }

    fn initial() -> CompareState {
        CompareState::new(&Scenario::default())
    }

    #[test]
    fn options_are_added_up_to_the_limit_and_the_last_one_stays() {
        let mut state = initial();
        let scenario = Scenario {
            cards: 3,
            ..Scenario::default()
        };
        while state.comparison.options.len() < MAX_OPTIONS {
            state = reduce(state, CompareAction::Add(scenario.clone()));
        }
        let added = state.comparison.options.last().unwrap();
        assert_eq!(added.scenario, scenario);
        assert!(added.label.starts_with("3 × "), "{}", added.label);
        let full = reduce(state, CompareAction::Add(scenario));
        assert_eq!(full.comparison.options.len(), MAX_OPTIONS);

        let mut state = full;
        for _ in 0..MAX_OPTIONS + 1 {
            state = reduce(state, CompareAction::Remove(0));
        }
        assert_eq!(state.comparison.options.len(), 1);
    }

    #[test]
    fn rebuilding_keeps_the_decision_inputs_and_clamps_the_team() {
        let state = reduce(initial(), CompareAction::TeamSize(0));
        assert_eq!(state.comparison.decision.team_size, 1);
        let state = reduce(state, CompareAction::TeamSize(u32::MAX));
        assert_eq!(state.comparison.decision.team_size, MAX_TEAM_SIZE);
        let state = reduce(state, CompareAction::Budget(Some(9000.0)));
        let wider = Scenario {
            bands: 144,
            ..Scenario::default()
        };
        let rebuilt = reduce(state.clone(), CompareAction::Rebuild(wider.clone()));
        assert_eq!(rebuilt.comparison.decision, state.comparison.decision);
        assert_eq!(
            rebuilt.comparison.options,
            article_comparison(&wider).options
        );
    }

    #[test]
    fn a_bad_import_keeps_the_comparison_and_a_good_one_replaces_it() {
        let state = reduce(
            initial(),
            CompareAction::ImportText("{\"options\": 3}".into()),
        );
        let failed = reduce(state.clone(), CompareAction::Import);
        assert_eq!(failed.comparison, state.comparison);
        assert!(!failed.import_errors.is_empty() && !failed.import_done);

        let scenario = Scenario {
            patch: 11,
            ..Scenario::default()
        };
        let text = serde_json::to_string(&scenario).unwrap();
        let state = reduce(failed, CompareAction::ImportText(text));
        let imported = reduce(state, CompareAction::Import);
        assert!(imported.import_errors.is_empty() && imported.import_done);
        assert_eq!(
            imported.comparison.options,
            article_comparison(&scenario).options
        );
    }
}
