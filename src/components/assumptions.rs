//! Editable assumptions: every scalar field of the Scenario's memory, perf, cost and
//! workload sections, listed from the Scenario itself so new core assumptions appear here
//! without UI changes. A flag is a checkbox, an enum a select (its labels in
//! `i18n::choice_labels`), a number a text box.

use serde_json::Value;
use yew::prelude::*;
use yew::TargetCast;

use web_sys::HtmlInputElement;

use crate::components::controls::{escaped, remember_text, use_open, Choice, Toggle};
use crate::i18n::{self, T};
use crate::query;
use crate::state::Action;
use crate::{Store, ASSUMPTION_SECTIONS, SCENARIO_PANEL_FIELDS};

/// The assumptions panel, drawn by a hook of the app rather than a component: it follows
/// the store, so it was drawn on every change anyway, and a component type is another
/// copy of Yew's machinery in the page.
#[hook]
pub fn use_assumptions(store: &Store) -> Html {
    let store = store.clone();
    let (open, on_toggle) = use_open(false);
    let lang = store.lang;
    // Closed, the panel renders no inputs: nothing to rebuild on every slider move.
    let fields = if open {
        query::values_under(&store.scenario, &ASSUMPTION_SECTIONS)
            .into_iter()
            .filter(|(path, _)| !SCENARIO_PANEL_FIELDS.contains(&path.as_str()))
            .collect()
    } else {
        Vec::new()
    };
    html! {
        <details class="panel assumptions" data-testid="assumptions" open={open} ontoggle={on_toggle}>
            <summary>{ T::Assumptions.get(lang) }</summary>
            <p class="help">{ T::AssumptionsHelp.get(lang) }</p>
            <div class="assumption-grid">{ field_inputs(&store, fields) }</div>
        </details>
    }
}

/// The control for each (path, value) that writes its Scenario field (`Action::Field`):
/// a checkbox for a flag, a select for an enum, else a text box that keeps rejected text
/// marked with what is allowed. The assumptions and the advanced group share it.
pub fn field_inputs(store: &Store, fields: Vec<(String, Value)>) -> Html {
    html! {
        { for fields.into_iter().map(|(path, value)| html! {
            <div class="field" key={path.clone()}>{ field_input(store, path, value) }</div>
        }) }
    }
}

fn field_input(store: &Store, path: String, value: Value) -> Html {
    let lang = store.lang;
    let id = format!("field-{}", path.replace('.', "-"));
    let label = i18n::field_label(&path, lang);
    let set = {
        let (store, path) = (store.clone(), path.clone());
        move |text: String| {
            store.dispatch(Action::Field {
                path: path.clone(),
                text,
            })
        }
    };
    let choices = value
        .as_str()
        .and_then(|_| i18n::choice_labels(&path, lang));
    match (&value, choices) {
        (Value::Bool(checked), _) => Toggle {
            id: id.into(),
            label: label.into(),
            checked: *checked,
            on_change: Callback::from(move |on: bool| set(on.to_string())),
        }
        .view(),
        (Value::String(selected), Some(choices)) => Choice {
            id: id.into(),
            label: label.into(),
            options: choices
                .iter()
                .map(|(id, label)| (AttrValue::from(*id), AttrValue::from(*label)))
                .collect(),
            selected: selected.clone().into(),
            on_change: Callback::from(set),
        }
        .view(),
        _ => text_box(store, &path, &id, label, &value, set),
    }
}

/// A number as its box shows it: a whole one without serde_json's ".0", so that the box
/// keeps what is typed on the way to "1.5" (at "1" the value in use is 1, and a box
/// rewritten to "1.0" would become "1.0.5").
fn box_text(value: &Value) -> String {
    match value.as_f64() {
        Some(x) if x.fract() == 0.0 && x.abs() < 1e15 => (x as i64).to_string(),
        _ => query::leaf_text(value),
    }
}

/// A number (or an unset optional number) as typed text; text the core refuses stays in
/// the box, marked with what is allowed, until fixed or Escape.
fn text_box(
    store: &Store,
    path: &str,
    id: &str,
    label: String,
    value: &Value,
    set: impl Fn(String) + 'static,
) -> Html {
    let lang = store.lang;
    let rejected = store.rejected.as_ref().filter(|r| r.field == path);
    let shown = rejected.map_or_else(|| box_text(value), |r| r.text.clone());
    // Typed text and, on Escape, the text from before this edit take the same way.
    let set = std::rc::Rc::new(set);
    let on_input = {
        let set = set.clone();
        Callback::from(move |e: InputEvent| {
            set(e.target_unchecked_into::<HtmlInputElement>().value())
        })
    };
    let on_key = {
        let store = store.clone();
        Callback::from(move |e: KeyboardEvent| match escaped(&e) {
            Some(Some(before)) => set(before),
            Some(None) => store.dispatch(Action::Restore),
            None => {}
        })
    };
    let error = rejected.map(|r| match &r.allowed {
        Some(allowed) => i18n::allowed_sentence(lang, allowed),
        None => T::InvalidValue.get(lang).to_string(),
    });
    let error_id = format!("{id}-error");
    html! {
        <div class="control">
            <label for={id.to_string()}>{ label }</label>
            <input type="text" inputmode="decimal" id={id.to_string()}
                data-testid={id.to_string()} value={shown}
                aria-invalid={error.is_some().to_string()}
                aria-describedby={error.is_some().then(|| AttrValue::from(error_id.clone()))}
                oninput={on_input} onkeydown={on_key} onfocus={remember_text} />
            if let Some(error) = error {
                <p class="field-error" id={error_id} role="alert">{ error }</p>
            }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Lang;

    /// ARCHITECTURE.md: a new assumption needs its label in `i18n::field_label`.
    #[test]
    fn every_assumption_has_a_label_in_both_languages() {
        let s = hsi_gpu_core::Scenario::default();
        for (path, _) in query::fields_under(&s, &ASSUMPTION_SECTIONS) {
            if SCENARIO_PANEL_FIELDS.contains(&path.as_str()) {
                continue;
            }
            for lang in [Lang::En, Lang::Zh] {
                assert_ne!(
                    i18n::field_label(&path, lang),
                    path,
                    "{path} has no {lang:?} label"
                );
            }
        }
    }

    /// A new enum among the generic fields needs its choices in `i18n::choice_labels`, or
    /// it would be a text box.
    #[test]
    fn every_enum_of_the_generic_fields_is_a_choice_in_both_languages() {
        let s = hsi_gpu_core::Scenario::default();
        let values = query::values_under(&s, &ASSUMPTION_SECTIONS);
        let enums = values
            .iter()
            .filter(|(path, value)| {
                value.is_string() && !SCENARIO_PANEL_FIELDS.contains(&path.as_str())
            })
            .map(|(path, _)| path.as_str())
            .chain(["sharding", "node_link"]);
        for path in enums {
            for lang in [Lang::En, Lang::Zh] {
                let choices = i18n::choice_labels(path, lang).unwrap_or_default();
                assert!(choices.len() >= 2, "{path} is not a choice in {lang:?}");
                // Labels are words, never the ids themselves.
                assert!(
                    choices.iter().all(|(id, label)| !label.contains(id)),
                    "{path}: {choices:?}"
                );
            }
        }
    }
}
