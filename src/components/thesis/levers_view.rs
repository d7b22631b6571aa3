//! What would help most: a bar per lever option with its speed-up over the scenario (1x
//! line) and the best lever named (`LeversView`, on the dashboard), and a table of time to
//! result, largest batch and patch and what limits next (`LeversTable`, below it).

use hsi_gpu_core::chart::{bars_from, fitting_ticks, nice_domain, text_width, LinearScale};
use hsi_gpu_core::levers::{LeverOutcome, LeverPoint};
use hsi_gpu_core::{format, Report};
use yew::prelude::*;

use super::map_view::MAP_OPEN_ID;
use super::text::{best_lever_text, cudnn_benchmark_sentence, lever_label, limit_name};
use super::text::{limit_sentence, X};
use crate::components::chart_parts::{bar_mark, chart_box, px, readout, Focus, Frame};
use crate::components::palette::OKABE_ITO;
use crate::i18n::thesis_map::M;
use crate::i18n::{Lang, T};
use crate::SharedReport;

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
    p.map_or_else(|| "—".to_string(), |p| format::count(p.into()))
}

fn row(name: String, p: &LeverPoint, speedup: Option<f64>, lang: Lang, best: bool) -> Html {
    html! {
        <tr class={classes!(best.then_some("best"))}>
            <th scope="row">{ name }</th>
            <td class="num">{ time_text(p.time_to_result_s, lang) }</td>
            <td class="num">{ speedup.map(format::times).unwrap_or_else(|| "—".into()) }</td>
            <td class="num">{ format::count(p.largest_batch.into()) }</td>
            <td class="num">{ patch_text(p.largest_patch) }</td>
            <td>{ limit_name(p.limit, lang) }</td>
        </tr>
    }
}

/// The rows drawn when only `room` fit: all of them, else those with the largest
/// speed-ups, in their order.
fn shown_rows(levers: &[LeverOutcome], room: usize) -> Vec<usize> {
    let mut shown: Vec<usize> = (0..levers.len()).collect();
    let speedup = |i: usize| levers[i].speedup.unwrap_or(0.0);
    // Dropping the least one at a time (a handful of rows) needs no sort in the page.
    while shown.len() > room.max(1) {
        if let Some(k) =
            (0..shown.len()).min_by(|a, b| speedup(shown[*a]).total_cmp(&speedup(shown[*b])))
        {
            shown.remove(k);
        }
    }
    shown
}

/// Whether an outcome is the report's best lever.
fn is_best(report: &Report, o: &LeverOutcome) -> bool {
    report
        .best_lever
        .is_some_and(|b| b.lever == o.lever && b.factor == o.factor)
}

