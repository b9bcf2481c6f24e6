//! A panic must never leave a blank page. In wasm a panic is fatal (the release build aborts),
//! so the hook logs it and then writes a readable panel straight into the DOM, without Leptos.

use wasm_bindgen::JsCast;

/// The DOM id of the panel a panic writes into the page.
pub const PANEL_ID: &str = "fatal-error";

/// Chains our panel after the standard console logger.
pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        show(&info.to_string());
    }));
}

/// Shows `message` in a fixed panel at the top of the page (idempotent).
pub fn show(message: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    if doc.get_element_by_id(PANEL_ID).is_some() {
        return;
    }
    let Ok(panel) = doc.create_element("div") else {
        return;
    };
    panel.set_id(PANEL_ID);
    let _ = panel.set_attribute("role", "alert");
    let _ = panel.set_attribute("class", "fatal-error");
    let heading = doc.create_element("strong").ok();
    if let Some(h) = &heading {
        h.set_text_content(Some("MRTR Lab stopped because of an internal error."));
        let _ = panel.append_child(h);
    }
    if let Ok(p) = doc.create_element("p") {
        p.set_text_content(Some(
            "Reload the page to start again. If it happens again, please report the message below.",
        ));
        let _ = panel.append_child(&p);
    }
    if let Ok(pre) = doc.create_element("pre") {
        pre.set_text_content(Some(message));
        let _ = panel.append_child(&pre);
    }
    if let Some(body) = doc.body() {
        let first = body.first_child();
        let _ = body.insert_before(panel.unchecked_ref(), first.as_ref());
    }
}
