//! The browser side: the widget goes into `#probe`, mounted or hydrated.

#[cfg(target_arch = "wasm32")]
fn main() {
    use leptos::wasm_bindgen::JsCast;
    use route_probe::RoundTripProbe;
    console_error_panic_hook::set_once();
    let Some(el) = leptos::prelude::document()
        .get_element_by_id("probe")
        .and_then(|e| e.dyn_into::<leptos::web_sys::HtmlElement>().ok())
    else {
        return;
    };
    #[cfg(feature = "hydrate")]
    leptos::mount::hydrate_from(el, RoundTripProbe).forget();
    #[cfg(not(feature = "hydrate"))]
    {
        el.set_inner_html("");
        leptos::mount::mount_to(el, RoundTripProbe).forget();
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {}
