//! Exports and imports: downloads through a data: URL link, SVG to PNG through a canvas,
//! reading chosen files (gloo-file), printing. Uses untyped property access
//! (js_sys::Reflect) where the web-sys features the app enables do not cover an API.

use gloo_file::futures::read_as_text;
use gloo_file::FileList;
use gloo_utils::{body, document, window};
use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{HtmlElement, HtmlInputElement};

/// Calls `target.method(args...)`.
fn call(target: &JsValue, method: &str, args: &[JsValue]) -> Option<JsValue> {
    let f: Function = Reflect::get(target, &method.into()).ok()?.dyn_into().ok()?;
    let args: js_sys::Array = args.iter().collect();
    f.apply(target, &args).ok()
}

/// Saves `url` (a data: URL) as `filename` through a temporary download link.
fn download_url(url: &str, filename: &str) {
    let Ok(link) = document().create_element("a") else {
        return;
    };
    let _ = link.set_attribute("href", url);
    let _ = link.set_attribute("download", filename);
    let _ = body().append_child(&link);
    if let Ok(link) = link.dyn_into::<HtmlElement>() {
        link.click();
        link.remove();
    }
}

/// Saves `text` as `filename` with media type `mime`.
pub fn download_text(filename: &str, mime: &str, text: &str) {
    let encoded = js_sys::encode_uri_component(text);
    download_url(
        &format!("data:{mime};charset=utf-8,{}", String::from(encoded)),
        filename,
    );
}

/// Markup of the element with `data-testid=<testid>` (an inline SVG chart).
pub fn outer_html(testid: &str) -> Option<String> {
    let element = document()
        .query_selector(&format!("[data-testid=\"{testid}\"]"))
        .ok()??;
    Some(element.outer_html())
}

/// Renders SVG markup on a canvas at twice its size and saves it as a PNG.
pub fn download_svg_as_png(svg: &str, width: u32, height: u32, filename: &str) {
    let doc = document();
    let (Ok(canvas), Ok(image)) = (doc.create_element("canvas"), doc.create_element("img")) else {
        return;
    };
    const SCALE: u32 = 2;
    let _ = canvas.set_attribute("width", &(width * SCALE).to_string());
    let _ = canvas.set_attribute("height", &(height * SCALE).to_string());
    // Settles once the image has loaded or failed: the browser's own functions as the
    // handlers, so no Rust closure outlives this call.
    let loaded = Promise::new(&mut |resolve, reject| {
        let _ = Reflect::set(&image, &"onload".into(), &resolve);
        let _ = Reflect::set(&image, &"onerror".into(), &reject);
    });
    let encoded = String::from(js_sys::encode_uri_component(svg));
    let _ = image.set_attribute(
        "src",
        &format!("data:image/svg+xml;charset=utf-8,{encoded}"),
    );
    let filename = filename.to_string();
    yew::platform::spawn_local(async move {
        if JsFuture::from(loaded).await.is_err() {
            return;
        }
        let canvas: JsValue = canvas.into();
        let Some(context) = call(&canvas, "getContext", &["2d".into()]) else {
            return;
        };
        let _ = Reflect::set(&context, &"fillStyle".into(), &"#ffffff".into());
        let (w, h) = (f64::from(width * SCALE), f64::from(height * SCALE));
        call(
            &context,
            "fillRect",
            &[0.into(), 0.into(), w.into(), h.into()],
        );
        call(
            &context,
            "drawImage",
            &[image.into(), 0.into(), 0.into(), w.into(), h.into()],
        );
        if let Some(url) =
            call(&canvas, "toDataURL", &["image/png".into()]).and_then(|u| u.as_string())
        {
            download_url(&url, &filename);
        }
    });
}

/// Reads every file chosen in the `<input type="file">` `input` as text and calls
/// `done(file name, text)` for each.
pub fn read_chosen_files(input: JsValue, done: impl Fn(String, String) + Clone + 'static) {
    let Some(files) = input.dyn_ref::<HtmlInputElement>().and_then(|i| i.files()) else {
        return;
    };
    for file in FileList::from(files).iter() {
        let (name, reading, done) = (file.name(), read_as_text(file), done.clone());
        yew::platform::spawn_local(async move {
            if let Ok(text) = reading.await {
                done(name, text);
            }
        });
    }
}

/// The `value` of a form element of any kind (textarea included).
pub fn value_of(target: &JsValue) -> String {
    Reflect::get(target, &"value".into())
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_default()
}

pub fn print_page() {
    let _ = window().print();
}
