//! HSI GPU Planner web app (Yew). All figures come from `hsi_gpu_core`; this crate draws
//! them and keeps the scenario in the address bar and in storage.

use std::rc::Rc;

use hsi_gpu_core::Report;

pub mod app;
pub mod components;
pub mod ghost;
pub use hsi_gpu_i18n as i18n;
pub mod platform;
pub mod query;
pub mod state;

/// Scenario sections whose scalar fields are editable assumptions.
pub const ASSUMPTION_SECTIONS: [&str; 6] =
    ["memory", "perf", "cost", "workload", "pipeline", "mae"];

/// Fields inside those sections that the scenario panel edits with a proper control.
pub const SCENARIO_PANEL_FIELDS: [&str; 3] = [
    "workload.mode",
    "pipeline.num_workers",
    "pipeline.cube_on_gpu",
];

/// The app's store, shared with the components through a context.
pub type Store = yew::UseReducerHandle<state::AppState>;

/// A report the views share, equal only to itself: the estimate is memoised on the
/// scenario, so another report means another scenario. Comparing two reports field by
/// field would walk the whole report in every view's props on every render, and would
/// put `Report`'s `PartialEq` in the page.
#[derive(Clone)]
pub struct SharedReport(Rc<Report>);

impl SharedReport {
    pub fn new(report: Report) -> Self {
        SharedReport(Rc::new(report))
    }
}

impl From<Report> for SharedReport {
    fn from(report: Report) -> Self {
        SharedReport::new(report)
    }
}

impl std::ops::Deref for SharedReport {
    type Target = Report;
    fn deref(&self) -> &Report {
        &self.0
    }
}

impl PartialEq for SharedReport {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// Mounts the app on `<body>`, starting from the link, else the saved scenario.
pub fn start() {
    let initial = state::AppState::at_load(
        &platform::location_query(),
        platform::load_saved_query().as_deref(),
        i18n::Lang::from_browser(&platform::browser_language()),
    );
    yew::Renderer::<app::App>::with_props(app::AppProps { initial }).render();
}
