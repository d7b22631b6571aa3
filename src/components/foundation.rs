//! The "advanced / foundation model" input group: sharding (ZeRO, FSDP), optimizer
//! offload, nodes and the network between them, as the assumptions' text boxes (each
//! label names what is allowed; a bad value is marked and kept out of the Scenario).

use yew::prelude::*;

use crate::components::assumptions::field_inputs;
use crate::i18n::T;
use crate::query;
use crate::Store;

/// The top-level Scenario fields the group edits.
const FIELDS: [&str; 5] = ["sharding", "offload", "nodes", "node_link", "nics_per_node"];

#[function_component]
pub fn FoundationGroup() -> Html {
    let store = use_context::<Store>().expect("FoundationGroup sits inside the app's store");
    let lang = store.lang;
    let fields = query::fields_under(&store.scenario, &FIELDS);
    html! {
        <details class="advanced" data-testid="advanced">
            <summary>{ T::Advanced.get(lang) }</summary>
            <p class="help">{ T::AdvancedHelp.get(lang) }</p>
            <div class="assumption-grid">{ field_inputs(&store, fields) }</div>
        </details>
    }
}
