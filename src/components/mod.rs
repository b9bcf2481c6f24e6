//! View components. Each reads results computed by the core; none types a verdict by hand.

mod app;
mod proof;

pub use app::App;
pub use proof::Proof;
