//! Title, language and presentation toggles, and the copy-link control.

use yew::prelude::*;

use crate::i18n::{Lang, T};
use crate::platform;
use crate::state::Action;
use crate::Store;

/// What the copy button last achieved.
#[derive(Clone, Copy, PartialEq)]
enum CopyStatus {
    Idle,
    Copied,
    /// The browser refused the clipboard: the link is in the box to copy by hand.
    Refused,
}

/// The header's view, with its state (the copied link and what copying achieved). A hook
/// of the app rather than a component: it follows the store, so it would be drawn again
/// on every change anyway, and a component type is another copy of Yew's machinery.
#[hook]
pub fn use_header(store: &Store) -> Html {
    let store = store.clone();
    let lang = store.lang;
    let link = use_state(String::new);
    let status = use_state(|| CopyStatus::Idle);

    let on_lang = {
        let store = store.clone();
        Callback::from(move |_: MouseEvent| store.dispatch(Action::Lang(store.lang.other())))
    };
    let on_presentation = {
        let store = store.clone();
        Callback::from(move |_: MouseEvent| {
            store.dispatch(Action::Presentation(!store.presentation))
        })
    };
    let on_reset = {
        let store = store.clone();
        Callback::from(move |_: MouseEvent| store.dispatch(Action::Reset))
    };
    let on_copy = {
        let store = store.clone();
        let link = link.clone();
        let status = status.clone();
        Callback::from(move |_: MouseEvent| {
            let url = platform::link_for(&store.share_query());
            link.set(url.clone());
            let status = status.clone();
            platform::copy_text(&url, move |ok| {
                status.set(if ok {
                    CopyStatus::Copied
                } else {
                    CopyStatus::Refused
                })
            });
        })
    };
    let status_text = match *status {
        CopyStatus::Idle => "",
        CopyStatus::Copied => T::LinkCopied.get(lang),
        CopyStatus::Refused => T::LinkInAddressBar.get(lang),
    };

    html! {
        <header class="app-header">
            <div class="title">
                <h1>{ T::Title.get(lang) }</h1>
                <p class="tagline">{ T::Tagline.get(lang) }</p>
            </div>
            <div class="header-actions">
                <button type="button" data-testid="lang-toggle" onclick={on_lang}
                    aria-label={T::LanguageToggleLabel.get(lang)}
                    class="lang-toggle">
                    // Both names, each in its own script with Latin beside it, so the button
                    // reads even where no CJK font is installed; the current one is marked.
                    <span lang="zh-CN" class={classes!((lang == Lang::Zh).then_some("on"))}>{ "中文" }</span>
                    { " / " }
                    <span lang="en" class={classes!((lang == Lang::En).then_some("on"))}>{ "EN" }</span>
                </button>
                <button type="button" data-testid="presentation-toggle" onclick={on_presentation}
                    aria-pressed={store.presentation.to_string()}>{ T::Presentation.get(lang) }</button>
                <button type="button" data-testid="reset" onclick={on_reset}>{ T::Reset.get(lang) }</button>
                <button type="button" data-testid="copy-link" onclick={on_copy}>{ T::CopyLink.get(lang) }</button>
                if !link.is_empty() {
                    <input type="text" readonly=true class="share-link" data-testid="share-link"
                        aria-label={T::CopyLink.get(lang)} value={(*link).clone()} />
                }
                <span class="copy-status" role="status">{ status_text }
                    // Said once a link is made: it is not the whole page.
                    if *status != CopyStatus::Idle {
                        { " " }<small data-testid="link-note">{ T::LinkLeavesComparison.get(lang) }</small>
                    }
                </span>
            </div>
        </header>
    }
}
