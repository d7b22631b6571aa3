//! The "advanced / foundation model" group of the scenario inputs: the attention kernel,
//! the fine-tuning mode and its LoRA rank, then sharding and nodes (`foundation`). New
//! foundation-model controls go here.

use hsi_gpu_core::scenario::{Attention, FineTune};
use yew::prelude::*;

use crate::components::controls::{typing, Choice, NumberSlider};
use crate::components::foundation::sharding_fields;
use crate::i18n::T;
use crate::state::{lora_rank, Action};
use crate::Store;

/// Largest LoRA rank on the slider (the number box takes up to the core's limit).
const SLIDER_MAX_RANK: u32 = 256;

/// The group, drawn inside the scenario panel (a plain function: a component of its own
/// costs the page more bytes).
pub fn advanced_group(store: &Store) -> Html {
    let lang = store.lang;
    let s = &store.scenario;
    let pairs = |items: &[(&'static str, T)]| -> Vec<(AttrValue, AttrValue)> {
        items
            .iter()
            .map(|(id, t)| (AttrValue::from(*id), AttrValue::from(t.get(lang))))
            .collect()
    };
    let attention = pairs(&[
        (Attention::Sdpa.id(), T::AttentionSdpa),
        (Attention::Math.id(), T::AttentionMath),
    ]);
    let modes = pairs(&[
        ("full", T::FineTuneFull),
        ("frozen", T::FineTuneFrozen),
        ("lora", T::FineTuneLora),
    ]);
    let mode = match s.finetune {
        FineTune::Full => "full",
        FineTune::Frozen { .. } => "frozen",
        FineTune::Lora { .. } => "lora",
    };
    let dispatch = |make: fn(String) -> Option<Action>| {
        let store = store.clone();
        Callback::from(move |v: String| {
            if let Some(action) = make(v) {
                store.dispatch(action);
            }
        })
    };
    let on_rank = {
        let store = store.clone();
        Callback::from(move |r: u32| store.dispatch(Action::LoraRank(r)))
    };
    html! {
        <fieldset class="advanced" data-testid="advanced">
            <legend>{ T::Advanced.get(lang) }</legend>
            { Choice { id: "attention".into(), label: T::Attention.get(lang).into(),
                options: attention, selected: s.attention.id().into(),
                on_change: dispatch(|id| Attention::from_id(&id).map(Action::Attention)) }.view() }
            { Choice { id: "finetune".into(), label: T::FineTune.get(lang).into(), options: modes,
                selected: mode.into(),
                on_change: dispatch(|id| Some(Action::FineTuneMode(id))) }.view() }
            if let Some(rank) = lora_rank(s) {
                { NumberSlider { id: "lora-rank".into(), label: T::LoraRank.get(lang).into(),
                    unit: "".into(), value: rank, min: 1, max: SLIDER_MAX_RANK,
                    max_typed: hsi_gpu_core::foundation::MAX_LORA_RANK, log2: true,
                    typing: typing(store, "lora-rank"), lang, on_change: on_rank }.view() }
            }
            { sharding_fields(store) }
        </fieldset>
    }
}
