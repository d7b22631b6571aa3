//! Cost as a chart, for the dashboard: the box's total cost of ownership term by term
//! beside renting the same GPU-hours, and the cost of one experiment on the box against
//! cloud rental. Geometry from `chart::bar_rows`; every figure from the report. Each bar
//! reads out on hover or focus; a thin faint line under each bar shows it before the last
//! change. The tables are `CostView`, below the dashboard.

use hsi_gpu_core::chart::{bar_rows, BarRows};
use hsi_gpu_core::choices::Currency;
use hsi_gpu_core::cost::CostReport;
use yew::prelude::*;

use crate::components::chart_parts::{mark, px, readout, with_before, Focus};
use crate::components::palette::{swatch, OKABE_ITO};
use crate::components::thesis::text::X;
use crate::i18n::{Lang, T};
use crate::SharedReport;

const WIDTH: f64 = 400.0;
/// Room for the row names on the left and the value after the longest bar on the right.
const LEFT: f64 = 128.0;
const RIGHT: f64 = 62.0;
const ROW: f64 = 26.0;
const BAR: f64 = 20.0;
/// Each panel: its title, two rows, the axis and its tick labels.
const PANEL: f64 = 2.0 * ROW + 44.0;
const HEIGHT: f64 = 2.0 * PANEL + 18.0;
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
    tick_labels: Vec<String>,
    /// Colour of each segment of the first row; the second row is the cloud.
    colours: &'a [&'static str],
    /// The first mark's index and the marks' labels, in segment order.
    first_mark: usize,
    labels: &'a [String],
    testids: [Option<&'static str>; 2],
}

fn draw(panel: &Panel, top: f64, focus: &Focus) -> Html {
    let axis_y = top + 12.0 + 2.0 * ROW + 4.0;
    let x = panel.layout.scale;
    let first_row_marks = panel.layout.rows.first().map_or(0, Vec::len);
    let rows = panel.layout.rows.iter().enumerate().map(|(r, segments)| {
        let y = top + 12.0 + ROW * r as f64;
        let end = segments.last().map_or(LEFT, |s| s.end);
        let marks = segments.iter().enumerate().map(|(i, seg)| {
            let colour = if r == 0 { panel.colours[i % panel.colours.len()] } else { CLOUD_COLOUR };
            let index = panel.first_mark + if r == 0 { i } else { first_row_marks + i };
            let testid = if i == 0 { panel.testids[r] } else { None };
            mark(focus, index, &panel.labels[index - panel.first_mark], testid, html! {
                <rect x={px(seg.start)} y={px(y)} width={px(seg.length().max(0.0))}
                    height={px(BAR)} fill={colour} />
            })
        }).collect::<Html>();
        html! {
            <g>
                <text class="tick" x={px(LEFT - 6.0)} y={px(y + BAR * 0.7)} text-anchor="end">
                    { panel.names[r] }</text>
                { marks }
                <text class="tick value" x={px(end + 4.0)} y={px(y + BAR * 0.7)}>
                    { &panel.totals[r] }</text>
                if let Some(ghost) = panel.ghost {
                    <rect class="ghost" data-testid="ghost" x={px(LEFT)} y={px(y + BAR + 1.0)}
                        width={px((x.map(ghost[r]).min(WIDTH - RIGHT) - LEFT).max(0.0))} height="3" />
                }
            </g>
        }
    }).collect::<Html>();
    html! {
        <g>
            <text class="chart-label panel-title" x={px(LEFT)} y={px(top + 8.0)}>{ panel.title }</text>
            { rows }
            <line class="axis" x1={px(LEFT)} x2={px(WIDTH - RIGHT)}
                y1={px(axis_y)} y2={px(axis_y)} />
            { for panel.layout.ticks.iter().zip(&panel.tick_labels).map(|(t, label)| html! {
                <text class="tick" x={px(x.map(*t))} y={px(axis_y + 14.0)}
                    text-anchor="middle">{ label }</text>
            }) }
        </g>
    }
}

impl CostChart {
    pub fn view(&self, focus: Focus) -> Html {
        let lang = self.lang;
        let c = &self.report.perf.cost;
        let before = self.ghost.as_ref().map(|g| &g.perf.cost);
        let (tco, [cloud_same, own_run, cloud_run]) = rows(c);
        let range = (LEFT, WIDTH - RIGHT);
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
            .map(|(n, now, _)| format!("{n}: {now}"))
            .collect();
        let texts: Vec<String> = entries
            .iter()
            .map(|(n, now, then)| format!("{n}: {}", with_before(now.clone(), then.clone(), word)))
            .collect();
        let bar = |v: Option<f64>| [v.unwrap_or(0.0)];
        let ticks = |layout: &BarRows| layout.ticks.iter().map(|t| c.money(*t)).collect();
        let tco_layout = bar_rows(&[&tco, &bar(cloud_same)], range, 3);
        let run_layout = bar_rows(&[&bar(own_run), &bar(cloud_run)], range, 3);
        let ghost_of = |o: Option<f64>| o.unwrap_or(0.0);
        let tco_panel = Panel {
            title: T::Tco.get(lang),
            names: [T::OwnBox.get(lang), T::CloudSameUsage.get(lang)],
            tick_labels: ticks(&tco_layout),
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
            first_mark: 0,
            labels: &labels[..7],
            testids: [None, None],
        };
        let run_panel = Panel {
            title: T::PerExperiment.get(lang),
            names: [T::OwnBox.get(lang), T::Cloud.get(lang)],
            tick_labels: ticks(&run_layout),
            layout: run_layout,
            totals: [now[1].clone(), now[2].clone()],
            ghost: old.map(|(_, [_, own_run, cloud_run])| [ghost_of(own_run), ghost_of(cloud_run)]),
            colours: &[OKABE_ITO[7]],
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
                    <span>{ T::Tco.get(lang) }{ ": " }<strong class="figure" data-testid="chart-tco">{ own(tco_total) }</strong></span>
                    <span>{ T::PerGpuHour.get(lang) }{ ": " }<strong class="figure">{ own(known(c.usd_per_gpu_hour, c.card_price_known)) }</strong></span>
                </p>
                <svg class="chart" viewBox={format!("0 0 {WIDTH} {HEIGHT}")} role="group" aria-label={T::Cost.get(lang)}>
                    { draw(&tco_panel, 0.0, &focus) }
                    { draw(&run_panel, PANEL, &focus) }
                    <text class="chart-label" x={px((LEFT + WIDTH - RIGHT) / 2.0)} y={px(HEIGHT - 4.0)}
                        text-anchor="middle">{ axis.get(lang) }</text>
                </svg>
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
