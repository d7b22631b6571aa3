//! Cost as a chart, for the dashboard: the box's total cost of ownership term by term
//! beside renting the same GPU-hours, and the cost of one experiment on the box against
//! cloud rental. Geometry from `chart::bar_rows`; every figure from the report. Each bar
//! reads out on hover or focus; a thin faint line under each bar shows it before the last
//! change. The tables are `CostView`, below the dashboard.

use hsi_gpu_core::chart::{bar_rows, fitting_ticks, text_width, BarRows};
use hsi_gpu_core::choices::Currency;
use hsi_gpu_core::cost::CostReport;
use yew::prelude::*;

use crate::components::chart_parts::{
    bar_mark, chart_box, key_figure, px, readout, with_before, Focus, Frame,
};
use crate::components::palette::{swatch, OKABE_ITO};
use crate::components::thesis::text::X;
use crate::i18n::summary::labelled;
use crate::i18n::{Lang, T};
use crate::SharedReport;

const CLOUD_COLOUR: &str = OKABE_ITO[6];

const TCO_TERMS: [T; 6] = [
    T::CostCards,
    T::CostPlatform,
    T::CostPsu,
    T::CostCooling,
    T::CostEnergy,
    T::CostOps,
];

fn tco_terms(c: &CostReport) -> [f64; 6] {
    [
        // NVLink bridges join the cards: a few per cent of them at most.
        c.cards_usd + c.bridges_usd,
        c.platform_usd,
        c.psu_usd,
        c.cooling_usd,
        c.energy_usd,
        c.ops_usd,
    ]
}

/// Each term's share of the total, where there is one.
fn shares(terms: &[f64; 6]) -> Option<[f64; 6]> {
    let total: f64 = terms.iter().sum();
    (total > 0.0).then(|| terms.map(|t| t / total))
}

/// The figures a bar needs that the report cannot give without a card price (the box's
/// totals) or a cloud rate (the cloud's): drawn as no bar, named "enter a price / rate".
fn known(usd: f64, is_known: bool) -> Option<f64> {
    is_known.then_some(usd)
}

/// The two panels' rows: (TCO by term, cloud for the same GPU-hours) and (one experiment
/// on the box, in the cloud). The TCO's terms other than the cards need no price.
fn rows(c: &CostReport) -> ([f64; 6], [Option<f64>; 3]) {
    (
        tco_terms(c),
        [
            known(c.cloud_usd_same_usage, c.cloud_rate_known),
            known(c.usd_per_experiment, c.card_price_known),
            known(c.cloud_usd_per_experiment, c.cloud_rate_known),
        ],
    )
}

#[derive(PartialEq)]
pub struct CostChart {
    pub report: SharedReport,
    pub lang: Lang,
    /// The report before the last change, drawn faintly.
    pub ghost: Option<SharedReport>,
}

/// One labelled panel of two bar rows on a shared dollar axis, starting at `top`.
struct Panel<'a> {
    title: &'a str,
    names: [&'a str; 2],
    layout: BarRows,
    /// Each row's total as shown, and its value before the last change.
    totals: [String; 2],
    ghost: Option<[f64; 2]>,
    /// The ticks that fit the axis, and their labels.
    ticks: Vec<f64>,
    tick_labels: Vec<String>,
    /// Colour of each segment of the first row; the second row is the cloud.
    colours: &'a [&'static str],
    /// Where the first row is one bar made of the box's cost terms (one experiment on the
    /// box): each term's share of it, drawn in the term's colour, so the bar is in the
    /// legend's colours.
    split: Option<[f64; 6]>,
    /// The first mark's index and the marks' labels, in segment order.
    first_mark: usize,
    labels: &'a [String],
    testids: [Option<&'static str>; 2],
}

/// Where the panels go in the chart's box (CSS px): row names left of `left`, totals
/// right of `right`, rows `row` px apart with bars `bar` px thick; the axes' tick labels
/// only where the box is tall enough (each bar's total is written after it anyway).
struct Geometry {
    left: f64,
    right: f64,
    row: f64,
    bar: f64,
    font: f64,
    ticks: bool,
}

impl Geometry {
    /// A panel's height: its title, two rows, the axis and its tick labels.
    fn panel(&self) -> f64 {
        self.font + 4.0 + 2.0 * self.row + if self.ticks { self.font + 8.0 } else { 6.0 }
    }
}

