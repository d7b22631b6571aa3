//! Helpers shared by the tests that hold the docs' figures to the CLI's (doc_*.rs).

use super::{json, run};
use serde_json::Value;

/// A JSON number as `f64`.
pub fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("a number: {v}"))
}

/// `hsi-gpu estimate -` for `scenario`.
pub fn estimate(scenario: &str) -> Value {
    json(&run(&["estimate", "-"], scenario))
}

/// A lever's factor as the table writes it: 2, 1.5.
pub fn factor(v: &Value) -> String {
    let x = f(v);
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        x.to_string()
    }
}

/// Every `said` is in `text`, else the test fails naming the missing ones.
pub fn states(file: &str, text: &str, said: &[String]) {
    let missing: Vec<&String> = said.iter().filter(|s| !text.contains(s.as_str())).collect();
    assert!(missing.is_empty(), "{file} should say: {missing:#?}");
}
