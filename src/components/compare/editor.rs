//! The inputs of one option (label, GPU, cards, tensor parallelism, batch, cudnn.benchmark,
//! interconnect, use of the cards) and the small form helpers the view shares.

use hsi_gpu_core::compare::presets::onto_card;
use hsi_gpu_core::compare::{CompareOption, MAX_LABEL_CHARS};
use hsi_gpu_core::gpu;
use hsi_gpu_core::scenario::{Interconnect, ParallelMode};
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;
use yew::TargetCast;

use super::state::{CompareAction, CompareState, NumberField};
use super::text::{mode_name, option_name, C};
use crate::components::controls::NumberBox;
use crate::i18n::{interconnect_name, Lang};

pub(super) fn button(testid: String, label: &str, onclick: Callback<MouseEvent>) -> Html {
    html! { <button type="button" data-testid={testid} onclick={onclick}>{ label }</button> }
}

pub(super) fn select_value(e: &Event) -> String {
    e.target_unchecked_into::<HtmlSelectElement>().value()
}

pub(super) fn input_value(e: &InputEvent) -> String {
    e.target_unchecked_into::<HtmlInputElement>().value()
}

/// A comparison number box that flags what it does not take, as the scenario panel's do.
pub(super) fn number_box(
    field: NumberField,
    label: &str,
    value: Option<f64>,
    state: &CompareState,
    send: &Callback<CompareAction>,
    lang: Lang,
) -> Html {
    let (min, max) = field.allowed();
    NumberBox {
        id: field.id().into(),
        label: AttrValue::from(label.to_string()),
        value,
        min,
        max,
        optional: field.may_be_empty(),
        typing: state.typing(field, send),
        lang,
        on_change: send.reform(move |v| CompareAction::Number(field, v)),
    }
    .view()
}

pub(super) struct OptionEditor<'a> {
    pub(super) index: usize,
    pub(super) option: CompareOption,
    pub(super) lang: Lang,
    /// For the number boxes' rejected text.
    pub(super) state: &'a CompareState,
    pub(super) send: Callback<CompareAction>,
    pub(super) removable: bool,
}

/// The inputs of one option, in its column's header.
impl OptionEditor<'_> {
    pub(super) fn view(self) -> Html {
        let (i, lang) = (self.index, self.lang);
        let edit = |apply: fn(&mut CompareOption, String)| {
            let (option, send) = (self.option.clone(), self.send.clone());
            move |value: String| {
                let mut changed = option.clone();
                apply(&mut changed, value);
                send.emit(CompareAction::SetOption(i, changed));
            }
        };
        let on_label = {
            let f = edit(|o, v| o.label = v);
            Callback::from(move |e: InputEvent| f(input_value(&e)))
        };
        let on_gpu = {
            // A topology the new card lacks becomes the one the estimate would use.
            let f = edit(|o, v| {
                onto_card(&mut o.scenario, &v);
                o.scenario.interconnect = hsi_gpu_core::linked(&o.scenario).0.interconnect;
            });
            Callback::from(move |e: Event| f(select_value(&e)))
        };
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
        let on_remove = self
            .send
            .reform(move |_: MouseEvent| CompareAction::Remove(i));
        let s = &self.option.scenario;
        let id = |what: &str| format!("opt-{i}-{what}");
        let number = |field, label: C, value: u32| {
            let value = Some(f64::from(value));
            number_box(field, label.get(lang), value, self.state, &self.send, lang)
        };
        html! {
            <div class="option-editor">
                <input type="text" aria-label={C::Label.get(lang)} data-testid={id("label")}
                    maxlength={MAX_LABEL_CHARS.to_string()} placeholder={option_name("", i, lang)}
                    value={self.option.label.clone()} oninput={on_label} />
                <select aria-label={C::Gpu.get(lang)} data-testid={id("gpu")} onchange={on_gpu}>
                    { for gpu::GPUS.iter().map(|g| html! {
                        <option value={g.id} selected={g.id == s.gpu}>{ g.name }</option>
                    }) }
                </select>
                { number(NumberField::Cards(i), C::Cards, s.cards) }
                { number(NumberField::TensorParallel(i), C::TensorParallel, s.tensor_parallel) }
                { number(NumberField::Batch(i), C::Batch, s.batch_per_gpu) }
                <label><input type="checkbox" data-testid={id("cudnn-benchmark")}
                    checked={s.cudnn_benchmark} oninput={on_cudnn_benchmark} />
                    { " " }{ C::CudnnBenchmark.get(lang) }</label>
                <select aria-label={C::Interconnect.get(lang)} data-testid={id("interconnect")} onchange={on_interconnect}>
                    { for hsi_gpu_core::interconnect_choices(s).iter().map(|ic| html! {
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
