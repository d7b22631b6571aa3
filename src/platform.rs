//! Browser glue, the one place the page touches the browser: address bar, storage,
//! language, embed messages, clipboard, and (in `files`) downloads and the user's files.
//! gloo's crates do what they cover (timer, event listeners, file reading, window and
//! document); web-sys and js-sys the rest (history, localStorage, clipboard, postMessage).
//! Called only from effects and callbacks (never during render), so server-side rendering
//! in the native tests never reaches a browser API.

pub mod files;
pub mod observe;

use std::cell::RefCell;

use gloo_events::EventListener;
use gloo_timers::callback::Timeout;
use gloo_utils::{body, document_element, window};
use serde_json::Value;
use wasm_bindgen::JsValue;
use web_sys::Storage;

/// localStorage key holding the last scenario as a query string (parsed like a link, so a
/// stale or edited value falls back field by field).
const STORAGE_KEY: &str = "hsi-gpu-planner.query";

/// Address-bar and storage writes wait until the inputs have rested this long. A dragged
/// slider fires ~60 inputs a second; Chrome throttles (and warns about) more than ~100
/// history.replaceState calls in 10 s, each storage write is synchronous, and each address
/// change makes Chromium fetch the favicon again: none of that belongs inside a drag.
const PERSIST_DELAY_MS: u32 = 200;

/// What gives the address-bar query and the stored query (if any) of the latest state.
type Queries = Box<dyn FnOnce() -> (String, Option<String>)>;

/// The latest address and storage values not yet written, and the timer that writes them.
struct Pending {
    /// Made only when written: a dragged slider's states in between are never spelled out.
    queries: Queries,
    /// Dropped once the values are written or replaced, which cancels it if it has not fired.
    _timer: Timeout,
}

thread_local! {
    /// Stand-in when localStorage is unavailable (sandboxed iframe, privacy mode).
    static MEMORY_STORE: RefCell<Option<String>> = const { RefCell::new(None) };
    static PENDING: RefCell<Option<Pending>> = const { RefCell::new(None) };
}

/// Puts the address-bar query that `queries` gives in the address bar and its stored query
/// (if any) in storage once no newer values have come for PERSIST_DELAY_MS.
pub fn persist_soon(queries: impl FnOnce() -> (String, Option<String>) + 'static) {
    let timer = Timeout::new(PERSIST_DELAY_MS, flush_pending);
    // Replacing the pending values drops their timer, which cancels it.
    PENDING.with(|pending| {
        *pending.borrow_mut() = Some(Pending {
            queries: Box::new(queries),
            _timer: timer,
        })
    });
}

/// Writes a pending address and storage update now.
pub fn flush_pending() {
    // Taken out first: the writes run with PENDING free, then `pending` (and its timer)
    // is dropped.
    if let Some(pending) = PENDING.with(|p| p.borrow_mut().take()) {
        let (location_query, saved_query) = (pending.queries)();
        replace_location_query(&location_query);
        if let Some(saved_query) = &saved_query {
            save_query(saved_query);
        }
    }
}

/// Leaving the page within PERSIST_DELAY_MS of the last input still saves it, as long as
/// the returned listener is kept.
pub fn flush_on_pagehide() -> EventListener {
    EventListener::new(&window(), "pagehide", |_| flush_pending())
}

/// The page's query string without `?`.
pub fn location_query() -> String {
    window()
        .location()
        .search()
        .unwrap_or_default()
        .trim_start_matches('?')
        .to_string()
}

/// The page's address without query or fragment.
fn page_base() -> String {
    let location = window().location();
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
        window().location().pathname().unwrap_or_default()
    } else {
        format!("?{query}")
    };
    if let Ok(history) = window().history() {
        // A failure (e.g. a sandboxed about:srcdoc frame) only loses the live address.
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    }
}

/// This page's localStorage, where it may use it: in a sandboxed frame or in privacy mode
/// reading `window.localStorage` throws.
fn local_storage() -> Option<Storage> {
    window().local_storage().ok().flatten()
}

pub fn load_saved_query() -> Option<String> {
    let Some(storage) = local_storage() else {
        return MEMORY_STORE.with(|m| m.borrow().clone());
    };
    let item = storage.get_item(STORAGE_KEY).ok().flatten()?;
    // Stored as a JSON string (as gloo-storage, which the page used before, wrote it);
    // saved before that, the bare query string. Read through the JSON reader the page
    // has anyway, not a second one for a `String`.
    match serde_json::from_str(&item) {
        Ok(Value::String(query)) => Some(query),
        _ => Some(item),
    }
}

