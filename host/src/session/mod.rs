//! What the model sees and what running a skill does, over a session: the
//! session's event log, the rendered listing, injecting it (once, exactly),
//! conditional activation, and invocation.

pub mod activation;
pub mod approval;
pub mod inject;
pub mod invoke;
pub mod log;
pub mod render;

pub use log::{Event, JsonlLog, MemoryLog, SessionLog};
