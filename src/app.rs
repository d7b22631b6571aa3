//! The page: a one-screen dashboard (inputs on the left; the verdict and the live charts
//! beside them, each with a faint ghost of the figures before the last change), then the
//! details below (tables, assumptions, measurements, comparison). Everything is
//! recomputed by the core on every input event; the what-ifs (levers, inference) once the
//! scenario rests. Browser side effects (address bar, storage, readiness, embed height)
//! run in effects, after rendering.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use hsi_gpu_core::whatifs::estimate_all;
use hsi_gpu_core::{estimate, gpu, perf, Scenario};
use yew::prelude::*;

use crate::components::assumptions::use_assumptions;
use crate::components::chart_tile::{Chart, ChartTile};
use crate::components::compare::{left_by, CompareView, Shared};
use crate::components::cost_chart::CostChart;
use crate::components::cost_view::CostView;
use crate::components::header::use_header;
use crate::components::layer_table::LayerTable;
use crate::components::measured_view::use_measured_view;
use crate::components::memory_view::MemoryView;
use crate::components::messages::{errors, notices};
use crate::components::roofline::RooflineView;
use crate::components::scaling_view::{ScalingTable, ScalingView};
use crate::components::scenario_panel::ScenarioPanel;
use crate::components::thesis::article_panel::ArticlePanel;
use crate::components::thesis::map_view::use_levers_tile;
use crate::components::thesis::WhatIfDetails;
use crate::components::verdict::Verdict;
use crate::ghost::Ghost;
use crate::i18n::{self, T};
use crate::platform;
use crate::state::{Action, AppState};
use crate::SharedReport;
use crate::Store;

#[derive(Properties, PartialEq)]
pub struct AppProps {
    pub initial: AppState,
}

