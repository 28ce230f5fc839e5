//! What the model sees and what running a skill does, over a session: the
//! session's event log, the rendered listing, injecting it (once, exactly),
//! conditional activation, and invocation; [`Session`] holds them together
//! for an agent host.

pub mod activation;
pub mod approval;
mod handle;
pub mod inject;
pub mod invoke;
pub mod log;
pub mod rank;
pub mod render;
pub mod search;
#[cfg(test)]
mod test_skills;
pub mod usage;

pub use handle::Session;
pub use log::{Event, JsonlLog, MemoryLog, SessionLog};
pub use usage::Usage;
