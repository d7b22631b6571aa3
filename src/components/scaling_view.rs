//! Speed and scaling: step and epoch time on the chosen cards, then speedup over 1-8 cards
//! for DDP on the chosen topology, the other topologies, ideal scaling and independent
//! parallel experiments. Each point of the scenario's curve (the chosen topology's, or the
//! independent runs') reads out on hover or focus; that curve before the last change is
//! drawn faintly. The per-card table is its
//! own component (`ScalingTable`), shown with the details below the dashboard.

use hsi_gpu_core::chart::{fitting_ticks, label_stride, nice_domain, text_width, LinearScale};
use hsi_gpu_core::format;
use hsi_gpu_core::scaling::{ScalingPoint, ScalingReport};
use hsi_gpu_core::scenario::ParallelMode;
use hsi_gpu_core::steptime::StepBound;
use yew::prelude::*;

use crate::components::chart_parts::{chart_box, key_figure, mark, px, readout, Focus, Frame};
use crate::components::palette::{swatch, OKABE_ITO};
use crate::i18n::step_parts;
use crate::i18n::{self, Lang, T};
use crate::SharedReport;

const PARALLEL_COLOUR: &str = OKABE_ITO[6];
/// Colours of the DDP curves, the chosen topology first.
const CURVE_COLOURS: [&str; 3] = [OKABE_ITO[4], OKABE_ITO[0], OKABE_ITO[2]];

#[derive(PartialEq)]
pub struct ScalingView {
    pub report: SharedReport,
    pub lang: Lang,
    pub cards: u32,
    /// Nodes of `cards` GPUs: the key figures are the whole run's.
    pub nodes: u32,
    /// DDP or independent runs: which curve the key figures and the marked points read.
    pub mode: ParallelMode,
    /// The report before the last change, drawn faintly.
    pub ghost: Option<SharedReport>,
}

pub struct ScalingTable {
    pub report: SharedReport,
    pub lang: Lang,
}

