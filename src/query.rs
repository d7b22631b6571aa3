//! Scenario <-> URL query string. Pure (no browser API), so `cargo test` checks it natively.
//!
//! Format: one readable parameter per Scenario field that differs from the default, named
//! by its JSON path: `?bands=200&patch=9&gpu=rtx_4090&memory.headroom=0.3`. Strings are
//! written as they are, numbers and booleans as JSON, lists (a custom model's layers) as
//! JSON text. A link therefore names only what was changed and stays short, and every
//! field, including assumptions added to the core later, round-trips without a table here.
//!
//! Parsing never fails: a parameter that is malformed, unknown or out of range is dropped
//! (the default stays) and reported as a `Notice` the page shows.
//! `lang`, `embed` and `present` are view settings, not part of the Scenario.

use hsi_gpu_core::foundation::{FineTune, LORA_RANK};
use hsi_gpu_core::json::{self, ToJson};
use hsi_gpu_core::scenario::{scenario_from_value, ModelChoice};
use hsi_gpu_core::zoo;
use hsi_gpu_core::Scenario;
use serde_json::{Map, Value};

use crate::i18n::Lang;

/// One query parameter that could not be used, and why (shown to the user).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    pub key: String,
    pub value: String,
    pub reason: String,
}

/// View settings carried in the URL next to the Scenario.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ViewParams {
    pub lang: Option<Lang>,
    pub embed: bool,
    pub presentation: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    pub scenario: Scenario,
    /// True when the query named at least one Scenario field (so it wins over storage).
    pub has_scenario: bool,
    pub view: ViewParams,
    pub notices: Vec<Notice>,
}

const LANG_KEY: &str = "lang";
const EMBED_KEY: &str = "embed";
const PRESENT_KEY: &str = "present";

