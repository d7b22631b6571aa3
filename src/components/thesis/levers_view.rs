//! What would help most: a bar per lever option with its speed-up over the scenario (1x
//! line) and the best lever named (`LeversView`, on the dashboard), and a table of time to
//! result, largest batch and patch and what limits next (`LeversTable`, below it).

use hsi_gpu_core::chart::{bars_from, linear_ticks, nice_domain, LinearScale};
use hsi_gpu_core::levers::{LeverOutcome, LeverPoint};
use hsi_gpu_core::{format, Report};
use yew::prelude::*;

use super::text::{best_lever_text, lever_label, limit_name, limit_sentence, X};
use crate::components::chart_parts::{mark, px, readout, Focus};
use crate::components::palette::OKABE_ITO;
use crate::i18n::thesis_map::M;
use crate::i18n::{Lang, T};
use crate::SharedReport;

const WIDTH: f64 = 640.0;
const ROW: f64 = 26.0;
const LEFT: f64 = 210.0;
const RIGHT: f64 = 56.0;
const TOP: f64 = 8.0;
/// Room for the tick labels and the axis title.
const BOTTOM: f64 = 40.0;
const BAR: &str = OKABE_ITO[4];
const BEST: &str = OKABE_ITO[5];

/// The lever chart on the dashboard (drawn by `ChartTile`).
#[derive(PartialEq)]
pub struct LeversView {
    pub report: SharedReport,
    pub lang: Lang,
    /// Opens the map across model sizes (`map_view`); None draws no switch.
    pub on_map: Option<Callback<MouseEvent>>,
}

pub struct LeversTable {
    pub report: SharedReport,
    pub lang: Lang,
}

fn time_text(t: Option<f64>, lang: Lang) -> String {
    t.map_or_else(|| X::DoesNotFit.get(lang).to_string(), format::duration)
}

fn patch_text(p: Option<u32>) -> String {
    p.map_or_else(|| "—".to_string(), |p| p.to_string())
}

fn row(name: String, p: &LeverPoint, speedup: Option<f64>, lang: Lang, best: bool) -> Html {
    html! {
        <tr class={classes!(best.then_some("best"))}>
            <th scope="row">{ name }</th>
            <td class="num">{ time_text(p.time_to_result_s, lang) }</td>
            <td class="num">{ speedup.map(format::times).unwrap_or_else(|| "—".into()) }</td>
            <td class="num">{ p.largest_batch }</td>
            <td class="num">{ patch_text(p.largest_patch) }</td>
            <td>{ limit_name(p.limit, lang) }</td>
        </tr>
    }
}

/// Whether an outcome is the report's best lever.
fn is_best(report: &Report, o: &LeverOutcome) -> bool {
    report
        .best_lever
        .is_some_and(|b| b.lever == o.lever && b.factor == o.factor)
}

