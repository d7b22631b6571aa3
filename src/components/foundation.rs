//! The "advanced / foundation model" input group: sharding (ZeRO, FSDP), optimizer
//! offload, nodes and the network between them. Every control writes its Scenario field
//! through `Action::Field`, so this group needs no actions of its own.

use hsi_gpu_core::scenario::{self, NodeLink, Sharding};
use yew::prelude::*;

use crate::components::controls::{Choice, NumberSlider, Toggle};
use crate::i18n::{self, T};
use crate::state::Action;
use crate::Store;

#[function_component]
pub fn FoundationGroup() -> Html {
    let store = use_context::<Store>().expect("FoundationGroup sits inside the app's store");
    let lang = store.lang;
    let s = &store.scenario;
    let set = |path: &'static str| {
        let store = store.clone();
        Callback::from(move |text: String| {
            store.dispatch(Action::Field {
                path: path.into(),
                text,
            })
        })
    };
    let shardings: Vec<(AttrValue, AttrValue)> = Sharding::ALL
        .iter()
        .map(|v| (v.id().into(), i18n::sharding_name(*v, lang).into()))
        .collect();
    let links: Vec<(AttrValue, AttrValue)> = NodeLink::ALL
        .iter()
        .map(|v| (v.id().into(), i18n::node_link_name(*v).into()))
        .collect();
    html! {
        <details class="advanced" open={s.sharding != Sharding::None || s.nodes > 1}>
            <summary>{ T::Advanced.get(lang) }</summary>
            <p class="help">{ T::AdvancedHelp.get(lang) }</p>
            <Choice id="sharding" label={i18n::field_label("sharding", lang)} options={shardings}
                selected={s.sharding.id()} on_change={set("sharding")} />
            <Toggle id="offload" label={i18n::field_label("offload", lang)} checked={s.offload}
                on_change={set("offload").reform(|on: bool| on.to_string())} />
            <NumberSlider id="nodes" label={i18n::field_label("nodes", lang)} unit="×"
                value={s.nodes} min={1} max={scenario::MAX_NODES} max_typed={scenario::MAX_NODES}
                on_change={set("nodes").reform(|n: u32| n.to_string())} />
            if s.nodes > 1 {
                <Choice id="node-link" label={i18n::field_label("node_link", lang)} options={links}
                    selected={s.node_link.id()} on_change={set("node_link")} />
                <NumberSlider id="nics" label={i18n::field_label("nics_per_node", lang)} unit="×"
                    value={s.nics_per_node} min={1} max={16} max_typed={16}
                    on_change={set("nics_per_node").reform(|n: u32| n.to_string())} />
            }
        </details>
    }
}
