//! Notices about dropped link parameters, and the core's errors for a scenario it cannot
//! estimate: each field by its name in the page's language (its path in a tooltip), the
//! value, and what is allowed.

use hsi_gpu_core::FieldError;
use yew::prelude::*;

use crate::i18n::{self, Lang, T};
use crate::query::Notice;

/// "Spectral bands = 5000 — allowed: …", the field's path in the tooltip.
fn problem(field: &str, value: &str, why: String, lang: Lang) -> Html {
    html! {
        <>
            <span title={field.to_string()}>{ i18n::field_name(field, lang) }</span>
            { " = " }<code>{ value.to_string() }</code>{ " — " }{ why }
        </>
    }
}

/// The link's dropped parameters, with a button that dismisses them.
pub fn notices(notices: &[Notice], lang: Lang, on_dismiss: Callback<()>) -> Html {
    if notices.is_empty() {
        return html! {};
    }
    let dismiss = on_dismiss.reform(|_: MouseEvent| ());
    html! {
        <div class="notice" role="status" data-testid="notices">
            <strong>{ T::Notices.get(lang) }</strong>
            <ul>
                { for notices.iter().map(|n| html! {
                    <li>{ problem(&n.key, &n.value, i18n::notice_reason(lang, &n.reason), lang) }
                        { " — " }{ T::NoticeFallback.get(lang) }</li>
                }) }
            </ul>
            <button type="button" onclick={dismiss}>{ T::Dismiss.get(lang) }</button>
        </div>
    }
}

/// Why the scenario cannot be estimated: each field, its value and what is allowed.
pub fn errors(errors: &[FieldError], lang: Lang) -> Html {
    html! {
        <section class="panel errors" role="alert" data-testid="errors">
            <h2>{ T::Errors.get(lang) }</h2>
            <ul>
                { for errors.iter().map(|e| html! {
                    <li>{ problem(&e.field, &e.value, i18n::allowed_sentence(lang, &e.allowed), lang) }</li>
                }) }
            </ul>
        </section>
    }
}