fn bound_name(bound: StepBound) -> T {
    match bound {
        StepBound::Host => T::Host,
        StepBound::Input => T::InputPipeline,
        StepBound::Device => T::BoundGpu,
        StepBound::Interconnect => T::ExposedAllreduce,
        StepBound::Offload => T::OptimizerOffload,
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

/// The largest card count any curve reaches (at least 2, so the axis has a span).
fn max_cards(scaling: &ScalingReport) -> u32 {
    scaling
        .ddp
        .iter()
        .flat_map(|c| c.points.iter().map(|p| p.cards))
        .chain(scaling.parallel_experiments.iter().map(|p| p.cards))
        .max()
        .unwrap_or(1)
        .max(2)
}

impl ScalingView {
    pub fn view(&self, focus: Focus, frame: &Frame) -> Html {
        let lang = self.lang;
        let perf = &self.report.perf;
        let time = &perf.time;
        let scaling = &perf.scaling;
        let max_cards = max_cards(scaling);
        let max_speedup = scaling
            .ddp
            .iter()
            .flat_map(|c| c.points.iter().map(|p| p.speedup))
            .chain(scaling.parallel_experiments.iter().map(|p| p.speedup))
            .fold(f64::from(max_cards), f64::max);
        let (_, y_hi) = nice_domain(0.0, max_speedup, 5);
        // Drawn at the box's size: the tick labels' room and the rotated axis title on the
        // left, the card counts and the axis title below.
        let (width, height, font) = (frame.size.width, frame.size.height, frame.size.font);
        let tick_width = text_width(&format::times(y_hi), font);
        let (top, right, bottom) = (font * 0.6 + 2.0, font, 2.0 * font + 12.0);
        let left = tick_width + 6.0 + font + 6.0;
        let plot_height = height - top - bottom;
        let x = LinearScale::new((1.0, f64::from(max_cards)), (left, width - right));
        let y = LinearScale::new((0.0, y_hi), (height - bottom, top));
        let y_ticks = fitting_ticks(0.0, y_hi, plot_height, 6, font * 0.3, |_| font * 1.2);
        let card_spacing = (width - right - left) / f64::from(max_cards - 1);
        let card_stride = label_stride(card_spacing, text_width("8", font) + font * 0.6);
        // The rotated title where the plot is tall enough for it, else its short form.
        let y_title = [T::SpeedupAxis, T::SpeedupAxisShort]
            .map(|t| t.get(lang))
            .into_iter()
            .find(|t| text_width(t, font) <= plot_height);
        let chosen_curve = scaling.mode_curve(self.mode);
        // The key figures are the scenario's, over all its nodes; the curve is one node's.
        let chosen = match self.mode {
            ParallelMode::Ddp => scaling.scenario_point(self.cards, self.nodes.max(1)),
            ParallelMode::ParallelExperiments => {
                chosen_curve.iter().find(|p| p.cards == self.cards)
            }
        };
        let chosen_colour = match self.mode {
            ParallelMode::Ddp => CURVE_COLOURS[0],
            ParallelMode::ParallelExperiments => PARALLEL_COLOUR,
        };
        let ghost_curve = self
            .ghost
            .as_ref()
            .map(|g| polyline(g.perf.scaling.mode_curve(self.mode), &x, &y));
        let texts: Vec<String> = chosen_curve
            .iter()
            .map(|p| {
                // "Cards 4: speed-up 3.6×, …", the colon and commas full-width in Chinese.
                let comma = lang.comma();
                format!(
                    "{} {}{}{} {}{comma}{} {}{comma}{} {}",
                    T::Cards.get(lang),
                    p.cards,
                    lang.colon(),
                    T::Speedup.get(lang),
                    format::times(p.speedup),
                    T::Efficiency.get(lang),
                    format::percent(p.efficiency),
                    T::StepTime.get(lang),
                    format::duration(p.step_s)
                )
            })
            .collect();

        html! {
            <section class="panel view scaling" aria-labelledby="scaling-heading" data-testid="chart-scaling">
                <h2 id="scaling-heading">{ T::Speed.get(lang) }</h2>
                <p class="key-figures">
                    { key_figure(T::StepTime.get(lang), Some("step-time"), format::duration(time.step_s)) }
                    { key_figure(T::Throughput.get(lang), Some("samples-per-s"), format!("{}/s", format::significant(time.samples_per_s))) }
                    { key_figure(T::EpochTime.get(lang), Some("epoch-time"), format::duration(perf.epoch.epoch_s)) }
                    { key_figure(&i18n::run_time_label(lang, perf.epoch.epochs), Some("run-time"), format::duration(perf.epoch.run_s)) }
                    { key_figure(T::StepBoundBy.get(lang), Some("step-bound"), bound_name(time.bound).get(lang).to_string()) }
                    if let Some(point) = chosen {
                        { key_figure(T::Speedup.get(lang), Some("speedup"), format::times(point.speedup)) }
                        { key_figure(T::Efficiency.get(lang), Some("scaling-efficiency"), format::percent(point.efficiency)) }
                        { key_figure(T::AllreduceShare.get(lang), None, format::percent(time.allreduce_share)) }
                    }
                </p>
                { chart_box(frame, T::Scaling.get(lang).to_string(), Some("scaling-chart"), html! {
                    <>
                    { for (1..=max_cards).filter(|n| ((n - 1) as usize).is_multiple_of(card_stride)).map(|n| html! {
                        <text class="tick" x={px(x.map(f64::from(n)))} y={px(height - bottom + font + 3.0)}
                            text-anchor="middle">{ n }</text>
                    }) }
                    { for y_ticks.into_iter().map(|t| html! {
                        <g>
                            <line class="grid" x1={px(left)} x2={px(width - right)}
                                y1={px(y.map(t))} y2={px(y.map(t))} />
                            <text class="tick" x={px(left - 4.0)} y={px(y.map(t) + font * 0.35)}
                                text-anchor="end">{ format::times(t) }</text>
                        </g>
                    }) }
                    <text class="chart-label" x={px((left + width - right) / 2.0)} y={px(height - 4.0)}
                        text-anchor="middle">{ T::Cards.get(lang) }</text>
                    if let Some(y_title) = y_title {
                        <text class="chart-label" text-anchor="middle"
                            transform={format!("translate({:.1} {:.1}) rotate(-90)", font + 1.0, top + plot_height / 2.0)}>
                            { y_title }</text>
                    }
                    if let Some(points) = &ghost_curve {
                        <polyline class="curve ghost" data-testid="ghost" stroke={chosen_colour} points={points.clone()} />
                    }
                    <line class="ideal" x1={px(x.map(1.0))} y1={px(y.map(1.0))}
                        x2={px(x.map(f64::from(max_cards)))} y2={px(y.map(f64::from(max_cards)))} />
                    <polyline class="curve" stroke={PARALLEL_COLOUR} stroke-dasharray="1 5" stroke-linecap="round"
                        points={polyline(&scaling.parallel_experiments, &x, &y)} />
                    { for scaling.ddp.iter().enumerate().rev().map(|(i, curve)| html! {
                        <polyline class={classes!("curve", (i > 0).then_some("other"))}
                            stroke={CURVE_COLOURS[i % CURVE_COLOURS.len()]}
                            points={polyline(&curve.points, &x, &y)}>
                            <title>{ i18n::interconnect_name(curve.interconnect, lang) }</title>
                        </polyline>
                    }) }
                    { for chosen_curve.iter().enumerate().map(|(i, p)| {
                        let here = p.cards == self.cards;
                        mark(&focus, i, &texts[i], None, html! {
                            <circle cx={px(x.map(f64::from(p.cards)))} cy={px(y.map(p.speedup))}
                                r={if here { "7" } else { "4" }} fill={chosen_colour} />
                        })
                    }) }
                    </>
                }) }
                { readout(&texts, &focus, T::ChartHint.get(lang), "scaling-readout") }
                <ul class="legend">
                    { for scaling.ddp.iter().enumerate().map(|(i, curve)| html! {
                        <li>{ swatch(CURVE_COLOURS[i % CURVE_COLOURS.len()]) }
                            { "DDP" }{ lang.comma() }{ i18n::interconnect_name(curve.interconnect, lang) }</li>
                    }) }
                    <li>{ swatch(PARALLEL_COLOUR) }{ T::ParallelExperiments.get(lang) }</li>
                    <li><span class="swatch line-dashed"></span>{ T::Ideal.get(lang) }</li>
                    if ghost_curve.is_some() {
                        <li class="ghost-legend">{ T::GhostLegend.get(lang) }</li>
                    }
                </ul>
            </section>
        }
    }
}

/// Step time and scaling efficiency per card count, for every topology.
impl ScalingTable {
    pub fn view(self) -> Html {
        let lang = self.lang;
        let perf = &self.report.perf;
        let time = &perf.time;
        let scaling = &perf.scaling;
        let max_cards = max_cards(scaling);
        html! {
            <section class="panel scaling-details" aria-labelledby="scaling-details-heading">
                <h2 id="scaling-details-heading">{ T::Scaling.get(lang) }</h2>
                <p class="key-figures">
                    { key_figure(T::HostShare.get(lang), Some("host-time"), format::duration(time.host_s)) }
                    { key_figure(T::InputRate.get(lang), Some("input-rate"), input_rate(time.input_samples_per_s)) }
                </p>
                <p data-testid="step-parts">{ step_parts(lang, &self.report) }</p>
                <p>{ i18n::step_breakdown_sentence(
                    lang,
                    &format::duration(time.forward_s),
                    &format::duration(time.backward_s),
                    &format::duration(time.optimizer_s),
                    &format::duration(time.allreduce_exposed_s),
                ) }</p>
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
                if let Some(line) = i18n::layout_line(lang, &self.report) {
                    <p data-testid="layout-line">{ line }</p>
                }
                if !scaling.nodes.is_empty() {
                    <p data-testid="nodes-line">{ T::Nodes.get(lang) }{ lang.colon() }{
                        scaling.nodes.iter().map(|p| format!("{} ({}×): {}, {}", p.nodes, p.cards,
                            format::duration(p.step_s), format::percent(p.efficiency)))
                            .collect::<Vec<_>>().join(" · ")
                    }</p>
                }
            </section>
        }
    }
}
