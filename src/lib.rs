//! MRTR Lab: the page. Layers, bottom up: the protocol core (`mrtr-core`), the simulated
//! world (`mrtr-world`), app state ([`state`]: plain types with methods), then the views: the
//! page's markup ([`markup`]), the first screen drawn from it without a framework
//! ([`first_screen`]), and the Leptos components of the widgets below it ([`components`],
//! mounted by `more`; both behind the `widgets` feature, which the first module is built
//! without).

#[cfg(feature = "widgets")]
pub mod components;
pub mod first_screen;
pub mod markup;
#[cfg(feature = "widgets")]
pub mod more;
pub mod panic_panel;
pub mod state;

/// The first module: the page and the round trip. The widgets below the first screen arrive
/// with the second module ([`more::start`]).
pub fn start() {
    first_screen::start();
}
