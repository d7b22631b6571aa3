//! The comparison view: up to `MAX_OPTIONS` full scenarios side by side, best value per
//! row, charts, the decision matrix with its flips, the fit map, exports (JSON, CSV, SVG,
//! PNG, print) and import. All figures come from `hsi_gpu_core::compare`.

pub mod chart;
pub mod text;

use std::cell::RefCell;
use std::rc::Rc;

use hsi_gpu_core::compare::decision::{Decision, Priority, MAX_TEAM_SIZE};
use hsi_gpu_core::compare::export::results_csv;
use hsi_gpu_core::compare::import::{import_any, ImportError, Imported};
use hsi_gpu_core::compare::presets::article_comparison;
use hsi_gpu_core::compare::sensitivity::{default_fit_grid, Largest};
use hsi_gpu_core::compare::{
    compare, CompareOption, Comparison, ComparisonReport, Metric, OptionOutcome, MAX_LABEL_CHARS,
    MAX_OPTIONS,
};
use hsi_gpu_core::scenario::{
    FieldError, Interconnect, ModelChoice, ParallelMode, MAX_BATCH, MAX_CARDS,
};
use hsi_gpu_core::{format, gpu, Scenario};
use wasm_bindgen::JsValue;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;
use yew::TargetCast;

use chart::CompareBars;

use crate::i18n::{interconnect_name, Lang};
use crate::platform::files;
use text::{condition_phrase, flip_sentence, metric_name, mode_name, priority_name, C};

/// Prints the comparison alone, on one page.
fn metric_text(metric: Metric, value: Option<f64>, lang: Lang) -> String {
    let Some(v) = value else {
        return C::NoFigure.get(lang).into();
    };
    match metric {
        Metric::MemoryUtilization => format::percent(v),
        Metric::MaxBatch | Metric::LargestPatch | Metric::LargestBands | Metric::Cards => {
            format::count(v as u64)
        }
        Metric::SamplesPerS => format::si(v, "/s"),
        Metric::RunTime | Metric::SweepTime => format::duration(v),
        Metric::Tco | Metric::CostPerExperiment => format::money(v),
        Metric::Power => format::si(v, "W"),
        Metric::OpsHours => format!("{v:.1} h"),
    }
}

/// `≥` marks a limit that is only the input limit.
fn limit_prefix(l: Largest) -> &'static str {
    match l {
        Largest::UpToLimit(_) => "≥ ",
        _ => "",
    }
}

/// A typed whole amount (USD, hours); empty or unreadable text means "no limit".
fn non_negative(text: &str) -> Option<f64> {
    text.trim().parse::<u32>().ok().map(f64::from)
}

/// `<label>text <input type="number"></label>`: every number box of the view.
fn number_field(
    label: &str,
    testid: String,
    value: String,
    max: Option<u32>,
    oninput: Callback<InputEvent>,
) -> Html {
    html! {
        <label>{ label }{ " " }
            <input type="number" class="number" min="0" max={max.map(|m| m.to_string())}
                data-testid={testid} value={value} oninput={oninput} /></label>
    }
}

fn button(testid: String, label: &str, onclick: Callback<MouseEvent>) -> Html {
    html! { <button type="button" data-testid={testid} onclick={onclick}>{ label }</button> }
}

/// A table row of plain cells after a row header.
fn plain_row(header: &str, cells: Vec<String>, class: Option<&'static str>) -> Html {
    html! {
        <tr class={class}>
            <th scope="row">{ header }</th>
            { for cells.into_iter().map(|c| html! { <td>{ c }</td> }) }
        </tr>
    }
}

fn select_value(e: &Event) -> String {
    e.target_unchecked_into::<HtmlSelectElement>().value()
}

fn input_value(e: &InputEvent) -> String {
    e.target_unchecked_into::<HtmlInputElement>().value()
}

#[derive(Properties, PartialEq)]
struct OptionEditorProps {
    index: usize,
    option: CompareOption,
    lang: Lang,
    on_change: Callback<(usize, CompareOption)>,
    on_remove: Callback<usize>,
    removable: bool,
}

