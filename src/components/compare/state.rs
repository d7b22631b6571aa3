//! The comparison view's state: the Comparison being edited plus the import box and the
//! heat map's option, changed only through `CompareAction`s (like the page's `AppState`).

use std::rc::Rc;

use hsi_gpu_core::compare::decision::{Priority, MAX_BUDGET_USD, MAX_OPS_HOURS, MAX_TEAM_SIZE};
use hsi_gpu_core::compare::import::{import_any, import_comparison, ImportError, Imported};
use hsi_gpu_core::compare::presets::{article_comparison, follow_hardware, hardware_label};
use hsi_gpu_core::compare::{CompareOption, Comparison, MAX_OPTIONS};
use hsi_gpu_core::scenario::{ModelChoice, MAX_BATCH, MAX_CARDS};
use hsi_gpu_core::Scenario;
use yew::{AttrValue, Callback, Reducible};

use crate::components::controls::Typing;

/// What a good import replaced: the whole comparison, its options rebuilt around a
/// scenario, or every option's model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImportedKind {
    Comparison,
    Scenario,
    Model,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CompareState {
    pub comparison: Comparison,
    /// The import box's text (typed, pasted or read from a file).
    pub import_text: String,
    /// Why the last import failed; empty after a good one.
    pub import_errors: Vec<ImportError>,
    /// What the last good import replaced, until the next import.
    pub import_done: Option<ImportedKind>,
    /// The option whose fit map is shown.
    pub heat_option: usize,
    /// A number box's text that is not an allowed value: shown, marked, until fixed or
    /// Escape; the comparison keeps the last valid value.
    pub rejected: Option<RejectedText>,
}

/// A comparison number box: an option's (by index) or the decision's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumberField {
    Cards(usize),
    TensorParallel(usize),
    Batch(usize),
    TeamSize,
    Budget,
    OpsHours,
}

impl NumberField {
    /// The box's element id (its input is `<id>-input`).
    pub fn id(self) -> String {
        match self {
            NumberField::Cards(i) => format!("opt-{i}-cards"),
            NumberField::TensorParallel(i) => format!("opt-{i}-tensor"),
            NumberField::Batch(i) => format!("opt-{i}-batch"),
            NumberField::TeamSize => "team-size".into(),
            NumberField::Budget => "budget".into(),
            NumberField::OpsHours => "ops-hours".into(),
        }
    }

    /// The option the box belongs to; None for the decision's boxes.
    pub fn option(self) -> Option<usize> {
        match self {
            NumberField::Cards(i) | NumberField::TensorParallel(i) | NumberField::Batch(i) => {
                Some(i)
            }
            NumberField::TeamSize | NumberField::Budget | NumberField::OpsHours => None,
        }
    }

    /// The whole numbers the box takes (min, max): the ranges `Comparison::validate`
    /// accepts, budget and hours in whole units (the budget's bound in any currency).
    pub fn allowed(self) -> (u32, u32) {
        use NumberField::*;
        match self {
            Cards(_) | TensorParallel(_) => (1, MAX_CARDS),
            Batch(_) => (1, MAX_BATCH),
            TeamSize => (1, MAX_TEAM_SIZE),
            Budget => (0, MAX_BUDGET_USD),
            OpsHours => (0, MAX_OPS_HOURS),
        }
    }

    /// The box may be left empty: no limit.
    pub fn may_be_empty(self) -> bool {
        matches!(self, NumberField::Budget | NumberField::OpsHours)
    }

