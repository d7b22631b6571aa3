//! Memory per GPU: one stacked bar of the peak's terms, the card's usable capacity and the
//! capacity less the headroom kept free, each term labelled with its value.

use std::rc::Rc;

use hsi_gpu_core::chart::{linear_ticks, nice_domain, stack, LinearScale};
use hsi_gpu_core::format;
use hsi_gpu_core::Report;
use yew::prelude::*;

use crate::components::palette::{Swatch, OKABE_ITO};
use crate::components::thesis::text::X;
use crate::i18n::{Lang, T};

const GIB: f64 = (1u64 << 30) as f64;
const WIDTH: f64 = 640.0;
const BAR_TOP: f64 = 24.0;
const BAR_HEIGHT: f64 = 40.0;
const AXIS_Y: f64 = 84.0;
const HEIGHT: f64 = 104.0;
/// Room at both ends for the first and last tick labels.
const MARGIN: f64 = 28.0;

#[derive(Properties, PartialEq)]
pub struct MemoryViewProps {
    pub report: Rc<Report>,
    pub lang: Lang,
    pub gpu_name: AttrValue,
    /// Fraction of capacity kept free (the scenario's assumption).
    pub headroom: f64,
}

#[function_component]
pub fn MemoryView(props: &MemoryViewProps) -> Html {
    let lang = props.lang;
    let m = &props.report.memory;
    let terms = [
        (T::TermContext, m.cuda_context),
        (T::TermWeights, m.weights),
        (T::TermGradients, m.gradients),
        (T::TermOptimizer, m.optimizer_states),
        (T::TermShardingBuffers, m.sharding_buffers),
        (T::TermActivations, m.activations),
        (T::TermTransient, m.transient),
        (T::TermAllocator, m.allocator),
        (T::TermInputCube, m.input_cube),
    ];
    let in_gib: Vec<f64> = terms.iter().map(|(_, bytes)| bytes / GIB).collect();
    let (_, axis_max) = nice_domain(0.0, (m.total.max(m.capacity)) / GIB, 6);
    let x = LinearScale::new((0.0, axis_max), (MARGIN, WIDTH - MARGIN));
    let segments = stack(&in_gib, &x);
    let capacity_x = x.map(m.capacity / GIB);
    let headroom_x = x.map(m.budget / GIB);
    let status = if m.fits { T::Fits } else { T::DoesNotFit };
    let headroom_text = format::percent(props.headroom);

    html! {
        <section class="panel view memory" aria-labelledby="memory-heading">
            <h2 id="memory-heading">{ T::Memory.get(lang) }{ " — " }{ &props.gpu_name }</h2>
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
            </p>
            <svg class="chart" viewBox={format!("0 0 {WIDTH} {HEIGHT}")} role="img"
                aria-label={format!("{}: {} / {}", T::Memory.get(lang), format::bytes(m.total), format::bytes(m.capacity))}>
                { for segments.iter().zip(terms.iter()).enumerate().map(|(i, (seg, (term, bytes)))| html! {
                    <rect x={seg.start.to_string()} y={BAR_TOP.to_string()}
                        width={seg.length().to_string()} height={BAR_HEIGHT.to_string()}
                        fill={OKABE_ITO[i % OKABE_ITO.len()]}>
                        <title>{ format!("{}: {}", term.get(lang), format::bytes(*bytes)) }</title>
                    </rect>
                }) }
                <line class="capacity-line" x1={capacity_x.to_string()} x2={capacity_x.to_string()}
                    y1="8" y2={(BAR_TOP + BAR_HEIGHT + 8.0).to_string()} />
                <text class="chart-label" x={capacity_x.to_string()} y="8" text-anchor="end">
                    { T::Capacity.get(lang) }</text>
                <line class="headroom-line" x1={headroom_x.to_string()} x2={headroom_x.to_string()}
                    y1={BAR_TOP.to_string()} y2={(BAR_TOP + BAR_HEIGHT + 8.0).to_string()} />
                <line class="axis" x1={MARGIN.to_string()} x2={(WIDTH - MARGIN).to_string()}
                    y1={AXIS_Y.to_string()} y2={AXIS_Y.to_string()} />
                { for linear_ticks(0.0, axis_max, 6).into_iter().map(|tick| html! {
                    <text class="tick" x={x.map(tick).to_string()} y={(AXIS_Y + 14.0).to_string()}
                        text-anchor="middle">{ format!("{} GiB", format::significant(tick)) }</text>
                }) }
            </svg>
            <ul class="legend" aria-label={T::Memory.get(lang)}>
                { for terms.iter().enumerate().map(|(i, (term, bytes))| html! {
                    <li>
                        <Swatch colour={OKABE_ITO[i % OKABE_ITO.len()]} />
                        { term.get(lang) }{ ": " }<span class="figure">{ format::bytes(*bytes) }</span>
                    </li>
                }) }
                <li><span class="swatch line-solid"></span>{ T::Capacity.get(lang) }</li>
                <li><span class="swatch line-dashed"></span>{ T::HeadroomLine.get(lang) }{ " (" }{ &headroom_text }{ ")" }</li>
            </ul>
            <p>
                { T::MaxBatch.get(lang) }{ ": " }
                <strong class="figure" data-testid="max-batch">{ props.report.max_batch }</strong>
            </p>
            <p class="help">{ T::MemoryHelp.get(lang) }</p>
        </section>
    }
}
