//! View components. Each reads traces and verdicts computed by the core; none types one in.

mod app;
mod check_list;
pub mod roundtrip;

pub use app::App;
pub use check_list::CheckList;
pub use roundtrip::RoundTrip;
