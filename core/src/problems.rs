//! Errors every reader and check reports: a `FieldError` names the field path, the value
//! it holds and what is allowed; `Problems` collects them while validating. The bottom of
//! the core: it imports nothing from the crate.

use serde::{Deserialize, Serialize};

/// One problem with an input: which field, what it holds, what is allowed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldError {
    pub field: String,
    pub value: String,
    pub allowed: String,
}

impl FieldError {
    /// The same error one level down, under `key` (a field name, or `[i]` for a list
    /// element): `kernel` under `layers[3]` is `layers[3].kernel`.
    pub fn at(self, key: &str) -> FieldError {
        let field = match self.field.as_str() {
            "" => key.into(),
            f if f.starts_with('[') => format!("{key}{f}"),
            f => format!("{key}.{f}"),
        };
        FieldError { field, ..self }
    }
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: got {}; allowed: {}",
            self.field, self.value, self.allowed
        )
    }
}

/// Collects field errors while validating.
#[derive(Default)]
pub struct Problems(pub Vec<FieldError>);

impl Problems {
    pub fn push(&mut self, field: &str, value: impl ToString, allowed: impl ToString) {
        self.0.push(FieldError {
            field: field.into(),
            value: value.to_string(),
            allowed: allowed.to_string(),
        });
    }

    /// Records an error unless `lo <= value <= hi`.
    pub fn range_u64(&mut self, field: &str, value: u64, lo: u64, hi: u64) {
        if value < lo || value > hi {
            self.push(field, value, format!("an integer from {lo} to {hi}"));
        }
    }

    /// Records an error unless `value` is finite and `lo <= value <= hi`. A huge or tiny
    /// value is written in exponent form (1e300, not 301 digits).
    pub fn range_f64(&mut self, field: &str, value: f64, lo: f64, hi: f64) {
        if !value.is_finite() || value < lo || value > hi {
            let text = if value != 0.0 && !(1e-6..1e15).contains(&value.abs()) {
                format!("{value:e}")
            } else {
                value.to_string()
            };
            self.push(field, text, format!("a number from {lo} to {hi}"));
        }
    }
}
