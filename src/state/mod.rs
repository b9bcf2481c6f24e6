//! App state: plain types with methods (tested natively), between the world and the views.

pub mod audit_report;
pub mod checks_view;
pub mod clock_axis;
pub mod code;
pub mod embed;
pub mod geometry;
pub mod glossary;
pub mod highlight;
pub mod json_view;
pub mod link;
pub mod live;
pub mod mounts;
pub mod playback;
pub mod quiz;
pub mod scorm;
pub mod sdk_table;
pub mod spec_rules;
pub mod stage;
pub mod transcript;