    /// Puts a valid typed value in its place; None (an empty box) is no limit. The budget
    /// is typed in the comparison's currency.
    fn apply(self, c: &mut Comparison, value: Option<u32>) {
        use NumberField::*;
        let per_usd = c.money().per_usd();
        let decision = &mut c.decision;
        match (self, value) {
            (Budget, amount) => decision.budget_usd = amount.map(|a| f64::from(a) / per_usd),
            (OpsHours, hours) => decision.ops_hours_per_month = hours.map(f64::from),
            (TeamSize, Some(n)) => decision.team_size = n.clamp(1, MAX_TEAM_SIZE),
            (Cards(i) | TensorParallel(i) | Batch(i), Some(n)) => {
                if let Some(s) = c.options.get_mut(i).map(|o| &mut o.scenario) {
                    *match self {
                        Cards(_) => &mut s.cards,
                        TensorParallel(_) => &mut s.tensor_parallel,
                        _ => &mut s.batch_per_gpu,
                    } = n;
                }
            }
            // Only the budget and hours boxes take an empty box.
            (TeamSize | Cards(_) | TensorParallel(_) | Batch(_), None) => {}
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct RejectedText {
    pub field: NumberField,
    pub text: String,
}

impl CompareState {
    /// The ready-made comparison around the page's scenario.
    pub fn new(scenario: &Scenario) -> Self {
        CompareState {
            comparison: article_comparison(scenario),
            import_text: String::new(),
            import_errors: Vec::new(),
            import_done: None,
            heat_option: 0,
            rejected: None,
        }
    }

    /// The comparison stored by an earlier visit (its JSON), else the ready-made set
    /// around the page's scenario: a stored value the reader now refuses (an older
    /// format, an edit by hand) is dropped, not the page.
    pub fn at_load(scenario: &Scenario, stored: Option<&str>) -> Self {
        let mut state = CompareState::new(scenario);
        if let Some(comparison) = stored.and_then(|json| import_comparison(json).ok()) {
            state.comparison = comparison;
        }
        state
    }

    /// The box for `field`: the text it holds that is not used, and where it reports such
    /// text (or Escape) through `send`.
    pub fn typing(&self, field: NumberField, send: &Callback<CompareAction>) -> Typing {
        Typing {
            rejected: self
                .rejected
                .as_ref()
                .filter(|r| r.field == field)
                .map(|r| AttrValue::from(r.text.clone())),
            report: send.reform(move |text: Option<String>| match text {
                Some(text) => CompareAction::Rejected { field, text },
                None => CompareAction::Restore,
            }),
        }
    }

    /// The option whose column waits for a valid value in one of its boxes.
    pub fn option_awaiting_value(&self) -> Option<usize> {
        self.rejected.as_ref().and_then(|r| r.field.option())
    }

    /// The decision waits for a valid value in one of its boxes.
    pub fn decision_awaits_value(&self) -> bool {
        self.rejected
            .as_ref()
            .is_some_and(|r| r.field.option().is_none())
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
    /// A valid value typed into a number box (None: left empty, no limit); the team size
    /// is clamped to the range `Comparison::validate` accepts (the view stays up).
    Number(NumberField, Option<u32>),
    /// Text typed into a number box that is not an allowed value.
    Rejected {
        field: NumberField,
        text: String,
    },
    /// Escape in a box holding rejected text: back to the value in use.
    Restore,
    Priority(Priority),
    HeatOption(usize),
    ImportText(String),
    /// Reads the import box: a comparison, a scenario or a layer list (see `apply_import`).
    Import,
}

impl Reducible for CompareState {
    type Action = CompareAction;

    fn reduce(self: Rc<Self>, action: CompareAction) -> Rc<Self> {
        let mut next = (*self).clone();
        // Options added, removed or replaced: a rejected text may no longer name its box.
        if matches!(
            action,
            CompareAction::Remove(_)
                | CompareAction::Add(_)
                | CompareAction::Rebuild(_)
                | CompareAction::Import
        ) {
            next.rejected = None;
        }
        let c = &mut next.comparison;
        match action {
            CompareAction::SetOption(i, mut option) => {
                if let Some(slot) = c.options.get_mut(i) {
                    follow_hardware(slot, &mut option);
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
                    c.options.push(CompareOption {
                        label: hardware_label(&scenario),
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
            CompareAction::Number(field, value) => {
                let before = field.option().and_then(|i| c.options.get(i).cloned());
                field.apply(c, value);
                if let (Some(before), Some(after)) =
                    (before, field.option().and_then(|i| c.options.get_mut(i)))
                {
                    follow_hardware(&before, after);
                }
                if next.rejected.as_ref().is_some_and(|r| r.field == field) {
                    next.rejected = None;
                }
            }
            CompareAction::Rejected { field, text } => {
                next.rejected = Some(RejectedText { field, text })
            }
            CompareAction::Restore => next.rejected = None,
            CompareAction::Priority(p) => c.decision.priority = p,
            CompareAction::HeatOption(i) => next.heat_option = i,
            CompareAction::ImportText(text) => next.import_text = text,
            CompareAction::Import => match import_any(&next.import_text) {
                Ok(imported) => {
                    next.import_done = Some(match imported {
                        Imported::Comparison(_) => ImportedKind::Comparison,
                        Imported::Scenario(_) => ImportedKind::Scenario,
                        Imported::ModelSpec(_) => ImportedKind::Model,
                    });
                    *c = apply_import(c, imported);
                    next.import_errors.clear();
                }
                Err(errors) => {
                    next.import_errors = errors;
                    next.import_done = None;
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
        assert!(added.label.starts_with("3x "), "{}", added.label);
        let full = reduce(state, CompareAction::Add(scenario));
        assert_eq!(full.comparison.options.len(), MAX_OPTIONS);

        let mut state = full;
        for _ in 0..MAX_OPTIONS + 1 {
            state = reduce(state, CompareAction::Remove(0));
        }
        assert_eq!(state.comparison.options.len(), 1);
    }

    /// A page in yuan takes the budget in yuan; the decision keeps dollars.
    #[test]
    fn the_budget_is_typed_in_the_comparisons_currency() {
        use hsi_gpu_core::choices::Currency;
        let mut yuan = Scenario::default();
        yuan.cost.currency = Currency::Cny;
        yuan.cost.cny_per_usd = 7.2;
        let budget = |state, amount| {
            let state = reduce(
                state,
                CompareAction::Number(NumberField::Budget, Some(amount)),
            );
            state.comparison.decision.budget_usd.unwrap()
        };
        assert!((budget(CompareState::new(&yuan), 72_000) - 10_000.0).abs() < 1e-6);
        assert_eq!(budget(initial(), 72_000), 72_000.0);
    }

    #[test]
    fn rebuilding_keeps_the_decision_inputs_and_clamps_the_team() {
        let team = |n| CompareAction::Number(NumberField::TeamSize, Some(n));
        let state = reduce(initial(), team(0));
        assert_eq!(state.comparison.decision.team_size, 1);
        let state = reduce(state, team(u32::MAX));
        assert_eq!(state.comparison.decision.team_size, MAX_TEAM_SIZE);
        let state = reduce(
            state,
            CompareAction::Number(NumberField::Budget, Some(9000)),
        );
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
        assert!(!failed.import_errors.is_empty() && failed.import_done.is_none());

        let scenario = Scenario {
            patch: 11,
            ..Scenario::default()
        };
        let text = serde_json::to_string(&scenario).unwrap();
        let state = reduce(failed, CompareAction::ImportText(text));
        let imported = reduce(state, CompareAction::Import);
        assert!(imported.import_errors.is_empty());
        assert_eq!(imported.import_done, Some(ImportedKind::Scenario));
        assert_eq!(
            imported.comparison.options,
            article_comparison(&scenario).options
        );
    }

    #[test]
    fn a_stored_comparison_comes_back_and_one_that_no_longer_reads_gives_the_ready_made_set() {
        use hsi_gpu_core::json::{to_text, ToJson};
        let scenario = Scenario::default();
        let mut edited = reduce(initial(), CompareAction::Remove(0));
        edited = reduce(
            edited,
            CompareAction::Number(NumberField::TeamSize, Some(7)),
        );
        edited.comparison.options[0].label = "Our lab box".into();
        let stored = to_text(&edited.comparison.to_json());
        let restored = CompareState::at_load(&scenario, Some(&stored));
        assert_eq!(restored.comparison, edited.comparison);

        let unknown_field = stored.replacen('{', "{\"colour\": 1, ", 1);
        for bad in ["", "not json", "{\"options\": 3}", unknown_field.as_str()] {
            let fallback = CompareState::at_load(&scenario, Some(bad));
            assert_eq!(fallback.comparison, initial().comparison, "{bad}");
        }
        assert_eq!(CompareState::at_load(&scenario, None), initial());
    }

    #[test]
    fn a_rejected_number_is_kept_beside_the_last_valid_value_until_fixed_or_escape() {
        let batch = NumberField::Batch(1);
        let used = initial().comparison.options[1].scenario.batch_per_gpu;
        let typed = reduce(
            initial(),
            CompareAction::Rejected {
                field: batch,
                text: "-5".into(),
            },
        );
        assert_eq!(typed.comparison, initial().comparison);
        assert_eq!(typed.option_awaiting_value(), Some(1));
        assert!(!typed.decision_awaits_value());
        // Another box's valid value keeps it; the box's own replaces it.
        let other = reduce(
            typed.clone(),
            CompareAction::Number(NumberField::Cards(1), Some(2)),
        );
        assert_eq!(other.rejected, typed.rejected);
        let fixed = reduce(other, CompareAction::Number(batch, Some(used * 2)));
        assert_eq!(fixed.rejected, None);
        assert_eq!(fixed.comparison.options[1].scenario.batch_per_gpu, used * 2);
        assert_eq!(reduce(typed, CompareAction::Restore).rejected, None);
    }
}
