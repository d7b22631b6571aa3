//! Browser glue: address bar, storage, language, embed messages, clipboard. Called only
//! from effects and callbacks (never during render), so server-side rendering in the
//! native tests never reaches a browser API.

use std::cell::RefCell;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{window, Window};

/// localStorage key holding the last scenario as a query string (parsed like a link, so a
/// stale or edited value falls back field by field).
const STORAGE_KEY: &str = "hsi-gpu-planner.query";

/// Address-bar and storage writes trail the last input by this long. A dragged slider
/// fires ~60 inputs a second; Chrome throttles (and warns about) more than ~100
/// history.replaceState calls in 10 s, and each storage write is synchronous.
const PERSIST_DELAY_MS: i32 = 200;

thread_local! {
    /// Stand-in when localStorage is unavailable (sandboxed iframe, privacy mode).
    static MEMORY_STORE: RefCell<Option<String>> = const { RefCell::new(None) };
    /// Latest (address query, saved query) not yet written; Some while a write is pending.
    static PENDING: RefCell<Option<(String, Option<String>)>> = const { RefCell::new(None) };
}

/// Puts `location_query` in the address bar and `saved_query` (if any) in storage, at most
/// once per PERSIST_DELAY_MS, always ending with the latest values.
pub fn persist_soon(location_query: String, saved_query: Option<String>) {
    let already_pending = PENDING.with(|p| {
        p.borrow_mut()
            .replace((location_query, saved_query))
            .is_some()
    });
    if already_pending {
        return;
    }
    let flush = Closure::once_into_js(flush_pending);
    if win()
        .set_timeout_with_callback_and_timeout_and_arguments_0(
            flush.unchecked_ref(),
            PERSIST_DELAY_MS,
        )
        .is_err()
    {
        flush_pending();
    }
}

/// Writes a pending address and storage update now.
pub fn flush_pending() {
    if let Some((location_query, saved_query)) = PENDING.with(|p| p.borrow_mut().take()) {
        replace_location_query(&location_query);
        if let Some(saved_query) = saved_query {
            save_query(&saved_query);
        }
    }
}

/// Leaving the page within PERSIST_DELAY_MS of the last input still saves it.
pub fn flush_on_pagehide() {
    let flush = Closure::<dyn Fn()>::new(flush_pending);
    let _ = win().add_event_listener_with_callback("pagehide", flush.as_ref().unchecked_ref());
    // The listener lives as long as the page.
    flush.forget();
}

fn win() -> Window {
    window().expect("the app runs in a window")
}

/// The page's query string without `?`.
pub fn location_query() -> String {
    win()
        .location()
        .search()
        .unwrap_or_default()
        .trim_start_matches('?')
        .to_string()
}

/// The page's address without query or fragment.
fn page_base() -> String {
    let location = win().location();
    let origin = location.origin().unwrap_or_default();
    let path = location.pathname().unwrap_or_default();
    format!("{origin}{path}")
}

/// The full link for a query string.
pub fn link_for(query: &str) -> String {
    if query.is_empty() {
        page_base()
    } else {
        format!("{}?{query}", page_base())
    }
}

/// Rewrites the address bar without a history entry.
fn replace_location_query(query: &str) {
    if location_query() == query {
        return;
    }
    let url = if query.is_empty() {
        win().location().pathname().unwrap_or_default()
    } else {
        format!("?{query}")
    };
    if let Ok(history) = win().history() {
        // A failure (e.g. a sandboxed about:srcdoc frame) only loses the live address.
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    }
}

fn local_storage() -> Option<web_sys::Storage> {
    // Accessing localStorage throws in sandboxed frames: that is an Err here, not a panic.
    win().local_storage().ok().flatten()
}

pub fn load_saved_query() -> Option<String> {
    match local_storage() {
        Some(storage) => storage.get_item(STORAGE_KEY).ok().flatten(),
        None => MEMORY_STORE.with(|m| m.borrow().clone()),
    }
}

fn save_query(query: &str) {
    let stored = local_storage().is_some_and(|s| s.set_item(STORAGE_KEY, query).is_ok());
    if !stored {
        MEMORY_STORE.with(|m| *m.borrow_mut() = Some(query.to_string()));
    }
}

pub fn browser_language() -> String {
    win().navigator().language().unwrap_or_default()
}

fn document() -> web_sys::Document {
    win().document().expect("a window has a document")
}

pub fn set_html_lang(lang: &str) {
    if let Some(root) = document().document_element() {
        let _ = root.set_attribute("lang", lang);
    }
}

/// The browser tests wait for `<body data-ready="1">`.
pub fn mark_ready() {
    if let Some(body) = document().body() {
        let _ = body.dataset().set("ready", "1");
    }
}

/// Tells the embedding page how tall the content is, so it can size the iframe:
/// `{ "type": "hsi-gpu-planner:height", "height": <px> }`.
pub fn post_height_to_parent() {
    let window = win();
    let Some(root) = document().document_element() else {
        return;
    };
    let Ok(Some(parent)) = window.parent() else {
        return;
    };
    let message = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&message, &"type".into(), &"hsi-gpu-planner:height".into());
    let _ = js_sys::Reflect::set(
        &message,
        &"height".into(),
        &f64::from(root.scroll_height()).into(),
    );
    let _ = parent.post_message(&message, "*");
}

/// Posts the height again whenever the frame is resized (text reflows without a render).
pub fn post_height_on_resize() {
    let post = Closure::<dyn Fn()>::new(post_height_to_parent);
    let _ = win().add_event_listener_with_callback("resize", post.as_ref().unchecked_ref());
    // The listener lives as long as the page.
    post.forget();
}

/// Copies `text`; calls `done(true)` once the clipboard holds it, `done(false)` when the
/// browser refuses (no permission, insecure context), so the UI can say what to do.
pub fn copy_text(text: &str, done: impl FnOnce(bool) + 'static) {
    let promise = win().navigator().clipboard().write_text(text);
    yew::platform::spawn_local(async move {
        done(wasm_bindgen_futures::JsFuture::from(promise).await.is_ok());
    });
}
