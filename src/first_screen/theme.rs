//! Light, dark, or the system's choice: `data-theme` on `<html>`, remembered in this browser.
//! (index.html applies the same rule before the first paint, with the same storage key.)

use super::dom::{listen, root, window};
use crate::state::embed::Theme;

const THEME_KEY: &str = "mrtr-lab.theme";

fn storage() -> Option<web_sys::Storage> {
    window().and_then(|w| w.local_storage().ok().flatten())
}

/// Sets `data-theme` on `<html>`; `None` follows the operating system.
pub fn apply(theme: Option<Theme>) {
    let Some(root) = root() else { return };
    let _ = match theme {
        Some(t) => root.set_attribute("data-theme", t.id()),
        None => root.remove_attribute("data-theme"),
    };
}

/// The theme the reader chose last time, if any.
pub fn remembered() -> Option<Theme> {
    storage()
        .and_then(|s| s.get_item(THEME_KEY).ok().flatten())
        .and_then(|t| Theme::from_id(&t))
}

fn label(theme: Option<Theme>) -> &'static str {
    match theme {
        None => "Theme: follows your system",
        Some(Theme::Light) => "Theme: light",
        Some(Theme::Dark) => "Theme: dark",
    }
}

/// Makes `button` cycle auto → light → dark, remembering the choice.
pub fn toggle(button: &web_sys::Element) {
    // Held here too: without storage (blocked, or a private window) the toggle still cycles.
    let current = std::cell::Cell::new(remembered());
    button.set_text_content(Some(label(current.get())));
    let b = button.clone();
    listen(button, "click", move |_| {
        let next = match current.get() {
            None => Some(Theme::Light),
            Some(Theme::Light) => Some(Theme::Dark),
            Some(Theme::Dark) => None,
        };
        apply(next);
        if let Some(s) = storage() {
            let _ = match next {
                Some(t) => s.set_item(THEME_KEY, t.id()),
                None => s.remove_item(THEME_KEY),
            };
        }
        current.set(next);
        b.set_text_content(Some(label(next)));
    });
}