impl LeversView {
    pub fn view(&self, focus: Focus) -> Html {
        let lang = self.lang;
        let report = &self.report;
        let (Some(base), levers) = (report.lever_baseline, &report.levers) else {
            return html! {};
        };
        let is_best = |o: &LeverOutcome| is_best(report, o);
        let speedups: Vec<Option<f64>> = levers.iter().map(|o| o.speedup).collect();
        let top = speedups.iter().flatten().fold(1.1f64, |m, s| m.max(*s));
        let (_, x_hi) = nice_domain(0.0, top, 5);
        let height = TOP + ROW * levers.len() as f64 + BOTTOM;
        let x = LinearScale::new((0.0, x_hi), (LEFT, WIDTH - RIGHT));
        let bars = bars_from(0.0, &speedups, &x);
        // What a bar reads out on hover or focus: the option, its speed-up and its time to result.
        let texts: Vec<String> = levers
            .iter()
            .map(|o| {
                let speedup = o.speedup.map(format::times).unwrap_or_else(|| "—".into());
                format!(
                    "{}: {speedup}, {} {}",
                    lever_label(o.lever, o.factor, lang),
                    X::TimeToResult.get(lang),
                    time_text(o.time_to_result_s, lang)
                )
            })
            .collect();

        html! {
            <section class="panel view levers" aria-labelledby="levers-heading" data-testid="chart-levers">
                <h2 id="levers-heading">{ X::LeversTitle.get(lang) }
                    if let Some(on_map) = &self.on_map {
                        <button type="button" class="view-switch" onclick={on_map.clone()}
                            data-testid="thesis-map-open">{ M::Open.get(lang) }</button>
                    }
                </h2>
                <p class="help">{ X::LeversHelp.get(lang) }</p>
                <p class="key-figures">
                    <strong data-testid="best-lever">{ best_lever_text(report, lang) }</strong>
                    { " " }{ limit_sentence(lang, limit_name(base.limit, lang)) }
                </p>
                <svg class="chart" viewBox={format!("0 0 {WIDTH} {height}")} role="group" data-testid="levers-chart"
                    aria-label={X::LeversTitle.get(lang)}>
                    { for linear_ticks(0.0, x_hi, 5).into_iter().map(|t| html! {
                        <g>
                            <line class="grid" x1={px(x.map(t))} x2={px(x.map(t))}
                                y1={px(TOP)} y2={px(height - BOTTOM)} />
                            <text class="tick" x={px(x.map(t))} y={px(height - BOTTOM + 14.0)}
                                text-anchor="middle">{ format::times(t) }</text>
                        </g>
                    }) }
                    { for levers.iter().zip(&bars).enumerate().map(|(i, (o, bar))| {
                        let y = TOP + ROW * i as f64;
                        let value = o.speedup.map(format::times)
                            .unwrap_or_else(|| time_text(o.time_to_result_s, lang));
                        html! {
                            <g>
                                <text class="tick" x={px(LEFT - 6.0)} y={px(y + ROW * 0.65)}
                                    text-anchor="end">{ lever_label(o.lever, o.factor, lang) }</text>
                                { mark(&focus, i, &texts[i], None, html! {
                                    <rect x={px(bar.start)} y={px(y + 4.0)} width={px(bar.length())}
                                    height={px(ROW - 8.0)} fill={if is_best(o) { BEST } else { BAR }} />
                                }) }
                                <text class="tick" x={px(bar.end + 4.0)} y={px(y + ROW * 0.65)}>{ value }</text>
                            </g>
                        }
                    }) }
                    <line class="ideal" x1={px(x.map(1.0))} x2={px(x.map(1.0))}
                        y1={px(TOP)} y2={px(height - BOTTOM)} />
                    <text class="chart-label" x={px((LEFT + WIDTH - RIGHT) / 2.0)} y={px(height - 4.0)}
                        text-anchor="middle">{ X::SpeedupAxis.get(lang) }</text>
                </svg>
                { readout(&texts, &focus, T::ChartHint.get(lang), "levers-readout") }
            </section>
        }
    }
}

/// Per lever option: time to result, speed-up, largest batch and patch, and what limits
/// next (below the dashboard; the chart is `LeversView`).
impl LeversTable {
    pub fn view(self) -> Html {
        let lang = self.lang;
        let report = &self.report;
        let (Some(base), levers) = (report.lever_baseline, &report.levers) else {
            return html! {};
        };
        let is_best = |o: &LeverOutcome| is_best(report, o);
        html! {
            <section class="panel levers-details" aria-label={X::LeversTitle.get(lang)}>
                <h2>{ X::LeversTitle.get(lang) }</h2>
                <div class="table-scroll">
                    <table data-testid="levers-table">
                        <thead><tr>
                            <th scope="col">{ X::Lever.get(lang) }</th>
                            <th scope="col" class="num">{ X::TimeToResult.get(lang) }</th>
                            <th scope="col" class="num">{ X::Speedup.get(lang) }</th>
                            <th scope="col" class="num">{ X::LargestBatch.get(lang) }</th>
                            <th scope="col" class="num">{ X::LargestPatch.get(lang) }</th>
                            <th scope="col">{ X::LimitsNext.get(lang) }</th>
                        </tr></thead>
                        <tbody>
                            { row(X::Scenario.get(lang).to_string(), &base, Some(1.0), lang, false) }
                            { for levers.iter().map(|o| {
                                let point = LeverPoint {
                                    fits: o.fits,
                                    time_to_result_s: o.time_to_result_s,
                                    largest_batch: o.largest_batch,
                                    largest_patch: o.largest_patch,
                                    limit: o.limit,
                                    usd_per_experiment: o.usd_per_experiment,
                                };
                                row(lever_label(o.lever, o.factor, lang), &point, o.speedup, lang, is_best(o))
                            }) }
                        </tbody>
                    </table>
                </div>
            </section>
        }
    }
}
