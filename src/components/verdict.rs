//! The plain-language verdict: every figure in it comes from the core's report.

use std::rc::Rc;

use hsi_gpu_core::{format, Report};
use yew::prelude::*;

use crate::i18n::{self, Lang, T};

#[derive(Properties, PartialEq)]
pub struct VerdictProps {
    pub report: Rc<Report>,
    pub lang: Lang,
    pub gpu_name: AttrValue,
    pub headroom: f64,
}

#[function_component]
pub fn Verdict(props: &VerdictProps) -> Html {
    let lang = props.lang;
    let m = &props.report.memory;
    let fit = i18n::fit_sentence(
        lang,
        m.fits,
        &props.gpu_name,
        &format::percent(m.headroom),
        &format::bytes(m.total),
        &format::bytes(m.capacity),
    );
    let batch = i18n::max_batch_sentence(
        lang,
        &format::percent(props.headroom),
        props.report.max_batch,
    );
    html! {
        <section class={classes!("panel", "verdict", if m.fits { "ok" } else { "bad" })}
            aria-labelledby="verdict-heading" aria-live="polite">
            <h2 id="verdict-heading">{ T::Verdict.get(lang) }</h2>
            <p data-testid="verdict">{ fit }{ " " }{ batch }</p>
            if !props.report.warnings.is_empty() {
                <ul class="warnings" aria-label={T::Warnings.get(lang)}>
                    { for props.report.warnings.iter().map(|w| html! { <li>{ w }</li> }) }
                </ul>
            }
        </section>
    }
}