/// The inputs of one option, in its column's header.
#[function_component]
fn OptionEditor(props: &OptionEditorProps) -> Html {
    let (i, lang) = (props.index, props.lang);
    let edit = |apply: fn(&mut CompareOption, String)| {
        let (option, on_change) = (props.option.clone(), props.on_change.clone());
        move |value: String| {
            let mut changed = option.clone();
            apply(&mut changed, value);
            on_change.emit((i, changed));
        }
    };
    let on_label = {
        let f = edit(|o, v| o.label = v);
        Callback::from(move |e: InputEvent| f(input_value(&e)))
    };
    let on_gpu = {
        let f = edit(|o, v| o.scenario.gpu = v);
        Callback::from(move |e: Event| f(select_value(&e)))
    };
    let on_cards = {
        let f = edit(|o, v| {
            if let Ok(n) = v.trim().parse() {
                o.scenario.cards = n;
            }
        });
        Callback::from(move |e: InputEvent| f(input_value(&e)))
    };
    let on_batch = {
        let f = edit(|o, v| {
            if let Ok(n) = v.trim().parse() {
                o.scenario.batch_per_gpu = n;
            }
        });
        Callback::from(move |e: InputEvent| f(input_value(&e)))
    };
    let on_interconnect = {
        let f = edit(|o, v| {
            if let Some(ic) = Interconnect::ALL.iter().find(|ic| ic.id() == v) {
                o.scenario.interconnect = *ic;
            }
        });
        Callback::from(move |e: Event| f(select_value(&e)))
    };
    let on_mode = {
        let f = edit(|o, v| {
            if let Some(mode) = ParallelMode::ALL.iter().find(|m| m.id() == v) {
                o.scenario.workload.mode = *mode;
            }
        });
        Callback::from(move |e: Event| f(select_value(&e)))
    };
    let on_remove = {
        let on_remove = props.on_remove.clone();
        Callback::from(move |_: MouseEvent| on_remove.emit(i))
    };
    let s = &props.option.scenario;
    let id = |what: &str| format!("opt-{i}-{what}");
    html! {
        <div class="option-editor">
            <input type="text" aria-label={C::Label.get(lang)} data-testid={id("label")}
                maxlength={MAX_LABEL_CHARS.to_string()}
                value={props.option.label.clone()} oninput={on_label} />
            <select aria-label={C::Gpu.get(lang)} data-testid={id("gpu")} onchange={on_gpu}>
                { for gpu::GPUS.iter().map(|g| html! {
                    <option value={g.id} selected={g.id == s.gpu}>{ g.name }</option>
                }) }
            </select>
            { number_field(C::Cards.get(lang), id("cards"), s.cards.to_string(), Some(MAX_CARDS), on_cards) }
            { number_field(C::Batch.get(lang), id("batch"), s.batch_per_gpu.to_string(), Some(MAX_BATCH), on_batch) }
            <select aria-label={C::Interconnect.get(lang)} data-testid={id("interconnect")} onchange={on_interconnect}>
                { for Interconnect::ALL.iter().map(|ic| html! {
                    <option value={ic.id()} selected={*ic == s.interconnect}>{ interconnect_name(*ic, lang) }</option>
                }) }
            </select>
            <select aria-label={C::Mode.get(lang)} data-testid={id("mode")} onchange={on_mode}>
                { for ParallelMode::ALL.iter().map(|m| html! {
                    <option value={m.id()} selected={*m == s.workload.mode}>{ mode_name(*m, lang) }</option>
                }) }
            </select>
            if props.removable {
                { button(id("remove"), C::Remove.get(lang), on_remove) }
            }
        </div>
    }
}

fn labels(report: &ComparisonReport) -> Vec<AttrValue> {
    report
        .options
        .iter()
        .map(|o| AttrValue::from(o.label.clone()))
        .collect()
}

