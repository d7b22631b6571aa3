//! Per-layer table: shape, parameters, forward FLOPs and bytes kept for backward.

use hsi_gpu_core::format;
use hsi_gpu_core::zoo::zoo_entry;
use yew::prelude::*;

use crate::components::controls::use_open;
use crate::i18n::{self, Lang, T};
use crate::SharedReport;

#[derive(Properties, PartialEq)]
pub struct LayerTableProps {
    pub report: SharedReport,
    /// The zoo model's id, named as its select names it; None for a layer list (its own name).
    pub preset: Option<AttrValue>,
    pub lang: Lang,
    #[prop_or_default]
    pub initially_open: bool,
}

#[function_component]
pub fn LayerTable(props: &LayerTableProps) -> Html {
    let lang = props.lang;
    let r = &props.report;
    let (open, on_toggle) = use_open(props.initially_open);
    let name = props
        .preset
        .as_deref()
        .and_then(zoo_entry)
        .map_or(r.model_name.as_str(), |e| i18n::zoo_name(e, lang));
    // Closed, the table renders no rows: large models have hundreds of layers.
    let layers = if open { r.layers.as_slice() } else { &[] };
    html! {
        <details class="panel view layers" data-testid="layer-table" open={open} ontoggle={on_toggle}>
            <summary>
                { T::Layers.get(lang) }{ " — " }{ name }{ lang.comma() }
                <span class="figure" data-testid="params">{ format::count(r.params) }</span>
                { " " }{ T::Params.get(lang) }
            </summary>
            <div class="table-scroll">
                <table>
                    <thead><tr>
                        <th scope="col">{ T::Layer.get(lang) }</th>
                        <th scope="col">{ T::Kind.get(lang) }</th>
                        <th scope="col">{ T::OutputShape.get(lang) }</th>
                        <th scope="col" class="num">{ T::Params.get(lang) }</th>
                        <th scope="col" class="num">{ T::FwdFlops.get(lang) }</th>
                        <th scope="col" class="num">{ T::Saved.get(lang) }</th>
                        <th scope="col" class="num">{ T::FwdTime.get(lang) }</th>
                        <th scope="col" class="num">{ T::BwdTime.get(lang) }</th>
                        <th scope="col">{ T::Limiter.get(lang) }</th>
                    </tr></thead>
                    <tbody>
                        { for layers.iter().enumerate().map(|(i, layer)| {
                            // The perf model lists the same layers in the same order.
                            let perf = r.perf.layers.get(i);
                            html! {
                            <tr>
                                <th scope="row">{ &layer.name }</th>
                                <td>{ &layer.kind }</td>
                                <td>{ layer.output_shape.iter().map(u64::to_string).collect::<Vec<_>>().join("×") }</td>
                                <td class="num">{ format::count(layer.params) }</td>
                                <td class="num">{ format::flops(layer.fwd_flops) }</td>
                                <td class="num">{ format::bytes(layer.saved_bytes) }</td>
                                <td class="num">{ perf.map(|p| format::duration(p.forward.time_s)).unwrap_or_default() }</td>
                                <td class="num">{ perf.map(|p| format::duration(p.backward.time_s)).unwrap_or_default() }</td>
                                <td>{ perf.map(|p| i18n::limiter_text(p.forward.limiter, lang)).unwrap_or_default() }</td>
                            </tr>
                            }
                        }) }
                    </tbody>
                </table>
            </div>
        </details>
    }
}
