//! Importing a Scenario, a Comparison or a custom model layer list from pasted or loaded
//! JSON. Every problem names its field path and, where it can be found, the line and
//! column of the offending text, so the UI can show the error next to it.
//!
//! Hostile input is bounded: documents over `MAX_JSON_BYTES` are refused before parsing,
//! serde_json stops nesting at 128 levels, and numbers out of a field's range fail to
//! parse or fail validation.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Comparison;
use crate::graph::ModelSpec;
use crate::json::MAX_JSON_BYTES;
use crate::json::{self, FromJson};
use crate::problems::FieldError;
use crate::scenario::{ModelChoice, Precision, Scenario};

use super::locate::{line_column, locate, path_steps, top_level_keys, Step};

/// One problem with imported text. `line` and `column` count from 1.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportError {
    #[serde(flatten)]
    pub error: FieldError,
    pub line: Option<usize>,
    pub column: Option<usize>,
}

impl std::fmt::Display for ImportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "line {l}, column {c}: {}", self.error),
            _ => write!(f, "{}", self.error),
        }
    }
}

fn document_error(value: String, what: &str) -> FieldError {
    FieldError {
        field: "(document)".into(),
        value,
        allowed: format!("one JSON object: {what} (see docs/formats.md)"),
    }
}

/// serde_json's position of an error (line 0 means none).
fn position(e: &serde_json::Error) -> (Option<usize>, Option<usize>) {
    match e.line() {
        0 => (None, None),
        line => (Some(line), Some(e.column())),
    }
}

/// One JSON object as a `Value`; a syntax error has serde_json's position.
fn parse_value(text: &str, what: &str) -> Result<Value, ImportError> {
    let unlocated = |error| ImportError {
        error,
        line: None,
        column: None,
    };
    if text.len() > MAX_JSON_BYTES {
        return Err(unlocated(FieldError {
            field: "(document)".into(),
            value: format!("{} bytes", text.len()),
            allowed: format!("at most {MAX_JSON_BYTES} bytes of JSON"),
        }));
    }
    if !text.trim_start().starts_with('{') {
        return Err(unlocated(document_error("not a JSON object".into(), what)));
    }
    serde_json::from_str(text).map_err(|e| {
        let (line, column) = position(&e);
        ImportError {
            error: document_error(json::syntax_error_words(&e, text), what),
            line,
            column,
        }
    })
}

/// The text without the byte-order mark Windows editors write first (invisible, and not
/// JSON).
fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Reads a document (without its byte-order mark: the callers take it off, so that their
/// positions count from the same text) as a `T`; a field's error is placed on its line.
fn read<T: FromJson>(text: &str, what: &str) -> Result<T, ImportError> {
    let value = parse_value(text, what)?;
    json::read_document(&value, "(document)").map_err(|e| located(text, e, &[]))
}

/// Attaches the position of `error.field` (written under `prefix` in `text`).
fn located(text: &str, error: FieldError, prefix: &[Step]) -> ImportError {
    let mut steps = prefix.to_vec();
    steps.extend(path_steps(&error.field));
    let (line, column) = line_column(text, locate(text, &steps));
    ImportError {
        error,
        line: Some(line),
        column: Some(column),
    }
}

/// A custom model's analysis names `model.layers[i]`; in Scenario JSON the layer list
/// sits under `model.spec`.
fn scenario_path(s: &Scenario, field: &str) -> String {
    match (&s.model, field.strip_prefix("model.")) {
        (ModelChoice::Custom { .. }, Some(rest)) if !rest.starts_with("spec") => {
            format!("model.spec.{rest}")
        }
        _ => field.to_string(),
    }
}

/// Every problem `estimate` finds, with the scenario's field paths.
fn scenario_problems(s: &Scenario) -> Vec<FieldError> {
    crate::estimate(s)
        .err()
        .unwrap_or_default()
        .into_iter()
        .map(|mut e| {
            e.field = scenario_path(s, &e.field);
            e
        })
        .collect()
}

/// A Scenario from JSON, checked as `estimate` checks it. Parsed like
/// `scenario::scenario_from_json` (missing fields take their defaults), with positions.
pub fn import_scenario(text: &str) -> Result<Scenario, Vec<ImportError>> {
    let text = without_bom(text);
    let s = read::<Scenario>(text, "a Scenario").map_err(|e| vec![e])?;
    let problems = scenario_problems(&s);
    if problems.is_empty() {
        Ok(s)
    } else {
        Err(problems
            .into_iter()
            .map(|e| located(text, e, &[]))
            .collect())
    }
}

/// A Comparison (options and decision inputs) from JSON; every option's scenario is
/// checked.
pub fn import_comparison(text: &str) -> Result<Comparison, Vec<ImportError>> {
    let text = without_bom(text);
    let c: Comparison = read(text, "a Comparison").map_err(|e| vec![e])?;
    let mut errors: Vec<ImportError> = c
        .validate()
        .into_iter()
        .map(|e| located(text, e, &[]))
        .collect();
    for (i, option) in c.options.iter().enumerate() {
        let prefix = [Step::Key("options"), Step::Index(i), Step::Key("scenario")];
        errors.extend(
            scenario_problems(&option.scenario)
                .into_iter()
                .map(|mut e| {
                    let at = located(text, e.clone(), &prefix);
                    e.field = format!("options[{i}].scenario.{}", e.field);
                    ImportError { error: e, ..at }
                }),
        );
    }
    if errors.is_empty() {
        Ok(c)
    } else {
        Err(errors)
    }
}

/// A custom model layer list (`ModelSpec` JSON), checked by analysing one sample.
pub fn import_model_spec(text: &str) -> Result<ModelSpec, Vec<ImportError>> {
    let text = without_bom(text);
    let spec = read::<ModelSpec>(text, "a model layer list").map_err(|e| vec![e])?;
    match crate::analysis::analyze(&spec, 1, Precision::Fp32) {
        Ok(_) => Ok(spec),
        Err(mut e) => {
            // The analysis names fields as in a Scenario (`model.layers[i]`).
            if let Some(rest) = e.field.strip_prefix("model.") {
                e.field = rest.to_string();
            }
            Err(vec![located(text, e, &[])])
        }
    }
}

/// What a pasted or loaded document turned out to be.
#[derive(Clone, Debug, PartialEq)]
pub enum Imported {
    Comparison(Comparison),
    Scenario(Box<Scenario>),
    ModelSpec(ModelSpec),
}

/// Imports any of the three documents, told apart by their top-level keys: `options`
/// makes a Comparison, `layers` a model layer list, anything else a Scenario.
pub fn import_any(text: &str) -> Result<Imported, Vec<ImportError>> {
    let keys = top_level_keys(without_bom(text));
    if keys.contains(&"options") {
        import_comparison(text).map(Imported::Comparison)
    } else if keys.contains(&"layers") {
        import_model_spec(text).map(Imported::ModelSpec)
    } else {
        import_scenario(text).map(|s| Imported::Scenario(Box::new(s)))
    }
}