fn table(report: &ComparisonReport, lang: Lang, editors: Html) -> Html {
    let fits_row = report.options.iter().enumerate().map(|(i, o)| match &o.result {
        Some(r) => html! {
            <td data-testid={format!("cell-fits-{i}")}>
                { if r.fits { C::Fits.get(lang) } else { C::DoesNotFit.get(lang) } }
                { " · " }{ format::bytes(r.memory_per_gpu_bytes) }
            </td>
        },
        None => html! {
            <td data-testid={format!("cell-fits-{i}")} class="error">
                { C::CannotEstimate.get(lang) }
                <ul>{ for o.errors.iter().map(|e: &FieldError| html! { <li>{ e.to_string() }</li> }) }</ul>
            </td>
        },
    });
    let complexity_row = report.options.iter().enumerate().map(|(i, o)| {
        let text = o.result.as_ref().map_or_else(String::new, |r| {
            let c = &r.complexity;
            format!(
                "{} × {} · {} · {} {}",
                c.cards,
                r.gpu_name,
                if c.nccl {
                    C::Nccl.get(lang)
                } else {
                    C::NoNccl.get(lang)
                },
                C::Psu.get(lang),
                format::si(c.psu_watts, "W"),
            )
        });
        html! { <td data-testid={format!("cell-ops-{i}")}>{ text }</td> }
    });
    let price_unknown = report
        .options
        .iter()
        .any(|o| o.result.as_ref().is_some_and(|r| r.tco_usd.is_none()));
    html! {
        <div class="table-scroll">
            <table class="compare-table" data-testid="compare-table">
                <thead>
                    <tr><th scope="col"></th>{ editors }</tr>
                </thead>
                <tbody>
                    <tr><th scope="row">{ C::Fits.get(lang) }</th>{ for fits_row }</tr>
                    { for report.rows.iter().map(|row| {
                        let name = row.metric.csv_name();
                        html! {
                            <tr data-testid={format!("row-{name}")}>
                                <th scope="row">{ metric_name(row.metric, lang) }</th>
                                { for row.values.iter().enumerate().map(|(i, v)| {
                                    let best = row.best.contains(&i);
                                    let prefix = report.options[i].result.as_ref().map_or("", |r| match row.metric {
                                        Metric::LargestPatch => limit_prefix(r.largest_patch),
                                        Metric::LargestBands => limit_prefix(r.largest_bands),
                                        _ => "",
                                    });
                                    html! {
                                        <td class={classes!("num", best.then_some("best"))}
                                            data-testid={format!("cell-{name}-{i}")}
                                            title={best.then(|| C::Best.get(lang))}>
                                            { prefix }{ metric_text(row.metric, *v, lang) }{ if best { " ★" } else { "" } }
                                        </td>
                                    }
                                }) }
                            </tr>
                        }
                    }) }
                    <tr><th scope="row">{ C::Complexity.get(lang) }</th>{ for complexity_row }</tr>
                </tbody>
            </table>
            if price_unknown {
                <p class="help">{ C::PriceUnknown.get(lang) }</p>
            }
        </div>
    }
}

fn charts(report: &ComparisonReport, lang: Lang) -> Html {
    let row = |m: Metric| report.rows.iter().find(|r| r.metric == m);
    let chart = |id: &'static str, title: C, metric: Metric, reference: Option<f64>| {
        let Some(r) = row(metric) else {
            return html! {};
        };
        let texts: Vec<AttrValue> = r
            .values
            .iter()
            .map(|v| metric_text(metric, *v, lang).into())
            .collect();
        html! {
            <CompareBars id={id} title={title.get(lang)} labels={labels(report)} values={r.values.clone()}
                texts={texts} best={r.best.clone()} reference={reference} lang={lang} />
        }
    };
    html! {
        <div class="compare-charts">
            { chart("chart-memory", C::ChartMemory, Metric::MemoryUtilization, Some(1.0)) }
            { chart("chart-time", C::ChartTime, Metric::SweepTime, None) }
            { chart("chart-cost", C::ChartCost, Metric::Tco, None) }
        </div>
    }
}

