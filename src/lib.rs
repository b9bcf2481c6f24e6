//! MRTR Lab: the page. Layers, bottom up: the protocol core (`mrtr-core`), the simulated
//! world (`mrtr-world`), app state ([`state`]: plain types with methods, tested natively), the
//! Leptos components of the widgets ([`components`]), and the page that mounts them into
//! index.html's prose ([`app`]).

pub mod app;
pub mod components;
pub mod panic_panel;
pub mod state;

pub use app::start;
