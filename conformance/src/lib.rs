//! The skillhost conformance kit: runs the provider contract against a
//! component and reports one check per rule, so a provider's own test is a
//! few lines:
//!
//! ```no_run
//! use skillhost_conformance::{Options, check};
//!
//! check("target/wasm32-wasip2/release/my_provider.wasm", Options::default())?
//!     .assert_passed();
//! # Ok::<(), skillhost_conformance::Error>(())
//! ```
//!
//! The component runs in the host's own sandbox, started exactly as the
//! registry starts a provider, and every answer is judged by the host's
//! own boundary checks. The run follows the provider's manifest: one that
//! says it reads no folder (`roots: none`) is granted none, the folder
//! fixtures are skipped with that reason, and every other check runs on
//! what it serves. Otherwise, without roots in the [`Options`], the kit
//! lays out a fixture tree of its own and grants it; a filesystem provider
//! (one that reads its roots) must list exactly the fixture's skills, and
//! follow the kit's changes to the tree with deltas and invalidations.
//! `skillhost conformance` runs the same checks from the command line.
//!
//! The checks, in report order: `contract`, `manifest`, `denied-imports`,
//! `init`, `snapshot`, `fixture-snapshot`, `boundary`, `delta`,
//! `on-change`, `load`, `resources`, `observe`, `memory`,
//! `invalidation-storm`, `deadlines`.

mod checks;
mod error;
mod fixture;
mod options;
mod report;
mod run;
mod session;

pub use error::Error;
pub use options::{Deadlines, Options};
pub use report::{Check, Component, Report, Status};
pub use run::{check, check_bytes};

/// Every check's id, in report order.
pub const CHECKS: [&str; 15] = [
    "contract",
    "manifest",
    "denied-imports",
    "init",
    "snapshot",
    "fixture-snapshot",
    "boundary",
    "delta",
    "on-change",
    "load",
    "resources",
    "observe",
    "memory",
    "invalidation-storm",
    "deadlines",
];
