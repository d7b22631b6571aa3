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
use crate::json::{self, FromJson};
use crate::problems::FieldError;
use crate::scenario::{ModelChoice, Precision, Scenario, MAX_JSON_BYTES};

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
        allowed: format!("one JSON object: {what} (see README)"),
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
            error: document_error(e.to_string(), what),
            line,
            column,
        }
    })
}

/// Reads a document as a `T`; a field's error is placed on its line.
fn read<T: FromJson>(text: &str, what: &str) -> Result<T, ImportError> {
    let value = parse_value(text, what)?;
    json::read_document(&value, "(document)").map_err(|e| located(text, e, &[]))
}

/// One step of a field path: `layers[3].kernel` is Key(layers), Index(3), Key(kernel).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// The steps of a field path as `FieldError` writes it; anything after a space (the
/// analysis adds "(conv 'name')") is a description, not path.
fn path_steps(field: &str) -> Vec<Step<'_>> {
    let path = field.split(' ').next().unwrap_or("");
    let mut steps = Vec::new();
    for part in path.split('.') {
        let mut pieces = part.split('[');
        if let Some(key) = pieces.next().filter(|k| !k.is_empty()) {
            steps.push(Step::Key(key));
        }
        for index in pieces {
            match index.trim_end_matches(']').parse() {
                Ok(i) => steps.push(Step::Index(i)),
                Err(_) => return steps,
            }
        }
    }
    steps
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// End of the string starting at `b[i] == b'"'` (just past its closing quote).
fn skip_string(b: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < b.len() && b[i] != b'"' {
        i += if b[i] == b'\\' { 2 } else { 1 };
    }
    i + 1
}

/// End of the JSON value starting at `i` (no recursion: nesting is counted).
fn skip_value(b: &[u8], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i = skip_string(b, i);
                if depth == 0 {
                    return i;
                }
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            b',' | b'}' | b']' if depth == 0 => return i,
            _ => {}
        }
        i += 1;
    }
    i
}

/// Byte offset of the value at `steps` in valid JSON `text`; as deep as the path can be
/// followed.
fn locate(text: &str, steps: &[Step]) -> usize {
    let b = text.as_bytes();
    let mut at = skip_ws(b, 0);
    for step in steps {
        let (open, close) = match step {
            Step::Key(_) => (b'{', b'}'),
            Step::Index(_) => (b'[', b']'),
        };
        if b.get(at) != Some(&open) {
            return at;
        }
        let mut i = skip_ws(b, at + 1);
        let mut index = 0usize;
        let found = loop {
            if i >= b.len() || b[i] == close {
                break None;
            }
            let value_start = match step {
                Step::Key(key) => {
                    let end = skip_string(b, i);
                    let name = text.get(i + 1..end.saturating_sub(1)).unwrap_or("");
                    let colon = skip_ws(b, end);
                    let start = skip_ws(b, colon + 1);
                    if name == *key {
                        break Some(i);
                    }
                    start
                }
                Step::Index(wanted) => {
                    if index == *wanted {
                        break Some(i);
                    }
                    i
                }
            };
            i = skip_ws(b, skip_value(b, value_start));
            if b.get(i) == Some(&b',') {
                i = skip_ws(b, i + 1);
            }
            index += 1;
        };
        match (found, step) {
            (None, _) => return at,
            (Some(key_at), Step::Key(_)) => {
                let colon = skip_ws(b, skip_string(b, key_at));
                at = skip_ws(b, colon + 1);
            }
            (Some(element_at), Step::Index(_)) => at = element_at,
        }
    }
    at
}

/// Line and column (from 1, in characters) of byte `offset`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
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

/// Keys of the top-level object of `text`, as far as it reads as one (a scanner, not a
/// parser: whatever it misses, the import that follows reports).
fn top_level_keys(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let mut keys = Vec::new();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return keys;
    }
    i = skip_ws(b, i + 1);
    while b.get(i) == Some(&b'"') {
        let end = skip_string(b, i);
        let colon = skip_ws(b, end);
        if b.get(colon) != Some(&b':') {
            break;
        }
        keys.extend(text.get(i + 1..end - 1));
        i = skip_ws(b, skip_value(b, skip_ws(b, colon + 1)));
        if b.get(i) != Some(&b',') {
            break;
        }
        i = skip_ws(b, i + 1);
    }
    keys
}

/// Imports any of the three documents, told apart by their top-level keys: `options`
/// makes a Comparison, `layers` a model layer list, anything else a Scenario.
pub fn import_any(text: &str) -> Result<Imported, Vec<ImportError>> {
    let keys = top_level_keys(text);
    if keys.contains(&"options") {
        import_comparison(text).map(Imported::Comparison)
    } else if keys.contains(&"layers") {
        import_model_spec(text).map(Imported::ModelSpec)
    } else {
        import_scenario(text).map(|s| Imported::Scenario(Box::new(s)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_split_into_keys_and_indices() {
        assert_eq!(
            path_steps("options[2].scenario.layers[10] (conv 'c')"),
            vec![
                Step::Key("options"),
                Step::Index(2),
                Step::Key("scenario"),
                Step::Key("layers"),
                Step::Index(10)
            ]
        );
    }

    #[test]
    fn locate_finds_nested_keys_and_elements() {
        let text = "{\n \"a\": {\"s\": \"x,]}\"},\n \"layers\": [\n  {\"k\": [1, 2]},\n  {\"k\": 3}\n ]\n}";
        let at = locate(text, &[Step::Key("layers"), Step::Index(1)]);
        assert_eq!(line_column(text, at), (5, 3));
        assert!(text[at..].starts_with("{\"k\": 3}"));
        let missing = locate(text, &[Step::Key("nope")]);
        assert_eq!(missing, 0);
    }

    #[test]
    fn top_level_keys_skip_nested_objects() {
        let text = r#" { "a": {"options": 1}, "b" : [1, {"c": 2}], "layers": "x,}" , "d": 3 }"#;
        assert_eq!(top_level_keys(text), vec!["a", "b", "layers", "d"]);
        assert!(top_level_keys("[1]").is_empty());
        assert_eq!(top_level_keys("{\"a\": 1, \"b"), vec!["a"]);
    }
}