fn decision_view(d: &Decision, options: &[OptionOutcome], batch: u32, lang: Lang) -> Html {
    let name = |i: usize| options.get(i).map_or("?", |o| o.label.as_str());
    let yes_no = |b: Option<bool>| match b {
        Some(true) => C::Yes.get(lang),
        Some(false) => C::No.get(lang),
        None => C::Unknown.get(lang),
    };
    let recommended = match d.recommended {
        Some(i) => html! {
            <p class="verdict" data-testid="recommended">
                { C::Recommended.get(lang) }{ ": " }<strong>{ name(i) }</strong>
                { d.assessments[i].as_ref().and_then(|a| a.time_to_result_s).map(|t|
                    format!(" · {} {}", C::TimeToResult.get(lang), format::duration(t))).unwrap_or_default() }
            </p>
        },
        None => {
            html! { <p class="verdict" data-testid="recommended">{ C::NothingEligible.get(lang) }</p> }
        }
    };
    let header: Vec<String> = [
        C::Runs,
        C::TimeToResult,
        C::MetricTco,
        C::WithinBudget,
        C::MetricOps,
        C::WithinOps,
        C::Eligible,
    ]
    .iter()
    .map(|c| c.get(lang).to_string())
    .collect();
    html! {
        <>
            { recommended }
            <div class="table-scroll">
                <table data-testid="assessments">
                    <thead>{ plain_row("", header, None) }</thead>
                    <tbody>
                        { for d.assessments.iter().enumerate().filter_map(|(i, a)| a.as_ref().map(|a| plain_row(
                            name(i),
                            vec![
                                a.runs.to_string(),
                                a.time_to_result_s.map_or_else(|| C::DoesNotFit.get(lang).to_string(), format::duration),
                                a.tco_usd.map_or_else(|| C::Unknown.get(lang).to_string(), format::money),
                                yes_no(a.within_budget).to_string(),
                                format!("{:.1}", a.ops_hours_per_month),
                                yes_no(Some(a.within_ops)).to_string(),
                                yes_no(Some(a.eligible)).to_string(),
                            ],
                            (d.recommended == Some(i)).then_some("best"),
                        ))) }
                    </tbody>
                </table>
            </div>
            <h4>{ C::FlipsTitle.get(lang) }</h4>
            if d.flips.is_empty() {
                <p>{ C::NoFlips.get(lang) }</p>
            } else {
                <ul data-testid="flips">
                    { for d.flips.iter().map(|f| {
                        let lost: Vec<&str> = f.no_longer_fit.iter().map(|&i| name(i)).collect();
                        let condition = condition_phrase(&f.condition, lang, format::money);
                        html! { <li>{ flip_sentence(&condition, f.recommended.map(name), &lost, batch, lang) }</li> }
                    }) }
                </ul>
            }
        </>
    }
}

