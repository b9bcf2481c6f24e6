//! MRTR Lab: the page. Layers, bottom up: the protocol core (`mrtr-core`), the demo runs
//! that drive it ([`demo`]), and the view components ([`components`]).

pub mod components;
pub mod demo;
pub mod panic_panel;

/// Installs the panic panel and mounts the app on `<body>`.
pub fn start() {
    panic_panel::install();
    leptos::mount::mount_to_body(components::App);
}