impl LeversView {
    pub fn view(&self, focus: Focus, frame: &Frame) -> Html {
        let lang = self.lang;
        let report = &self.report;
        let (Some(base), levers) = (report.lever_baseline, &report.levers) else {
            return html! {};
        };
        let is_best = |o: &LeverOutcome| is_best(report, o);
        let speedups: Vec<Option<f64>> = levers.iter().map(|o| o.speedup).collect();
        let top = speedups.iter().flatten().fold(1.1f64, |m, s| m.max(*s));
        let (_, x_hi) = nice_domain(0.0, top, 5);
        // Drawn at the box's size: a row per option, as many as have room for their label
        // (those with the least speed-up give way; the table below lists them all), the
        // names on the left, each value after its bar, the axis below.
        let (width, height, font) = (frame.size.width, frame.size.height, frame.size.font);
        let (top_pad, bottom) = (2.0, 2.0 * font + 12.0);
        let room = (height - top_pad - bottom).max(0.0);
        let shown = shown_rows(levers, (room / (font + 4.0)).floor() as usize);
        let row = (room / shown.len().max(1) as f64).min(2.2 * font);
        let names: Vec<String> = levers
            .iter()
            .map(|o| lever_label(o.lever, o.factor, lang))
            .collect();
        let values: Vec<String> = levers
            .iter()
            .map(|o| {
                o.speedup
                    .map(format::times)
                    .unwrap_or_else(|| time_text(o.time_to_result_s, lang))
            })
            .collect();
        let widest = |texts: &[String]| {
            texts
                .iter()
                .map(|t| text_width(t, font))
                .fold(0.0, f64::max)
        };
        let left = widest(&names) + 10.0;
        let right = width - widest(&values) - 8.0;
        let x = LinearScale::new((0.0, x_hi), (left, right.max(left + 1.0)));
        let ticks = fitting_ticks(0.0, x_hi, right - left, 6, font * 0.8, |t| {
            text_width(&format::times(t), font)
        });
        let plot_bottom = top_pad + row * shown.len() as f64;
        // The axis title only where it fits the chart's width (a phone's is narrow).
        let title = X::SpeedupAxis.get(lang);
        let show_title = text_width(title, font) <= width - 4.0;
        let bars = bars_from(0.0, &speedups, &x);
        // What a bar reads out on hover or focus: the option, its speed-up and its time to result.
        let texts: Vec<String> = levers
            .iter()
            .zip(&names)
            .map(|(o, name)| {
                let speedup = o.speedup.map(format::times).unwrap_or_else(|| "—".into());
                format!(
                    "{name}{}{speedup}{}{} {}",
                    lang.colon(),
                    lang.comma(),
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
                            id={MAP_OPEN_ID} data-testid="thesis-map-open">{ M::Open.get(lang) }</button>
                    }
                </h2>
                <p class="help">{ X::LeversHelp.get(lang) }</p>
                <p class="key-figures">
                    <strong data-testid="best-lever">{ best_lever_text(report, lang) }</strong>
                    { " " }<span class="limit">{ limit_sentence(lang, limit_name(base.limit, lang)) }</span>
                    if let Some(speedup) = report.cudnn_benchmark_speedup {
                        { " " }<span data-testid="cudnn-benchmark-hint">{ cudnn_benchmark_sentence(lang, speedup) }</span>
                    }
                </p>
                { chart_box(frame, X::LeversTitle.get(lang).to_string(), Some("levers-chart"), html! {
                    <>
                    { for ticks.into_iter().map(|t| html! {
                        <g>
                            <line class="grid" x1={px(x.map(t))} x2={px(x.map(t))}
                                y1={px(top_pad)} y2={px(plot_bottom)} />
                            <text class="tick" x={px(x.map(t))} y={px(plot_bottom + font + 3.0)}
                                text-anchor="middle">{ format::times(t) }</text>
                        </g>
                    }) }
                    { for shown.iter().enumerate().map(|(k, &i)| {
                        let (o, bar) = (&levers[i], &bars[i]);
                        let y = top_pad + row * k as f64;
                        let text_y = y + row / 2.0 + font * 0.35;
                        html! {
                            <g>
                                <text class="tick" x={px(left - 6.0)} y={px(text_y)}
                                    text-anchor="end">{ &names[i] }</text>
                                { bar_mark(bar.length(), &focus, i, &texts[i], html! {
                                    <rect x={px(bar.start)} y={px(y + 2.0)} width={px(bar.length())}
                                    height={px((row - 4.0).max(1.0))} fill={if is_best(o) { BEST } else { BAR }} />
                                }, None) }
                                <text class="tick" x={px(bar.end + 4.0)} y={px(text_y)}>{ &values[i] }</text>
                            </g>
                        }
                    }) }
                    <line class="ideal" x1={px(x.map(1.0))} x2={px(x.map(1.0))}
                        y1={px(top_pad)} y2={px(plot_bottom)} />
                    if show_title {
                        // Under the tick labels, not at the foot of a taller box.
                        <text class="chart-label" x={px(width / 2.0)}
                            y={px((plot_bottom + 2.0 * font + 8.0).min(height - 4.0))}
                            text-anchor="middle">{ title }</text>
                    }
                    </>
                }) }
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
