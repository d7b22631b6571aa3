//! The plain-language verdict: every figure in it comes from the core's report, in the
//! words `i18n::verdict_sentences` gives the command line's summary too.

use yew::prelude::*;

use crate::i18n::{self, Lang, T};
use crate::SharedReport;

pub struct Verdict {
    pub report: SharedReport,
    pub lang: Lang,
    pub gpu_name: AttrValue,
    pub headroom: f64,
    pub cards: u32,
    /// The caution on catalog figures in use that lack a primary source
    /// (`i18n::unverified_caution`).
    pub unverified: Option<String>,
}

impl Verdict {
    pub fn view(self) -> Html {
        let lang = self.lang;
        let sentences = i18n::verdict_sentences(
            lang,
            &self.report,
            &self.gpu_name,
            self.headroom,
            self.cards,
        );
        let text = i18n::paragraph(lang, &sentences);
        let fits = self.report.memory.fits;
        let warnings = self.report.warnings.iter();
        html! {
            <section class={classes!("panel", "verdict", if fits { "ok" } else { "bad" })}
                aria-labelledby="verdict-heading" aria-live="polite">
                <h2 id="verdict-heading">{ T::Verdict.get(lang) }</h2>
                <p data-testid="verdict">{ text }</p>
                <ul class="warnings" aria-label={T::Warnings.get(lang)}>
                    { for warnings.map(|w| html! { <li>{ i18n::warning_text(w, lang) }</li> }) }
                    if let Some(caution) = self.unverified {
                        <li data-testid="unverified">{ caution }</li>
                    }
                </ul>
            </section>
        }
    }
}
