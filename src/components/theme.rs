use leptos::prelude::*;

use crate::state::embed::Theme;

const THEME_KEY: &str = "mrtr-lab.theme";

fn storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

/// Sets `data-theme` on `<html>`; `None` follows the operating system.
pub fn apply(theme: Option<Theme>) {
    let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    else {
        return;
    };
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

/// Auto → light → dark, remembered in this browser.
#[component]
pub fn ThemeToggle() -> impl IntoView {
    let theme = RwSignal::new(remembered());
    Effect::new(move |_| {
        let t = theme.get();
        apply(t);
        if let Some(s) = storage() {
            let _ = match t {
                Some(t) => s.set_item(THEME_KEY, t.id()),
                None => s.remove_item(THEME_KEY),
            };
        }
    });
    let label = move || match theme.get() {
        None => "Theme: follows your system",
        Some(Theme::Light) => "Theme: light",
        Some(Theme::Dark) => "Theme: dark",
    };
    view! {
        <button type="button" class="theme-toggle" data-testid="theme-toggle" on:click=move |_| theme.update(|t| *t = match t {
            None => Some(Theme::Light),
            Some(Theme::Light) => Some(Theme::Dark),
            Some(Theme::Dark) => None,
        })>{label}</button>
    }
}
