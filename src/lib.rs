//! MRTR Lab: the page. Layers, bottom up: the protocol core (`mrtr-core`), the simulated
//! world (`mrtr-world`), app state ([`state`]: plain types with methods) and the view
//! components ([`components`]).

pub mod components;
pub mod more;
pub mod panic_panel;
pub mod state;

/// The first module: installs the panic panel and mounts the page on `<body>`. The widgets
/// below the first screen arrive with the second module ([`more::start`]).
pub fn start() {
    panic_panel::install();
    leptos::mount::mount_to_body(components::App);
    booted();
}

/// Takes away index.html's "starting" note once a module has drawn the page.
pub(crate) fn booted() {
    if let Some(boot) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("boot"))
    {
        boot.remove();
    }
}
