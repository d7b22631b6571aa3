//! Cost model (stub, being written).
use serde::{Deserialize, Serialize};
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CostAssumptions {}
impl CostAssumptions {
    pub fn validate(&self, _p: &mut crate::scenario::Problems) {}
}
