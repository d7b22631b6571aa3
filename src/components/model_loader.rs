//! Loading your own model into the page: a layer list from tools/export_model.py becomes
//! the scenario's custom model; a Scenario JSON (e.g. `hsi-gpu calibrate`'s `.scenario`)
//! replaces the scenario. Read by the core's importer, so errors name the field and line.

use hsi_gpu_core::compare::import::{import_any, Imported};
use hsi_gpu_core::scenario::ModelChoice;
use yew::prelude::*;

use crate::i18n::problems::import_error_text;
use crate::i18n::{self, T};
use crate::platform::files;
use crate::state::Action;
use crate::Store;

/// The loader's view, with its state (the last file that could not be used). A hook of
/// the scenario panel rather than a component of its own: it follows the store, which
/// re-renders the panel anyway, and a component type is another copy of Yew's machinery.
#[hook]
pub fn use_model_loader(store: &Store) -> Html {
    let store = store.clone();
    let lang = store.lang;
    // The last file that could not be used: its name and why.
    let error = use_state(|| None::<(String, String)>);

    let on_file = {
        let (store, error) = (store.clone(), error.clone());
        Callback::from(move |e: Event| {
            let (store, error) = (store.clone(), error.clone());
            let Some(target) = e.target() else { return };
            files::read_chosen_files(target.into(), move |name, text| {
                let why = match import_any(&text) {
                    Ok(Imported::ModelSpec(spec)) => {
                        store.dispatch(Action::CustomModel(spec));
                        None
                    }
                    Ok(Imported::Scenario(scenario)) => {
                        store.dispatch(Action::Replace(scenario));
                        None
                    }
                    Ok(Imported::Comparison(_)) => Some(T::ComparisonFile.get(store.lang).into()),
                    Err(errors) => Some(
                        errors
                            .iter()
                            .map(|e| import_error_text(e, &text, store.lang))
                            .collect::<Vec<_>>()
                            .join("; "),
                    ),
                };
                error.set(why.map(|why| (name, why)));
            });
        })
    };

    let custom_input = match &store.scenario.model {
        ModelChoice::Custom { spec } => Some(format!("{:?}", spec.input)),
        ModelChoice::Preset { .. } => None,
    };
    html! {
        <div class="model-loader">
            <label>
                { T::LoadModel.get(lang) }{ " " }
                <input type="file" accept=".json,application/json" data-testid="model-file"
                    onchange={on_file} />
            </label>
            if let Some(shape) = custom_input {
                <p class="help" data-testid="custom-model-note">{ i18n::custom_model_note(lang, &shape) }</p>
            }
            if let Some((name, why)) = &*error {
                <p class="field-error" role="alert" data-testid="model-file-error">
                    { i18n::could_not_read_sentence(lang, name) }{ " " }{ why }
                </p>
            }
        </div>
    }
}
