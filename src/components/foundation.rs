//! The sharding and cluster inputs of the "advanced / foundation model" group (drawn by
//! `advanced::advanced_group`): sharding (ZeRO, FSDP) and the network between nodes as
//! selects, optimizer offload as a checkbox, the node and NIC counts and tensor and
//! pipeline parallelism (stages, micro-batches) as number boxes
//! (`assumptions::field_inputs`: a bad number is marked with what is allowed and kept out
//! of the Scenario). A plain function: a component of its own costs the page more bytes.

use serde_json::Value;
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
    let fields = vec![
        ("sharding".to_string(), Value::from(s.sharding.id())),
        ("offload".to_string(), Value::from(s.offload)),
        ("nodes".to_string(), Value::from(s.nodes)),
        ("node_link".to_string(), Value::from(s.node_link.id())),
        ("nics_per_node".to_string(), Value::from(s.nics_per_node)),
        (
            "tensor_parallel".to_string(),
            Value::from(s.tensor_parallel),
        ),
        (
            "pipeline_parallel".to_string(),
            Value::from(s.pipeline_parallel),
        ),
        ("micro_batches".to_string(), Value::from(s.micro_batches)),
    ];
    html! {
        <>
            <p class="help">{ T::AdvancedHelp.get(store.lang) }</p>
            <div class="assumption-grid">{ field_inputs(store, fields) }</div>
        </>
    }
}