/// The query string (without `?`) that reproduces `scenario` and `view`.
pub fn to_query(scenario: &Scenario, view: &ViewParams) -> String {
    let current = to_value(scenario);
    let default = to_value(&Scenario::default());
    let mut current_leaves = Vec::new();
    flatten("", &current, &mut current_leaves);
    let mut default_leaves = Vec::new();
    flatten("", &default, &mut default_leaves);

    let mut pairs: Vec<(String, String)> = current_leaves
        .into_iter()
        .filter(|leaf| !default_leaves.contains(leaf))
        .map(|(key, value)| (key, leaf_text(&value)))
        .collect();
    if let Some(lang) = view.lang {
        pairs.push((LANG_KEY.into(), lang.code().into()));
    }
    if view.embed {
        pairs.push((EMBED_KEY.into(), "1".into()));
    }
    if view.presentation {
        pairs.push((PRESENT_KEY.into(), "1".into()));
    }
    pairs
        .iter()
        .map(|(k, v)| format!("{}={}", encode_component(k), encode_component(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// Reads a query string (with or without the leading `?`).
pub fn parse_query(query: &str) -> Parsed {
    let mut view = ViewParams::default();
    let mut notices = Vec::new();
    let mut fields: Vec<(String, String)> = Vec::new();

    for pair in query.trim_start_matches('?').split('&') {
        if pair.is_empty() {
            continue;
        }
        let (raw_key, raw_value) = pair.split_once('=').unwrap_or((pair, ""));
        let key = decode_component(raw_key);
        let text = decode_component(raw_value);
        match key.as_str() {
            LANG_KEY => match Lang::from_code(&text) {
                Some(lang) => view.lang = Some(lang),
                None => notices.push(notice(&key, &text, "en, zh")),
            },
            EMBED_KEY => view.embed = is_true(&text),
            PRESENT_KEY => view.presentation = is_true(&text),
            _ => fields.push((key, text)),
        }
    }

    // No field (a plain link, nothing saved: most first visits): the default as it is,
    // without the JSON round trip below, which would cost the page's start a few ms.
    if fields.is_empty() {
        return Parsed {
            has_scenario: false,
            scenario: Scenario::default(),
            view,
            notices,
        };
    }

    // Fields under one top-level key go in together first: a custom model needs
    // model.kind and model.spec at once. A group that fails is retried field by field so
    // that only the bad fields are dropped.
    let mut value = to_value(&Scenario::default());
    let mut applied: Vec<(String, String)> = Vec::new();
    let mut groups: Vec<(&str, Vec<&(String, String)>)> = Vec::new();
    for field in &fields {
        let top = field.0.split('.').next().unwrap_or_default();
        match groups.iter_mut().find(|(t, _)| *t == top) {
            Some((_, members)) => members.push(field),
            None => groups.push((top, vec![field])),
        }
    }
    for (_, members) in groups {
        if let Some(updated) = apply(&value, &members) {
            value = updated;
            applied.extend(members.into_iter().cloned());
            continue;
        }
        for field in members {
            match apply_one(&value, field) {
                Ok(updated) => {
                    value = updated;
                    applied.push(field.clone());
                }
                Err(reason) => notices.push(notice(&field.0, &field.1, &reason)),
            }
        }
    }

    // Values that parse but are out of range: put the default back, say which.
    let defaults = to_value(&Scenario::default());
    let mut scenario = from_value(&value).unwrap_or_default();
    for problem in scenario.validate() {
        if let Some((key, text)) = applied.iter().find(|(k, _)| *k == problem.field) {
            notices.push(notice(key, text, &problem.allowed));
            if let Some(default_leaf) = get_path(&defaults, key) {
                set_value(&mut value, key, default_leaf.clone());
            }
        }
    }
    scenario = from_value(&value).unwrap_or_default();
    let scenario = with_buildable_model(scenario, &applied, &mut notices);

    Parsed {
        has_scenario: !applied.is_empty(),
        scenario,
        view,
        notices,
    }
}

/// `scenario` with a model the core can build, as the page needs to draw anything: a
/// patch the preset cannot take becomes the preset's own (as choosing the preset on the
/// page does), and a field from the link that the model cannot be built with (an unknown
/// preset id) goes back to its default, each with a notice where the link named it. Else
/// the page would show nothing but the error, and save the link that caused it.
fn with_buildable_model(
    mut scenario: Scenario,
    applied: &[(String, String)],
    notices: &mut Vec<Notice>,
) -> Scenario {
    let defaults = to_value(&Scenario::default());
    // Each round changes the patch or puts a field back to its default, so this ends.
    for _ in 0..=applied.len() + 1 {
        let Err(problem) = hsi_gpu_core::build_model(&scenario) else {
            break;
        };
        let from_link = |key: &str| applied.iter().find(|(k, _)| k == key);
        let own_patch = match &scenario.model {
            ModelChoice::Preset { id, .. } => zoo::zoo_entry(id).map(|e| e.default_patch),
            ModelChoice::Custom { .. } => None,
        };
        if let Some(patch) = own_patch.filter(|&p| problem.field == "patch" && p != scenario.patch)
        {
            if let Some((key, text)) = from_link("patch") {
                notices.push(notice(key, text, &problem.allowed));
            }
            scenario.patch = patch;
            continue;
        }
        let mut value = to_value(&scenario);
        let not_default =
            |key: &&(String, String)| get_path(&value, &key.0) != get_path(&defaults, &key.0);
        // The field the model names, else the link's model fields that led there.
        let mut culprits: Vec<&(String, String)> = from_link(&problem.field)
            .filter(not_default)
            .into_iter()
            .collect();
        if culprits.is_empty() {
            culprits = applied
                .iter()
                .filter(|(k, _)| k.starts_with("model."))
                .filter(not_default)
                .collect();
        }
        if culprits.is_empty() {
            // Nothing from the link to put back: the page says why it cannot estimate.
            break;
        }
        for (key, text) in culprits {
            notices.push(notice(key, text, &problem.allowed));
            if let Some(default_leaf) = get_path(&defaults, key) {
                set_value(&mut value, key, default_leaf.clone());
            }
        }
        match from_value(&value) {
            Ok(fixed) => scenario = fixed,
            Err(_) => break,
        }
    }
    scenario
}

/// Sets the field at dotted `path` from user text (a query value or an input box), parsed
/// by the type of the value already there. Used by the query and by the assumptions panel.
pub fn set_field(scenario: &Scenario, path: &str, text: &str) -> Result<Scenario, String> {
    let mut value = to_value(scenario);
    set_path(&mut value, path, text)?;
    from_value(&value)
}

/// Every scalar field under the objects at `prefixes` (e.g. "memory"), as (path, value text).
pub fn fields_under(scenario: &Scenario, prefixes: &[&str]) -> Vec<(String, String)> {
    values_under(scenario, prefixes)
        .into_iter()
        .map(|(key, value)| (key, leaf_text(&value)))
        .collect()
}

/// Every scalar field under the objects at `prefixes`, as (path, JSON value): the page
/// draws a flag as a checkbox, an enum id as a select and a number as a box.
pub fn values_under(scenario: &Scenario, prefixes: &[&str]) -> Vec<(String, Value)> {
    let value = to_value(scenario);
    let mut leaves = Vec::new();
    for prefix in prefixes {
        if let Some(section) = get_path(&value, prefix) {
            flatten(prefix, section, &mut leaves);
        }
    }
    leaves
}

/// `value` with every field set, if the result is a Scenario that keeps all of them.
fn apply(value: &Value, fields: &[&(String, String)]) -> Option<Value> {
    let mut candidate = value.clone();
    for (key, text) in fields {
        set_path(&mut candidate, key, text).ok()?;
    }
    let scenario = from_value(&candidate).ok()?;
    fields
        .iter()
        .all(|(key, _)| kept_field(&scenario, key).is_ok())
        .then_some(candidate)
}

/// `value` with one field set, or why it cannot be.
fn apply_one(value: &Value, (key, text): &(String, String)) -> Result<Value, String> {
    let mut candidate = value.clone();
    set_path(&mut candidate, key, text)?;
    kept_field(&from_value(&candidate)?, key)?;
    Ok(candidate)
}

/// A key that does not survive a round trip (the other model kind's field) was not a
/// field, and the user should hear so.
fn kept_field(scenario: &Scenario, key: &str) -> Result<(), String> {
    match get_path(&to_value(scenario), key) {
        Some(_) => Ok(()),
        None => Err("not a field of the scenario".into()),
    }
}

fn notice(key: &str, value: &str, reason: &str) -> Notice {
    Notice {
        key: key.into(),
        value: value.into(),
        reason: reason.into(),
    }
}

fn is_true(text: &str) -> bool {
    matches!(text, "1" | "true" | "yes")
}

fn to_value(scenario: &Scenario) -> Value {
    scenario.to_json()
}

fn from_value(value: &Value) -> Result<Scenario, String> {
    scenario_from_value(value).map_err(|e| e.to_string())
}

/// Leaves of a JSON object as (dotted path, value); lists and scalars are leaves.
fn flatten(prefix: &str, value: &Value, out: &mut Vec<(String, Value)>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let path = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                flatten(&path, child, out);
            }
        }
        leaf => out.push((prefix.to_string(), leaf.clone())),
    }
}

/// Text of a leaf: strings as they are, an unset optional field as empty text.
pub fn leaf_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => json::to_text(other),
    }
}

