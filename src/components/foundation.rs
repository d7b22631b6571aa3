//! The sharding and cluster inputs of the "advanced / foundation model" group (drawn by
//! `advanced::advanced_group`): sharding
//! (ZeRO, FSDP), optimizer offload, nodes and the network between them, tensor and
//! pipeline parallelism (stages, micro-batches), as the
//! assumptions' text boxes (each label names what is allowed; a bad value is marked and
//! kept out of the Scenario). A plain function: a component of its own costs the page
//! more bytes.

use yew::prelude::*;

use crate::components::assumptions::field_inputs;
use crate::i18n::T;
use crate::Store;

/// Sharding, offload, nodes, network, NICs, tensor and pipeline parallelism, with what the
/// estimate's check says.
pub fn sharding_fields(store: &Store) -> Html {
    // Read from the fields themselves: serialising the whole Scenario on every slider
    // move would cost more.
    let s = &store.scenario;
    let fields = [
        ("sharding", s.sharding.id().to_string()),
        ("offload", s.offload.to_string()),
        ("nodes", s.nodes.to_string()),
        ("node_link", s.node_link.id().to_string()),
        ("nics_per_node", s.nics_per_node.to_string()),
        ("tensor_parallel", s.tensor_parallel.to_string()),
        ("pipeline_parallel", s.pipeline_parallel.to_string()),
        ("micro_batches", s.micro_batches.to_string()),
    ]
    .map(|(path, value)| (path.to_string(), value))
    .to_vec();
    html! {
        <>
            <p class="help">{ T::AdvancedHelp.get(store.lang) }</p>
            <div class="assumption-grid">{ field_inputs(store, fields) }</div>
        </>
    }
}
