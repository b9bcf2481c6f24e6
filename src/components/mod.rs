//! View components. Each reads traces and verdicts computed by the core; none types one in.

mod app;
mod check_list;
pub mod embed_docs;
pub mod embedded;
pub mod inspector;
pub mod knobs;
pub mod later;
pub mod misuse;
pub mod page_link;
pub mod quiz;
pub mod raw;
pub mod roundtrip;
pub mod rules;
pub mod theme;
pub mod timeline;

pub use app::App;
pub use check_list::CheckList;
pub use embed_docs::EmbedDocs;
pub use inspector::TicketInspector;
pub use misuse::MisuseTicket;
pub use quiz::Quiz;
pub use raw::RunItRaw;
pub use roundtrip::RoundTrip;
pub use rules::RulesExplorer;
pub use timeline::TicketTimeline;
