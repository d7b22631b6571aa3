//! Performance model (stub, being written).
use serde::{Deserialize, Serialize};
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PerfAssumptions {}
impl PerfAssumptions {
    pub fn validate(&self, _p: &mut crate::scenario::Problems) {}
}
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PerfReport {}