fn save_query(query: &str) {
    // A full store refuses the write: the query is then kept for this page only.
    let stored = local_storage().is_some_and(|storage| {
        let json = hsi_gpu_core::json::to_text(&Value::from(query));
        storage.set_item(STORAGE_KEY, &json).is_ok()
    });
    if !stored {
        MEMORY_STORE.with(|m| *m.borrow_mut() = Some(query.to_string()));
    }
}

/// localStorage key holding the comparison being edited, as the JSON its Export writes:
/// the link carries only the scenario.
const COMPARISON_KEY: &str = "hsi-gpu-planner.comparison";

/// The stored comparison's JSON, if any. Safe during render: natively (server-side
/// rendering in the tests) there is no storage and it reads None.
pub fn load_saved_comparison() -> Option<String> {
    if !cfg!(target_arch = "wasm32") {
        return None;
    }
    local_storage()?.get_item(COMPARISON_KEY).ok().flatten()
}

/// Stores the comparison's JSON. Where storage is refused (full, privacy mode) it lives
/// only as long as the page, as it did before it was stored.
pub fn save_comparison(json: &str) {
    if let Some(storage) = local_storage() {
        let _ = storage.set_item(COMPARISON_KEY, json);
    }
}

pub fn browser_language() -> String {
    window().navigator().language().unwrap_or_default()
}

/// Sets `<html lang>` only when it changes: setting it, even to the same value, restyles
/// the whole page (3.8 ms of every slider move at 1366 x 768).
pub fn set_html_lang(lang: &str) {
    let root = document_element();
    if root.get_attribute("lang").as_deref() != Some(lang) {
        let _ = root.set_attribute("lang", lang);
    }
}

/// Runs `f` once the browser has painted the current frame: a task posted from the next
/// animation frame runs after that frame's rendering. The work below the fold starts so,
/// after the first screen is on it.
pub fn after_paint(f: impl FnOnce() + 'static) {
    use wasm_bindgen::JsCast;
    let callback = wasm_bindgen::closure::Closure::once_into_js(move || {
        Timeout::new(0, f).forget();
    });
    let _ = window().request_animation_frame(callback.unchecked_ref());
}

/// Runs `f` once `delay` has passed, unless the returned timer is dropped first: dropping
/// it clears the browser's timer, so work a newer input made moot never wakes the page
/// (a dragged slider would otherwise leave one wake-up per move, each landing in a later
/// move's frame).
pub fn after(delay: std::time::Duration, f: impl FnOnce() + 'static) -> Timeout {
    Timeout::new(delay.as_millis().try_into().unwrap_or(u32::MAX), f)
}

/// Moves keyboard focus to the element with id `id`, if it is on the page.
pub fn focus(id: &str) {
    use wasm_bindgen::JsCast;
    let element = gloo_utils::document().get_element_by_id(id);
    if let Some(element) = element.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
        let _ = element.focus();
    }
}

/// The browser tests wait for `<body data-ready="1">`.
pub fn mark_ready() {
    let _ = body().dataset().set("ready", "1");
}

/// Tells the embedding page how tall the content is, so it can size the iframe:
/// `{ "type": "hsi-gpu-planner:height", "height": <px> }`.
pub fn post_height_to_parent() {
    let Ok(Some(parent)) = window().parent() else {
        return;
    };
    let message = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&message, &"type".into(), &"hsi-gpu-planner:height".into());
    let _ = js_sys::Reflect::set(
        &message,
        &"height".into(),
        &f64::from(document_element().scroll_height()).into(),
    );
    let _ = parent.post_message(&message, "*");
}

/// Posts the height again whenever the frame is resized (text reflows without a render),
/// as long as the returned listener is kept.
pub fn post_height_on_resize() -> EventListener {
    EventListener::new(&window(), "resize", |_| post_height_to_parent())
}

/// Copies `text`; calls `done(true)` once the clipboard holds it, `done(false)` when the
/// browser refuses (no permission, insecure context), so the UI can say what to do.
pub fn copy_text(text: &str, done: impl FnOnce(bool) + 'static) {
    let promise = window().navigator().clipboard().write_text(text);
    yew::platform::spawn_local(async move {
        done(wasm_bindgen_futures::JsFuture::from(promise).await.is_ok());
    });
}

/// Milliseconds on the page's clock. Safe during render: natively (server-side rendering
/// in the tests) there is no clock and it reads 0.
pub fn now_ms() -> f64 {
    if cfg!(target_arch = "wasm32") {
        js_sys::Date::now()
    } else {
        0.0
    }
}
