//! What went wrong inside a provider call, classified so the host can say
//! which limit a provider broke (and restart it) instead of a generic trap.

use super::limits::Limiter;
use super::limits::MemoryCapExceeded;
use std::time::Duration;

/// Why a provider call failed inside the sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FaultKind {
    /// The call ran past its deadline and was stopped.
    Deadline,
    /// The provider tried to grow its memory past the cap.
    Memory,
    /// The provider overflowed its stack.
    Stack,
    /// The provider trapped (a panic, `unreachable`, a bad access).
    Trap,
    /// The component could not be instantiated or refused to initialise.
    Init,
    /// The provider called `invalidate-provider` faster than allowed.
    Flood,
    /// The provider tried to pass more data across the boundary than
    /// wasmtime allows in one call.
    Size,
    /// The provider went past a bound the host sets on what it may hold
    /// (instances, memories, tables, open resources).
    Limit,
}

impl FaultKind {
    /// A one-word tag for diagnostics and JSON: `deadline`, `memory`, ...
    pub fn as_str(&self) -> &'static str {
        match self {
            FaultKind::Deadline => "deadline",
            FaultKind::Memory => "memory",
            FaultKind::Stack => "stack",
            FaultKind::Trap => "trap",
            FaultKind::Init => "init",
            FaultKind::Flood => "flood",
            FaultKind::Size => "size",
            FaultKind::Limit => "limit",
        }
    }
}

/// A failed call: its kind and what the guest or wasmtime said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// The class of failure.
    pub kind: FaultKind,
    /// Details, including the tail of the guest's stderr when there is one.
    pub message: String,
}

impl Fault {
    pub(crate) fn new(kind: FaultKind, message: impl Into<String>) -> Self {
        Fault {
            kind,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.kind.as_str(), self.message)
    }
}

/// The error that stops a call at its deadline.
#[derive(Debug)]
pub(crate) struct DeadlineExceeded;

impl std::fmt::Display for DeadlineExceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the call ran past its deadline")
    }
}

impl std::error::Error for DeadlineExceeded {}

/// The error that stops a provider flooding `invalidate-provider`.
#[derive(Debug)]
pub(crate) struct Flooded(pub u32);

impl std::fmt::Display for Flooded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "more than {} invalidate-provider calls in a second",
            self.0
        )
    }
}

impl std::error::Error for Flooded {}

/// What the store saw of the call that ended: the guest's last stderr,
/// the call's time budget and its memory limiter.
pub(crate) struct Seen<'a> {
    pub(crate) stderr_tail: String,
    pub(crate) budget: Duration,
    pub(crate) limiter: &'a Limiter,
}

/// Classifies the error a call ended with, using what the store saw.
pub(crate) fn classify(error: wasmtime::Error, seen: Seen<'_>) -> Fault {
    let tail = seen.stderr_tail;
    let with_tail = |message: String| {
        if tail.is_empty() {
            message
        } else {
            format!("{message} (stderr: {tail})")
        }
    };
    if let Some(flood) = error.downcast_ref::<Flooded>() {
        return Fault::new(FaultKind::Flood, flood.to_string());
    }
    if format!("{error:#}").contains("fuel allocated for hostcalls has been exhausted") {
        return Fault::new(
            FaultKind::Size,
            with_tail("tried to pass more data across the boundary than one call may".to_string()),
        );
    }
    if let Some(full) = error.downcast_ref::<wasmtime::component::ResourceTableError>() {
        return Fault::new(
            FaultKind::Limit,
            with_tail(format!(
                "held more than {} open resources (descriptors, streams, requests): {full}",
                super::limits::MAX_HANDLES
            )),
        );
    }
    let text = format!("{error:#}");
    if text.contains("resource limit exceeded") {
        return Fault::new(
            FaultKind::Limit,
            with_tail(format!(
                "{text} (at most {} instances, {} memories, {} tables per provider)",
                super::limits::MAX_INSTANCES,
                super::limits::MAX_MEMORIES,
                super::limits::MAX_TABLES
            )),
        );
    }
    if error.downcast_ref::<DeadlineExceeded>().is_some() {
        return Fault::new(
            FaultKind::Deadline,
            format!("stopped after the {:?} deadline", seen.budget),
        );
    }
    if seen.limiter.exceeded || error.downcast_ref::<MemoryCapExceeded>().is_some() {
        return Fault::new(
            FaultKind::Memory,
            with_tail(format!(
                "exceeded the {} byte memory cap",
                seen.limiter.memory_bytes
            )),
        );
    }
    if let Some(trap) = error.downcast_ref::<wasmtime::Trap>() {
        let kind = match trap {
            wasmtime::Trap::StackOverflow => FaultKind::Stack,
            wasmtime::Trap::Interrupt => FaultKind::Deadline,
            _ => FaultKind::Trap,
        };
        return Fault::new(kind, with_tail(trap.to_string()));
    }
    Fault::new(FaultKind::Trap, with_tail(format!("{error:#}")))
}
