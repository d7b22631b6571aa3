//! Roofline (log-log): the card's compute roofs for the precision in use and for FP32
//! CUDA cores under its bandwidth slope, one point per layer (forward pass, modelled
//! throughput) and one for the whole step. Hovering or focusing a point says which layer
//! it is and what limits its modelled time; the points before the last change stay faintly.

use hsi_gpu_core::chart::{decade_domain, decade_ticks, label_stride, text_width, LogScale};
use hsi_gpu_core::perf::Limiter;
use hsi_gpu_core::{format, Report};
use yew::prelude::*;

use crate::components::chart_parts::{chart_box, key_figure, mark, px, readout, Focus, Frame};
use crate::components::palette::{swatch, OKABE_ITO};
use crate::i18n::{self, Lang, T};
use crate::SharedReport;

const ROOF_COLOUR: &str = OKABE_ITO[4];
const FP32_ROOF_COLOUR: &str = OKABE_ITO[1];
const MEMORY_BOUND_COLOUR: &str = OKABE_ITO[5];
const COMPUTE_BOUND_COLOUR: &str = OKABE_ITO[2];
const LAUNCH_BOUND_COLOUR: &str = OKABE_ITO[6];
const STEP_COLOUR: &str = OKABE_ITO[7];

/// One plotted point with what its tooltip says.
struct Point {
    label: String,
    intensity: f64,
    flops_per_s: f64,
    /// What the modelled time is limited by (as the layer table and the verdict say).
    limiter: Limiter,
    /// Where this pass's compute and memory times would meet, on the chart's intensity
    /// axis, at the rate its kernels reach (below the drawn roof's ridge where they reach
    /// less than the peak); None for the whole step, a sum of passes.
    ridge: Option<f64>,
    is_step: bool,
}

#[derive(PartialEq)]
pub struct RooflineView {
    pub report: SharedReport,
    pub lang: Lang,
    /// The report before the last change: its points are drawn faintly.
    pub ghost: Option<SharedReport>,
}

fn describe(p: &Point, lang: Lang) -> String {
    i18n::roofline_point_sentence(
        lang,
        &p.label,
        &format!("{} FLOP/B", format::significant(p.intensity)),
        &format::flop_rate(p.flops_per_s),
        i18n::limiter_text(p.limiter, lang),
        p.ridge
            .map(|r| format!("{} FLOP/B", format::significant(r)))
            .as_deref(),
    )
}

/// The forward pass of every layer with work, then the whole step.
fn plotted(report: &Report, lang: Lang) -> Vec<Point> {
    let perf = &report.perf;
    let mut points: Vec<Point> = perf
        .layers
        .iter()
        .filter(|l| l.forward.roofline.flops > 0.0 && l.forward.roofline.intensity > 0.0)
        .map(|l| Point {
            label: format!("{} ({})", l.name, l.kind),
            intensity: l.forward.roofline.intensity,
            flops_per_s: l.forward.achieved_flops,
            limiter: l.forward.limiter,
            ridge: (l.forward.compute_s > 0.0)
                .then(|| l.forward.roofline.intensity * l.forward.memory_s / l.forward.compute_s),
            is_step: false,
        })
        .collect();
    let step = &perf.step_roofline;
    if step.intensity > 0.0 {
        points.push(Point {
            label: T::WholeStep.get(lang).into(),
            intensity: step.intensity,
            flops_per_s: perf.step_achieved_flops,
            limiter: perf.time.limiter,
            ridge: None,
            is_step: true,
        });
    }
    points
}