fn get_path<'a>(value: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.')
        .try_fold(value, |node, key| node.as_object()?.get(key))
}

/// Parses `text` as the type of the value at `path` (a string stays a string) and stores it.
fn set_path(root: &mut Value, path: &str, text: &str) -> Result<(), String> {
    let parsed = match get_path(root, path) {
        // Empty text unsets an optional field (back to the core's default for it); a
        // required field then fails to deserialise and is reported.
        _ if text.trim().is_empty() => Value::Null,
        Some(Value::String(_)) => Value::String(text.into()),
        Some(Value::Number(_)) | Some(Value::Bool(_)) | Some(Value::Array(_)) => {
            // "4." and ".5", on the way to "4.5" typed key by key, read as "4.0" and "0.5"
            // (not `str::parse`: its float reader would cost the page 15 kB).
            let t = text.trim();
            let zero = |dot: bool| if dot && t.len() > 1 { "0" } else { "" };
            let t = format!("{}{t}{}", zero(t.starts_with('.')), zero(t.ends_with('.')));
            // Text that reads as no value goes on as text: the field's reader then
            // refuses it with what the field allows ("an integer from 1 to 4096").
            serde_json::from_str(&t).unwrap_or_else(|_| Value::String(text.into()))
        }
        Some(Value::Object(_)) => return Err("a group of fields, not one value".into()),
        // Optional fields that are absent by default (a preset's width) and a custom
        // model's spec: JSON if it reads as JSON, else a plain string.
        Some(Value::Null) | None => {
            serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.into()))
        }
    };
    if path.is_empty() || path.split('.').any(str::is_empty) {
        return Err("not a field name".into());
    }
    let kind = (path == "model.kind").then(|| parsed.as_str().map(String::from));
    let mode = (path == "finetune.mode").then(|| parsed.as_str().map(String::from));
    set_value(root, path, parsed);
    // A link may name the fine-tuning mode alone: the mode's other fields are the page's
    // (those the link gave, before or after, are kept), another mode's are dropped.
    if let (Some(mode), Some(old)) = (mode.flatten(), root.get_mut("finetune")) {
        let mut fresh = FineTune::for_mode(&mode, LORA_RANK).to_json();
        if let (Some(map), Some(given)) = (fresh.as_object_mut(), old.as_object()) {
            for (key, value) in given {
                if map.contains_key(key) {
                    map.insert(key.clone(), value.clone());
                }
            }
        }
        *old = fresh;
    }
    // A model of another kind keeps only its own fields (a preset's id is not a custom
    // model's), so a link may switch the kind before or after setting the fields.
    if let Some(known) = kind.flatten().as_deref().and_then(ModelChoice::fields_of) {
        if let Some(model) = root.get_mut("model").and_then(Value::as_object_mut) {
            // Kept fields moved into the emptied map rather than `retain`: the page removes
            // from no other JSON map, and removal brings the B-tree's rebalancing code.
            let all = std::mem::take(model);
            model.extend(
                all.into_iter()
                    .filter(|(key, _)| known.contains(&key.as_str())),
            );
        }
    }
    Ok(())
}

fn set_value(root: &mut Value, path: &str, leaf: Value) {
    let mut node = root;
    let mut keys = path.split('.').peekable();
    while let Some(key) = keys.next() {
        if !node.is_object() {
            *node = Value::Object(Map::new());
        }
        let map = node.as_object_mut().expect("made an object above");
        if keys.peek().is_none() {
            map.insert(key.into(), leaf);
            return;
        }
        node = map.entry(key).or_insert_with(|| Value::Object(Map::new()));
    }
}

/// Percent-encodes everything but RFC 3986 unreserved characters (UTF-8 bytes).
pub fn encode_component(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Decodes `%XX` escapes and `+` (form encoding's space); a broken escape stays as typed.
pub fn decode_component(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => match bytes.get(i + 1..i + 3).and_then(|h| hex_pair(h[0], h[1])) {
                Some(byte) => {
                    out.push(byte);
                    i += 2;
                }
                None => out.push(b'%'),
            },
            other => out.push(other),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex_pair(high: u8, low: u8) -> Option<u8> {
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    Some(digit(high)? * 16 + digit(low)?)
}

#[cfg(test)]
mod tests;
