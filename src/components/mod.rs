//! View components. Each reads traces and verdicts computed by the core; none types one in.

mod app;
mod check_list;
mod embed_docs;
pub mod inspector;
pub mod knobs;
pub mod misuse;
pub mod quiz;
pub mod raw;
pub mod roundtrip;
pub mod rules;
pub mod theme;
pub mod timeline;

pub use app::App;
pub use check_list::CheckList;
pub use inspector::TicketInspector;
pub use misuse::MisuseTicket;
pub use quiz::Quiz;
pub use raw::RunItRaw;
pub use roundtrip::RoundTrip;
pub use rules::RulesExplorer;
pub use timeline::TicketTimeline;