#[function_component]
pub fn App(props: &AppProps) -> Html {
    let store: Store = {
        let initial = props.initial.clone();
        use_reducer_eq(move || initial)
    };
    let result = use_memo(store.scenario.clone(), |s| {
        estimate(s).map(SharedReport::new)
    });
    // A scenario the core rejects keeps the last valid estimate drawn, marked stale.
    let last_valid = use_mut_ref(|| None::<SharedReport>);
    let (shown, problems) = match &*result {
        Ok(report) => {
            *last_valid.borrow_mut() = Some(report.clone());
            (Some(report.clone()), None)
        }
        Err(problems) => (last_valid.borrow().clone(), Some(problems)),
    };
    let stale = problems.is_some() || store.rejected.is_some();
    let ghost = {
        let memory = use_mut_ref(Ghost::default);
        let ghost = memory
            .borrow_mut()
            .update(shown.as_ref(), platform::now_ms());
        ghost
    };
    let rested = use_what_ifs(&store.scenario);
    let what_ifs = rested
        .as_ref()
        .map(|(s, report)| (report.clone(), *s != store.scenario));
    let levers_tile = use_levers_tile(&store.scenario, store.lang);
    let header = use_header(&store);
    let assumptions = use_assumptions(&store);
    let measured = use_measured_view(&store);
    let current_scenario = {
        let cell = use_mut_ref(|| store.scenario.clone());
        *cell.borrow_mut() = store.scenario.clone();
        Shared(cell)
    };
    // The comparison's options as last drawn: whether the scenario has left them all,
    // judged on the rested scenario (the what-ifs'), so that a slider move never redraws
    // the comparison (a full redraw, 10-15 ms, was the slowest move of a drag).
    let compared = use_mut_ref(Vec::new);
    let compare_left = rested
        .as_ref()
        .is_some_and(|(s, _)| left_by(&compared.borrow(), s));

    use_effect_with((*store).clone(), |state| {
        platform::set_html_lang(state.lang.html_lang());
        let state = state.clone();
        platform::persist_soon(move || {
            let saved = state.saves.then(|| state.share_query());
            (state.location_query(), saved)
        });
    });
    let embed = store.embed;
    // The details below the dashboard (their tables, the assumptions, the article and the
    // comparison with its lever rows) are drawn once the first screen, then the lever chart
    // have been painted; rendered on the server (the native tests) there is no paint to
    // wait for.
    let below = use_state_eq(|| !cfg!(target_arch = "wasm32"));
    let show_below = *below;
    use_effect_with(what_ifs.is_some(), move |levers_drawn| {
        if *levers_drawn {
            platform::after_paint(move || below.set(true));
        }
    });
    use_effect_with((), move |()| {
        let listeners = (
            platform::flush_on_pagehide(),
            embed.then(platform::post_height_on_resize),
        );
        platform::mark_ready();
        // The browser calls them for as long as the app is mounted.
        move || drop(listeners)
    });
    use_effect(move || {
        if embed {
            platform::post_height_to_parent();
        }
    });

    let lang = store.lang;
    let s = &store.scenario;
    let card = gpu::gpu_by_id(&s.gpu);
    let gpu_name: AttrValue = card
        .map(|g| g.name)
        .unwrap_or(s.gpu.as_str())
        .to_string()
        .into();
    let unverified = i18n::unverified_caution(s, lang);
    let on_dismiss = {
        let store = store.clone();
        Callback::from(move |()| store.dispatch(Action::DismissNotices))
    };
    // The dashboard: what a meeting watches while a slider moves, on one screen.
    let dashboard = match &shown {
        Some(report) => html! {
            <>
                if stale {
                    <div class="stale-note" role="status" data-testid="stale">
                        <p>{ T::StaleNote.get(lang) }</p>
                        if let Some(problems) = problems {
                            { errors(problems, lang) }
                        }
                    </div>
                }
                { Verdict { report: report.clone(), lang, gpu_name: gpu_name.clone(),
                    headroom: s.memory.headroom, cards: perf::ring_cards(s), unverified }.view() }
                <div class={classes!("tiles", (!report.memory.fits).then_some("oom"))}>
                    <ChartTile chart={Chart::Memory(MemoryView { report: report.clone(), lang,
                        gpu_name: gpu_name.clone(), headroom: s.memory.headroom, ghost: ghost.clone() })} />
                    <ChartTile chart={Chart::Scaling(ScalingView { report: report.clone(), lang,
                        cards: s.cards, nodes: s.nodes, mode: s.workload.mode, ghost: ghost.clone() })} />
                    // Embedded, the page keeps to memory and speed; the full page has the rest.
                    if !embed {
                        <ChartTile chart={Chart::Roofline(RooflineView { report: report.clone(), lang,
                            ghost: ghost.clone() })} />
                        <ChartTile chart={Chart::Cost(CostChart { report: report.clone(), lang,
                            ghost: ghost.clone() })} />
                        // What would help most: computed once the scenario rests, dimmed until then.
                        if let Some((full, stale)) = what_ifs.clone() {
                            <div class={classes!("levers-tile", "what-ifs", stale.then_some("stale"))}>
                                { levers_tile.view(full) }
                            </div>
                        }
                    }
                </div>
            </>
        },
        None => errors(problems.map_or(&[][..], Vec::as_slice), lang),
    };
    // Below the dashboard: drawn from the rested scenario's report (the what-ifs', dimmed
    // while it is behind), so that a dragged slider redraws only the dashboard.
    let details = match (&shown, embed) {
        (Some(report), false) => {
            let stale = what_ifs.as_ref().is_some_and(|(_, stale)| *stale);
            let report = what_ifs.as_ref().map_or(report, |(full, _)| full);
            html! {
                <div class={classes!("rested", stale.then_some("stale"), (!report.memory.fits).then_some("oom"))}>
                    { ScalingTable { report: report.clone(), lang }.view() }
                    if what_ifs.is_some() {
                        <div class="what-ifs" data-testid="what-ifs">
                            <WhatIfDetails report={report.clone()} lang={lang} />
                        </div>
                    }
                    { CostView { report: report.clone(), lang }.view() }
                    <LayerTable report={report.clone()} preset={store.model_id().map(|id| AttrValue::from(id.to_string()))} lang={lang} />
                </div>
            }
        }
        _ => html! {},
    };

    html! {
        <ContextProvider<Store> context={store.clone()}>
            <div class={classes!("app", store.presentation.then_some("presentation"), embed.then_some("embed"))}>
                <div class="first-screen">
                if embed {
                    <p class="embed-bar">
                        <strong>{ T::Title.get(lang) }</strong>{ " · " }
                        <a href={format!("?{}", store.share_query())} target="_blank" rel="noopener"
                            data-testid="open-full">{ T::OpenFull.get(lang) }</a>
                    </p>
                } else {
                    { header }
                }
                { notices(&store.notices, lang, on_dismiss) }
                <div class="dashboard">
                    <div class="side">
                        <ScenarioPanel />
                    </div>
                    <main class={classes!("views", stale.then_some("stale"))}>
                        { dashboard }
                    </main>
                </div>
                </div>
                <p class="estimates-note" data-testid="estimates-note">{ T::EstimatesNote.get(lang) }</p>
                if !embed {
                    <section class="details" aria-label={T::Details.get(lang)}>
                        <h2 class="details-heading">{ T::Details.get(lang) }</h2>
                        if show_below {
                            <div class="details-grid">
                                { details }
                                { assumptions }
                                // Outside the estimate's match: an invalid scenario keeps the loaded files.
                                { measured }
                                <ArticlePanel lang={lang} />
                            </div>
                            // Comparison view (issue 5).
                            <CompareView lang={lang} scenario={current_scenario} options={Shared(compared)}
                                left={compare_left} />
                        }
                    </section>
                }
            </div>
        </ContextProvider<Store>>
    }
}

/// How long the scenario must rest before the what-ifs (levers, inference: a dozen more
/// estimates and searches, several milliseconds) are recomputed, so that dragging a
/// slider stays within a frame.
pub(crate) const WHAT_IFS_DELAY: Duration = Duration::from_millis(150);

/// The last scenario that rested for `WHAT_IFS_DELAY`, with its full report (the
/// what-ifs included); shown dimmed while the page's scenario has moved on.
#[hook]
fn use_what_ifs(scenario: &Scenario) -> UseStateHandle<Option<(Scenario, SharedReport)>> {
    let latest = use_state_eq(|| None::<(Scenario, SharedReport)>);
    {
        // At load there is no drag to wait for: right after the first paint.
        let first = latest.is_none();
        let latest = latest.clone();
        use_effect_with(scenario.clone(), move |s| {
            let cancelled = Rc::new(Cell::new(false));
            let s = s.clone();
            let flag = cancelled.clone();
            let run = move || {
                if !flag.get() {
                    if let Ok(report) = estimate_all(&s) {
                        latest.set(Some((s, SharedReport::new(report))));
                    }
                }
            };
            let timer = if first {
                platform::after_paint(run);
                None
            } else {
                Some(platform::after(WHAT_IFS_DELAY, run))
            };
            move || {
                cancelled.set(true);
                drop(timer);
            }
        });
    }
    latest
}