fn heat_map(
    comparison: &Comparison,
    report: &ComparisonReport,
    selected: usize,
    lang: Lang,
) -> Html {
    let Some(option) = comparison.options.get(selected) else {
        return html! {};
    };
    let s = &option.scenario;
    let limits = report
        .options
        .get(selected)
        .and_then(|o| o.result.as_ref())
        .map(|r| {
            format!(
                "{}: {}{} px · {}: {}{} · {}: {}",
                C::Patch.get(lang),
                limit_prefix(r.largest_patch),
                r.largest_patch
                    .value()
                    .map_or("—".into(), |v| v.to_string()),
                C::Bands.get(lang),
                limit_prefix(r.largest_bands),
                r.largest_bands
                    .value()
                    .map_or("—".into(), |v| v.to_string()),
                C::MetricMaxBatch.get(lang),
                r.max_batch,
            )
        });
    let grid = gpu::gpu_by_id(&s.gpu).and_then(|g| default_fit_grid(s, g));
    html! {
        <>
            if let Some(limits) = limits {
                <p data-testid="limits">{ limits }</p>
            }
            <p class="help">{ C::HeatHelp.get(lang) }</p>
            { match grid {
                Some(grid) => html! {
                    <div class="table-scroll">
                        <table class="heat" data-testid="heat-map">
                            <thead><tr>
                                <th scope="col">{ format!("{} \\ {}", C::Patch.get(lang), C::Bands.get(lang)) }</th>
                                { for grid.bands.iter().map(|b| html! { <th scope="col">{ *b }</th> }) }
                            </tr></thead>
                            <tbody>
                                { for grid.patches.iter().zip(&grid.cells).map(|(p, row)| html! {
                                    <tr>
                                        <th scope="row">{ *p }</th>
                                        { for row.iter().map(|cell| {
                                            // Classes, not inline styles: the page runs under a strict CSP.
                                            let (text, class) = match cell {
                                                Some(u) if *u <= 0.8 => (format::percent(*u), "heat-fits"),
                                                Some(u) if *u <= 1.0 => (format::percent(*u), "heat-tight"),
                                                Some(u) => (format::percent(*u), "heat-over"),
                                                None => ("·".to_string(), "heat-na"),
                                            };
                                            html! { <td class={class}>{ text }</td> }
                                        }) }
                                    </tr>
                                }) }
                            </tbody>
                        </table>
                    </div>
                },
                None => html! { <p>{ C::HeatNa.get(lang) }</p> },
            } }
        </>
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

fn import_error_view(e: &ImportError, text: &str) -> Html {
    let line_text = e
        .line
        .and_then(|l| text.lines().nth(l.saturating_sub(1)))
        .unwrap_or("");
    html! {
        <li>
            { e.to_string() }
            if !line_text.is_empty() {
                <br /><code>{ format!("{:>4} | {}", e.line.unwrap_or(0), line_text) }</code>
            }
        </li>
    }
}

/// The page's current Scenario, read when the user adds or rebuilds options. One shared
/// cell whose identity never changes, so a slider move on the page does not re-render the
/// comparison (its props stay equal): that re-render cost a few ms of layout per move.
#[derive(Clone)]
pub struct CurrentScenario(pub Rc<RefCell<Scenario>>);

impl PartialEq for CurrentScenario {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl CurrentScenario {
    fn get(&self) -> Scenario {
        self.0.borrow().clone()
    }
}

#[derive(Properties, PartialEq)]
pub struct CompareProps {
    pub lang: Lang,
    pub scenario: CurrentScenario,
}

#[function_component]
pub fn CompareView(props: &CompareProps) -> Html {
    let lang = props.lang;
    let current = props.scenario.clone();
    let comparison = {
        let scenario = current.get();
        use_state(move || article_comparison(&scenario))
    };
    let report = use_memo((*comparison).clone(), compare);
    let import_text = use_state(String::new);
    let import_errors = use_state(Vec::<ImportError>::new);
    let import_done = use_state(|| false);
    let heat_option = use_state(|| 0usize);

    let on_option = {
        let comparison = comparison.clone();
        Callback::from(move |(i, option): (usize, CompareOption)| {
            let mut c = (*comparison).clone();
            if let Some(slot) = c.options.get_mut(i) {
                *slot = option;
            }
            comparison.set(c);
        })
    };
    let on_remove = {
        let comparison = comparison.clone();
        Callback::from(move |i: usize| {
            let mut c = (*comparison).clone();
            if c.options.len() > 1 && i < c.options.len() {
                c.options.remove(i);
            }
            comparison.set(c);
        })
    };
    let on_add = {
        let (comparison, current) = (comparison.clone(), current.clone());
        Callback::from(move |_: MouseEvent| {
            let scenario = current.get();
            let mut c = (*comparison).clone();
            if c.options.len() < MAX_OPTIONS {
                let name = gpu::gpu_by_id(&scenario.gpu).map_or(scenario.gpu.as_str(), |g| g.name);
                c.options.push(CompareOption {
                    label: format!("{} × {name}", scenario.cards),
                    scenario: scenario.clone(),
                });
            }
            comparison.set(c);
        })
    };
    let on_rebuild = {
        let (comparison, current) = (comparison.clone(), current.clone());
        Callback::from(move |_: MouseEvent| {
            let scenario = current.get();
            comparison.set(Comparison {
                decision: comparison.decision.clone(),
                ..article_comparison(&scenario)
            })
        })
    };
    let edit_decision = |apply: fn(&mut Comparison, String)| {
        let comparison = comparison.clone();
        move |value: String| {
            let mut c = (*comparison).clone();
            apply(&mut c, value);
            comparison.set(c);
        }
    };
    let on_team = {
        let f = edit_decision(|c, v| {
            if let Ok(n) = v.trim().parse::<u32>() {
                // Within the range `Comparison::validate` accepts, so the view stays up.
                c.decision.team_size = n.clamp(1, MAX_TEAM_SIZE);
            }
        });
        Callback::from(move |e: InputEvent| f(input_value(&e)))
    };
    let on_goal = {
        let f = edit_decision(|c, v| {
            c.decision.priority = if v == "single_run" {
                Priority::SingleRun
            } else {
                Priority::Sweep
            };
        });
        Callback::from(move |e: Event| f(select_value(&e)))
    };
    let on_budget = {
        let f = edit_decision(|c, v| c.decision.budget_usd = non_negative(&v));
        Callback::from(move |e: InputEvent| f(input_value(&e)))
    };
    let on_ops = {
        let f = edit_decision(|c, v| c.decision.ops_hours_per_month = non_negative(&v));
        Callback::from(move |e: InputEvent| f(input_value(&e)))
    };
    let on_heat_option = {
        let heat_option = heat_option.clone();
        Callback::from(move |e: Event| heat_option.set(select_value(&e).parse().unwrap_or(0)))
    };
    let on_import_text = {
        let import_text = import_text.clone();
        Callback::from(move |e: InputEvent| {
            let target: Option<JsValue> = e.target().map(Into::into);
            import_text.set(target.map(|t| files::value_of(&t)).unwrap_or_default());
        })
    };
    let run_import = {
        let (comparison, import_errors, import_done) = (
            comparison.clone(),
            import_errors.clone(),
            import_done.clone(),
        );
        move |text: String| match import_any(&text) {
            Ok(imported) => {
                comparison.set(apply_import(&comparison, imported));
                import_errors.set(Vec::new());
                import_done.set(true);
            }
            Err(errors) => {
                import_errors.set(errors);
                import_done.set(false);
            }
        }
    };
    let on_import = {
        let (run_import, import_text) = (run_import.clone(), import_text.clone());
        Callback::from(move |_: MouseEvent| run_import((*import_text).clone()))
    };
    let on_file = {
        let import_text = import_text.clone();
        Callback::from(move |e: Event| {
            let (run_import, import_text) = (run_import.clone(), import_text.clone());
            if let Some(target) = e.target() {
                files::read_chosen_files(target.into(), move |_, text| {
                    import_text.set(text.clone());
                    run_import(text);
                });
            }
        })
    };
    let on_export_json = {
        let comparison = comparison.clone();
        Callback::from(move |_: MouseEvent| {
            // Through a Value: the app already carries its serializer (smaller wasm).
            let json =
                serde_json::to_value(&*comparison).and_then(|v| serde_json::to_string_pretty(&v));
            if let Ok(json) = json {
                files::download_text("hsi-gpu-comparison.json", "application/json", &json);
            }
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
            let removable = comparison.options.len() > 1;
            let editors = html! {
                { for comparison.options.iter().enumerate().map(|(i, o)| html! {
                    <th scope="col">
                        <OptionEditor index={i} option={o.clone()} lang={lang}
                            on_change={on_option.clone()} on_remove={on_remove.clone()} removable={removable} />
                    </th>
                }) }
            };
            let batch = comparison
                .options
                .first()
                .map_or(0, |o| o.scenario.batch_per_gpu);
            let d = &comparison.decision;
            html! {
                <>
                    { table(r, lang, editors) }
                    <h3>{ C::Charts.get(lang) }</h3>
                    { charts(r, lang) }
                    <h3>{ C::Decision.get(lang) }</h3>
                    <div class="decision-inputs no-print">
                        { number_field(C::TeamSize.get(lang), "team-size".into(), d.team_size.to_string(), Some(MAX_TEAM_SIZE), on_team) }
                        <label>{ C::Goal.get(lang) }{ " " }
                            <select data-testid="goal" onchange={on_goal}>
                                <option value="sweep" selected={d.priority == Priority::Sweep}>{ priority_name(Priority::Sweep, lang) }</option>
                                <option value="single_run" selected={d.priority == Priority::SingleRun}>{ priority_name(Priority::SingleRun, lang) }</option>
                            </select></label>
                        { number_field(C::Budget.get(lang), "budget".into(), d.budget_usd.map(|b| b.to_string()).unwrap_or_default(), None, on_budget) }
                        { number_field(C::OpsHours.get(lang), "ops-hours".into(), d.ops_hours_per_month.map(|h| h.to_string()).unwrap_or_default(), None, on_ops) }
                    </div>
                    { decision_view(&r.decision, &r.options, batch, lang) }
                    <h3>{ C::Sensitivity.get(lang) }</h3>
                    <label class="no-print">{ C::HeatOption.get(lang) }{ " " }
                        <select data-testid="heat-option" onchange={on_heat_option}>
                            { for r.options.iter().enumerate().map(|(i, o)| html! {
                                <option value={i.to_string()} selected={i == *heat_option}>{ o.label.clone() }</option>
                            }) }
                        </select></label>
                    <h4>{ C::HeatTitle.get(lang) }</h4>
                    { heat_map(&comparison, r, *heat_option, lang) }
                </>
            }
        }
        Err(errors) => html! {
            <ul class="error" data-testid="compare-errors">
                { for errors.iter().map(|e| html! { <li>{ e.to_string() }</li> }) }
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
                    disabled={comparison.options.len() >= MAX_OPTIONS}>{ C::AddOption.get(lang) }</button>
            </p>
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
                    value={(*import_text).clone()} oninput={on_import_text} />
                <p>
                    { button("import-button".into(), C::ImportButton.get(lang), on_import) }
                    { " " }
                    <label>{ C::ImportFile.get(lang) }{ " " }
                        <input type="file" accept=".json,application/json" data-testid="import-file" onchange={on_file} /></label>
                </p>
                if !import_errors.is_empty() {
                    <ul class="error import-errors" data-testid="import-errors">
                        { for import_errors.iter().map(|e| import_error_view(e, &import_text)) }
                    </ul>
                } else if *import_done {
                    <p data-testid="import-done">{ C::ImportDone.get(lang) }</p>
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
