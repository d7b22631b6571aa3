//! Memory per GPU: one stacked bar of the peak's terms, the card's usable capacity and the
//! capacity less the headroom kept free. Each term reads out its value on hover or focus;
//! a faint strip above the bar shows the terms before the last change.

use hsi_gpu_core::chart::{linear_ticks, nice_domain, stack, LinearScale};
use hsi_gpu_core::format;
use yew::prelude::*;

use crate::components::chart_parts::{mark, px, readout, with_before, Focus};
use crate::components::palette::{swatch, OKABE_ITO};
use crate::components::thesis::text::X;
use crate::i18n::{memory_terms, Lang, T};
use crate::SharedReport;

const GIB: f64 = (1u64 << 30) as f64;
const WIDTH: f64 = 400.0;
const GHOST_TOP: f64 = 14.0;
const GHOST_HEIGHT: f64 = 8.0;
const BAR_TOP: f64 = 26.0;
const BAR_HEIGHT: f64 = 40.0;
const AXIS_Y: f64 = 84.0;
const HEIGHT: f64 = 124.0;
/// Room at both ends for the first and last tick labels.
const MARGIN: f64 = 28.0;

#[derive(PartialEq)]
pub struct MemoryView {
    pub report: SharedReport,
    pub lang: Lang,
    pub gpu_name: AttrValue,
    /// Fraction of capacity kept free (the scenario's assumption).
    pub headroom: f64,
    /// The report before the last change, drawn faintly.
    pub ghost: Option<SharedReport>,
}

fn in_gib(terms: &[(T, f64)]) -> Vec<f64> {
    terms.iter().map(|(_, bytes)| bytes / GIB).collect()
}

impl MemoryView {
    pub fn view(&self, focus: Focus) -> Html {
        let lang = self.lang;
        let m = &self.report.memory;
        let terms = memory_terms(m);
        let before = self.ghost.as_ref().map(|g| memory_terms(&g.memory));
        let (_, axis_max) = nice_domain(0.0, (m.total.max(m.capacity)) / GIB, 6);
        let x = LinearScale::new((0.0, axis_max), (MARGIN, WIDTH - MARGIN));
        let segments = stack(&in_gib(&terms), &x);
        let ghost_segments = before.as_ref().map(|b| stack(&in_gib(b), &x));
        let capacity_x = x.map(m.capacity / GIB);
        let headroom_x = x.map(m.budget / GIB);
        let status = if m.fits { T::Fits } else { T::DoesNotFit };
        let headroom_text = format::percent(self.headroom);
        // A mark's own label tells its value; the readout adds the value before the change.
        let labels: Vec<String> = terms
            .iter()
            .map(|(term, bytes)| format!("{}: {}", term.get(lang), format::bytes(*bytes)))
            .collect();
        let texts: Vec<String> = terms
            .iter()
            .enumerate()
            .map(|(i, (term, bytes))| {
                let then = before.as_ref().map(|b| format::bytes(b[i].1));
                let value = with_before(format::bytes(*bytes), then, T::BeforeChange.get(lang));
                format!("{}: {value}", term.get(lang))
            })
            .collect();

        html! {
            <section class="panel view memory" aria-labelledby="memory-heading" data-testid="chart-memory">
                <h2 id="memory-heading">{ T::Memory.get(lang) }{ " — " }{ &self.gpu_name }</h2>
                <p class="key-figures">
                    <span>{ T::TotalMemory.get(lang) }{ ": " }
                        <strong class="figure" data-testid="total-memory">{ format::bytes(m.total) }</strong></span>
                    <span>{ T::Capacity.get(lang) }{ ": " }
                        <strong class="figure" data-testid="capacity">{ format::bytes(m.capacity) }</strong></span>
                    if m.ecc_reserved > 0.0 {
                        <span>{ X::EccReserved.get(lang) }{ ": " }
                            <strong class="figure" data-testid="ecc-reserved">{ format::bytes(m.ecc_reserved) }</strong></span>
                    }
                    <span class={classes!("fit", if m.fits { "ok" } else { "bad" })} data-testid="fits">
                        { status.get(lang) }</span>
                    <span>{ T::MaxBatch.get(lang) }{ ": " }
                        <strong class="figure" data-testid="max-batch">{ self.report.max_batch }</strong></span>
                </p>
                <svg class="chart" viewBox={format!("0 0 {WIDTH} {HEIGHT}")} role="group"
                    aria-label={format!("{}: {} / {}", T::Memory.get(lang), format::bytes(m.total), format::bytes(m.capacity))}>
                    if let Some(ghost) = &ghost_segments {
                        <g class="ghost" data-testid="ghost">
                            { for ghost.iter().enumerate().map(|(i, seg)| html! {
                                <rect x={px(seg.start)} y={px(GHOST_TOP)}
                                    width={px(seg.length())} height={px(GHOST_HEIGHT)}
                                    fill={OKABE_ITO[i % OKABE_ITO.len()]} />
                            }) }
                        </g>
                    }
                    { for segments.iter().enumerate().map(|(i, seg)| mark(&focus, i, &labels[i], None, html! {
                        <rect x={px(seg.start)} y={px(BAR_TOP)}
                            width={px(seg.length())} height={px(BAR_HEIGHT)}
                            fill={OKABE_ITO[i % OKABE_ITO.len()]} />
                    })) }
                    <line class="capacity-line" x1={px(capacity_x)} x2={px(capacity_x)}
                        y1="8" y2={px(BAR_TOP + BAR_HEIGHT + 8.0)} />
                    <text class="chart-label" x={px(capacity_x - 4.0)} y="10" text-anchor="end">
                        { T::Capacity.get(lang) }</text>
                    <line class="headroom-line" x1={px(headroom_x)} x2={px(headroom_x)}
                        y1={px(BAR_TOP)} y2={px(BAR_TOP + BAR_HEIGHT + 8.0)} />
                    <line class="axis" x1={px(MARGIN)} x2={px(WIDTH - MARGIN)}
                        y1={px(AXIS_Y)} y2={px(AXIS_Y)} />
                    { for linear_ticks(0.0, axis_max, 6).into_iter().map(|tick| html! {
                        <text class="tick" x={px(x.map(tick))} y={px(AXIS_Y + 14.0)}
                            text-anchor="middle">{ format::significant(tick) }</text>
                    }) }
                    <text class="chart-label" x={px(WIDTH / 2.0)} y={px(HEIGHT - 4.0)}
                        text-anchor="middle">{ T::MemoryAxis.get(lang) }</text>
                </svg>
                { readout(&texts, &focus, T::ChartHint.get(lang), "memory-readout") }
                <ul class="legend" aria-label={T::Memory.get(lang)}>
                    { for terms.iter().enumerate().map(|(i, (term, bytes))| html! {
                        <li>
                            { swatch(OKABE_ITO[i % OKABE_ITO.len()]) }
                            { term.get(lang) }{ ": " }<span class="figure">{ format::bytes(*bytes) }</span>
                        </li>
                    }) }
                    <li><span class="swatch line-solid"></span>{ T::Capacity.get(lang) }</li>
                    <li><span class="swatch line-dashed"></span>{ T::HeadroomLine.get(lang) }{ " (" }{ &headroom_text }{ ")" }</li>
                    if ghost_segments.is_some() {
                        <li class="ghost-legend">{ T::GhostLegend.get(lang) }</li>
                    }
                </ul>
                <p class="help">{ T::MemoryHelp.get(lang) }</p>
            </section>
        }
    }
}
