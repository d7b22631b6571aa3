//! Speed and scaling: step and epoch time on the chosen cards, then speedup over 1-8 cards
//! for DDP on the chosen topology, the other topologies, ideal scaling and independent
//! parallel experiments.

use std::rc::Rc;

use hsi_gpu_core::chart::{linear_ticks, nice_domain, LinearScale};
use hsi_gpu_core::scaling::ScalingPoint;
use hsi_gpu_core::steptime::StepBound;
use hsi_gpu_core::{format, Report};
use yew::prelude::*;

use crate::components::palette::{Swatch, OKABE_ITO};
use crate::components::verdict::step_parts;
use crate::i18n::{self, Lang, T};

const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 280.0;
const LEFT: f64 = 44.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 40.0;
const PARALLEL_COLOUR: &str = OKABE_ITO[6];
/// Colours of the DDP curves, the chosen topology first.
const CURVE_COLOURS: [&str; 3] = [OKABE_ITO[4], OKABE_ITO[0], OKABE_ITO[2]];

#[derive(Properties, PartialEq)]
pub struct ScalingViewProps {
    pub report: Rc<Report>,
    pub lang: Lang,
    pub cards: u32,
    /// Embed mode: chart and key figures without the per-card table.
    #[prop_or_default]
    pub compact: bool,
}

fn bound_name(bound: StepBound) -> T {
    match bound {
        StepBound::Host => T::Host,
        StepBound::Input => T::InputPipeline,
        StepBound::Device => T::BoundGpu,
    }
}

/// Samples per second the input pipeline delivers ("∞" for a synthetic batch).
fn input_rate(rate: f64) -> String {
    if rate.is_finite() {
        format!("{}/s", format::significant(rate))
    } else {
        "∞".into()
    }
}

fn polyline(points: &[ScalingPoint], x: &LinearScale, y: &LinearScale) -> String {
    points
        .iter()
        .map(|p| format!("{:.1},{:.1}", x.map(f64::from(p.cards)), y.map(p.speedup)))
        .collect::<Vec<_>>()
        .join(" ")
}

