//! One horizontal bar per option for one figure, the best bar in a stronger colour, an
//! optional reference line (the memory budget). Colours and fonts are inline attributes,
//! so the exported SVG looks the same outside the page.

use hsi_gpu_core::chart::{linear_ticks, nice_domain, LinearScale};
use yew::prelude::*;

use super::text::C;
use crate::components::chart_parts::{px, shortened};
use crate::components::palette::OKABE_ITO;
use crate::i18n::Lang;
use crate::platform::files;

pub const WIDTH: u32 = 560;
const LABEL_WIDTH: f64 = 210.0;
const RIGHT_MARGIN: f64 = 70.0;
const ROW: f64 = 22.0;
/// Room for the title, drawn in the SVG so that an exported chart keeps it.
const TOP: f64 = 30.0;
const AXIS_ROOM: f64 = 26.0;
const BAR_COLOUR: &str = OKABE_ITO[1];
const BEST_COLOUR: &str = OKABE_ITO[4];
const REFERENCE_COLOUR: &str = OKABE_ITO[5];

pub fn height(bars: usize) -> u32 {
    (TOP + ROW * bars as f64 + AXIS_ROOM).ceil() as u32
}

pub struct CompareBars {
    /// data-testid of the SVG; also the exported files' name.
    pub id: AttrValue,
    pub title: AttrValue,
    pub labels: Vec<AttrValue>,
    pub values: Vec<Option<f64>>,
    /// The value as shown beside its bar.
    pub texts: Vec<AttrValue>,
    pub best: Vec<usize>,
    /// A vertical line at this value (e.g. 1 = the memory budget).
    pub reference: Option<f64>,
    pub lang: Lang,
}

impl CompareBars {
    pub fn view(self) -> Html {
        let max = self
            .values
            .iter()
            .flatten()
            .copied()
            .chain(self.reference)
            .fold(0.0f64, f64::max);
        let (_, top) = nice_domain(0.0, if max > 0.0 { max } else { 1.0 }, 5);
        let x = LinearScale::new((0.0, top), (LABEL_WIDTH, f64::from(WIDTH) - RIGHT_MARGIN));
        let h = height(self.labels.len());
        let axis_y = TOP + ROW * self.labels.len() as f64;
        let bars = self.labels.iter().enumerate().map(|(i, label)| {
            let y = TOP + ROW * i as f64;
            let value = self.values.get(i).copied().flatten();
            let colour = if self.best.contains(&i) { BEST_COLOUR } else { BAR_COLOUR };
            let text = self.texts.get(i).cloned().unwrap_or_default();
            html! {
                <g>
                    <text x={px(LABEL_WIDTH - 6.0)} y={px(y + ROW * 0.68)}
                        text-anchor="end" font-size="12" font-family="system-ui, sans-serif" fill="#111827">
                        // A long name, cut to its column, keeps the whole in its tooltip.
                        { match shortened(label, LABEL_WIDTH - 10.0, 12.0) {
                            Some(short) => html! { <><title>{ label }</title>{ short }</> },
                            None => html! { { label } },
                        } }
                    </text>
                    if let Some(v) = value {
                        <rect x={px(LABEL_WIDTH)} y={px(y + 3.0)}
                            width={px((x.map(v) - LABEL_WIDTH).max(0.5))} height={px(ROW - 6.0)}
                            fill={colour} />
                    }
                    <text x={px(x.map(value.unwrap_or(0.0)) + 4.0)} y={px(y + ROW * 0.68)}
                        font-size="11" font-family="system-ui, sans-serif" fill="#111827">
                        { text }{ if self.best.contains(&i) { " ★" } else { "" } }
                    </text>
                </g>
            }
        });
        // Each bar carries its value in its own unit: the axis needs no numbers, only
        // light gridlines to compare lengths by.
        let ticks = linear_ticks(0.0, top, 5).into_iter().map(|t| {
            html! {
                <line x1={px(x.map(t))} x2={px(x.map(t))} y1={px(TOP)}
                    y2={px(axis_y)} stroke="#e5e7eb" />
            }
        });
        let on_svg = {
            let id = self.id.clone();
            Callback::from(move |_: MouseEvent| {
                if let Some(svg) = files::outer_html(&id) {
                    files::download_text(&format!("{id}.svg"), "image/svg+xml", &svg);
                }
            })
        };
        let on_png = {
            let id = self.id.clone();
            Callback::from(move |_: MouseEvent| {
                if let Some(svg) = files::outer_html(&id) {
                    files::download_svg_as_png(&svg, WIDTH, h, &format!("{id}.png"));
                }
            })
        };
        let lang = self.lang;
        html! {
            <figure class="compare-chart">
                <svg xmlns="http://www.w3.org/2000/svg" data-testid={self.id.clone()} role="img"
                    aria-label={self.title.clone()} viewBox={format!("0 0 {WIDTH} {h}")}
                    width={WIDTH.to_string()} height={h.to_string()}>
                    <rect x="0" y="0" width={WIDTH.to_string()} height={h.to_string()} fill="#ffffff" />
                    <text x="4" y="17" font-size="14" font-weight="600" font-family="system-ui, sans-serif" fill="#111827">{ &self.title }</text>
                    { for ticks }
                    { for bars }
                    <line x1={px(LABEL_WIDTH)} x2={px(f64::from(WIDTH) - RIGHT_MARGIN)}
                        y1={px(axis_y)} y2={px(axis_y)} stroke="#4b5563" />
                    if let Some(r) = self.reference {
                        <line x1={px(x.map(r))} x2={px(x.map(r))} y1={px(TOP)}
                            y2={px(axis_y)} stroke={REFERENCE_COLOUR} stroke-dasharray="4 3" />
                    }
                </svg>
                <p class="no-print export-row">
                    <button type="button" data-testid={format!("{}-svg", self.id)} onclick={on_svg}>{ C::ExportSvg.get(lang) }</button>
                    <button type="button" data-testid={format!("{}-png", self.id)} onclick={on_png}>{ C::ExportPng.get(lang) }</button>
                </p>
            </figure>
        }
    }
}
