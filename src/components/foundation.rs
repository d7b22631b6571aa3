//! The sharding and cluster inputs of the "advanced / foundation model" group: sharding
//! (ZeRO, FSDP), optimizer offload, nodes and the network between them, as the
//! assumptions' text boxes (each label names what is allowed; a bad value is marked and
//! kept out of the Scenario). A plain function, drawn by the scenario panel: a component
//! of its own costs the page more bytes.

use yew::prelude::*;

use crate::components::assumptions::field_inputs;
use crate::i18n::T;
use crate::query;
use crate::Store;

/// The top-level Scenario fields these inputs edit.
const FIELDS: [&str; 5] = ["sharding", "offload", "nodes", "node_link", "nics_per_node"];

/// The group with its legend; the fields alone are `sharding_fields`.
pub fn foundation_group(store: &Store) -> Html {
    html! {
        <fieldset class="advanced" data-testid="advanced">
            <legend>{ T::Advanced.get(store.lang) }</legend>
            { sharding_fields(store) }
        </fieldset>
    }
}

/// Sharding, offload, nodes, network and NICs, with what the estimate's check says.
pub fn sharding_fields(store: &Store) -> Html {
    let fields = query::fields_under(&store.scenario, &FIELDS);
    html! {
        <>
            <p class="help">{ T::AdvancedHelp.get(store.lang) }</p>
            <div class="assumption-grid">{ field_inputs(store, fields) }</div>
        </>
    }
}
