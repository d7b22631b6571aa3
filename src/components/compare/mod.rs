//! The comparison view: up to `MAX_OPTIONS` full scenarios side by side, best value per
//! row, charts, the decision matrix with its flips, the fit map, exports (JSON, CSV, SVG,
//! PNG, print) and import. All figures come from `hsi_gpu_core::compare`; the view's state
//! changes only through `state::CompareAction`s.

pub mod chart;
mod editor;
mod results;
mod state;
/// The comparison's texts, in the i18n crate (the command line prints them too).
pub use crate::i18n::compare as text;

use std::cell::RefCell;
use std::rc::Rc;

use hsi_gpu_core::choices::Currency;
use hsi_gpu_core::compare::decision::Priority;
use hsi_gpu_core::compare::export::results_csv;
use hsi_gpu_core::compare::presets::runs_workload_of;
use hsi_gpu_core::compare::Comparison;
use hsi_gpu_core::compare::{compare, CompareOption, MAX_OPTIONS};
use hsi_gpu_core::json::{self, ToJson};
use hsi_gpu_core::whatifs::{compare_levers, LeverRow};
use hsi_gpu_core::Scenario;
use wasm_bindgen::JsValue;
use yew::prelude::*;

use crate::i18n::problems::field_error_text;
use crate::i18n::Lang;
use crate::platform::{self, files};
use editor::{button, number_box, select_value, OptionEditor};
use results::{charts, decision_view, heat_map, import_error_view, table};
use state::{CompareAction, CompareState, ImportedKind, NumberField};
use text::{option_name, priority_name, C};

/// A value the page and the comparison share: one cell whose identity never changes, so a
/// slider move on the page does not re-render the comparison (its props stay equal): that
/// re-render cost a few ms of layout per move.
#[derive(Clone)]
pub struct Shared<T>(pub Rc<RefCell<T>>);

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl<T: Clone> Shared<T> {
    fn get(&self) -> T {
        self.0.borrow().clone()
    }
}

/// Whether the page's scenario has left every option: none runs its workload any more.
pub fn left_by(options: &[CompareOption], scenario: &Scenario) -> bool {
    !options.is_empty() && !options.iter().any(|o| runs_workload_of(o, scenario))
}

#[derive(Properties, PartialEq)]
pub struct CompareProps {
    pub lang: Lang,
    /// The page's current Scenario, read when the user adds or rebuilds options.
    pub scenario: Shared<Scenario>,
    /// The options as last drawn, for the page to tell when its scenario leaves them.
    pub options: Shared<Vec<CompareOption>>,
    /// `left_by` as the page last saw it: a change redraws the comparison and its note.
    pub left: bool,
}

