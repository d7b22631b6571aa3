//! Editable assumptions: every scalar field of the Scenario's memory, perf, cost and
//! workload sections, listed from the Scenario itself so new core assumptions appear here
//! without UI changes.

use yew::prelude::*;
use yew::TargetCast;

use web_sys::HtmlInputElement;

use crate::components::controls::use_open;
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
        query::fields_under(&store.scenario, &ASSUMPTION_SECTIONS)
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

/// A labelled text box per (path, value) that writes its Scenario field (`Action::Field`);
/// the assumptions and the advanced group share it.
pub fn field_inputs(store: &Store, fields: Vec<(String, String)>) -> Html {
    let lang = store.lang;
    html! {
        { for fields.into_iter().map(|(path, value)| {
            let invalid = store.invalid_field.as_deref() == Some(path.as_str());
            let on_input = {
                let store = store.clone();
                let path = path.clone();
                Callback::from(move |e: InputEvent| {
                    let input: HtmlInputElement = e.target_unchecked_into();
                    store.dispatch(Action::Field { path: path.clone(), text: input.value() });
                })
            };
            let id = format!("field-{}", path.replace('.', "-"));
            html! {
                <div class="control" key={path.clone()}>
                    <label for={id.clone()}>{ i18n::field_label(&path, lang) }</label>
                    <input type="text" inputmode="decimal" id={id.clone()}
                        data-testid={id} value={value}
                        aria-invalid={invalid.to_string()} oninput={on_input} />
                    if invalid {
                        <span class="field-error" role="alert">{ T::InvalidValue.get(lang) }</span>
                    }
                </div>
            }
        }) }
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
}