impl RooflineView {
    pub fn view(&self, focused: Focus, frame: &Frame) -> Html {
        let lang = self.lang;
        let perf = &self.report.perf;
        let points = plotted(&self.report, lang);
        let ghost_points = self.ghost.as_ref().map(|g| plotted(g, lang));

        let min_x = points
            .iter()
            .map(|p| p.intensity)
            .fold(perf.ridge, f64::min)
            / 2.0;
        let max_x = points
            .iter()
            .map(|p| p.intensity)
            .fold(perf.ridge, f64::max)
            * 2.0;
        let (x_lo, x_hi) = decade_domain(min_x, max_x);
        let min_y = points
            .iter()
            .map(|p| p.flops_per_s)
            .filter(|f| *f > 0.0)
            .fold(perf.fp32_flops.min(perf.peak_flops), f64::min)
            / 2.0;
        let (y_lo, y_hi) = decade_domain(min_y, perf.peak_flops.max(perf.fp32_flops) * 1.5);
        // Drawn at the box's size: the rate labels and the rotated title on the left, the
        // intensity labels and title below; every n-th decade labelled where they crowd.
        let (width, height, font) = (frame.size.width, frame.size.height, frame.size.font);
        let x_ticks = decade_ticks(x_lo, x_hi);
        let y_ticks = decade_ticks(y_lo, y_hi);
        let rate_width = y_ticks
            .iter()
            .map(|t| text_width(&format::flop_rate(*t), font))
            .fold(0.0, f64::max);
        let x_label_width = x_ticks
            .iter()
            .map(|t| text_width(&format::significant(*t), font))
            .fold(0.0, f64::max);
        // Room on the right for half the last intensity label, centred on the axis's end.
        let (top, right, bottom) = (
            font * 0.6 + 2.0,
            x_label_width / 2.0 + 3.0,
            2.0 * font + 12.0,
        );
        let left = rate_width + 6.0 + font + 6.0;
        let (plot_width, plot_height) = (width - left - right, height - top - bottom);
        let x = LogScale::new((x_lo, x_hi), (left, width - right));
        let y = LogScale::new((y_lo, y_hi), (height - bottom, top));
        let decades = |ticks: &[f64]| ticks.len().saturating_sub(1).max(1) as f64;
        let x_stride = label_stride(plot_width / decades(&x_ticks), x_label_width + font * 0.6);
        let y_stride = label_stride(plot_height / decades(&y_ticks), font * 1.3);
        let (x_title, y_title) = (T::IntensityAxis.get(lang), T::FlopRateAxis.get(lang));
        let show_x_title = text_width(x_title, font) <= plot_width + 2.0 * right;
        let show_y_title = text_width(y_title, font) <= plot_height;

        // A roof is the bandwidth slope up to its ridge, then flat: three points suffice.
        let roof_path = |roof: f64| {
            let bandwidth = perf.bandwidth_bytes_per_s;
            let ridge = roof / bandwidth;
            format!(
                "M{:.1},{:.1} L{:.1},{:.1} L{:.1},{:.1}",
                x.map(x_lo),
                y.map(x_lo * bandwidth),
                x.map(ridge),
                y.map(roof),
                x.map(x_hi),
                y.map(roof)
            )
        };

        let texts: Vec<String> = points.iter().map(|p| describe(p, lang)).collect();

        html! {
            <section class="panel view roofline" aria-labelledby="roofline-heading" data-testid="chart-roofline">
                <h2 id="roofline-heading">{ T::Roofline.get(lang) }</h2>
                <p class="key-figures">
                    { key_figure(T::PeakCompute.get(lang), Some("peak-flops"), format::flop_rate(perf.peak_flops)) }
                    { key_figure(T::Bandwidth.get(lang), None, format::bandwidth(perf.bandwidth_bytes_per_s)) }
                    { key_figure(T::Ridge.get(lang), None, format!("{} FLOP/B", format::significant(perf.ridge))) }
                </p>
                { chart_box(frame, T::Roofline.get(lang).to_string(), Some("roofline-chart"), html! {
                    <>
                    { for x_ticks.iter().enumerate().map(|(i, t)| html! {
                        <g>
                            <line class="grid" x1={px(x.map(*t))} x2={px(x.map(*t))}
                                y1={px(top)} y2={px(height - bottom)} />
                            if i.is_multiple_of(x_stride) {
                                <text class="tick" x={px(x.map(*t))} y={px(height - bottom + font + 3.0)}
                                    text-anchor="middle">{ format::significant(*t) }</text>
                            }
                        </g>
                    }) }
                    { for y_ticks.iter().enumerate().map(|(i, t)| html! {
                        <g>
                            <line class="grid" x1={px(left)} x2={px(width - right)}
                                y1={px(y.map(*t))} y2={px(y.map(*t))} />
                            if i.is_multiple_of(y_stride) {
                                <text class="tick" x={px(left - 4.0)} y={px(y.map(*t) + font * 0.35)}
                                    text-anchor="end">{ format::flop_rate(*t) }</text>
                            }
                        </g>
                    }) }
                    if show_x_title {
                        <text class="chart-label" x={px((left + width - right) / 2.0)} y={px(height - 4.0)}
                            text-anchor="middle">{ x_title }</text>
                    }
                    if show_y_title {
                        <text class="chart-label" text-anchor="middle"
                            transform={format!("translate({:.1} {:.1}) rotate(-90)", font + 1.0, top + plot_height / 2.0)}>
                            { y_title }</text>
                    }
                    if let Some(ghost) = &ghost_points {
                        <g class="ghost" data-testid="ghost">
                            // Only points inside the current axes: a log scale extrapolates off the chart.
                            { for ghost.iter().filter(|p| {
                                (x_lo..=x_hi).contains(&p.intensity) && (y_lo..=y_hi).contains(&p.flops_per_s)
                            }).map(|p| {
                                let (cx, cy) = (x.map(p.intensity), y.map(p.flops_per_s.max(y_lo)));
                                if p.is_step {
                                    html! { <rect x={px(cx - 6.0)} y={px(cy - 6.0)} width="12" height="12" fill={STEP_COLOUR} /> }
                                } else {
                                    html! { <circle cx={px(cx)} cy={px(cy)} r="5" fill={STEP_COLOUR} /> }
                                }
                            }) }
                        </g>
                    }
                    // FP32 training has one roof: draw the CUDA-core roof only when it differs.
                    if perf.fp32_flops != perf.peak_flops {
                        <path class="roof" d={roof_path(perf.fp32_flops)} stroke={FP32_ROOF_COLOUR} />
                    }
                    <path class="roof" d={roof_path(perf.peak_flops)} stroke={ROOF_COLOUR} />
                    { for points.iter().enumerate().map(|(i, p)| {
                        let (cx, cy) = (x.map(p.intensity), y.map(p.flops_per_s.max(y_lo)));
                        let colour = match p.limiter {
                            Limiter::Memory => MEMORY_BOUND_COLOUR,
                            Limiter::Compute => COMPUTE_BOUND_COLOUR,
                            Limiter::Launch => LAUNCH_BOUND_COLOUR,
                        };
                        let testid = if p.is_step { "roofline-step" } else { "roofline-point" };
                        mark(&focused, i, &texts[i], Some(testid), if p.is_step {
                            html! { <rect x={px(cx - 6.0)} y={px(cy - 6.0)} width="12" height="12"
                                fill={STEP_COLOUR} /> }
                        } else {
                            html! { <circle cx={px(cx)} cy={px(cy)} r="5" fill={colour} fill-opacity="0.85" /> }
                        })
                    }) }
                    </>
                }) }
                { readout(&texts, &focused, T::RooflineHint.get(lang), "roofline-detail") }
                <ul class="legend">
                    <li>{ swatch(ROOF_COLOUR) }{ T::RoofPrecision.get(lang) }</li>
                    if perf.fp32_flops != perf.peak_flops {
                        <li>{ swatch(FP32_ROOF_COLOUR) }{ T::RoofFp32.get(lang) }</li>
                    }
                    <li>{ swatch(MEMORY_BOUND_COLOUR) }{ T::MemoryBound.get(lang) }</li>
                    <li>{ swatch(COMPUTE_BOUND_COLOUR) }{ T::ComputeBound.get(lang) }</li>
                    <li>{ swatch(LAUNCH_BOUND_COLOUR) }{ T::LaunchBound.get(lang) }</li>
                    <li>{ swatch(STEP_COLOUR) }{ T::WholeStep.get(lang) }</li>
                    if ghost_points.is_some() {
                        <li class="ghost-legend">{ T::GhostLegend.get(lang) }</li>
                    }
                </ul>
            </section>
        }
    }
}