#[function_component]
pub fn CompareView(props: &CompareProps) -> Html {
    let lang = props.lang;
    let current = props.scenario.clone();
    let state = {
        let scenario = current.get();
        use_reducer(move || {
            CompareState::at_load(&scenario, platform::load_saved_comparison().as_deref())
        })
    };
    // Every change is stored (the comparison as loaded already is, or is the ready-made
    // set), so a reload does not throw away a comparison the team has built.
    {
        let loaded = use_mut_ref(|| true);
        use_effect_with(state.comparison.clone(), move |c| {
            if !std::mem::replace(&mut *loaded.borrow_mut(), false) {
                platform::save_comparison(&json::to_text(&c.to_json()));
            }
        });
    }
    *props.options.0.borrow_mut() = state.comparison.options.clone();
    let left = left_by(&state.comparison.options, &current.0.borrow());
    let report = use_memo(state.comparison.clone(), compare);
    // The lever rows (every option's what-ifs: the heaviest part of the page) follow the
    // table in a task of their own once it is painted, so neither half holds the page long.
    let levers = use_state(|| None::<(Comparison, Rc<Vec<LeverRow>>)>);
    {
        let levers = levers.clone();
        use_effect_with(state.comparison.clone(), move |c| {
            let c = c.clone();
            platform::after_paint(move || {
                let rows = Rc::new(compare_levers(&c));
                levers.set(Some((c, rows)));
            });
        });
    }
    let levers: Rc<Vec<LeverRow>> = match &*levers {
        Some((c, rows)) if *c == state.comparison => rows.clone(),
        _ => Rc::default(),
    };
    // A callback that dispatches `action(value)`.
    let send = |action: fn(String) -> Option<CompareAction>| {
        let state = state.clone();
        move |value: String| {
            if let Some(action) = action(value) {
                state.dispatch(action);
            }
        }
    };

    let dispatch = {
        let state = state.clone();
        Callback::from(move |action| state.dispatch(action))
    };
    let on_add = {
        let (state, current) = (state.clone(), current.clone());
        Callback::from(move |_: MouseEvent| state.dispatch(CompareAction::Add(current.get())))
    };
    let on_rebuild = {
        let (state, current) = (state.clone(), current.clone());
        Callback::from(move |_: MouseEvent| state.dispatch(CompareAction::Rebuild(current.get())))
    };
    let on_goal = {
        let f = send(|v| {
            Some(CompareAction::Priority(if v == "single_run" {
                Priority::SingleRun
            } else {
                Priority::Sweep
            }))
        });
        Callback::from(move |e: Event| f(select_value(&e)))
    };
    let on_heat_option = {
        let f = send(|v| Some(CompareAction::HeatOption(v.parse().unwrap_or(0))));
        Callback::from(move |e: Event| f(select_value(&e)))
    };
    let on_import_text = {
        let f = send(|v| Some(CompareAction::ImportText(v)));
        Callback::from(move |e: InputEvent| {
            let target: Option<JsValue> = e.target().map(Into::into);
            f(target.map(|t| files::value_of(&t)).unwrap_or_default());
        })
    };
    let on_import = {
        let state = state.clone();
        Callback::from(move |_: MouseEvent| state.dispatch(CompareAction::Import))
    };
    let on_file = {
        let state = state.clone();
        Callback::from(move |e: Event| {
            let state = state.clone();
            if let Some(target) = e.target() {
                files::read_chosen_files(target.into(), move |_, text| {
                    state.dispatch(CompareAction::ImportText(text));
                    state.dispatch(CompareAction::Import);
                });
            }
        })
    };
    let on_export_json = {
        let state = state.clone();
        Callback::from(move |_: MouseEvent| {
            // Written by `to_json`, printed as a Value: the page's one JSON writer.
            let json = json::to_pretty_text(&state.comparison.to_json());
            files::download_text("hsi-gpu-comparison.json", "application/json", &json);
        })
    };
    let on_export_csv = {
        let report = report.clone();
        Callback::from(move |_: MouseEvent| {
            if let Ok(r) = &*report {
                files::download_text("hsi-gpu-comparison.csv", "text/csv", &results_csv(r));
            }
        })
    };
    let on_print = Callback::from(|_: MouseEvent| files::print_page());

    let body = match &*report {
        Ok(r) => {
            let removable = state.comparison.options.len() > 1;
            let money = state.comparison.money();
            let editors = html! {
                { for state.comparison.options.iter().enumerate().map(|(i, o)| html! {
                    <th scope="col">
                        { OptionEditor { index: i, option: o.clone(), lang, state: &state,
                            send: dispatch.clone(), removable }.view() }
                    </th>
                }) }
            };
            let d = &state.comparison.decision;
            let number = |field, label: C, value| {
                number_box(field, label.get(lang), value, &state, &dispatch, lang)
            };
            html! {
                <>
                    { table(r, &levers, lang, money, editors, state.option_awaiting_value()) }
                    <h3>{ C::Charts.get(lang) }</h3>
                    { charts(r, lang, money) }
                    <h3>{ C::Decision.get(lang) }</h3>
                    <div class="decision-inputs no-print">
                        { number(NumberField::TeamSize, C::TeamSize, Some(f64::from(d.team_size))) }
                        <label>{ C::Goal.get(lang) }{ " " }
                            <select data-testid="goal" onchange={on_goal}>
                                <option value="sweep" selected={d.priority == Priority::Sweep}>{ priority_name(Priority::Sweep, lang) }</option>
                                <option value="single_run" selected={d.priority == Priority::SingleRun}>{ priority_name(Priority::SingleRun, lang) }</option>
                            </select></label>
                        { number(NumberField::Budget, if money.currency == Currency::Cny { C::BudgetCny } else { C::Budget },
                            d.budget_usd.map(|usd| (usd * money.per_usd()).round())) }
                        { number(NumberField::OpsHours, C::OpsHours, d.ops_hours_per_month) }
                    </div>
                    // Its figures would be for a value the boxes no longer show.
                    if state.decision_awaits_value() {
                        <p class="help awaiting" data-testid="decision-awaiting">{ C::AwaitsValidValue.get(lang) }</p>
                    } else {
                        { decision_view(&r.decision, &r.options, lang, money) }
                    }
                    <h3>{ C::Sensitivity.get(lang) }</h3>
                    <label class="no-print">{ C::OptionWord.get(lang) }{ " " }
                        <select data-testid="heat-option" onchange={on_heat_option}>
                            { for r.options.iter().enumerate().map(|(i, o)| html! {
                                <option value={i.to_string()} selected={i == state.heat_option}>{ option_name(&o.label, i, lang) }</option>
                            }) }
                        </select></label>
                    <h4>{ C::HeatTitle.get(lang) }</h4>
                    { heat_map(&state.comparison, r, state.heat_option, lang) }
                </>
            }
        }
        Err(errors) => html! {
            <ul class="error" data-testid="compare-errors">
                { for errors.iter().map(|e| html! { <li>{ field_error_text(e, lang) }</li> }) }
            </ul>
        },
    };

    html! {
        <section class="panel view compare" aria-labelledby="compare-heading" data-testid="compare">
            <h2 id="compare-heading">{ C::Title.get(lang) }</h2>
            <p class="help">{ C::Help.get(lang) }</p>
            <p class="no-print">
                { button("compare-rebuild".into(), C::Rebuild.get(lang), on_rebuild) }
                { " " }
                <button type="button" data-testid="compare-add" onclick={on_add}
                    disabled={state.comparison.options.len() >= MAX_OPTIONS}>{ C::AddOption.get(lang) }</button>
            </p>
            if left {
                <p class="stale-note" data-testid="compare-stale">{ C::Stale.get(lang) }</p>
            }
            { body }
            <div class="compare-io no-print">
                <h3>{ C::Export.get(lang) }</h3>
                <p class="export-row">
                    { button("export-json".into(), C::ExportJson.get(lang), on_export_json) }
                    { " " }
                    { button("export-csv".into(), C::ExportCsv.get(lang), on_export_csv) }
                    { " " }
                    { button("print".into(), C::Print.get(lang), on_print) }
                </p>
                <h3>{ C::Import.get(lang) }</h3>
                <p class="help">{ C::ImportHelp.get(lang) }</p>
                <textarea data-testid="import-text" rows="8" cols="60" aria-label={C::Import.get(lang)}
                    value={state.import_text.clone()} oninput={on_import_text} />
                <p>
                    { button("import-button".into(), C::ImportButton.get(lang), on_import) }
                    { " " }
                    <label>{ C::ImportFile.get(lang) }{ " " }
                        <input type="file" accept=".json,application/json" data-testid="import-file" onchange={on_file} /></label>
                </p>
                if !state.import_errors.is_empty() {
                    <ul class="error import-errors" data-testid="import-errors">
                        { for state.import_errors.iter().map(|e| import_error_view(e, &state.import_text, lang)) }
                    </ul>
                } else if let Some(kind) = state.import_done {
                    <p data-testid="import-done">{ match kind {
                        ImportedKind::Comparison => C::ImportedComparison,
                        ImportedKind::Scenario => C::ImportedScenario,
                        ImportedKind::Model => C::ImportedModel,
                    }.get(lang) }</p>
                }
            </div>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use crate::app::{App, AppProps};
    use crate::i18n::Lang;
    use crate::state::AppState;
    use yew::LocalServerRenderer;

    async fn page(lang: Lang) -> String {
        let mut initial = AppState::at_load("", None, lang);
        initial.lang = lang;
        LocalServerRenderer::<App>::with_props(AppProps { initial })
            .hydratable(false)
            .render()
            .await
    }

    #[tokio::test]
    async fn the_page_shows_the_ready_made_comparison_with_best_marks() {
        let html = page(Lang::En).await;
        let at = html
            .find("data-testid=\"compare\"")
            .expect("comparison mounted");
        let compare = &html[at..];
        let editors = (0..8)
            .filter(|i| compare.contains(&format!("data-testid=\"opt-{i}-gpu\"")))
            .count();
        assert_eq!(
            editors,
            hsi_gpu_core::compare::presets::article_options(&Default::default()).len()
        );
        assert!(compare.contains("data-testid=\"recommended\""));
        assert!(compare.contains("class=\"num best\""));
        assert!(compare.contains("data-testid=\"heat-map\""));
    }

    #[tokio::test]
    async fn the_comparison_speaks_chinese() {
        let html = page(Lang::Zh).await;
        assert!(html.contains(super::text::C::Title.get(Lang::Zh)));
        assert!(html.contains(super::text::C::Decision.get(Lang::Zh)));
        assert!(!html.contains(super::text::C::Decision.get(Lang::En)));
    }
}