#[function_component]
pub fn ScalingView(props: &ScalingViewProps) -> Html {
    let lang = props.lang;
    let perf = &props.report.perf;
    let time = &perf.time;
    let scaling = &perf.scaling;
    let max_cards = scaling
        .ddp
        .iter()
        .flat_map(|c| c.points.iter().map(|p| p.cards))
        .chain(scaling.parallel_experiments.iter().map(|p| p.cards))
        .max()
        .unwrap_or(1)
        .max(2);
    let max_speedup = scaling
        .ddp
        .iter()
        .flat_map(|c| c.points.iter().map(|p| p.speedup))
        .chain(scaling.parallel_experiments.iter().map(|p| p.speedup))
        .fold(f64::from(max_cards), f64::max);
    let (_, y_hi) = nice_domain(0.0, max_speedup, 5);
    let x = LinearScale::new((1.0, f64::from(max_cards)), (LEFT, WIDTH - RIGHT));
    let y = LinearScale::new((0.0, y_hi), (HEIGHT - BOTTOM, TOP));
    let chosen = scaling.chosen_point(props.cards);

    html! {
        <section class="panel view scaling" aria-labelledby="scaling-heading">
            <h2 id="scaling-heading">{ T::Speed.get(lang) }</h2>
            <p class="key-figures">
                <span>{ T::StepTime.get(lang) }{ ": " }<strong class="figure" data-testid="step-time">{ format::duration(time.step_s) }</strong></span>
                <span>{ T::Throughput.get(lang) }{ ": " }<strong class="figure" data-testid="samples-per-s">{ format!("{}/s", format::significant(time.samples_per_s)) }</strong></span>
                <span>{ T::EpochTime.get(lang) }{ ": " }<strong class="figure" data-testid="epoch-time">{ format::duration(perf.epoch.epoch_s) }</strong></span>
                <span>{ i18n::run_time_label(lang, perf.epoch.epochs) }{ ": " }<strong class="figure" data-testid="run-time">{ format::duration(perf.epoch.run_s) }</strong></span>
            </p>
            <p class="key-figures">
                <span>{ T::StepBoundBy.get(lang) }{ ": " }<strong class="figure" data-testid="step-bound">{ bound_name(time.bound).get(lang) }</strong></span>
                <span>{ T::HostShare.get(lang) }{ ": " }<strong class="figure" data-testid="host-time">{ format::duration(time.host_s) }</strong></span>
                <span>{ T::InputRate.get(lang) }{ ": " }<strong class="figure" data-testid="input-rate">{ input_rate(time.input_samples_per_s) }</strong></span>
            </p>
            <p class="help" data-testid="step-parts">{ step_parts(lang, &props.report) }</p>
            <p class="help">{ i18n::step_breakdown_sentence(
                lang,
                &format::duration(time.forward_s),
                &format::duration(time.backward_s),
                &format::duration(time.optimizer_s),
                &format::duration(time.allreduce_exposed_s),
            ) }</p>
            <h3>{ T::Scaling.get(lang) }</h3>
            if let Some(point) = chosen {
                <p class="key-figures">
                    <span>{ T::Speedup.get(lang) }{ ": " }<strong class="figure" data-testid="speedup">{ format::times(point.speedup) }</strong></span>
                    <span>{ T::Efficiency.get(lang) }{ ": " }<strong class="figure" data-testid="scaling-efficiency">{ format::percent(point.efficiency) }</strong></span>
                    <span>{ T::AllreduceShare.get(lang) }{ ": " }<strong class="figure">{ format::percent(point.allreduce_share) }</strong></span>
                </p>
            }
            <svg class="chart" viewBox={format!("0 0 {WIDTH} {HEIGHT}")} role="img" data-testid="scaling-chart"
                aria-label={T::Scaling.get(lang)}>
                { for (1..=max_cards).map(|n| html! {
                    <text class="tick" x={x.map(f64::from(n)).to_string()} y={(HEIGHT - BOTTOM + 14.0).to_string()}
                        text-anchor="middle">{ n }</text>
                }) }
                { for linear_ticks(0.0, y_hi, 5).into_iter().map(|t| html! {
                    <g>
                        <line class="grid" x1={LEFT.to_string()} x2={(WIDTH - RIGHT).to_string()}
                            y1={y.map(t).to_string()} y2={y.map(t).to_string()} />
                        <text class="tick" x={(LEFT - 4.0).to_string()} y={(y.map(t) + 4.0).to_string()}
                            text-anchor="end">{ format::times(t) }</text>
                    </g>
                }) }
                <text class="chart-label" x={((LEFT + WIDTH - RIGHT) / 2.0).to_string()} y={(HEIGHT - 6.0).to_string()}
                    text-anchor="middle">{ T::Cards.get(lang) }</text>
                <line class="ideal" x1={x.map(1.0).to_string()} y1={y.map(1.0).to_string()}
                    x2={x.map(f64::from(max_cards)).to_string()} y2={y.map(f64::from(max_cards)).to_string()} />
                <polyline class="curve" stroke={PARALLEL_COLOUR} stroke-dasharray="1 5" stroke-linecap="round"
                    points={polyline(&scaling.parallel_experiments, &x, &y)} />
                { for scaling.ddp.iter().enumerate().rev().map(|(i, curve)| html! {
                    <polyline class={classes!("curve", (i > 0).then_some("other"))}
                        stroke={CURVE_COLOURS[i % CURVE_COLOURS.len()]}
                        points={polyline(&curve.points, &x, &y)}>
                        <title>{ i18n::interconnect_name(curve.interconnect, lang) }</title>
                    </polyline>
                }) }
                if let Some(point) = chosen {
                    <circle cx={x.map(f64::from(point.cards)).to_string()} cy={y.map(point.speedup).to_string()}
                        r="6" fill={CURVE_COLOURS[0]} />
                }
            </svg>
            <ul class="legend">
                { for scaling.ddp.iter().enumerate().map(|(i, curve)| html! {
                    <li><Swatch colour={CURVE_COLOURS[i % CURVE_COLOURS.len()]} />
                        { format!("DDP, {}", i18n::interconnect_name(curve.interconnect, lang)) }</li>
                }) }
                <li><Swatch colour={PARALLEL_COLOUR} />{ T::ParallelExperiments.get(lang) }</li>
                <li><span class="swatch line-dashed"></span>{ T::Ideal.get(lang) }</li>
            </ul>
            if !props.compact {
            <div class="table-scroll">
                <table data-testid="scaling-table">
                    <thead><tr>
                        <th scope="col">{ T::Cards.get(lang) }</th>
                        { for scaling.ddp.iter().map(|c| html! {
                            <th scope="col" class="num">{ format!("{} {}", i18n::interconnect_name(c.interconnect, lang), T::StepTime.get(lang)) }</th>
                        }) }
                        { for scaling.ddp.iter().map(|c| html! {
                            <th scope="col" class="num">{ format!("{} {}", i18n::interconnect_name(c.interconnect, lang), T::Efficiency.get(lang)) }</th>
                        }) }
                    </tr></thead>
                    <tbody>
                        { for (1..=max_cards).map(|n| html! {
                            <tr>
                                <th scope="row">{ n }</th>
                                { for scaling.ddp.iter().map(|c| html! {
                                    <td class="num">{ c.points.iter().find(|p| p.cards == n).map(|p| format::duration(p.step_s)).unwrap_or_default() }</td>
                                }) }
                                { for scaling.ddp.iter().map(|c| html! {
                                    <td class="num">{ c.points.iter().find(|p| p.cards == n).map(|p| format::percent(p.efficiency)).unwrap_or_default() }</td>
                                }) }
                            </tr>
                        }) }
                    </tbody>
                </table>
            </div>
            if !scaling.nodes.is_empty() {
                <p data-testid="nodes-line">{ T::Nodes.get(lang) }{ ": " }{
                    scaling.nodes.iter().map(|p| format!("{} ({}×): {}, {}", p.nodes, p.cards,
                        format::duration(p.step_s), format::percent(p.efficiency)))
                        .collect::<Vec<_>>().join(" · ")
                }</p>
            }
            }
        </section>
    }
}