fn draw(panel: &Panel, top: f64, g: &Geometry, focus: &Focus) -> Html {
    let rows_top = top + g.font + 4.0;
    let axis_y = rows_top + 2.0 * g.row + 2.0;
    let x = panel.layout.scale;
    let first_row_marks = panel.layout.rows.first().map_or(0, Vec::len);
    let rows = panel.layout.rows.iter().enumerate().map(|(r, segments)| {
        let y = rows_top + g.row * r as f64;
        let text_y = y + g.bar / 2.0 + g.font * 0.35;
        let end = segments.last().map_or(g.left, |s| s.end);
        let marks = segments.iter().enumerate().map(|(i, seg)| {
            let colour = if r == 0 { panel.colours[i % panel.colours.len()] } else { CLOUD_COLOUR };
            let index = panel.first_mark + if r == 0 { i } else { first_row_marks + i };
            let testid = if i == 0 { panel.testids[r] } else { None };
            let length = seg.length().max(0.0);
            let rect = |start: f64, length: f64, colour: &'static str| html! {
                <rect x={px(start)} y={px(y)} width={px(length)} height={px(g.bar)} fill={colour} />
            };
            let body = match panel.split.filter(|_| r == 0) {
                Some(shares) => {
                    let mut at = seg.start;
                    shares.iter().zip(panel.colours).map(|(share, colour)| {
                        let part = share * length;
                        at += part;
                        rect(at - part, part, colour)
                    }).collect::<Html>()
                }
                None => rect(seg.start, length, colour),
            };
            bar_mark(length, focus, index, &panel.labels[index - panel.first_mark], body, testid)
        }).collect::<Html>();
        html! {
            <g>
                <text class="tick" x={px(g.left - 6.0)} y={px(text_y)} text-anchor="end">
                    { panel.names[r] }</text>
                { marks }
                <text class="tick value" x={px(end + 4.0)} y={px(text_y)}>
                    { &panel.totals[r] }</text>
                if let Some(ghost) = panel.ghost {
                    <rect class="ghost" data-testid="ghost" x={px(g.left)} y={px(y + g.bar + 1.0)}
                        width={px((x.map(ghost[r]).min(g.right) - g.left).max(0.0))} height="3" />
                }
            </g>
        }
    }).collect::<Html>();
    html! {
        <g>
            <text class="chart-label panel-title" x="0" y={px(top + g.font)}>{ panel.title }</text>
            { rows }
            <line class="axis" x1={px(g.left)} x2={px(g.right)}
                y1={px(axis_y)} y2={px(axis_y)} />
            { for panel.ticks.iter().zip(&panel.tick_labels).filter(|_| g.ticks).map(|(t, label)| html! {
                <text class="tick" x={px(x.map(*t))} y={px(axis_y + g.font + 3.0)}
                    text-anchor="middle">{ label }</text>
            }) }
        </g>
    }
}

