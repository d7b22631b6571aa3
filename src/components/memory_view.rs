//! Memory per GPU: one stacked bar of the peak's terms, the card's usable capacity and the
//! capacity less the headroom kept free. Each term reads out its value on hover or focus;
//! a faint strip above the bar shows the terms before the last change.

use hsi_gpu_core::chart::{fitting_ticks, nice_domain, stack, text_width, LinearScale};
use hsi_gpu_core::format;
use yew::prelude::*;

use crate::components::chart_parts::{
    bar_mark, chart_box, key_figure, px, readout, with_before, Focus, Frame,
};
use crate::components::palette::{swatch, OKABE_ITO};
use crate::components::thesis::text::X;
use crate::i18n::summary::{labelled, with_note};
use crate::i18n::{memory_terms, Lang, T};
use crate::SharedReport;

const GIB: f64 = (1u64 << 30) as f64;
const GHOST_HEIGHT: f64 = 5.0;
/// The bar's height at most, in fonts: a taller box leaves room below instead.
const BAR_MAX_FONTS: f64 = 4.0;

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
    pub fn view(&self, focus: Focus, frame: &Frame) -> Html {
        let lang = self.lang;
        let m = &self.report.memory;
        let terms = memory_terms(m);
        let before = self.ghost.as_ref().map(|g| memory_terms(&g.memory));
        let (_, axis_max) = nice_domain(0.0, (m.total.max(m.capacity)) / GIB, 6);
        // Drawn at the box's size: rows from the top, the "Capacity" label, the ghost
        // strip, the bar, the axis with its ticks and its title.
        let (width, height, font) = (frame.size.width, frame.size.height, frame.size.font);
        let tick_text = |t: f64| format::significant(t);
        let margin = text_width(&tick_text(axis_max), font) / 2.0 + 2.0;
        let x = LinearScale::new((0.0, axis_max), (margin, width - margin));
        let ticks = fitting_ticks(0.0, axis_max, width - 2.0 * margin, 8, font * 0.8, |t| {
            text_width(&tick_text(t), font)
        });
        let ghost_top = font + 4.0;
        let bar_top = ghost_top + GHOST_HEIGHT + 2.0;
        // Below the bar: the ticks, then the axis title where the box is tall enough.
        let show_title = height - bar_top - (2.3 * font + 16.0) >= font;
        let below = if show_title {
            2.3 * font + 16.0
        } else {
            1.3 * font + 10.0
        };
        let bar_height = (height - bar_top - below).clamp(font, BAR_MAX_FONTS * font);
        let axis_y = bar_top + bar_height + 6.0;
        let segments = stack(&in_gib(&terms), &x);
        let ghost_segments = before.as_ref().map(|b| stack(&in_gib(b), &x));
        let capacity_x = x.map(m.capacity / GIB);
        let headroom_x = x.map(m.budget / GIB);
        // "Capacity" left of its line, or right of it where the left has no room.
        let capacity_label = T::Capacity.get(lang);
        let (label_x, label_anchor) = if capacity_x - 4.0 - text_width(capacity_label, font) >= 0.0
        {
            (capacity_x - 4.0, "end")
        } else {
            (capacity_x + 4.0, "start")
        };
        // Short of the headroom asked, it runs, but the comparison and the levers (which
        // keep the headroom) call it not fitting: say which.
        let (status, class) = match (m.fits, m.within_budget) {
            (true, true) => (T::Fits, "ok"),
            (true, false) => (T::FitsShort, "short"),
            (false, _) => (T::DoesNotFit, "bad"),
        };
        let headroom_text = format::percent(self.headroom);
        // A mark's own label tells its value; the readout adds the value before the change.
        let labels: Vec<String> = terms
            .iter()
            .map(|(term, bytes)| labelled(lang, term.get(lang), &format::bytes(*bytes)))
            .collect();
        let texts: Vec<String> = terms
            .iter()
            .enumerate()
            .map(|(i, (term, bytes))| {
                let then = before.as_ref().map(|b| format::bytes(b[i].1));
                let value = with_before(format::bytes(*bytes), then, T::BeforeChange.get(lang));
                labelled(lang, term.get(lang), &value)
            })
            .collect();

        html! {
            <section class="panel view memory" aria-labelledby="memory-heading" data-testid="chart-memory">
                <h2 id="memory-heading">{ T::Memory.get(lang) }{ " — " }{ &self.gpu_name }</h2>
                <p class="key-figures">
                    { key_figure(T::TotalMemory.get(lang), Some("total-memory"), format::bytes(m.total)) }
                    { key_figure(T::AllocatedReservedPeak.get(lang), Some("allocated-reserved"),
                        format!("{} / {}", format::bytes(m.allocated_peak), format::bytes(m.reserved_peak))) }
                    { key_figure(T::Capacity.get(lang), Some("capacity"), format::bytes(m.capacity)) }
                    if m.ecc_reserved > 0.0 {
                        { key_figure(X::EccReserved.get(lang), Some("ecc-reserved"), format::bytes(m.ecc_reserved)) }
                    }
                    <span class={classes!("fit", class)} data-testid="fits">
                        { status.get(lang) }</span>
                    { key_figure(T::MaxBatch.get(lang), Some("max-batch"), format::count(self.report.max_batch.into())) }
                </p>
                { chart_box(frame, format!("{}: {} / {}", T::Memory.get(lang), format::bytes(m.total), format::bytes(m.capacity)), None, html! {
                    <>
                    if let Some(ghost) = &ghost_segments {
                        <g class="ghost" data-testid="ghost">
                            { for ghost.iter().enumerate().map(|(i, seg)| html! {
                                <rect x={px(seg.start)} y={px(ghost_top)}
                                    width={px(seg.length())} height={px(GHOST_HEIGHT)}
                                    fill={OKABE_ITO[i % OKABE_ITO.len()]} />
                            }) }
                        </g>
                    }
                    { for segments.iter().enumerate().map(|(i, seg)| bar_mark(seg.length(), &focus, i, &labels[i], html! {
                        <rect x={px(seg.start)} y={px(bar_top)}
                            width={px(seg.length())} height={px(bar_height)}
                            fill={OKABE_ITO[i % OKABE_ITO.len()]} />
                    }, None)) }
                    <line class="capacity-line" x1={px(capacity_x)} x2={px(capacity_x)}
                        y1={px(ghost_top - 2.0)} y2={px(axis_y)} />
                    <text class="chart-label" x={px(label_x)} y={px(font)} text-anchor={label_anchor}>
                        { capacity_label }</text>
                    <line class="headroom-line" x1={px(headroom_x)} x2={px(headroom_x)}
                        y1={px(bar_top)} y2={px(axis_y)} />
                    <line class="axis" x1={px(margin)} x2={px(width - margin)}
                        y1={px(axis_y)} y2={px(axis_y)} />
                    { for ticks.into_iter().map(|tick| html! {
                        <text class="tick" x={px(x.map(tick))} y={px(axis_y + font + 3.0)}
                            text-anchor="middle">{ tick_text(tick) }</text>
                    }) }
                    if show_title {
                        <text class="chart-label" x={px(width / 2.0)} y={px(axis_y + 2.0 * font + 9.0)}
                            text-anchor="middle">{ T::MemoryAxis.get(lang) }</text>
                    }
                    </>
                }) }
                { readout(&texts, &focus, T::ChartHint.get(lang), "memory-readout") }
                <ul class="legend" aria-label={T::Memory.get(lang)}>
                    // Only the terms the bar holds: a zero one has no segment to name.
                    { for terms.iter().enumerate().filter(|(_, (_, bytes))| *bytes > 0.0).map(|(i, (term, bytes))| html! {
                        <li>
                            { swatch(OKABE_ITO[i % OKABE_ITO.len()]) }
                            { term.get(lang) }{ lang.colon() }<span class="figure">{ format::bytes(*bytes) }</span>
                        </li>
                    }) }
                    <li><span class="swatch line-solid"></span>{ T::Capacity.get(lang) }</li>
                    <li><span class="swatch line-dashed"></span>{ with_note(lang, T::HeadroomLine.get(lang), &headroom_text) }</li>
                    if ghost_segments.is_some() {
                        <li class="ghost-legend">{ T::GhostLegend.get(lang) }</li>
                    }
                </ul>
                <p class="help">{ T::MemoryHelp.get(lang) }</p>
            </section>
        }
    }
}
