//! The plain-language verdict: every figure in it comes from the core's report.

use hsi_gpu_core::perf::Limiter;
use hsi_gpu_core::steptime::StepBound;
use hsi_gpu_core::{format, Report};
use yew::prelude::*;

use crate::i18n::{self, Lang, T};
use crate::SharedReport;

pub struct Verdict {
    pub report: SharedReport,
    pub lang: Lang,
    pub gpu_name: AttrValue,
    pub headroom: f64,
    pub cards: u32,
    /// Catalog figures in use that lack a primary source, e.g. "RTX A5500: nvlink".
    pub unverified: Vec<String>,
}

/// The step's parts and what bounds it, in words (the verdict and the speed panel).
pub fn step_parts(lang: Lang, report: &Report) -> String {
    let time = &report.perf.time;
    let bound = match time.bound {
        StepBound::Host => T::BoundHost,
        StepBound::Input => T::BoundInput,
        StepBound::Device => T::BoundDevice,
    };
    let input_rate = if time.input_samples_per_s.is_finite() {
        format::significant(time.input_samples_per_s)
    } else {
        "∞".into()
    };
    i18n::step_parts_sentence(
        lang,
        &format::duration(time.step_s),
        &format::duration(time.device_s),
        &format::duration(time.host_s),
        &format::duration(time.input_s),
        &input_rate,
        bound.get(lang),
    )
}

impl Verdict {
    pub fn view(self) -> Html {
        let lang = self.lang;
        let m = &self.report.memory;
        let fit = i18n::fit_sentence(
            lang,
            m.fits,
            &self.gpu_name,
            &format::percent(m.spare_fraction),
            &format::bytes(m.total),
            &format::bytes(m.capacity),
        );
        let batch =
            i18n::max_batch_sentence(lang, &format::percent(self.headroom), self.report.max_batch);
        let perf = &self.report.perf;
        let time = &perf.time;
        let speed = (time.step_s > 0.0).then(|| {
            let parts = step_parts(lang, &self.report);
            // What limits the GPU's own time matters when the GPU bounds the step.
            if time.bound == StepBound::Device {
                let bound = match time.limiter {
                    Limiter::Compute => T::ComputeBound,
                    Limiter::Memory => T::MemoryBound,
                    Limiter::Launch => T::LaunchBound,
                };
                format!(
                    "{parts} {}",
                    i18n::step_bound_sentence(lang, bound.get(lang))
                )
            } else {
                parts
            }
        });
        // Other topologies at the chosen card count, step time against the chosen one's.
        let chosen = perf.scaling.chosen_point(self.cards);
        let alternatives: Vec<String> = match chosen {
            Some(chosen) if self.cards > 1 => perf
                .scaling
                .ddp
                .iter()
                .filter(|curve| curve.interconnect != perf.scaling.chosen)
                .filter_map(|curve| {
                    let other = curve.points.iter().find(|p| p.cards == self.cards)?;
                    Some(i18n::alternative_sentence(
                        lang,
                        i18n::interconnect_name(curve.interconnect, lang),
                        &format::duration(other.step_s),
                        &format::duration(chosen.step_s),
                    ))
                })
                .collect(),
            _ => Vec::new(),
        };
        let warnings = self.report.warnings.iter();
        html! {
            <section class={classes!("panel", "verdict", if m.fits { "ok" } else { "bad" })}
                aria-labelledby="verdict-heading" aria-live="polite">
                <h2 id="verdict-heading">{ T::Verdict.get(lang) }</h2>
                <p data-testid="verdict">
                    { fit }{ " " }{ batch }
                    if let Some(speed) = speed { { " " }{ speed } }
                    { for alternatives.iter().map(|a| html! { <>{ " " }{ a }</> }) }
                </p>
                <ul class="warnings" aria-label={T::Warnings.get(lang)}>
                    { for warnings.map(|w| html! { <li>{ i18n::warning_text(w, lang) }</li> }) }
                    if !self.unverified.is_empty() {
                        <li data-testid="unverified">{ T::Unverified.get(lang) }{ ": " }{ self.unverified.join("; ") }</li>
                    }
                </ul>
            </section>
        }
    }
}