impl CostChart {
    pub fn view(&self, focus: Focus, frame: &Frame) -> Html {
        let lang = self.lang;
        let c = &self.report.perf.cost;
        let before = self.ghost.as_ref().map(|g| &g.perf.cost);
        let (tco, [cloud_same, own_run, cloud_run]) = rows(c);
        let word = T::BeforeChange.get(lang);
        // A figure in the scenario's currency, or what is missing to compute it.
        let shown = |usd: Option<f64>, missing: X| {
            usd.map_or_else(|| missing.get(lang).to_string(), |usd| c.money(usd))
        };
        let own = |usd: Option<f64>| shown(usd, X::EnterPrice);
        let rented = |usd: Option<f64>| shown(usd, X::EnterRate);
        let tco_total = known(c.tco_usd, c.card_price_known);
        // Each mark: its name, its figure now and before the last change. A mark's own label
        // tells its value; the readout adds the value before.
        let old_terms = before.map(tco_terms);
        let old = before.map(rows);
        let mut entries: Vec<(&str, String, Option<String>)> = TCO_TERMS
            .iter()
            .enumerate()
            .map(|(i, term)| {
                let then = old_terms.map(|t| c.money(t[i]));
                (term.get(lang), c.money(tco[i]), then)
            })
            .collect();
        let names = [T::CloudSameUsage, T::OwnBox, T::Cloud];
        let now = [rented(cloud_same), own(own_run), rented(cloud_run)];
        for (k, (name, now)) in names.iter().zip(now.clone()).enumerate() {
            let then = old.map(|(_, o)| if k == 1 { own(o[k]) } else { rented(o[k]) });
            entries.push((name.get(lang), now, then));
        }
        let labels: Vec<String> = entries
            .iter()
            .map(|(n, now, _)| labelled(lang, n, now))
            .collect();
        let texts: Vec<String> = entries
            .iter()
            .map(|(n, now, then)| labelled(lang, n, &with_before(now.clone(), then.clone(), word)))
            .collect();
        let bar = |v: Option<f64>| [v.unwrap_or(0.0)];
        // Drawn at the box's size: the row names set the left edge, the longest total the
        // right one; rows share the height left after the titles and axes.
        let (width, height, font) = (frame.size.width, frame.size.height, frame.size.font);
        let widest = |texts: &mut dyn Iterator<Item = &str>| {
            texts.map(|t| text_width(t, font)).fold(0.0, f64::max)
        };
        let left = widest(&mut names.iter().map(|n| n.get(lang))) + 10.0;
        let right =
            width - widest(&mut now.iter().chain([&own(tco_total)]).map(String::as_str)) - 8.0;
        // Two panels' titles and axes, with tick labels and the axis title where the rows
        // keep their least height; without them in a shorter box.
        let least_rows = 4.0 * (font + 4.0);
        let with_ticks = 2.0 * (2.0 * font + 12.0);
        let axis_title = font + 6.0;
        let show_axis_title = height >= with_ticks + axis_title + least_rows;
        let ticks = height >= with_ticks + least_rows;
        let fixed = if ticks {
            with_ticks
        } else {
            2.0 * (font + 10.0)
        } + if show_axis_title { axis_title } else { 0.0 };
        let row = ((height - fixed) / 4.0).clamp(font + 4.0, 2.4 * font);
        let g = Geometry {
            left,
            right,
            row,
            bar: row - 5.0,
            font,
            ticks,
        };
        let range = (left, right.max(left + 1.0));
        // Round figures in the page's currency (yuan ticks are not converted dollar ones),
        // placed on the dollar axis.
        let per_usd = c.shown().per_usd();
        let ticks = |layout: &BarRows| {
            let money = |t: f64| c.money(t / per_usd);
            let max = layout.axis_max * per_usd;
            let fitted = fitting_ticks(0.0, max, range.1 - range.0, 4, font, |t| {
                text_width(&money(t), font)
            });
            let labels = fitted.iter().map(|t| money(*t)).collect();
            (fitted.iter().map(|t| t / per_usd).collect(), labels)
        };
        let tco_layout = bar_rows(&[&tco, &bar(cloud_same)], range, 3);
        let run_layout = bar_rows(&[&bar(own_run), &bar(cloud_run)], range, 3);
        let ghost_of = |o: Option<f64>| o.unwrap_or(0.0);
        let (tco_ticks, tco_tick_labels) = ticks(&tco_layout);
        let (run_ticks, run_tick_labels) = ticks(&run_layout);
        let tco_panel = Panel {
            title: T::Tco.get(lang),
            names: [T::OwnBox.get(lang), T::CloudSameUsage.get(lang)],
            ticks: tco_ticks,
            tick_labels: tco_tick_labels,
            layout: tco_layout,
            totals: [own(tco_total), now[0].clone()],
            ghost: before.map(|b| {
                let (_, [same, _, _]) = rows(b);
                [
                    ghost_of(known(b.tco_usd, b.card_price_known)),
                    ghost_of(same),
                ]
            }),
            colours: &OKABE_ITO,
            split: None,
            first_mark: 0,
            labels: &labels[..7],
            testids: [None, None],
        };
        let run_panel = Panel {
            title: T::PerExperiment.get(lang),
            names: [T::OwnBox.get(lang), T::Cloud.get(lang)],
            ticks: run_ticks,
            tick_labels: run_tick_labels,
            layout: run_layout,
            totals: [now[1].clone(), now[2].clone()],
            ghost: old.map(|(_, [_, own_run, cloud_run])| [ghost_of(own_run), ghost_of(cloud_run)]),
            colours: &OKABE_ITO,
            split: shares(&tco),
            first_mark: 7,
            labels: &labels[7..],
            testids: [Some("cost-chart-own-run"), Some("cost-chart-cloud-run")],
        };
        let axis = match c.currency {
            Currency::Usd => T::CostAxis,
            Currency::Cny => T::CostAxisCny,
        };

        html! {
            <section class="panel view cost-chart" aria-labelledby="cost-chart-heading" data-testid="chart-cost">
                <h2 id="cost-chart-heading">{ T::Cost.get(lang) }</h2>
                <p class="key-figures">
                    { key_figure(T::Tco.get(lang), Some("chart-tco"), own(tco_total)) }
                    { key_figure(T::PerGpuHour.get(lang), None, own(known(c.usd_per_gpu_hour, c.card_price_known))) }
                </p>
                { chart_box(frame, T::Cost.get(lang).to_string(), None, html! {
                    <>
                    { draw(&tco_panel, 0.0, &g, &focus) }
                    { draw(&run_panel, g.panel(), &g, &focus) }
                    if show_axis_title {
                        // Under the second panel's axis, not at the foot of a taller box.
                        <text class="chart-label" x={px((left + right) / 2.0)}
                            y={px((2.0 * g.panel() + font).min(height - 4.0))}
                            text-anchor="middle">{ axis.get(lang) }</text>
                    }
                    </>
                }) }
                { readout(&texts, &focus, T::ChartHint.get(lang), "cost-readout") }
                <ul class="legend">
                    { for TCO_TERMS.iter().enumerate().map(|(i, term)| html! {
                        <li>{ swatch(OKABE_ITO[i]) }{ term.get(lang) }</li>
                    }) }
                    <li>{ swatch(CLOUD_COLOUR) }{ T::Cloud.get(lang) }</li>
                    if before.is_some() {
                        <li class="ghost-legend">{ T::GhostLegend.get(lang) }</li>
                    }
                </ul>
            </section>
        }
    }
}
