//! The inputs of one option (label, GPU, cards, tensor parallelism, batch, cudnn.benchmark,
//! interconnect, use of the cards) and the small form helpers the view shares.

use hsi_gpu_core::compare::{CompareOption, MAX_LABEL_CHARS};
use hsi_gpu_core::gpu;
use hsi_gpu_core::scenario::{Interconnect, ParallelMode, Scenario, MAX_BATCH, MAX_CARDS};
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;
use yew::TargetCast;

use super::text::{mode_name, C};
use crate::i18n::{interconnect_name, Lang};

/// `<label>text <input type="number"></label>`: every number box of the view.
pub(super) fn number_field(
    label: &str,
    testid: String,
    value: String,
    max: Option<u32>,
    oninput: Callback<InputEvent>,
) -> Html {
    html! {
        <label>{ label }{ " " }
            <input type="number" class="number" min="0" max={max.map(|m| m.to_string())}
                data-testid={testid} value={value} oninput={oninput} /></label>
    }
}

pub(super) fn button(testid: String, label: &str, onclick: Callback<MouseEvent>) -> Html {
    html! { <button type="button" data-testid={testid} onclick={onclick}>{ label }</button> }
}

pub(super) fn select_value(e: &Event) -> String {
    e.target_unchecked_into::<HtmlSelectElement>().value()
}

pub(super) fn input_value(e: &InputEvent) -> String {
    e.target_unchecked_into::<HtmlInputElement>().value()
}

pub(super) struct OptionEditor {
    pub(super) index: usize,
    pub(super) option: CompareOption,
    pub(super) lang: Lang,
    pub(super) on_change: Callback<(usize, CompareOption)>,
    pub(super) on_remove: Callback<usize>,
    pub(super) removable: bool,
}

/// The inputs of one option, in its column's header.
impl OptionEditor {
    pub(super) fn view(self) -> Html {
        let (i, lang) = (self.index, self.lang);
        let edit = |apply: fn(&mut CompareOption, String)| {
            let (option, on_change) = (self.option.clone(), self.on_change.clone());
            move |value: String| {
                let mut changed = option.clone();
                apply(&mut changed, value);
                on_change.emit((i, changed));
            }
        };
        let on_label = {
            let f = edit(|o, v| o.label = v);
            Callback::from(move |e: InputEvent| f(input_value(&e)))
        };
        let on_gpu = {
            let f = edit(|o, v| o.scenario.gpu = v);
            Callback::from(move |e: Event| f(select_value(&e)))
        };
        // A number box: its value into the option's scenario once it parses.
        let on_number = |apply: fn(&mut Scenario, u32)| {
            let (option, on_change) = (self.option.clone(), self.on_change.clone());
            Callback::from(move |e: InputEvent| {
                if let Ok(n) = input_value(&e).trim().parse() {
                    let mut changed = option.clone();
                    apply(&mut changed.scenario, n);
                    on_change.emit((i, changed));
                }
            })
        };
        let on_cards = on_number(|s, n| s.cards = n);
        let on_tensor = on_number(|s, n| s.tensor_parallel = n);
        let on_batch = on_number(|s, n| s.batch_per_gpu = n);
        let on_interconnect = {
            let f = edit(|o, v| {
                if let Some(ic) = Interconnect::from_id(&v) {
                    o.scenario.interconnect = ic;
                }
            });
            Callback::from(move |e: Event| f(select_value(&e)))
        };
        let on_mode = {
            let f = edit(|o, v| {
                if let Some(mode) = ParallelMode::from_id(&v) {
                    o.scenario.workload.mode = mode;
                }
            });
            Callback::from(move |e: Event| f(select_value(&e)))
        };
        let on_cudnn_benchmark = {
            let f = edit(|o, v| o.scenario.cudnn_benchmark = v == "true");
            Callback::from(move |e: InputEvent| {
                f(e.target_unchecked_into::<HtmlInputElement>()
                    .checked()
                    .to_string())
            })
        };
        let on_remove = {
            let on_remove = self.on_remove.clone();
            Callback::from(move |_: MouseEvent| on_remove.emit(i))
        };
        let s = &self.option.scenario;
        let id = |what: &str| format!("opt-{i}-{what}");
        html! {
            <div class="option-editor">
                <input type="text" aria-label={C::Label.get(lang)} data-testid={id("label")}
                    maxlength={MAX_LABEL_CHARS.to_string()}
                    value={self.option.label.clone()} oninput={on_label} />
                <select aria-label={C::Gpu.get(lang)} data-testid={id("gpu")} onchange={on_gpu}>
                    { for gpu::GPUS.iter().map(|g| html! {
                        <option value={g.id} selected={g.id == s.gpu}>{ g.name }</option>
                    }) }
                </select>
                { number_field(C::Cards.get(lang), id("cards"), s.cards.to_string(), Some(MAX_CARDS), on_cards) }
                { number_field(C::TensorParallel.get(lang), id("tensor"), s.tensor_parallel.to_string(), Some(MAX_CARDS), on_tensor) }
                { number_field(C::Batch.get(lang), id("batch"), s.batch_per_gpu.to_string(), Some(MAX_BATCH), on_batch) }
                <label><input type="checkbox" data-testid={id("cudnn-benchmark")}
                    checked={s.cudnn_benchmark} oninput={on_cudnn_benchmark} />
                    { " " }{ C::CudnnBenchmark.get(lang) }</label>
                <select aria-label={C::Interconnect.get(lang)} data-testid={id("interconnect")} onchange={on_interconnect}>
                    { for Interconnect::ALL.iter().map(|ic| html! {
                        <option value={ic.id()} selected={*ic == s.interconnect}>{ interconnect_name(*ic, lang) }</option>
                    }) }
                </select>
                <select aria-label={C::Mode.get(lang)} data-testid={id("mode")} onchange={on_mode}>
                    { for ParallelMode::ALL.iter().map(|m| html! {
                        <option value={m.id()} selected={*m == s.workload.mode}>{ mode_name(*m, lang) }</option>
                    }) }
                </select>
                if self.removable {
                    { button(id("remove"), C::Remove.get(lang), on_remove) }
                }
            </div>
        }
    }
}
