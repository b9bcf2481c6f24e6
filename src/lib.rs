//! MRTR Lab: the page. Layers, bottom up: the protocol core (`mrtr-core`), the simulated
//! world (`mrtr-world`), the page's state ([`state`], the crate `mrtr-lab-state`: plain types
//! with methods, tested natively), the
//! Leptos components of the widgets ([`components`]), and the page that mounts them into
//! index.html's prose ([`app`]). The implementers' tools ([`tools`]) are a second module,
//! `mrtr-lab-tools`, which the page loads when they are first wanted.

pub mod app;
pub mod components;
pub mod panic_panel;
pub use mrtr_lab_state as state;
pub mod tools;

pub use app::start;
pub use tools::start_tools;
