//! The article's thesis for this scenario (what would help most), the work after training
//! (evaluation and whole-scene prediction) and where the article's figures are off.

pub mod article_panel;
pub mod inference_view;
pub mod levers_view;
pub mod map_view;
/// The views' texts, in the i18n crate (the command line prints them too).
pub use crate::i18n::whatifs as text;

use yew::prelude::*;

use crate::i18n::Lang;
use crate::SharedReport;
use inference_view::InferenceView;
use levers_view::LeversTable;

/// The what-ifs' report (the full one, with levers and inference) and the language.
#[derive(Properties, PartialEq)]
pub struct WhatIfProps {
    pub report: SharedReport,
    pub lang: Lang,
}

/// What the what-ifs add below the dashboard: the lever table and inference. One
/// component, so that while a slider moves (the what-ifs wait for it to rest) they are
/// not drawn again.
#[function_component]
pub fn WhatIfDetails(props: &WhatIfProps) -> Html {
    let (report, lang) = (props.report.clone(), props.lang);
    html! {
        <>
            { LeversTable { report: report.clone(), lang }.view() }
            { InferenceView { report, lang }.view() }
        </>
    }
}
